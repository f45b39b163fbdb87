package snapshot

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// FuzzSplitList checks the one-pass splitter against encoding/json: when
// it accepts a document, encoding/json accepts it too, with the same kind
// and the same items, unless an item is invalid (items are checked when
// they are decoded); when encoding/json accepts an object whose items are
// an array, so does the splitter; and itemKind agrees with decoding the
// item's header (for the items that are objects; the others are left to
// the decoder).
func FuzzSplitList(f *testing.F) {
	sample, err := os.ReadFile("testdata/sample.json")
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		string(sample),
		`{"kind":"List","items":[]}`,
		`{"items":[{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a\"]}"}}, 3, "x", null],"kind":"NodeList"}`,
		`{"KIND":"List","Items":[{"Kind":"Node"}]}`,
		`{"kind":"List","items":[1 2]}`,
		`{"kind":"List","items":[{]}`,
		`{"kind":"List","metadata":{"x":[}}`,
		`{"kind":"List"} trailing`,
		` { "kind" : "List" , "items" : [ { } ] } `,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		kind, apiVersion, items, err := splitList(data)
		var list struct {
			APIVersion string            `json:"apiVersion"`
			Kind       string            `json:"kind"`
			Items      []json.RawMessage `json:"items"`
		}
		jerr := json.Unmarshal(data, &list)
		if err == nil {
			if jerr != nil {
				// Items are checked by their own decoding: one of them
				// must be what encoding/json refuses.
				for _, it := range items {
					if !json.Valid(it) {
						return
					}
				}
				t.Fatalf("splitList accepted what encoding/json refuses (%v): %.300q", jerr, data)
			}
			if kind != list.Kind || apiVersion != list.APIVersion || len(items) != len(list.Items) {
				t.Fatalf("kind %q/%q, %d/%d items: %.300q", kind, list.Kind, len(items), len(list.Items), data)
			}
			for i := range items {
				var a, b bytes.Buffer
				if json.Compact(&a, items[i]) != nil || json.Compact(&b, list.Items[i]) != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Fatalf("item %d: %q vs %q", i, items[i], list.Items[i])
				}
				var h header
				if json.Unmarshal(items[i], &h) == nil {
					v, k, ok := itemKind(items[i])
					isObject := bytes.HasPrefix(bytes.TrimLeft(items[i], " \t\r\n"), []byte("{"))
					if ok != isObject || (ok && (v != h.APIVersion || k != h.Kind)) {
						t.Fatalf("itemKind(%q) = %q %q %v, want %q %q", items[i], v, k, ok, h.APIVersion, h.Kind)
					}
				}
			}
		} else if jerr == nil && list.Items != nil {
			t.Fatalf("splitList refused (%v) what encoding/json accepts: %.300q", err, data)
		}
	})
}
