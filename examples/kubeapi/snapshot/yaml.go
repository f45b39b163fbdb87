package snapshot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/yaml"
)

// YAML is read as a stream, as JSON is: kubectl get -o yaml prints a List
// as one document of a few top-level keys (apiVersion, items, kind,
// metadata), its items a block sequence, one object per entry. The reader
// cuts a document at its top-level keys and a List's items at their
// entries, converts each piece with sigs.k8s.io/yaml alone and hands the
// document on as the JSON stream readDocument reads: what a read holds is
// one item at a time and what it keeps, whatever the input's size or
// compression.
//
// Comment lines and blank lines are not kept (a stream of a gigabyte of
// comments costs no memory), except where they are content: inside a
// block scalar ("|" or ">") or a quoted scalar that runs over lines. The
// line scanner tells those apart conservatively: when a line may be inside
// a scalar it is kept, so an error of the scanner costs memory, never a
// value.
//
// A document that does not start with a plain top-level key (a sequence, a
// flow mapping, a directive, a scalar) is read whole and converted at once,
// as every document once was. Anchors and aliases resolve within one item
// or one top-level key; kubectl prints none.

// yamlLine is one line the scanner keeps.
type yamlLine struct {
	indent int    // the spaces it starts with (not in text)
	text   []byte // the rest, without the line break
	num    int    // its line in the input (after decompression)
	blanks int    // the blank lines skipped just before it
	// comment is where comment lines were dropped just before it: -1 for
	// none, else how many of its blanks came before the first of them. A
	// comment ends a plain scalar, so a piece keeps one "#" line in
	// their place: what follows reads as it would in the whole document,
	// and a gigabyte of comments costs two bytes. (The scanner drops a
	// comment line only where it is no scalar's content, and there its
	// indentation means nothing: the "#" is at the margin.)
	comment int
	sep     bool // a document separator ("---", "--- ...")
	cont    bool // it starts inside a block or quoted scalar: it continues the node before
}

// isBlank reports whether the line holds white space only.
func (l *yamlLine) isBlank() bool { return len(bytes.Trim(l.text, " \t")) == 0 }

// isEntry reports whether the line starts a block sequence entry ("- ..."
// or a lone "-").
func (l *yamlLine) isEntry() bool {
	return len(l.text) > 0 && l.text[0] == '-' && (len(l.text) == 1 || l.text[1] == ' ' || l.text[1] == '\t')
}

// yamlScanner reads the lines of a YAML stream, dropping the comment lines
// and the blank lines that carry nothing, and follows, line by line,
// whether the next line is inside a block or quoted scalar.
type yamlScanner struct {
	br     *bufio.Reader
	num    int      // the line number of the next line read
	block  int      // inside a block scalar: lines indented more are its content; -1 when not
	quote  byte     // inside a quoted scalar run over lines: its quote; 0 when not
	cur    yamlLine // the line peek returned
	peeked bool
	err    error // the error that ended the input (io.EOF at its end)
	buf    []byte
	carry  []byte // the start of a character a dropped comment's chunk cut
}

func newYAMLScanner(br *bufio.Reader, line int) *yamlScanner {
	return &yamlScanner{br: br, num: line, block: -1}
}

