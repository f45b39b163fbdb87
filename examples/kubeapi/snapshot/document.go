package snapshot

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
)

// readJSON reads top-level JSON objects one after another from s, with
// the pod logs kubectl cluster-info dump prints between them skipped. The
// objects after the first are named "source (object n)", and so is the
// first once a second follows (its warnings renamed).
func (r *reader) readJSON(s *stream, source string) error {
	docs, firstWarning := 0, len(r.warnings)
	for {
		if err := s.skipSpace(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if head, _ := s.br.Peek(len(logsStart)); string(head) == logsStart {
			if err := s.skipLogs(); err != nil {
				return fmt.Errorf("%w: %s: %v", ErrInvalid, source, err)
			}
			continue
		}
		if c, _ := s.peek(); c != '{' {
			return fmt.Errorf("%w: %s: offset %d: want another JSON object or kubectl's pod logs after the %d before", ErrInvalid, source, s.off, docs)
		}
		name := source
		if docs > 0 {
			name = fmt.Sprintf("%s (object %d)", source, docs+1)
		}
		if docs == 1 {
			for i := firstWarning; i < len(r.warnings); i++ {
				if r.warnings[i].Source == source {
					r.warnings[i].Source = source + " (object 1)"
				}
			}
		}
		if err := r.readDocument(s, name); err != nil {
			return err
		}
		docs++
	}
}

// skipLogs reads the pod logs that start at the next byte, through the
// line that ends them: the first holding the matching END marker.
func (s *stream) skipLogs() error {
	start := s.off
	first, err := s.br.ReadSlice('\n')
	if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
		return err
	}
	line := strings.TrimRight(string(first), "\n")
	s.off += int64(len(first))
	if err == nil {
		s.line++
	}
	end := []byte(logsEnd + strings.TrimPrefix(line, logsStart))
	if err != nil {
		return fmt.Errorf("offset %d: %s has no END line", start, line)
	}
	var carry []byte // the end of a line too long for the buffer
	for {
		chunk, err := s.br.ReadSlice('\n')
		s.off += int64(len(chunk))
		if bytes.Contains(append(carry, chunk...), end) {
			if err == bufio.ErrBufferFull {
				// the rest of the line goes too
				for err == bufio.ErrBufferFull {
					chunk, err = s.br.ReadSlice('\n')
					s.off += int64(len(chunk))
				}
			}
			if err == nil {
				s.line++
			}
			return nil
		}
		switch err {
		case nil:
			s.line++
			carry = carry[:0]
		case bufio.ErrBufferFull:
			carry = append(carry[:0], chunk[max(0, len(chunk)-len(end)):]...)
		default:
			return fmt.Errorf("offset %d: %s has no END line", start, line)
		}
	}
}

// typedKinds are the kinds of the typed Lists whose items may lack kind and
// apiVersion, with the apiVersion an item takes when the List has none.
var typedKinds = map[string]string{"Node": "v1", "Pod": "v1", "Lease": "coordination.k8s.io/v1", "PriorityClass": "scheduling.k8s.io/v1"}

// isList reports whether kind names a List ("List", "NodeList", ...).
func isList(kind string) bool { return strings.HasSuffix(kind, "List") }

// document is a top-level object being read: a List, whose items are
// decoded in batches as they are read, or one object of a kind the replay
// reads.
type document struct {
	r    *reader
	name string
	// kind and apiVersion as far as read; head the other members, as
	// `,"key":value` each (items left out).
	kind, apiVersion       string
	kindSeen, versionSeen  bool
	head                   []byte
	sawItems, skipItems    bool
	items                  int // the items read
	before                 checkpoint
	holding                bool  // items held until the List's kind is read
	held                   batch // those items
	filling                batch // items read, not yet decoded
	decoding               *batch
	decodingDone           *sync.WaitGroup
	defaultKind, defaultAV string
	keepErr                error // an item's, from keep
	ended                  bool  // the document is read whole
}

// readDocument reads the object at s, a List or one object.
func (r *reader) readDocument(s *stream, name string) error {
	d := &document{r: r, name: name}
	err := s.members(func(key string) error { return d.member(s, key) })
	var se *syntaxError
	switch {
	case err == nil && d.sawItems && !d.skipItems:
		err = d.flush(true)
	case errors.As(err, &se) && d.keepErr == nil && !d.holding:
		// The items before the error come first, as in a read item by
		// item: one of them that does not decode is the error.
		if kerr := d.flush(true); kerr != nil {
			err = kerr
		}
	}
	d.wait()
	if err != nil {
		if errors.As(err, &se) {
			return fmt.Errorf("%w: %s: not JSON: %v", ErrInvalid, name, se)
		}
		return err
	}
	return d.finish()
}

