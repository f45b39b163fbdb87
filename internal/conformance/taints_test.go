package conformance

import (
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/go-logr/logr"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	utiltaints "k8s.io/kubernetes/pkg/util/taints"

	"github.com/nodelife/nodelife/examples/kubeapi"
	"github.com/nodelife/nodelife/taints"
)

// discard swallows the errors upstream logs for Lt/Gt values that are not
// integers (one per such comparison).
var discard = logr.Discard()

func randomTaint(r *rand.Rand) v1.Taint {
	t := v1.Taint{Key: mangle(r, oneOf(r, keyPool)), Value: mangle(r, oneOf(r, valuePool)), Effect: v1.TaintEffect(oneOf(r, effectPool))}
	if r.Intn(8) == 0 {
		t.TimeAdded = &metav1.Time{Time: time.Unix(1_700_000_000+int64(r.Intn(100)), 0)}
	}
	return t
}

func randomToleration(r *rand.Rand) v1.Toleration {
	tol := v1.Toleration{Key: oneOf(r, keyPool), Operator: v1.TolerationOperator(oneOf(r, opPool)), Value: oneOf(r, valuePool), Effect: v1.TaintEffect(oneOf(r, effectPool))}
	if r.Intn(3) == 0 {
		tol.Key = mangle(r, tol.Key)
		tol.Value = mangle(r, tol.Value)
	}
	if r.Intn(4) == 0 {
		s := int64(r.Intn(600))
		tol.TolerationSeconds = &s
	}
	return tol
}

// nearTaint draws a taint that a given toleration often matches: same key,
// effect or value most of the time.
func nearTaint(r *rand.Rand, tol v1.Toleration) v1.Taint {
	t := randomTaint(r)
	if r.Intn(3) > 0 {
		t.Key = tol.Key
	}
	if r.Intn(3) > 0 && tol.Effect != "" {
		t.Effect = tol.Effect
	}
	if r.Intn(2) == 0 {
		t.Value = tol.Value
	}
	return t
}

func taintsList(r *rand.Rand, max int) []v1.Taint {
	out := make([]v1.Taint, r.Intn(max+1))
	for i := range out {
		out[i] = randomTaint(r)
	}
	return out
}

func tolerationsFor(r *rand.Rand, ts []v1.Taint, max int) []v1.Toleration {
	out := make([]v1.Toleration, r.Intn(max+1))
	for i := range out {
		out[i] = randomToleration(r)
		if len(ts) > 0 && r.Intn(2) == 0 {
			t := ts[r.Intn(len(ts))]
			out[i].Key, out[i].Effect = t.Key, t.Effect
			if r.Intn(2) == 0 {
				out[i].Value = t.Value
			}
		}
	}
	return out
}

// sameTaints compares upstream's taints with nodelife's field by field (a nil
// TimeAdded is the zero time).
func sameTaints(up []v1.Taint, nl []taints.Taint) bool {
	if len(up) != len(nl) {
		return false
	}
	for i := range up {
		u, n := up[i], nl[i]
		if u.Key != n.Key || u.Value != n.Value || string(u.Effect) != string(n.Effect) {
			return false
		}
		if (u.TimeAdded == nil) != n.TimeAdded.IsZero() || (u.TimeAdded != nil && !u.TimeAdded.Time.Equal(n.TimeAdded)) {
			return false
		}
	}
	return true
}

func sameTaintPtrs(up []*v1.Taint, nl []taints.Taint) bool {
	vals := make([]v1.Taint, len(up))
	for i, p := range up {
		vals[i] = *p
	}
	return sameTaints(vals, nl)
}

func one(t v1.Taint) taints.Taint { return kubeapi.Taints([]v1.Taint{t})[0] }

func oneTol(t v1.Toleration) taints.Toleration {
	return kubeapi.Tolerations([]v1.Toleration{t})[0]
}