// peek returns the next line kept, without consuming it; io.EOF at the
// end of the input.
func (sc *yamlScanner) peek() (*yamlLine, error) {
	if sc.peeked {
		return &sc.cur, nil
	}
	blanks, comment := 0, -1
	for sc.err == nil {
		indent, text, kept := sc.readLine()
		if !kept {
			if indent >= 0 && comment < 0 {
				comment = blanks // the first comment line since the last line kept
			}
			continue // a comment line, or nothing before the end
		}
		l := &sc.cur
		*l = yamlLine{indent: indent, text: text, num: sc.num - 1, blanks: blanks, comment: comment}
		switch {
		case indent == 0 && (string(text) == "---" || bytes.HasPrefix(text, []byte("--- "))):
			// a separator ends every scalar (the YAML spec forbids one
			// inside a quoted scalar; this reader ends the document there)
			sc.block, sc.quote = -1, 0
			l.sep, l.blanks, l.comment = true, 0, -1
		case l.isBlank() && (sc.block >= 0 || sc.quote != 0):
			l.text, l.cont = l.text[:0], true // a line of the scalar
		case l.isBlank():
			blanks++
			continue
		case sc.block >= 0 && indent > sc.block:
			l.cont = true // a line of the block scalar
		default:
			sc.block = -1
			l.cont = sc.quote != 0
			sc.scan(l)
		}
		sc.peeked = true
		return l, nil
	}
	return nil, sc.err
}

// next consumes the line peek returned.
func (sc *yamlScanner) next() { sc.peeked = false }

// readLine reads one line: the spaces it starts with are counted, not
// kept; a comment line outside a scalar is read through without being
// kept (kept false, its indentation returned), however long. At the end
// of the input, with nothing read, kept is false and indent -1. The text
// is valid until the next call.
func (sc *yamlScanner) readLine() (indent int, text []byte, kept bool) {
	sc.buf = sc.buf[:0]
	started := false // past the leading spaces
	dropping := false
	read := false // any byte of this line
	for {
		chunk, err := sc.br.ReadSlice('\n')
		read = read || len(chunk) > 0
		if !started {
			i := 0
			for i < len(chunk) && chunk[i] == ' ' {
				i++
			}
			indent += i
			chunk = chunk[i:]
			if len(chunk) > 0 {
				started = true
				// a comment line: read through and dropped, unless it may be a
				// block scalar's content or inside a quoted scalar
				dropping = chunk[0] == '#' && sc.quote == 0 && (sc.block < 0 || indent <= sc.block)
				if dropping && sc.block >= 0 {
					sc.block = -1 // a comment indented no more ends the block
				}
			}
		}
		if !dropping {
			sc.buf = append(sc.buf, chunk...)
		} else if !sc.commentChars(chunk, err == bufio.ErrBufferFull) {
			sc.num++
			sc.err = &yamlCharError{line: sc.num - 1}
			return 0, nil, false
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			sc.err = err // io.EOF at the end of the input
			if !read {
				return -1, nil, false
			}
		}
		break
	}
	sc.num++
	if dropping {
		return indent, nil, false
	}
	text = bytes.TrimSuffix(sc.buf, []byte("\n"))
	text = bytes.TrimSuffix(text, []byte("\r"))
	return indent, text, true
}

// yamlCharError is a comment line holding a character the YAML reader
// refuses anywhere in a stream (invalid UTF-8, a control character): the
// scanner drops the comment, but the whole document would not convert.
type yamlCharError struct{ line int }

func (e *yamlCharError) Error() string {
	return fmt.Sprintf("line %d: a comment holds a character YAML does not allow (invalid UTF-8 or a control character)", e.line)
}

// commentChars checks the characters of a chunk of a dropped comment line
// as the YAML reader checks every character of a stream; more is true when
// the line goes on in the next chunk, so that a character the chunk's end
// cuts is carried over and checked whole.
func (sc *yamlScanner) commentChars(chunk []byte, more bool) bool {
	if len(sc.carry) > 0 {
		k := min(len(chunk), utf8.UTFMax-len(sc.carry))
		start := append(sc.carry, chunk[:k]...)
		if !utf8.FullRune(start) {
			sc.carry = start
			return more
		}
		r, n := utf8.DecodeRune(start)
		if !yamlChar(r, n) {
			return false
		}
		chunk = chunk[n-len(sc.carry):]
		sc.carry = sc.carry[:0]
	}
	for i := 0; i < len(chunk); {
		if c := chunk[i]; c < utf8.RuneSelf {
			if !yamlChar(rune(c), 1) {
				return false
			}
			i++
			continue
		}
		if !utf8.FullRune(chunk[i:]) {
			sc.carry = append(sc.carry[:0], chunk[i:]...)
			return more
		}
		r, n := utf8.DecodeRune(chunk[i:])
		if !yamlChar(r, n) {
			return false
		}
		i += n
	}
	return true
}