// member reads the value of one member of the document.
func (d *document) member(s *stream, key string) error {
	if err := s.skipSpace(); err != nil {
		return s.readErr(err)
	}
	if strings.EqualFold(key, "items") {
		if c, _ := s.peek(); c == '[' {
			if d.sawItems {
				return fmt.Errorf("%w: %s: offset %d: items appears twice", ErrInvalid, d.name, s.off)
			}
			d.sawItems = true
			return d.readItems(s)
		}
	}
	raw, err := s.checkedValue()
	if err != nil {
		return err
	}
	switch {
	case strings.EqualFold(key, "items"):
		if string(raw) != "null" {
			return d.notAList("items", raw, &[]json.RawMessage{})
		}
	case strings.EqualFold(key, "kind"):
		if err := json.Unmarshal(raw, &d.kind); err != nil {
			return d.notAList("kind", raw, new(string))
		}
		d.kindSeen = true
	case strings.EqualFold(key, "apiVersion"):
		if err := json.Unmarshal(raw, &d.apiVersion); err != nil {
			return d.notAList("apiVersion", raw, new(string))
		}
		d.versionSeen = true
	}
	k, _ := json.Marshal(key)
	d.head = append(append(append(append(d.head, ','), k...), ':'), raw...)
	return nil
}

// notAList is the error about a member of valid JSON that cannot be what
// a List has there, worded as encoding/json words a type error.
func (d *document) notAList(key string, raw []byte, into any) error {
	err := json.Unmarshal(raw, into)
	msg := "not a List"
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		te.Field = key
		return fmt.Errorf("%w: %s: %s: %s", ErrInvalid, d.name, msg, jsonError(raw, te))
	}
	return fmt.Errorf("%w: %s: %s: field %s: %v", ErrInvalid, d.name, msg, key, err)
}

// object is the document's members as one object (items left out).
func (d *document) object() []byte {
	if len(d.head) == 0 {
		return []byte("{}")
	}
	return append(append([]byte{'{'}, d.head[1:]...), '}')
}

// defaultsKnown says whether the defaults for kind-less items are known:
// the List's kind and apiVersion are read, or it is an untyped List, or
// the List is read to its end (what it did not say, it has not).
func (d *document) defaultsKnown() bool {
	return d.ended || d.kindSeen && (d.versionSeen || d.kind == "List")
}

// setDefaults takes the items' defaults from the List's kind.
func (d *document) setDefaults() {
	d.defaultKind, d.defaultAV = "", ""
	if k := strings.TrimSuffix(d.kind, "List"); k != "" && k != d.kind {
		if v, known := typedKinds[k]; known {
			d.defaultKind, d.defaultAV = k, cmp.Or(d.apiVersion, v)
		}
	}
}

// readItems reads the List's items: decoded a batch at a time as they are
// read, or counted only when the List is of a kind the replay does not
// read; an item that needs the List's kind while it is not yet read (it
// comes after the items) is held, with every item after it, until it is.
func (d *document) readItems(s *stream) error {
	d.before = d.r.mark()
	if d.kindSeen {
		switch k := strings.TrimSuffix(d.kind, "List"); {
		case !isList(d.kind) && typedKinds[d.kind] != "":
			// One object with an items member (decoded without it).
			_, err := s.value(nil)
			return err
		case !isList(d.kind):
			return d.notListKind()
		case k != "" && typedKinds[k] == "":
			d.skipItems = true
		}
	}
	var scratch []byte
	return s.elements(func() error {
		d.items++
		if d.skipItems {
			var err error
			scratch, err = s.value(scratch[:0])
			return err
		}
		b := &d.filling
		if d.holding {
			b = &d.held
		}
		if err := b.add(s); err != nil {
			return err
		}
		if !d.holding && (len(b.ends) >= decodeBatch || len(b.data) >= batchBytes) {
			return d.flush(false)
		}
		return nil
	})
}

// notListKind is the error about a document of a kind that is no List.
func (d *document) notListKind() error {
	return fmt.Errorf("%w: %s: kind %q is not a List; want the output of kubectl get nodes,pods,leases -A -o json", ErrInvalid, d.name, d.kind)
}

// finish checks the document once read whole, and keeps a single object.
func (d *document) finish() error {
	r := d.r
	typedObject := !isList(d.kind) && typedKinds[d.kind] != ""
	switch {
	case typedObject:
		if d.sawItems {
			r.restore(d.before)
		}
		raw := d.object()
		item := decodeItem(raw, d.name, 0, "", "", true)
		item.raw = raw
		return r.keep(item, d.name, 0)
	case !isList(d.kind):
		return d.notListKind()
	}
	if k := strings.TrimSuffix(d.kind, "List"); k != "" && typedKinds[k] == "" {
		// A List of a kind the replay does not read: skipped whole.
		if d.sawItems && !d.skipItems {
			r.restore(d.before)
		}
		if d.items > 0 {
			r.skipped += d.items
			r.warn(Warning{Source: d.name, Item: -1, Message: fmt.Sprintf("kind %s (%d items) skipped: the replay does not use it", d.kind, d.items)})
		}
		return nil
	}
	if d.holding {
		d.holding, d.ended = false, true
		for first := 0; first < len(d.held.ends); first += decodeBatch {
			// decode the held items a batch at a time
			d.filling.reset(d.held.first + first)
			for i := first; i < min(first+decodeBatch, len(d.held.ends)); i++ {
				d.filling.addRaw(d.held.item(i))
			}
			if err := d.flush(true); err != nil {
				d.wait()
				return err
			}
		}
		d.wait()
	}
	return nil
}