func TestDifferentialParseTaints(t *testing.T) {
	c := compare(t, "taints.ParseTaints", "pkg/util/taints.ParseTaints",
		"1-4 specs: key, key:effect, key=value:effect, key=value, with and without the trailing '-', from pools of valid, invalid and mangled keys, values and effects")
	r := rand.New(rand.NewSource(11))
	var ok int
	for i, n := 0, inputs(t); i < n; i++ {
		specs := make([]string, 1+r.Intn(4))
		for j := range specs {
			specs[j] = taintSpec(r)
		}
		upAdd, upRemove, upErr := utiltaints.ParseTaints(specs)
		nlAdd, nlRemove, nlErr := taints.ParseTaints(specs)
		switch {
		case (upErr == nil) != (nlErr == nil):
			c.disagree("%q: upstream error %v, nodelife error %v", specs, upErr, nlErr)
		case upErr != nil:
			c.agree()
		case !sameTaints(upAdd, nlAdd) || !sameTaints(upRemove, nlRemove):
			c.disagree("%q: upstream %v %v, nodelife %v %v", specs, upAdd, upRemove, nlAdd, nlRemove)
		default:
			ok++
			c.agree()
		}
	}
	t.Logf("%d of the spec lists parsed without error on both sides", ok)
}

func TestDifferentialTaintString(t *testing.T) {
	c := compare(t, "taints.Taint.String", "core/v1.Taint.ToString", "taints with keys, values and effects from the pools, mangled, empty parts included")
	r := rand.New(rand.NewSource(12))
	for i, n := 0, inputs(t); i < n; i++ {
		tt := randomTaint(r)
		up, nl := tt.ToString(), one(tt).String()
		c.check(diffString(up, nl))
	}
}

func diffString(up, nl string) string {
	if up == nl {
		return ""
	}
	return fmt.Sprintf("upstream %q, nodelife %q", up, nl)
}

func diffBool(what string, up, nl bool) string {
	if up == nl {
		return ""
	}
	return fmt.Sprintf("%s: upstream %v, nodelife %v", what, up, nl)
}

func TestDifferentialToleratesTaint(t *testing.T) {
	for _, cmpOps := range []bool{false, true} {
		t.Run(fmt.Sprintf("ComparisonOperators=%v", cmpOps), func(t *testing.T) {
			name, up := "taints.Toleration.ToleratesTaint", "core/v1.Toleration.ToleratesTaint(enableComparisonOperators=false)"
			if cmpOps {
				name, up = "taints.Matcher{ComparisonOperators: true}.ToleratesTaint", "core/v1.Toleration.ToleratesTaint(enableComparisonOperators=true)"
			}
			c := compare(t, name, up, "a toleration (Equal, Exists, empty, Lt, Gt and unknown operators; integer, non-canonical and out-of-range values) against a taint sharing its key, effect or value most of the time")
			m := taints.Matcher{ComparisonOperators: cmpOps}
			r := rand.New(rand.NewSource(13))
			matched := 0
			for i, n := 0, inputs(t); i < n; i++ {
				tol := randomToleration(r)
				tt := nearTaint(r, tol)
				upv := tol.ToleratesTaint(discard, &tt, cmpOps)
				if upv {
					matched++
				}
				ntol, ntt := oneTol(tol), one(tt)
				c.check(diffBool(fmt.Sprintf("%+v against %+v", tol, tt), upv, m.ToleratesTaint(&ntol, &ntt)))
			}
			t.Logf("%d tolerated", matched)
		})
	}
}