// yamlChar reports whether the YAML reader allows the character r, decoded
// from size bytes: tab, the line breaks, the printable ASCII characters,
// NEL and the rest of Unicode but the surrogates, U+FFFE and U+FFFF.
func yamlChar(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size == 1: // invalid UTF-8
		return false
	case r == '\t', r == '\n', r == '\r', r >= 0x20 && r <= 0x7e, r == 0x85,
		r >= 0xa0 && r <= 0xd7ff, r >= 0xe000 && r <= 0xfffd, r >= 0x10000 && r <= utf8.MaxRune:
		return true
	}
	return false
}

// scan follows a line kept outside a block scalar: whether it opens or
// closes a quoted scalar run over lines, or introduces a block scalar.
// Where a quote or an indicator may begin a scalar it is taken to, so
// that the lines after it are kept.
func (sc *yamlScanner) scan(l *yamlLine) {
	t := l.text
	i := 0
	if sc.quote != 0 {
		if i = closeQuote(t, 0, sc.quote); i < 0 {
			return // still inside
		}
		sc.quote = 0
	}
	tokenStart := i == 0
	owner := l.indent // the column of the node a block scalar would belong to
	for ; i < len(t); i++ {
		c := t[i]
		if !tokenStart {
			tokenStart = c == ' ' || c == '\t' || c == ',' || c == '[' || c == '{' || c == ':'
			continue
		}
		switch c {
		case ' ', '\t', ',', '[', '{':
			continue
		case '#':
			return // a comment to the end of the line
		case '"', '\'':
			if isAfterIndicator(t[:i]) {
				owner = l.indent + i // a quoted key after "- "
			}
			end := closeQuote(t, i+1, c)
			if end < 0 {
				sc.quote = c
				return
			}
			i = end - 1
			tokenStart = false
		case '|', '>':
			if blockHeader(t[i+1:]) {
				sc.block = owner
				return
			}
			tokenStart = false
		case '-', '?', ':':
			if i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '\t' {
				if c == '-' {
					owner = l.indent + i // a "- |" belongs to the entry
				}
				continue // an indicator: a node may follow
			}
			tokenStart = false
		case '&', '!':
			// an anchor or a tag: the node follows it
			for i+1 < len(t) && t[i+1] != ' ' && t[i+1] != '\t' {
				i++
			}
		default:
			if isAfterIndicator(t[:i]) {
				owner = l.indent + i // a key after "- ": a block belongs to its mapping
			}
			tokenStart = false
		}
	}
}

