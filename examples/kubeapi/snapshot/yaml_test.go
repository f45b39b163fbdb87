package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// wholeYAMLAsJSON is how YAML was read before it was streamed, written
// again here apart from the reader: the input cut at its separator lines,
// each document converted whole by sigs.k8s.io/yaml, the objects one after
// another as a JSON stream (empty and null documents left out). ok is
// false when a document does not convert to an object.
func wholeYAMLAsJSON(data []byte) (stream []byte, ok bool) {
	lines := strings.SplitAfter(string(data), "\n")
	var docs []string
	var doc strings.Builder
	for _, line := range lines {
		if l := strings.TrimRight(line, "\r\n"); l == "---" || strings.HasPrefix(l, "--- ") {
			docs = append(docs, doc.String())
			doc.Reset()
			continue
		}
		doc.WriteString(line)
	}
	docs = append(docs, doc.String())
	var out bytes.Buffer
	for _, d := range docs {
		j, err := yaml.YAMLToJSON([]byte(d))
		if err != nil {
			return nil, false
		}
		j = bytes.TrimSpace(j)
		if len(j) == 0 || string(j) == "null" {
			continue
		}
		if j[0] != '{' {
			return nil, false
		}
		out.Write(j)
		out.WriteByte('\n')
	}
	return out.Bytes(), true
}

// sameRead reports how a snapshot read from YAML differs from the one read
// from its whole conversion to JSON ("" when it does not): the objects,
// and the warnings' messages (their sources name documents in one and
// objects in the other).
func sameRead(a, b *Snapshot, wa, wb []Warning) string {
	if !reflect.DeepEqual(a.Nodes, b.Nodes) || !reflect.DeepEqual(a.Pods, b.Pods) || !reflect.DeepEqual(a.Leases, b.Leases) ||
		!reflect.DeepEqual(a.PriorityClasses, b.PriorityClasses) || a.Refused != b.Refused {
		return fmt.Sprintf("objects differ:\n%s\nagainst\n%s", summary(a), summary(b))
	}
	if len(wa) != len(wb) {
		return fmt.Sprintf("%d warnings against %d: %v against %v", len(wa), len(wb), wa, wb)
	}
	for i := range wa {
		if wa[i].Message != wb[i].Message || wa[i].Item != wb[i].Item {
			return fmt.Sprintf("warning %d: %v against %v", i, wa[i], wb[i])
		}
	}
	return ""
}

// A List as a person or another tool may write it: entries indented under
// items, comments at every level, blank lines, a block scalar whose lines
// look like comments, a quoted scalar run over lines with a line that
// starts with "#", kind after the items, CRLF line breaks.
const handYAML = `# a cluster, by hand
apiVersion: v1

items:
  # the first node
  - apiVersion: v1
    kind: Node
    metadata:
      name: n1
      annotations:
        note: |
          first
          # kept: a line of the block

          last
        quoted: "a
          # b"
        folded: >-
          one
          two
      labels:
        zone: a   # a comment after a value
# a comment at the first column, between two items
  - apiVersion: v1
    kind: Pod
    metadata: {name: p1, namespace: default, annotations: {a: 'it''s', b: "#not-a-comment"}}
    spec:
      nodeName: n1
      containers:
      - name: c
        image: "x:1"
    status: {phase: Running}

  -
    apiVersion: coordination.k8s.io/v1
    kind: Lease
    metadata:
      name: n1
      namespace: kube-node-lease
# the List's kind last, as kubectl prints it
kind: List
metadata:
  resourceVersion: ""
`

