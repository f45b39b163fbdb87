package snapshot

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/nodelife/nodelife/internal/quantity"
)

// Options bound and report a read.
type Options struct {
	// MaxBytes bounds the bytes read, counted after decompression and
	// over every file of a directory; 0 means DefaultMaxBytes, a negative
	// bound is an error. The bound
	// is enforced while reading, so that a small gzip file that expands
	// without end (a decompression bomb) stops at it.
	MaxBytes int64
	// Progress, when set, is called now and then while reading with the
	// bytes read so far (after decompression) and the objects kept.
	Progress func(bytes int64, objects int)
	// ReplayOnly keeps each pod only in the form Cluster returns (a
	// core.Pod, its values shared with the other pods'), converted as
	// it is read, and drops the API object: Pods stays empty (PodCount
	// counts them) and Orphans and PodsOn find none. For replays of large
	// snapshots: a million corev1.Pods take gigabytes.
	ReplayOnly bool
}

// DefaultMaxBytes is the bound on the bytes a read takes when
// Options.MaxBytes is 0: 16 GiB, above a snapshot of the largest real
// clusters (100,000 nodes and 1,000,000 pods at about 10 KB each as
// kubectl prints them, managed fields and all).
const DefaultMaxBytes = 16 << 30

// ErrTooLarge is wrapped (with ErrInvalid) when an input is larger than
// Options.MaxBytes after decompression.
var ErrTooLarge = errors.New("larger than the limit")

// reader builds a Snapshot from inputs, keeping the first MaxWarnings
// warnings and counting the rest, and the bytes and objects read.
type reader struct {
	s        *Snapshot
	opts     Options
	warnings []Warning
	more     int   // warnings past MaxWarnings
	skipped  int   // items skipped
	read     int64 // bytes read, after decompression
	objects  int   // objects kept
	reported int64 // r.read at the last progress call
	// ins are the decoding workers' interners, one each (document.decode).
	ins []*interner
	// uids finds the object kept with a UID, to leave out another with it.
	uids uidIndex
}

func newReader(o Options) (*reader, error) {
	switch {
	case o.MaxBytes < 0:
		return nil, fmt.Errorf("%w: Options.MaxBytes %d is negative", ErrInvalidOptions, o.MaxBytes)
	case o.MaxBytes == 0:
		o.MaxBytes = DefaultMaxBytes
	}
	return &reader{s: &Snapshot{}, opts: o, uids: uidIndex{}}, nil
}

// ErrInvalidOptions is wrapped when LoadWith's Options cannot be used.
var ErrInvalidOptions = errors.New("snapshot: invalid options")

// warn keeps w among the first MaxWarnings, or counts it.
func (r *reader) warn(w Warning) {
	if len(r.warnings) < MaxWarnings {
		r.warnings = append(r.warnings, w)
		return
	}
	r.more++
}

// result is the warnings kept, then one that counts the rest ("and 999980
// more warnings").
func (r *reader) result() []Warning {
	if r.more == 0 {
		return r.warnings
	}
	return append(r.warnings[:len(r.warnings):len(r.warnings)], Warning{Source: r.warnings[len(r.warnings)-1].Source, Item: -1,
		Message: "and " + count(r.more, "more warning")})
}

// finish returns the snapshot, sorted, once every input is read (err is
// the reading's).
func (r *reader) finish(source string, err error) (*Snapshot, []Warning, error) {
	if err == nil {
		err = r.needNodes(source)
	}
	if err != nil {
		return nil, r.result(), err
	}
	r.s.replayPods = r.s.replay.sorted()
	r.s.sort()
	return r.s, r.result(), nil
}

// progressEvery is how many bytes (or objects times 4 KiB) pass between
// two progress calls.
const progressEvery = 64 << 20

// progress calls Options.Progress when enough has been read since the
// last call.
func (r *reader) progress() {
	if r.opts.Progress == nil {
		return
	}
	at := r.read + int64(r.objects)<<12
	if at-r.reported >= progressEvery {
		r.reported = at
		r.opts.Progress(r.read, r.objects)
	}
}

// readFile reads a file (readFrom).
func (r *reader) readFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return r.readFrom(f, path)
}

// readFrom reads one input, after a look at its first bytes: an input that
// cannot be JSON, YAML or gzip (a control byte before anything else, say
// a file of zeros) is refused without reading the rest, and so is a gzip
// stream whose first decompressed bytes cannot be JSON or YAML. JSON is
// read as a stream (readJSON), never held whole, and so is YAML
// (readYAML), a document at a time and a List's items one by one. More
// than Options.MaxBytes, after decompression and over every input of the
// read, is an error wrapping ErrTooLarge, made as soon as the bound is
// passed.
func (r *reader) readFrom(in io.Reader, name string) error {
	br := bufio.NewReaderSize(in, 64<<10)
	if err := sniffReader(br); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
	}
	var src io.Reader = br
	if head, _ := br.Peek(len(gzipMagic)); string(head) == string(gzipMagic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("%w: %s: gzip: %v", ErrInvalid, name, err)
		}
		zb := bufio.NewReaderSize(zr, 64<<10)
		if _, err := zb.Peek(512); err != nil && err != io.EOF {
			return gzipErr(name, err)
		}
		if err := sniffReader(zb); err != nil {
			return fmt.Errorf("%w: %s: after gzip decompression: %v", ErrInvalid, name, err)
		}
		src = zb
	}
	s := newStream(bufio.NewReaderSize(&bounded{in: src, r: r, name: name}, 1<<20))
	// A UTF-8 byte order mark, then white space: counted, not kept.
	if head, _ := s.br.Peek(3); string(head) == "\xef\xbb\xbf" {
		s.skip(3)
	}
	err := s.skipSpace()
	switch {
	case err == io.EOF:
		return nil
	case err != nil:
		return gzipErr(name, err)
	}
	if c, _ := s.peek(); c == '{' {
		if err := r.readJSON(s, name); err != nil {
			return gzipErr(name, err)
		}
		return nil
	}
	return r.readYAML(s, name)
}

// bounded counts the bytes read from in against Options.MaxBytes, and
// reports progress.
type bounded struct {
	in   io.Reader
	r    *reader
	name string
}

func (b *bounded) Read(p []byte) (int, error) {
	n, err := b.in.Read(p)
	r := b.r
	r.read += int64(n)
	if r.read > r.opts.MaxBytes {
		return n, fmt.Errorf("%w: %s: %w: more than %s after decompression (Options.MaxBytes)", ErrInvalid, b.name, ErrTooLarge, quantity.Bytes(r.opts.MaxBytes))
	}
	r.progress()
	return n, err
}

// gzipErr names a read error of an input (a cut gzip stream, say, or a
// comment of a YAML stream that the YAML reader refuses).
func gzipErr(name string, err error) error {
	var corrupt flate.CorruptInputError
	var chars *yamlCharError
	if errors.As(err, &chars) {
		return fmt.Errorf("%w: %s: not JSON or YAML: %v", ErrInvalid, name, err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.As(err, &corrupt) {
		return fmt.Errorf("%w: %s: gzip: %v", ErrInvalid, name, err)
	}
	return err
}

// sniffReader checks the first bytes of br without consuming them
// (sniff).
func sniffReader(br *bufio.Reader) error {
	head, err := br.Peek(512)
	if err != nil && err != io.EOF {
		return err
	}
	return sniff(head)
}
