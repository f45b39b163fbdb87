package snapshot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
)

// splitList reads a List's kind, apiVersion and raw items with the stream
// reader's parts, as readDocument does (members other than items checked
// as they are read, items left to their decoding).
func splitList(data []byte) (kind, apiVersion string, items [][]byte, err error) {
	s := newStream(bufio.NewReader(bytes.NewReader(data)))
	sawItems := false
	err = s.members(func(key string) error {
		if err := s.skipSpace(); err != nil {
			return s.readErr(err)
		}
		if c, _ := s.peek(); c == '[' && strings.EqualFold(key, "items") {
			if sawItems {
				return errors.New("items twice")
			}
			sawItems = true
			return s.elements(func() error {
				raw, err := s.value(nil)
				items = append(items, raw)
				return err
			})
		}
		raw, err := s.checkedValue()
		if err != nil {
			return err
		}
		switch {
		case strings.EqualFold(key, "items") && string(raw) != "null":
			return errors.New("items is not an array")
		case strings.EqualFold(key, "kind"):
			return json.Unmarshal(raw, &kind)
		case strings.EqualFold(key, "apiVersion"):
			return json.Unmarshal(raw, &apiVersion)
		}
		return nil
	})
	if err == nil {
		if err = s.skipSpace(); err == io.EOF {
			err = nil
		} else if err == nil {
			err = errors.New("data after the List")
		}
	}
	return kind, apiVersion, items, err
}

// FuzzSplitList checks the stream reader against encoding/json on whole
// documents: when it accepts a document, encoding/json accepts it too,
// with the same kind and the same items, unless an item is invalid (items
// are checked when they are decoded); when encoding/json accepts an object
// whose items are an array (once), so does the stream reader; and itemKind
// agrees with decoding the item's header (for the items that are objects;
// the others are left to the decoder).
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
		} else if jerr == nil && list.Items != nil && !strings.Contains(err.Error(), "items twice") {
			t.Fatalf("splitList refused (%v) what encoding/json accepts: %.300q", err, data)
		}
	})
}

// FuzzDecodeItem checks decodeItem's shortcut (an item's first apiVersion
// and kind, confirmed by its decoding) against reading every top-level key
// first (decodeItemFull): the same object, warning or error for any item.
func FuzzDecodeItem(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"x"},"spec":{"nodeName":"n"}}`,
		`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{"capacity":{"cpu":"4"}}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"kind":"Node"}`,
		`{"kind":"Pod","apiVersion":"v1","kin\u0064":"Node","metadata":{"name":"p"}}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":5}}`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"nodeName":"n"}`,
		`{"APIVERSION":"v1","Kind":"Node","metadata":{}}`,
		`{"apiVersion":"v1","kind":"Pod","apiVersion":"v2"}`,
		`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		a := decodeItem(raw, "in", 3, "Pod", "v1", true)
		b := decodeItemFull(raw, "in", 3, "Pod", "v1", true)
		if fmt.Sprint(a.err) != fmt.Sprint(b.err) || a.warning != b.warning || a.hold != b.hold ||
			!reflect.DeepEqual(a.node, b.node) || !reflect.DeepEqual(a.pod, b.pod) || !reflect.DeepEqual(a.lease, b.lease) || !reflect.DeepEqual(a.class, b.class) {
			t.Fatalf("%q:\nshortcut %+v\nfull     %+v", raw, a, b)
		}
	})
}