// isAfterIndicator reports whether t, the text before a node, is sequence
// entry or explicit key indicators and white space only.
func isAfterIndicator(t []byte) bool {
	for _, c := range t {
		if c != '-' && c != '?' && c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// closeQuote returns the index just after the quote that closes a scalar
// opened by q, starting at i, or -1 when the line ends inside it.
func closeQuote(t []byte, i int, q byte) int {
	for ; i < len(t); i++ {
		switch {
		case q == '"' && t[i] == '\\':
			i++ // an escape; at the end of the line, an escaped line break
		case t[i] == q:
			if q == '\'' && i+1 < len(t) && t[i+1] == '\'' {
				i++ // '' is a quote in a single-quoted scalar
				continue
			}
			return i + 1
		}
	}
	return -1
}

// blockHeader reports whether rest, what follows a "|" or ">", is a block
// scalar's header: chomping and indentation indicators, then white space
// and a comment.
func blockHeader(rest []byte) bool {
	i := 0
	for i < len(rest) && (rest[i] == '+' || rest[i] == '-' || rest[i] >= '0' && rest[i] <= '9') {
		i++
	}
	if i == len(rest) {
		return true
	}
	return rest[i] == ' ' || rest[i] == '\t'
}

// plainKey returns the key of a top-level line "key: value" or "key:"
// whose key is a plain scalar, and what follows the colon; ok is false for
// any other line.
func plainKey(t []byte) (key string, rest []byte, ok bool) {
	if len(t) == 0 || strings.IndexByte("-?:,[]{}#&*!|>'\"%@`\t ", t[0]) >= 0 {
		return "", nil, false
	}
	for i := 1; i < len(t); i++ {
		switch {
		case t[i] == '#' && (t[i-1] == ' ' || t[i-1] == '\t'):
			return "", nil, false
		case t[i] == ':' && (i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '\t'):
			return string(bytes.TrimRight(t[:i], " \t")), t[i+1:], true
		}
	}
	return "", nil, false
}

// emptyValue reports whether rest, what follows a key's colon, is no value
// (white space and perhaps a comment).
func emptyValue(rest []byte) bool {
	rest = bytes.TrimLeft(rest, " \t")
	return len(rest) == 0 || rest[0] == '#'
}

// readYAML reads the YAML documents of s, one after another: each is
// streamed (yamlDocument) or, when it does not start with a plain
// top-level key, read whole and converted at once. The documents after
// the first are named "source (document n)", counting the empty ones, and
// so is the first once a separator follows it (its warnings renamed).
func (r *reader) readYAML(s *stream, source string) error {
	sc := newYAMLScanner(s.br, s.line)
	firstWarning := len(r.warnings)
	for n := 1; ; n++ {
		name := source
		if n > 1 {
			name = fmt.Sprintf("%s (document %d)", source, n)
		}
		l, err := sc.peek()
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return gzipErr(source, err)
		case l.sep:
			// an empty document
		case isKeyLine(l.text):
			d := &yamlDocument{sc: sc, name: name, keys: map[string]int{}}
			if err := r.readDocument(newStream(bufio.NewReaderSize(d, 64<<10)), name); err != nil {
				return err
			}
			if err := d.rest(); err != nil {
				return err
			}
		default:
			if err := r.wholeYAML(sc, name); err != nil {
				return err
			}
		}
		// the document has ended at a separator or at the end
		switch _, err := sc.peek(); {
		case err == io.EOF:
			return nil
		case err != nil:
			return gzipErr(source, err)
		}
		sc.next()
		if n == 1 {
			for i := firstWarning; i < len(r.warnings); i++ {
				if r.warnings[i].Source == source {
					r.warnings[i].Source = source + " (document 1)"
				}
			}
		}
	}
}

// isKeyLine reports whether t is a top-level "key: ..." with a plain key.
func isKeyLine(t []byte) bool {
	_, _, ok := plainKey(t)
	return ok
}

// wholeYAML reads the rest of the document at sc whole and reads it as
// one converted JSON document (an empty or null one is no document).
func (r *reader) wholeYAML(sc *yamlScanner, name string) error {
	var doc []byte
	first := 0
	for {
		l, err := sc.peek()
		if err == io.EOF || err == nil && l.sep {
			break
		}
		if err != nil {
			return gzipErr(name, err)
		}
		if first == 0 {
			first = l.num
		} else {
			doc = appendGap(doc, l)
		}
		doc = appendLine(doc, l, 0)
		sc.next()
	}
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return yamlErr(name, err, first)
	}
	if t := bytes.TrimSpace(j); len(t) == 0 || string(t) == "null" {
		return nil // an empty document
	}
	if j[skipSpace(j, 0)] != '{' {
		return fmt.Errorf("%w: %s: not a List: not JSON or YAML of an object (kubectl get ... -o json or -o yaml)", ErrInvalid, name)
	}
	return r.readDocument(newStream(bufio.NewReader(bytes.NewReader(j))), name)
}