// TestYAMLStream: what the streamed reader reads from YAML is what the
// whole conversion reads, on kubectl's output, on a List written by hand,
// on documents of single objects, and on each with CRLF line breaks; the
// values a line scanner could lose are checked as written.
func TestYAMLStream(t *testing.T) {
	sample, err := yaml.JSONToYAML(readFile(t, "testdata/sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	docs := "---\n# leading comment\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: a\n---   \n--- # a comment\n" +
		"apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: x\nspec:\n  nodeName: a\n---\n"
	// comment lines between a key and what it holds, inside an item, and
	// one inside a block scalar (its content, not a comment)
	comments := "kind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n  # c1\n\n    name: a\n    labels:\n      # c2\n      x: \"y\"\n" +
		"    annotations:\n      a: |\n        text\n        # not a comment\n      b: plain\n        continued\n# c3\n\n" +
		"- apiVersion: v1\n  kind: Pod\n  metadata: {name: p, namespace: d}\n  # c4\n  spec: {nodeName: a}\n"
	for _, c := range []struct{ name, data string }{
		{"kubectl -o yaml", string(sample)},
		{"by hand", handYAML},
		{"documents", docs},
		{"comments", comments},
		// a comment longer than the reader's buffer (1 MiB), its characters cut
		// between chunks: checked whole, allowed
		{"a long comment", "#" + strings.Repeat("\u20ac\u00e9", 500000) + "\n" + comments},
	} {
		for _, crlf := range []bool{false, true} {
			data := c.data
			if crlf {
				data = strings.ReplaceAll(data, "\n", "\r\n")
			}
			j, ok := wholeYAMLAsJSON([]byte(data))
			if !ok {
				t.Fatalf("%s: the whole conversion fails", c.name)
			}
			want, wws, err := Decode(j, "x.json")
			if err != nil {
				t.Fatalf("%s: the whole conversion: %v", c.name, err)
			}
			got, gws, err := Decode([]byte(data), "x.yaml")
			if err != nil {
				t.Fatalf("%s (CRLF %v): %v", c.name, crlf, err)
			}
			if d := sameRead(got, want, gws, wws); d != "" {
				t.Errorf("%s (CRLF %v): %s", c.name, crlf, d)
			}
		}
	}
	s, _, err := Decode([]byte(handYAML), "hand.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Nodes) != 1 || len(s.Pods) != 1 || len(s.Leases) != 1 {
		t.Fatalf("by hand: %s", summary(s))
	}
	a := s.Nodes[0].Annotations
	for k, want := range map[string]string{"note": "first\n# kept: a line of the block\n\nlast\n", "quoted": "a # b", "folded": "one two"} {
		if a[k] != want {
			t.Errorf("annotation %s = %q, want %q", k, a[k], want)
		}
	}
	if z := s.Nodes[0].Labels["zone"]; z != "a" {
		t.Errorf("label zone = %q, want a", z)
	}
	if pa := s.Pods[0].Annotations; !reflect.DeepEqual(pa, map[string]string{"a": "it's", "b": "#not-a-comment"}) {
		t.Errorf("pod annotations = %q", pa)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The errors of the streamed reader name the line of the input, and what
// the whole conversion refused (a key twice) it refuses.
func TestYAMLStreamErrors(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"bad item", "apiVersion: v1\n# c\nitems:\n- kind: Node\n  metadata: {name: [\n", "bad.yaml: not JSON or YAML: yaml: line 5: did not find expected node content"},
		{"a key twice", "kind: List\nitems: []\nkind: NodeList\n", "bad.yaml: not JSON or YAML: line 3: key \"kind\" again (first at line 1)"},
		{"items twice", "items:\n- kind: Node\n  metadata: {name: a}\nitems:\n- {}\n", "bad.yaml: not JSON or YAML: line 4: key \"items\" again (first at line 1)"},
		{"indentation", "kind: List\nitems:\n  - kind: Node\n metadata: {}\n", "bad.yaml: not JSON or YAML: line 4: a line indented by 1 where the document's next top-level key belongs"},
		{"second document", "kind: Node\nmetadata: {name: a}\n---\nkind: Node\nmetadata: {name: [\n", "bad.yaml (document 2): not JSON or YAML: yaml: line 5: did not find expected node content"},
		// a comment ends a plain scalar: the indented line after it
		// continues nothing, though it would without the comment (the
		// line numbers are those the whole conversion gives)
		{"comment in a key's value", "kind: List\nitems: []\nx:y: 0\n# c\n\n 1\n", "bad.yaml: not JSON or YAML: yaml: line 5: did not find expected key"},
		{"comment in an item", "kind: List\nitems:\n- kind: Node\n  metadata:\n    name: a\n\n    # c\n   b\n", "bad.yaml: not JSON or YAML: yaml: line 7: did not find expected key"},
		// the YAML reader refuses these characters anywhere, a dropped
		// comment's included
		{"invalid UTF-8 in a comment", "kind: List\nitems:\n  # n\x99\n- kind: Node\n", "bad.yaml: not JSON or YAML: line 3: a comment holds a character YAML does not allow (invalid UTF-8 or a control character)"},
		{"a control character in a comment", "# \x01\nkind: List\n", "bad.yaml: not JSON or YAML: line 1: a comment holds a character YAML does not allow"},
		{"a character cut at a comment's end", "kind: List\n#" + strings.Repeat("\u20ac", 700000) + "\xe2\x82\nitems: []\n", "bad.yaml: not JSON or YAML: line 2: a comment holds a character YAML does not allow"},
		{"a surrogate in a comment", "kind: List\n# \xed\xa0\x80\n", "bad.yaml: not JSON or YAML: line 2: a comment holds"},
	} {
		_, _, err := Decode([]byte(c.data), "bad.yaml")
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if j, ok := wholeYAMLAsJSON([]byte(c.data)); ok {
			if _, _, err := Decode(j, "bad.json"); err == nil && c.name != "indentation" {
				t.Errorf("%s: the whole conversion reads it", c.name)
			}
		}
	}
}

// FuzzYAML compares the streamed reader with the whole conversion on
// arbitrary YAML: what the streamed one reads, the whole one reads alike;
// what the whole one reads, the streamed one reads too, unless it uses
// what one item cannot see alone (anchors and aliases, merge keys) or what
// the stream refuses on purpose (a top-level key twice).
func FuzzYAML(f *testing.F) {
	sample, _ := yaml.JSONToYAML(readFileF(f, "testdata/sample.json"))
	for _, seed := range []string{string(sample), handYAML,
		"apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\nkind: PodList\nitems: []\n",
		"items:\n- kind: Node\n  metadata:\n    name: n\n    annotations:\n      a: |+\n        x\n\n# c\n- {kind: Node, metadata: {name: m}}\nkind: List\n",
		"kind: NodeList\nitems:\n  - metadata:\n      name: \"a\n        # b\"\n  - metadata: {name: c}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// as readFrom does, before it tells the shapes apart
		body := bytes.TrimLeft(data, " \t\r\n")
		if len(body) == 0 || body[0] == '{' || body[0] == 0x1f || bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) ||
			sniff(data[:min(len(data), 512)]) != nil {
			return // JSON, gzip, refused at its first bytes: not the YAML path
		}
		got, gws, gerr := Decode(data, "f.yaml")
		if gerr != nil && !errors.Is(gerr, ErrInvalid) {
			t.Fatalf("error %v does not wrap ErrInvalid", gerr)
		}
		j, ok := wholeYAMLAsJSON(body)
		var want *Snapshot
		var wws []Warning
		werr := errors.New("does not convert")
		if ok {
			want, wws, werr = Decode(j, "f.json")
		}
		switch {
		case gerr == nil && werr != nil:
			t.Fatalf("the stream reads what the whole conversion refuses (%v):\n%s", werr, summary(got))
		case gerr == nil:
			if d := sameRead(got, want, gws, wws); d != "" {
				t.Fatal(d)
			}
		case werr == nil && !bytes.ContainsAny(data, "&*<") && !strings.Contains(gerr.Error(), " again (first at line "):
			t.Fatalf("the stream refuses what the whole conversion reads: %v", gerr)
		}
	})
}

func readFileF(f *testing.F, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return data
}
