package snapshot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// A snapshot of the largest clusters is gigabytes of JSON: it is read as
// a stream, never held whole. stream finds the values of a JSON document
// one at a time in a buffered reader, with the line and offset of each
// byte for the messages; the values it hands on (a List's items, the
// other members of a document) are checked later by their own decoding,
// as encoding/json would check them.

// stream reads JSON values from br.
type stream struct {
	br   *bufio.Reader
	off  int64 // the offset of the next byte
	line int   // the line of the next byte
}

func newStream(br *bufio.Reader) *stream { return &stream{br: br, line: 1} }

// syntaxError is a JSON syntax error at a line of the input, worded as
// encoding/json words its own.
type syntaxError struct {
	line int
	off  int64
	msg  string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// errAt is a syntax error at the next byte.
func (s *stream) errAt(msg string) error { return &syntaxError{line: s.line, off: s.off, msg: msg} }

// readErr is err as the stream reports it: the end of the input is a
// syntax error at the next byte, as encoding/json says it.
func (s *stream) readErr(err error) error {
	if err == io.EOF {
		return s.errAt("unexpected end of JSON input")
	}
	return err
}

// peek returns the next byte without reading it.
func (s *stream) peek() (byte, error) {
	b, err := s.br.Peek(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

// skip reads n bytes already peeked (no newline among them).
func (s *stream) skip(n int) {
	_, _ = s.br.Discard(n)
	s.off += int64(n)
}

// skipSpace reads white space; the next byte is then not white space, or
// the input has ended.
func (s *stream) skipSpace() error {
	for {
		buf, err := s.window()
		if err != nil {
			return err
		}
		i := 0
		for ; i < len(buf); i++ {
			c := buf[i]
			if c == '\n' {
				s.line++
			} else if c != ' ' && c != '\t' && c != '\r' {
				break
			}
		}
		s.skip(i)
		if i < len(buf) {
			return nil
		}
	}
}

// window returns the bytes buffered, reading more when there are none;
// io.EOF at the end.
func (s *stream) window() ([]byte, error) {
	if s.br.Buffered() == 0 {
		if _, err := s.br.Peek(1); err != nil {
			return nil, err
		}
	}
	return s.br.Peek(s.br.Buffered())
}

// expect reads the byte c after white space, or returns a syntax error
// saying what it found instead (where says where: "after object key").
func (s *stream) expect(c byte, where string) error {
	if err := s.skipSpace(); err != nil {
		return s.readErr(err)
	}
	got, _ := s.peek()
	if got != c {
		return s.errAt(fmt.Sprintf("invalid character %s %s", quoteChar(got), where))
	}
	s.skip(1)
	return nil
}

// quoteChar words a byte as encoding/json's syntax errors do.
func quoteChar(c byte) string {
	switch {
	case c == '\'':
		return `'\''`
	case c == '"':
		return `'"'`
	case c < 0x20 || c >= 0x7f:
		return strconv.Quote(string(rune(c)))
	}
	return "'" + string(c) + "'"
}

// class sorts bytes for value: 1 the quote, 2 opening brackets, 3 closing
// ones, 4 the newline, 5 the delimiters that end a literal.
var class = func() (t [256]uint8) {
	t['"'] = 1
	t['{'], t['['] = 2, 2
	t['}'], t[']'] = 3, 3
	t['\n'] = 4
	t[','], t[' '], t['\t'], t['\r'] = 5, 5, 5, 5
	return t
}()

// value appends the next value's bytes (after white space) to dst: a
// string, an object or array to its closing bracket (by depth, outside
// strings), or a literal to the next delimiter. It does not check what is
// inside.
func (s *stream) value(dst []byte) ([]byte, error) {
	if err := s.skipSpace(); err != nil {
		return dst, s.readErr(err)
	}
	first, _ := s.peek()
	switch class[first] {
	case 3, 5:
		return dst, s.errAt(fmt.Sprintf("invalid character %s looking for beginning of value", quoteChar(first)))
	case 0:
		return s.literal(dst)
	}
	depth, inString, escaped := 0, false, false
	for {
		buf, err := s.window()
		if err != nil {
			return dst, s.readErr(err)
		}
		end := -1
		quote := -1 // the next quote in buf at or after i, while in a string
	scan:
		for i := 0; i < len(buf); i++ {
			c := buf[i]
			if inString {
				// Most of a document's bytes are in strings: jump to the
				// next quote or backslash (each byte searched once). A raw
				// newline in a string is invalid JSON, left to the item's
				// decoding, and not counted.
				if escaped {
					escaped = false
					continue
				}
				if quote < i {
					if k := bytes.IndexByte(buf[i:], '"'); k >= 0 {
						quote = i + k
					} else {
						quote = len(buf)
					}
				}
				if k := bytes.IndexByte(buf[i:quote], '\\'); k >= 0 {
					i += k
					escaped = true
					continue
				}
				if i = quote; i == len(buf) {
					break
				}
				inString = false
				if depth == 0 {
					end = i + 1
					break scan
				}
				continue
			}
			switch class[c] {
			case 1:
				inString = true
			case 2:
				depth++
			case 3:
				if depth--; depth == 0 {
					end = i + 1
					break scan
				}
			case 4:
				s.line++
			}
		}
		if end >= 0 {
			dst = append(dst, buf[:end]...)
			s.skip(end)
			return dst, nil
		}
		dst = append(dst, buf...)
		s.skip(len(buf))
	}
}

// literal appends a number, true, false or null (or whatever else runs to
// the next delimiter) to dst.
func (s *stream) literal(dst []byte) ([]byte, error) {
	for {
		buf, err := s.window()
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
		i := 0
		for i < len(buf) {
			if k := class[buf[i]]; k == 3 || k == 4 || k == 5 {
				break
			}
			i++
		}
		dst = append(dst, buf[:i]...)
		s.skip(i)
		if i < len(buf) {
			return dst, nil
		}
	}
}

// key reads an object member's key and the colon after it.
func (s *stream) key(scratch []byte) (string, error) {
	if err := s.skipSpace(); err != nil {
		return "", s.readErr(err)
	}
	if c, _ := s.peek(); c != '"' {
		return "", s.errAt(fmt.Sprintf("invalid character %s looking for beginning of object key string", quoteChar(c)))
	}
	line := s.line
	raw, err := s.value(scratch[:0])
	if err != nil {
		return "", err
	}
	var k string
	if err := json.Unmarshal(raw, &k); err != nil {
		return "", &syntaxError{line: line, off: s.off, msg: "invalid object key: " + err.Error()}
	}
	return k, s.expect(':', "after object key")
}

// members reads an object member by member: member is called with each
// key and reads the value itself.
func (s *stream) members(member func(key string) error) error {
	var scratch [64]byte
	return s.sequence('{', '}', "object key:value pair", func() error {
		k, err := s.key(scratch[:0])
		if err != nil {
			return err
		}
		return member(k)
	})
}

// elements reads an array element by element: element reads each.
func (s *stream) elements(element func() error) error {
	return s.sequence('[', ']', "array element", element)
}

// sequence reads an object or array (open and close its brackets): each
// reads one member or element; after says what precedes a separator in
// the syntax error about a wrong one.
func (s *stream) sequence(open, close byte, after string, each func() error) error {
	if err := s.expect(open, "looking for beginning of value"); err != nil {
		return err
	}
	if err := s.skipSpace(); err != nil {
		return s.readErr(err)
	}
	if c, _ := s.peek(); c == close {
		s.skip(1)
		return nil
	}
	for {
		if err := each(); err != nil {
			return err
		}
		if err := s.skipSpace(); err != nil {
			return s.readErr(err)
		}
		switch c, _ := s.peek(); c {
		case ',':
			s.skip(1)
		case close:
			s.skip(1)
			return nil
		default:
			return s.errAt(fmt.Sprintf("invalid character %s after %s", quoteChar(c), after))
		}
	}
}

// checkedValue reads the next value and returns it if it is valid JSON
// (checked).
func (s *stream) checkedValue() ([]byte, error) {
	line := s.line
	raw, err := s.value(nil)
	if err != nil {
		return nil, err
	}
	return raw, checked(raw, line)
}

// checked returns raw, a value read at line, if it is valid JSON, and
// otherwise encoding/json's syntax error with its line in the input.
func checked(raw []byte, line int) error {
	if json.Valid(raw) {
		return nil
	}
	var v any
	err := json.Unmarshal(raw, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return &syntaxError{line: line + bytes.Count(raw[:min(int(se.Offset), len(raw))], []byte("\n")), msg: se.Error()}
	}
	return err
}