// appendLine appends l's text to dst as a line, dedent spaces less
// indented.
func appendLine(dst []byte, l *yamlLine, dedent int) []byte {
	for i := max(0, l.indent-dedent); i > 0; i-- {
		dst = append(dst, ' ')
	}
	return append(append(dst, l.text...), '\n')
}

// appendGap appends what the scanner dropped just before l and a piece
// must keep: its blank lines and, in the place of the first comment line
// among them, one "#" line.
func appendGap(dst []byte, l *yamlLine) []byte {
	for i := 0; i < l.blanks; i++ {
		if i == l.comment {
			dst = append(dst, '#', '\n')
		}
		dst = append(dst, '\n')
	}
	if l.comment == l.blanks {
		dst = append(dst, '#', '\n')
	}
	return dst
}

// yamlLineRE finds the line of a sigs.k8s.io/yaml error.
var yamlLineRE = regexp.MustCompile(`line (\d+)`)

// yamlErr is the error about a piece of YAML that does not convert, its
// line numbers made the input's (the piece starts at line first).
func yamlErr(name string, err error, first int) error {
	msg := yamlLineRE.ReplaceAllStringFunc(err.Error(), func(m string) string {
		n, _ := strconv.Atoi(strings.TrimPrefix(m, "line "))
		return "line " + strconv.Itoa(n+first-1)
	})
	return fmt.Errorf("%w: %s: not JSON or YAML: %s", ErrInvalid, name, msg)
}

// yamlDocument is one YAML document, streamed as the JSON object it
// converts to: Read hands on its top-level keys, each converted, and its
// items (a block sequence under a top-level items key) one entry at a
// time.
type yamlDocument struct {
	sc      *yamlScanner
	name    string
	out     []byte // JSON converted, not yet read
	off     int    // read of out
	state   int    // yamlStart, yamlMembers, yamlItems, yamlDone
	members int
	items   int
	entry   int            // the indentation of the items' entries
	keys    map[string]int // the top-level keys and their lines
	piece   []byte
	err     error
}

const (
	yamlStart = iota
	yamlMembers
	yamlItems
	yamlDone
)

func (d *yamlDocument) Read(p []byte) (int, error) {
	for d.off == len(d.out) {
		if d.err != nil {
			return 0, d.err
		}
		d.out, d.off = d.out[:0], 0
		if d.err = d.fill(); d.err == nil && d.state == yamlDone && len(d.out) == 0 {
			d.err = io.EOF
		}
	}
	n := copy(p, d.out[d.off:])
	d.off += n
	return n, nil
}

// rest checks that the document was read to its end (readDocument stops at
// the closing brace; a conversion error after it is still an error).
func (d *yamlDocument) rest() error {
	for d.state != yamlDone {
		d.out = d.out[:0]
		if err := d.fill(); err != nil {
			return err
		}
	}
	return nil
}

