package snapshot

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// The shapes a List read item by item must still read as a whole List
// reads: kubectl prints the List's kind after its items, so a kind-less
// item waits for it; a List that turns out, at its end, to be of a kind
// not read is skipped whole, whatever of it was decoded; a typed object
// with an items member is that object.
func TestStreamedListShapes(t *testing.T) {
	node := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n0"}}`
	for _, tc := range []struct {
		name, data   string
		nodes, pods  int
		warning, err string
	}{
		{"kind after kind-less items", `{"apiVersion":"v1","items":[{"metadata":{"name":"n1"}},` + node + `],"kind":"NodeList","metadata":{}}`, 2, 0, "", ""},
		{"a typed List without apiVersion, its items kind-less", `{"kind":"NodeList","apiVerhion":"v1","items":[{"metadata":{"name":"n"}}]}`, 1, 0, "", ""},
		{"apiVersion after kind-less items", `{"kind":"PodList","items":[{"metadata":{"name":"p","namespace":"x"}}],"apiVersion":"v1"}` + node, 1, 1, "", ""},
		{"a List of another kind, its kind last", `{"apiVersion":"v1","items":[` + node + `,{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"x"}}],"kind":"ConfigMapList"}` + node,
			1, 0, "in.json (object 1): kind ConfigMapList (2 items) skipped: the replay does not use it", ""},
		{"a List of another kind, its kind first", `{"kind":"ConfigMapList","items":[{},{},{}]}` + node, 1, 0, "in.json (object 1): kind ConfigMapList (3 items) skipped", ""},
		{"a List of another kind with items null", node + `{"kind":"EventList","apiVersion":"v1","metadata":{},"items":null}`, 1, 0, "", ""},
		{"a List of another kind without items", node + `{"kind":"EventList","apiVersion":"v1"}`, 1, 0, "", ""},
		{"a Pod with items", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"x"},"items":[` + node + `]}` + node, 1, 1, "", ""},
		{"a Pod with items before its kind", `{"apiVersion":"v1","items":[` + node + `],"kind":"Pod","metadata":{"name":"p","namespace":"x"}}` + node, 1, 1, "", ""},
		{"items twice", `{"kind":"List","items":[],"items":[]}`, 0, 0, "", "in.json: offset 34: items appears twice"},
		{"not JSON in the items", "{\"kind\":\"List\",\"items\":[\n" + node + ",\n oops]}", 0, 0, "",
			"in.json: item 1: line 1: invalid character 'o' looking for beginning of value"},
		{"not JSON between the items", "{\"kind\":\"List\",\"items\":[\n" + node + ",\n" + node + " oops]}", 0, 0, "",
			"in.json: not JSON: line 3: invalid character 'o' after array element"},
		{"not JSON after the items", "{\"kind\":\"List\",\"items\":[" + node + "]\n\n\"x\":1}", 0, 0, "",
			`in.json: not JSON: line 3: invalid character '"' after object key:value pair`},
		{"a bad item before bad JSON", `{"kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":5}}, oops]}`, 0, 0, "",
			"in.json: item 0 (Node 5): field metadata.name: cannot use JSON number as string"},
		{"the end in the items", `{"kind":"List","items":[` + node, 0, 0, "", "in.json: not JSON: line 1: unexpected end of JSON input"},
	} {
		s, ws, err := Decode([]byte(tc.data), "in.json")
		switch {
		case tc.err != "":
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case len(s.Nodes) != tc.nodes || len(s.Pods) != tc.pods:
			t.Errorf("%s: %d nodes, %d pods; want %d, %d", tc.name, len(s.Nodes), len(s.Pods), tc.nodes, tc.pods)
		case tc.warning == "" && len(ws) > 0, tc.warning != "" && (len(ws) != 1 || !strings.HasPrefix(ws[0].String(), tc.warning)):
			t.Errorf("%s: warnings %v, want %q", tc.name, ws, tc.warning)
		}
	}
}

// Items across batches keep their numbers and order: 20,000 kind-less
// items of a NodeList (more than two batches), with the kind first and
// last; and kind-less {} items of an untyped List warn with their own
// item numbers.
func TestStreamedBatches(t *testing.T) {
	var items []string
	for i := 0; i < 20000; i++ {
		items = append(items, fmt.Sprintf(`{"metadata":{"name":"n%05d"}}`, i))
	}
	all := strings.Join(items, ",")
	for _, data := range []string{
		`{"kind":"NodeList","apiVersion":"v1","items":[` + all + `]}`,
		`{"apiVersion":"v1","items":[` + all + `],"kind":"NodeList"}`,
	} {
		s, ws, err := Decode([]byte(data), "nodes.json")
		if err != nil || len(ws) > 0 || len(s.Nodes) != 20000 || s.Nodes[19999].Name != "n19999" {
			t.Fatalf("%d nodes, %v, %v", len(s.Nodes), ws, err)
		}
	}
	typed := strings.ReplaceAll(all, `{"metadata"`, `{"apiVersion":"v1","kind":"Node","metadata"`)
	s, ws, err := Decode([]byte(`{"kind":"List","items":[`+typed+`,{},{}]}`), "nodes.json")
	if err != nil || len(s.Nodes) != 20000 || len(ws) != 2 || ws[0].Item != 20000 || ws[1].Item != 20001 {
		t.Fatalf("%v, %v", ws, err)
	}
}