func TestDifferentialTolerationsTolerateTaint(t *testing.T) {
	for _, cmpOps := range []bool{false, true} {
		t.Run(fmt.Sprintf("ComparisonOperators=%v", cmpOps), func(t *testing.T) {
			c := compare(t, fmt.Sprintf("taints.Matcher{ComparisonOperators: %v}.TolerationsTolerateTaint", cmpOps),
				fmt.Sprintf("component-helpers/scheduling/corev1.TolerationsTolerateTaint(enableComparisonOperators=%v)", cmpOps),
				"0-4 tolerations, half aimed at the taint, against one taint")
			m := taints.Matcher{ComparisonOperators: cmpOps}
			r := rand.New(rand.NewSource(14))
			for i, n := 0, inputs(t); i < n; i++ {
				tt := randomTaint(r)
				tols := tolerationsFor(r, []v1.Taint{tt}, 4)
				upv := corev1helpers.TolerationsTolerateTaint(discard, tols, &tt, cmpOps)
				ntt := one(tt)
				c.check(diffBool(fmt.Sprintf("%+v against %+v", tols, tt), upv, m.TolerationsTolerateTaint(kubeapi.Tolerations(tols), &ntt)))
			}
		})
	}
}

func TestDifferentialFindMatchingUntoleratedTaint(t *testing.T) {
	hardUp := func(t *v1.Taint) bool {
		return t.Effect == v1.TaintEffectNoSchedule || t.Effect == v1.TaintEffectNoExecute
	}
	hardNL := func(t taints.Taint) bool {
		return t.Effect == taints.TaintEffectNoSchedule || t.Effect == taints.TaintEffectNoExecute
	}
	for _, cmpOps := range []bool{false, true} {
		t.Run(fmt.Sprintf("ComparisonOperators=%v", cmpOps), func(t *testing.T) {
			c := compare(t, fmt.Sprintf("taints.Matcher{ComparisonOperators: %v}.FindMatchingUntoleratedTaint", cmpOps),
				fmt.Sprintf("component-helpers/scheduling/corev1.FindMatchingUntoleratedTaint(enableComparisonOperators=%v)", cmpOps),
				"0-5 taints, 0-5 tolerations aimed at them half the time, no filter or the scheduler's NoSchedule/NoExecute filter")
			m := taints.Matcher{ComparisonOperators: cmpOps}
			r := rand.New(rand.NewSource(15))
			found := 0
			for i, n := 0, inputs(t); i < n; i++ {
				ts := taintsList(r, 5)
				tols := tolerationsFor(r, ts, 5)
				var fu func(*v1.Taint) bool
				var fn func(taints.Taint) bool
				if r.Intn(2) == 0 {
					fu, fn = hardUp, hardNL
				}
				upT, upOK := corev1helpers.FindMatchingUntoleratedTaint(discard, ts, tols, fu, cmpOps)
				nlT, nlOK := m.FindMatchingUntoleratedTaint(kubeapi.Taints(ts), kubeapi.Tolerations(tols), fn)
				if upOK {
					found++
				}
				switch {
				case upOK != nlOK:
					c.disagree("%+v, %+v: upstream %v, nodelife %v", ts, tols, upOK, nlOK)
				case upOK && !sameTaints([]v1.Taint{upT}, []taints.Taint{nlT}):
					c.disagree("%+v, %+v: upstream %+v, nodelife %+v", ts, tols, upT, nlT)
				default:
					c.agree()
				}
			}
			t.Logf("%d with an untolerated taint", found)
		})
	}
}

func TestDifferentialMatch(t *testing.T) {
	r := rand.New(rand.NewSource(16))
	n := inputs(t)
	ct := compare(t, "taints.Taint.MatchTaint", "core/v1.Taint.MatchTaint", "pairs of taints sharing key or effect often")
	for i := 0; i < n; i++ {
		a := randomTaint(r)
		b := randomTaint(r)
		if r.Intn(2) == 0 {
			b.Key = a.Key
		}
		if r.Intn(2) == 0 {
			b.Effect = a.Effect
		}
		ct.check(diffBool("MatchTaint", a.MatchTaint(&b), one(a).MatchTaint(one(b))))
	}
	cl := compare(t, "taints.Toleration.MatchToleration", "core/v1.Toleration.MatchToleration", "pairs of tolerations sharing fields often")
	for i := 0; i < n; i++ {
		a := randomToleration(r)
		b := a
		switch r.Intn(5) {
		case 0:
			b = randomToleration(r)
		case 1:
			b.Operator = v1.TolerationOperator(oneOf(r, opPool))
		case 2:
			b.Value = oneOf(r, valuePool)
		case 3:
			s := int64(r.Intn(10))
			b.TolerationSeconds = &s
		}
		cl.check(diffBool("MatchToleration", a.MatchToleration(&b), oneTol(a).MatchToleration(oneTol(b))))
	}
}

