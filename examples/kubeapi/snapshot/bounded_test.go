package snapshot

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The inputs of issue 48 that once exhausted memory, each read in a child
// process whose peak RSS is measured: a gzip file of 1 GiB of zeros (4.7
// MB compressed) is refused as soon as its first decompressed bytes are
// seen; one of 1 GiB of spaces is read through, counted and not kept; one
// that expands past Options.MaxBytes stops at the bound, a few MiB in; a
// List of 1,000,000 kind-less {} items (3 MB) is counted, its warnings
// capped, also with the List's kind after the items (each item held until
// it is read); and 512 MiB of items of a kind not read go through a batch
// at a time. The same for YAML (issue 63): 1 GiB and 4 GiB of comment
// lines, compressed, read through without being kept, also inside an
// item; and 1 GiB of ConfigMaps read an item at a time.
func TestBoundedInputs(t *testing.T) {
	if c := os.Getenv("NODELIFE_BOUNDED_CHILD"); c != "" {
		boundedChild(c)
		return
	}
	if raceEnabled {
		t.Skip("peak RSS under the race detector is the detector's; .ci/run runs this without it")
	}
	dir := t.TempDir()
	gz := func(name string, parts ...func(w *gzip.Writer)) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
		for _, p := range parts {
			p(zw)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return path
	}
	repeat := func(b byte, n int) func(w *gzip.Writer) {
		return func(w *gzip.Writer) {
			chunk := bytes.Repeat([]byte{b}, 1<<20)
			for i := 0; i < n>>20; i++ {
				_, _ = w.Write(chunk)
			}
		}
	}
	text := func(s string) func(w *gzip.Writer) { return func(w *gzip.Writer) { _, _ = w.Write([]byte(s)) } }
	var items strings.Builder
	items.WriteString(`{"kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}`)
	for i := 0; i < 1_000_000; i++ {
		items.WriteString(`,{}`)
	}
	items.WriteString(`]}`)
	kindless := filepath.Join(dir, "kindless.json")
	if err := os.WriteFile(kindless, []byte(items.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// kubectl's order: the List's kind after its items, so every kind-less
	// item is held until it is read
	kindlessLast := filepath.Join(dir, "kindless-last.json")
	if err := os.WriteFile(kindlessLast, []byte(`{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}`+
		strings.Repeat(`,{}`, 1_000_000)+`],"kind":"List","metadata":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// 512 MiB of ConfigMaps of 64 KiB each, plain, kind last: read through
	// a batch at a time, none kept
	configMaps := filepath.Join(dir, "configmaps.json")
	{
		f, err := os.Create(configMaps)
		if err != nil {
			t.Fatal(err)
		}
		value := strings.Repeat("x", 64<<10)
		fmt.Fprint(f, `{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}`)
		for i := 0; i < 8192; i++ {
			fmt.Fprintf(f, `,{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%d","namespace":"x"},"data":{"v":"%s"}}`, i, value)
		}
		fmt.Fprint(f, `],"kind":"List","metadata":{}}`)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	// YAML: gzip members one after another (a gzip reader reads them as
	// one stream), so that a body of 64 MiB compressed once stands for
	// gigabytes: a List's header, then 1 GiB or 4 GiB of comment lines;
	// the same inside a node's entry; and 1 GiB of ConfigMaps of 64 KiB.
	members := func(name string, parts ...[]byte) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			if _, err := f.Write(p); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// A member is written a line at a time: the parent's peak RSS is the
	// children's floor (a child counts its parent's high-water mark until
	// it execs), so no input is ever whole in the parent's memory.
	member := func(write func(w io.Writer)) []byte {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		write(zw)
		_ = zw.Close()
		return b.Bytes()
	}
	plain := func(s string) []byte {
		return member(func(w io.Writer) { _, _ = io.WriteString(w, s) })
	}
	lines := func(line string, n int) []byte {
		return member(func(w io.Writer) {
			for i := 0; i < n; i++ {
				_, _ = io.WriteString(w, line)
			}
		})
	}
	times := func(b []byte, n int) []byte { return bytes.Repeat(b, n) }
	comments := lines("# a comment line of the bomb: sixty-four bytes with its break..\n", 1<<20) // 64 MiB
	indented := lines("    # an indented comment line, sixty-four bytes with its break\n", 1<<20) // 64 MiB
	value := strings.Repeat("x", 64<<10)
	configMapsYAML := member(func(w io.Writer) { // 64 MiB and a little
		for i := 0; i < 1024; i++ {
			fmt.Fprintf(w, "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c%d\n    namespace: x\n  data:\n    v: %s\n", i, value)
		}
	})
	// 1 GiB of valid pods, each with 64 KiB of managed fields, which the
	// replay does not keep: what is kept is 16,384 small pods.
	podsYAML := member(func(w io.Writer) { // 64 MiB and a little
		for i := 0; i < 1024; i++ {
			fmt.Fprintf(w, "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p%d\n    namespace: x\n    managedFields:\n    - manager: m\n      operation: Update\n      fieldsType: FieldsV1\n      fieldsV1:\n        f:v: %s\n  spec:\n    nodeName: node-1\n    containers:\n    - name: c\n      image: i\n", i, value)
		}
	})
	listHead := plain("apiVersion: v1\nkind: List\nitems:\n")
	nodeHead := plain("apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: node-1\n") // not "n": YAML 1.1's false
	listTail := plain("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	start := time.Now()
	cases := []struct {
		name, path string
		maxBytes   int64
		want       string // in the error, or the warnings when it succeeds
		maxRSS     int64
	}{
		{"zeros", gz("zeros.json.gz", repeat(0, 1<<30)), 0, "zeros.json.gz: after gzip decompression: not JSON, YAML or gzip: byte 0x00 at offset 0", 64 << 20},
		{"spaces", gz("spaces.json.gz", repeat(' ', 1<<30)), 0, "spaces.json.gz: no Node in it", 64 << 20},
		{"past the bound", gz("big.json.gz", text(`{"kind":"List","items":[`), repeat(' ', 1<<30)), 256 << 20,
			"big.json.gz: larger than the limit: more than 256Mi after decompression (Options.MaxBytes)", 64 << 20},
		{"kind-less items", kindless, 0, "and 999980 more warnings", 200 << 20},
		{"kind-less items, kind last", kindlessLast, 0, "and 999980 more warnings", 200 << 20},
		{"512 MiB of ConfigMaps", configMaps, 0, "and 8172 more warnings", 192 << 20},
		{"YAML, 1 GiB of comments", members("comments.yaml.gz", listHead, times(comments, 16)), 0, "comments.yaml.gz: no Node in it", 64 << 20},
		{"YAML, 4 GiB of comments", members("comments4.yaml.gz", listHead, times(comments, 64)), 0, "comments4.yaml.gz: no Node in it", 64 << 20},
		{"YAML, 1 GiB of comments in an item", members("item.yaml.gz", nodeHead, times(indented, 16), listTail), 0, "no warnings", 64 << 20},
		{"YAML, 1 GiB of pods", members("pods.yaml.gz", nodeHead, times(podsYAML, 16), listTail), 0, "1 nodes, 16384 pods kept", 192 << 20},
		{"YAML, 1 GiB of ConfigMaps", members("configmaps.yaml.gz", nodeHead, times(configMapsYAML, 16), listTail), 0, "and 16364 more warnings", 192 << 20},
	}
	t.Logf("inputs written in %v", time.Since(start).Round(time.Millisecond))
	for _, c := range cases {
		info, _ := os.Stat(c.path)
		cmd := exec.Command(os.Args[0], "-test.run=^TestBoundedInputs$")
		cmd.Env = append(os.Environ(), "NODELIFE_BOUNDED_CHILD="+fmt.Sprintf("%s|%d", c.path, c.maxBytes))
		begin := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: child: %v\n%s", c.name, err, out)
		}
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
		t.Logf("%s: %d bytes on disk, read in %v, peak RSS %d MiB: %s", c.name, info.Size(), time.Since(begin).Round(time.Millisecond), rss>>20, strings.TrimSpace(string(out)))
		if !strings.Contains(string(out), c.want) {
			t.Errorf("%s: the child printed %q, want %q", c.name, out, c.want)
		}
		if rss > c.maxRSS {
			t.Errorf("%s: peak RSS %d MiB, above %d MiB", c.name, rss>>20, c.maxRSS>>20)
		}
	}
}

// boundedChild loads the file named in arg ("path|maxBytes") and prints
// the error, or what was kept and the last warning.
func boundedChild(arg string) {
	path, limit, _ := strings.Cut(arg, "|")
	var max int64
	fmt.Sscan(limit, &max)
	s, ws, err := LoadWith(path, Options{MaxBytes: max})
	if err == nil {
		fmt.Printf("%d nodes, %d pods kept; ", len(s.Nodes), s.PodCount())
	}
	switch {
	case err != nil:
		fmt.Println("error:", err, errors.Is(err, ErrInvalid))
	case len(ws) > 0:
		fmt.Println("warnings:", len(ws), ws[len(ws)-1])
	default:
		fmt.Println("no warnings")
	}
	os.Exit(0)
}
