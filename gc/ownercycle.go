package gc

import "slices"

// Cycles returns the owner cycles the collector never collects: the
// strongly connected components of the solid-reference graph (dependent
// -> owner), with more than one member or a member that owns itself. Each
// member has a solid owner inside the cycle, so none is ever deleted, and
// neither is anything whose owners are all such members, until someone
// deletes a member (a background delete of any member unwinds the cycle).
// Upstream has no such report. Members are ordered by object, cycles by
// their first member.
func (g *OwnerGraph) Cycles() [][]ObjectRef {
	// Only an object with a solid owner and a solid dependent can be on a
	// cycle; most graphs have none, and Tarjan runs on those alone.
	n := len(g.objs)
	in := make([]bool, n)
	for j, owner := range g.refOwner {
		if g.state(int32(j)) == RefSolid {
			in[owner] = true
		}
	}
	dense := make(map[int32]int32)
	var members []int32
	for i := 0; i < n; i++ {
		if !in[i] {
			continue
		}
		for j := g.refStart[i]; j < g.refStart[i+1]; j++ {
			if g.state(j) == RefSolid && in[g.refOwner[j]] {
				dense[int32(i)] = int32(len(members))
				members = append(members, int32(i))
				break
			}
		}
	}
	if len(members) == 0 {
		return nil
	}
	start := make([]int32, len(members)+1)
	var adj []int32
	for k, i := range members {
		start[k] = int32(len(adj))
		for j := g.refStart[i]; j < g.refStart[i+1]; j++ {
			if w, ok := dense[g.refOwner[j]]; ok && g.state(j) == RefSolid {
				adj = append(adj, w)
			}
		}
	}
	start[len(members)] = int32(len(adj))
	comps := tarjan(len(members), start, adj)
	for _, c := range comps {
		for k, v := range c {
			c[k] = members[v]
		}
	}
	return g.componentRefs(comps)
}

// Deadlocks returns the foreground deletions that wait on each other
// forever: the cycles of the "waits for" relation among objects deleting
// in the foreground, where X waits for Y when Y holds a blocking reference
// to X. Each such object only waits (upstream's attemptToDelete returns
// before it would change anything), so nothing in the cycle ever goes
// until someone edits a reference or a finalizer.
func (g *OwnerGraph) Deadlocks() [][]ObjectRef {
	n := len(g.objs)
	if !g.anyForeground {
		return nil
	}
	start := make([]int32, n+1)
	var adj []int32
	for i := 0; i < n; i++ {
		start[i] = int32(len(adj))
		if g.objs[i].deletingDependents() && !hasString(g.objs[i].Finalizers, FinalizerOrphan) {
			for _, d := range g.blockingDependents(int32(i)) {
				if o := &g.objs[d]; o.deletingDependents() && !hasString(o.Finalizers, FinalizerOrphan) {
					adj = append(adj, d)
				}
			}
		}
	}
	start[n] = int32(len(adj))
	return g.componentRefs(tarjan(n, start, adj))
}

func (g *OwnerGraph) componentRefs(comps [][]int32) [][]ObjectRef {
	out := make([][]ObjectRef, 0, len(comps))
	for _, c := range comps {
		out = append(out, g.refsOf(c))
	}
	slices.SortFunc(out, func(a, b []ObjectRef) int { return compareRefs(&a[0], &b[0]) })
	return out
}

// tarjan returns the strongly connected components of the graph with n
// vertices and successors adj[start[v]:start[v+1]] (negative entries are
// no edge) that have more than one vertex or a self-loop. It is Tarjan's
// algorithm with an explicit stack, so a chain of a million objects does
// not recurse a million deep.
func tarjan(n int, start, adj []int32) [][]int32 {
	index := make([]int32, n) // 0: unvisited; else visit order + 1
	low := make([]int32, n)
	onStack := make([]bool, n)
	var stack []int32
	type frame struct{ v, next int32 }
	var call []frame
	var out [][]int32
	counter := int32(0)
	for s := 0; s < n; s++ {
		if index[s] != 0 {
			continue
		}
		counter++
		index[s], low[s] = counter, counter
		stack = append(stack, int32(s))
		onStack[s] = true
		call = append(call, frame{int32(s), start[s]})
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.next < start[v+1] {
				w := adj[f.next]
				f.next++
				switch {
				case w < 0:
				case index[w] == 0:
					counter++
					index[w], low[w] = counter, counter
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, start[w]})
				case onStack[w]:
					low[v] = min(low[v], index[w])
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] != index[v] {
				continue
			}
			k := len(stack) - 1
			for stack[k] != v {
				k--
			}
			comp := stack[k:]
			stack = stack[:k]
			for _, w := range comp {
				onStack[w] = false
			}
			if len(comp) > 1 || selfLoop(v, start, adj) {
				out = append(out, slices.Clone(comp))
			}
		}
	}
	return out
}

func selfLoop(v int32, start, adj []int32) bool {
	for _, w := range adj[start[v]:start[v+1]] {
		if w == v {
			return true
		}
	}
	return false
}