// decodeBatch and batchBytes bound a batch of items decoded at once.
const (
	decodeBatch = 8192
	batchBytes  = 16 << 20
)

// batch is items read, one after another in data, item i ending at
// ends[i]; first is the index of the first in its List.
type batch struct {
	data  []byte
	ends  []int
	first int
	out   []decoded
}

// add reads the next item into b.
func (b *batch) add(s *stream) error {
	var err error
	if b.data, err = s.value(b.data); err != nil {
		return err
	}
	b.ends = append(b.ends, len(b.data))
	return nil
}

func (b *batch) item(i int) []byte {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.data[start:b.ends[i]]
}

func (b *batch) reset(first int) {
	b.data, b.ends, b.first = b.data[:0], b.ends[:0], first
}

// addRaw appends an item already read.
func (b *batch) addRaw(item []byte) {
	b.data = append(b.data, item...)
	b.ends = append(b.ends, len(b.data))
}

// flush keeps the batch being decoded, then starts decoding the filled
// one (last: and keeps it too), so that reading the next batch goes on
// while one is decoded. An item that needs the List's kind, not yet read,
// turns the rest of the List into held items.
func (d *document) flush(last bool) error {
	if err := d.keepDecoding(); err != nil {
		return err
	}
	if d.holding {
		// everything read since goes to the held items
		for i := range d.filling.ends {
			d.held.addRaw(d.filling.item(i))
		}
		d.filling.reset(d.filling.first + len(d.filling.ends))
		return nil
	}
	if len(d.filling.ends) == 0 {
		return nil
	}
	b := d.filling
	d.filling = batch{first: b.first + len(b.ends)}
	if d.decoding != nil {
		// reuse the kept batch's buffers
		d.filling.data, d.filling.ends, d.filling.out = d.decoding.data[:0], d.decoding.ends[:0], d.decoding.out[:0]
	}
	d.decoding = &b
	d.decodingDone = d.decode(&b)
	if last {
		return d.keepDecoding()
	}
	return nil
}

// decode decodes b's items on every core, in the background.
func (d *document) decode(b *batch) *sync.WaitGroup {
	n := len(b.ends)
	if cap(b.out) < n {
		b.out = make([]decoded, n)
	}
	b.out = b.out[:n]
	workers := min(runtime.GOMAXPROCS(0), n/256+1)
	known := d.defaultsKnown()
	if known {
		d.setDefaults() // the List's kind and apiVersion may have come since
	}
	for len(d.r.ins) < workers {
		d.r.ins = append(d.r.ins, newInterner())
	}
	wg := &sync.WaitGroup{}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := d.r.ins[w] // this worker's alone while the batch decodes
			for i := w; i < n; i += workers {
				b.out[i] = decodeItem(b.item(i), d.name, b.first+i, d.defaultKind, d.defaultAV, known)
				b.out[i].raw = b.item(i)
				d.r.check(&b.out[i], in)
			}
		}()
	}
	return wg
}

// wait waits for the batch being decoded, if any, without keeping it.
func (d *document) wait() {
	if d.decodingDone != nil {
		d.decodingDone.Wait()
		d.decodingDone = nil
	}
}

// keepDecoding waits for the batch being decoded and keeps its items in
// order; from an item that must be held on, the rest are held.
func (d *document) keepDecoding() error {
	if d.decodingDone == nil {
		return nil
	}
	d.wait()
	b := d.decoding
	defer func() {
		clear(b.out)
	}()
	for i := range b.out {
		if b.out[i].hold || d.holding {
			d.holding = true
			d.held.addRaw(b.item(i))
			if len(d.held.ends) == 1 {
				d.held.first = b.first + i
			}
			continue
		}
		if err := d.r.keep(b.out[i], d.name, b.first+i); err != nil {
			d.keepErr = err
			return err
		}
	}
	return nil
}

// checkpoint is what a reader has kept, to go back to when a List read
// item by item turns out, at its end, to be of a kind not read.
type checkpoint struct {
	nodes, pods, replayPods, leases, classes  int
	refused, objects, skipped, warnings, more int
}

func (r *reader) mark() checkpoint {
	s := r.s
	return checkpoint{len(s.Nodes), len(s.Pods), s.replay.n, len(s.Leases), len(s.PriorityClasses),
		s.Refused, r.objects, r.skipped, len(r.warnings), r.more}
}

func (r *reader) restore(c checkpoint) {
	s := r.s
	clear(s.Nodes[c.nodes:])
	clear(s.Pods[c.pods:])
	clear(s.Leases[c.leases:])
	clear(s.PriorityClasses[c.classes:])
	s.Nodes, s.Pods = s.Nodes[:c.nodes], s.Pods[:c.pods]
	s.replay.truncate(c.replayPods)
	s.Leases, s.PriorityClasses = s.Leases[:c.leases], s.PriorityClasses[:c.classes]
	s.Refused, r.objects, r.skipped, r.warnings, r.more = c.refused, c.objects, c.skipped, r.warnings[:c.warnings], c.more
}