// fill converts the next piece of the document into out.
func (d *yamlDocument) fill() error {
	switch d.state {
	case yamlStart:
		d.out = append(d.out, '{')
		d.state = yamlMembers
		return nil
	case yamlItems:
		l, err := d.sc.peek()
		if err != nil && err != io.EOF {
			return gzipErr(d.name, err)
		}
		if err == nil && !l.sep && l.indent == d.entry && l.isEntry() {
			return d.item(l)
		}
		d.out = append(d.out, ']')
		d.state = yamlMembers
		return nil
	case yamlDone:
		return nil
	}
	l, err := d.sc.peek()
	if err != nil && err != io.EOF {
		return gzipErr(d.name, err)
	}
	if err == io.EOF || l.sep {
		d.out = append(d.out, '}')
		d.state = yamlDone
		return nil
	}
	if l.indent > 0 {
		return fmt.Errorf("%w: %s: not JSON or YAML: line %d: a line indented by %d where the document's next top-level key belongs", ErrInvalid, d.name, l.num, l.indent)
	}
	if t := bytes.TrimLeft(l.text, " \t"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		// a flow collection at the margin of a block mapping is no key the
		// conversion takes (a complex key at best)
		return fmt.Errorf("%w: %s: not JSON or YAML: line %d: a flow collection where the document's next top-level key belongs", ErrInvalid, d.name, l.num)
	}
	key, rest, plain := plainKey(l.text)
	if plain {
		if at, seen := d.keys[key]; seen {
			return fmt.Errorf("%w: %s: not JSON or YAML: line %d: key %q again (first at line %d)", ErrInvalid, d.name, l.num, key, at)
		}
		d.keys[key] = l.num
	}
	items := plain && strings.EqualFold(key, "items") && emptyValue(rest)
	first := l.num
	piece := append(append(d.piece[:0], l.text...), '\n') // l is the scanner's until next
	d.sc.next()
	if items {
		if e, err := d.sc.peek(); err == nil && !e.sep && e.isEntry() {
			k, _ := json.Marshal(key)
			d.out = d.comma(d.out)
			d.out = append(append(d.out, k...), ':', '[')
			d.state, d.entry, d.items = yamlItems, e.indent, 0
			return nil
		}
		// items with no entries after it: converted as any key
	}
	return d.member(first, piece)
}

// comma appends the separator before a member after the first.
func (d *yamlDocument) comma(dst []byte) []byte {
	if d.members++; d.members > 1 {
		dst = append(dst, ',')
	}
	return dst
}

// member converts the top-level key whose first line, at line first, is in
// piece, with the lines that continue it, and appends it as members.
func (d *yamlDocument) member(first int, piece []byte) error {
	j, err := d.convert(piece, first, 0, func(l *yamlLine) bool { return l.indent == 0 && !l.cont && !l.isEntry() })
	if err != nil {
		return err
	}
	switch {
	case len(bytes.TrimSpace(d.piece)) == 0:
		return nil
	case len(j) < 2 || j[0] != '{' || string(j) == "{}":
		// a line at the document's margin that is no key ("{}", "~"): the
		// whole document would not convert either
		return fmt.Errorf("%w: %s: not JSON or YAML: line %d: not a key of the document's mapping", ErrInvalid, d.name, first)
	}
	d.out = append(d.comma(d.out), j[1:len(j)-1]...)
	return nil
}

// item converts the entry of the items that starts at l, with the lines
// that continue it, and appends it as an element.
func (d *yamlDocument) item(l *yamlLine) error {
	first := l.num
	piece := appendLine(d.piece[:0], l, d.entry)
	d.sc.next()
	j, err := d.convert(piece, first, d.entry, func(l *yamlLine) bool { return l.indent <= d.entry && !l.cont })
	if err != nil {
		return err
	}
	if len(j) < 2 || j[0] != '[' || j[len(j)-1] != ']' {
		return fmt.Errorf("%w: %s: not JSON or YAML: line %d: an entry of items that is not one element", ErrInvalid, d.name, first)
	}
	if d.items++; d.items > 1 {
		d.out = append(d.out, ',')
	}
	d.out = append(d.out, j[1:len(j)-1]...)
	return nil
}

// convert appends to piece, which starts at line first, the lines that
// continue it (dedented by dedent) up to the first that ends it, the next
// separator or the end, and converts the whole to JSON (trimmed). The
// piece is d.piece until the next call.
func (d *yamlDocument) convert(piece []byte, first, dedent int, ends func(*yamlLine) bool) ([]byte, error) {
	for {
		l, err := d.sc.peek()
		if err != nil && err != io.EOF {
			return nil, gzipErr(d.name, err)
		}
		if err == io.EOF || l.sep || ends(l) {
			break
		}
		piece = appendLine(appendGap(piece, l), l, dedent)
		d.sc.next()
	}
	d.piece = piece
	j, err := yaml.YAMLToJSON(piece)
	if err != nil {
		return nil, yamlErr(d.name, err, first)
	}
	return bytes.TrimSpace(j), nil
}