// The taint-list helpers the node lifecycle controller and kubectl use.
func TestDifferentialTaintSets(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	n := inputs(t)
	pick := func(ts []v1.Taint) v1.Taint {
		if len(ts) > 0 && r.Intn(3) > 0 {
			x := ts[r.Intn(len(ts))]
			if r.Intn(2) == 0 {
				x.Value = oneOf(r, valuePool)
			}
			return x
		}
		return randomTaint(r)
	}
	const tried = "lists of 0-5 taints; the taint looked for taken from the list (value changed half the time) two times in three"
	exists := compare(t, "taints.Exists", "pkg/util/taints.TaintExists", tried)
	del := compare(t, "taints.Delete", "pkg/util/taints.DeleteTaint", tried)
	delKey := compare(t, "taints.DeleteByKey", "pkg/util/taints.DeleteTaintsByKey", tried)
	add := compare(t, "taints.AddOrUpdate", "pkg/util/taints.AddOrUpdateTaint", tried)
	diff := compare(t, "taints.Diff", "pkg/util/taints.TaintSetDiff", "two lists of 0-5 taints, the second sharing taints with the first")
	for i := 0; i < n; i++ {
		ts := taintsList(r, 5)
		x := pick(ts)
		nts, nx := kubeapi.Taints(ts), one(x)
		exists.check(diffBool("TaintExists", utiltaints.TaintExists(ts, &x), taints.Exists(nts, nx)))

		upOut, upDel := utiltaints.DeleteTaint(ts, &x)
		nlOut, nlDel := taints.Delete(nts, nx)
		if upDel != nlDel || !sameTaints(upOut, nlOut) {
			del.disagree("%+v without %+v: upstream %v %v, nodelife %v %v", ts, x, upOut, upDel, nlOut, nlDel)
		} else {
			del.agree()
		}

		upOut, upDel = utiltaints.DeleteTaintsByKey(ts, x.Key)
		nlOut, nlDel = taints.DeleteByKey(nts, x.Key)
		if upDel != nlDel || !sameTaints(upOut, nlOut) {
			delKey.disagree("%+v without key %q: upstream %v %v, nodelife %v %v", ts, x.Key, upOut, upDel, nlOut, nlDel)
		} else {
			delKey.agree()
		}

		node := &v1.Node{Spec: v1.NodeSpec{Taints: ts}}
		upNode, upUpd, _ := utiltaints.AddOrUpdateTaint(node, &x)
		nlOut, nlUpd := taints.AddOrUpdate(nts, nx)
		if upUpd != nlUpd || !sameTaints(upNode.Spec.Taints, nlOut) {
			add.disagree("%+v plus %+v: upstream %v %v, nodelife %v %v", ts, x, upNode.Spec.Taints, upUpd, nlOut, nlUpd)
		} else {
			add.agree()
		}

		other := taintsList(r, 5)
		for j := range other {
			if len(ts) > 0 && r.Intn(2) == 0 {
				other[j] = ts[r.Intn(len(ts))]
			}
		}
		upAdd, upRemove := utiltaints.TaintSetDiff(other, ts)
		nlAdd, nlRemove := taints.Diff(nts, kubeapi.Taints(other))
		if !sameTaintPtrs(upAdd, nlAdd) || !sameTaintPtrs(upRemove, nlRemove) {
			diff.disagree("old %+v new %+v: upstream %v %v, nodelife %v %v", ts, other, upAdd, upRemove, nlAdd, nlRemove)
		} else {
			diff.agree()
		}
	}
}
