package snapshot

import (
	"bytes"
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"
)

// The shapes of input addInput takes, in the order it tells them apart:
//
//   - gzip-compressed data (by its magic number), read through gunzip;
//   - JSON: one List (kubectl get ... -o json), or several top-level
//     objects one after another, with the pod logs kubectl cluster-info
//     dump prints between them ("==== START logs for container ...",
//     through the matching END line) skipped;
//   - anything else is read as YAML: one document or many, "---"
//     separated (kubectl get ... -o yaml; a file of manifests).
//
// Each document is a List or a single object of a kind the replay reads.

// gzipMagic starts every gzip stream.
var gzipMagic = []byte{0x1f, 0x8b}

const (
	logsStart = "==== START logs for container "
	logsEnd   = "==== END logs for container "
)

// addInput reads one input of any of the shapes above into r's snapshot;
// data is decompressed already (readInput).
func (r *reader) addInput(data []byte, source string) error {
	i := skipSpace(data, 0)
	if i < len(data) && data[i] == '{' {
		return r.addJSONStream(data, source)
	}
	return r.addYAML(data, source)
}

// addJSONStream reads top-level JSON objects one after another.
func (r *reader) addJSONStream(data []byte, source string) error {
	docs := 0
	for i := skipSpace(data, 0); i < len(data); i = skipSpace(data, i) {
		if bytes.HasPrefix(data[i:], []byte(logsStart)) {
			end, err := skipLogs(data, i)
			if err != nil {
				return fmt.Errorf("%w: %s: %v", ErrInvalid, source, err)
			}
			i = end
			continue
		}
		end := -1
		if data[i] == '{' {
			end = skipValue(data, i)
		}
		if end < 0 {
			if docs == 0 {
				// not a stream after all: let the List reader name the problem
				return r.addDocument(data, source)
			}
			return fmt.Errorf("%w: %s: offset %d: want another JSON object or kubectl's pod logs after the %d before", ErrInvalid, source, i, docs)
		}
		name := source
		if docs > 0 || skipSpace(data, end) < len(data) {
			name = fmt.Sprintf("%s (object %d)", source, docs+1)
		}
		if err := r.addDocument(data[i:end], name); err != nil {
			return err
		}
		docs++
		i = end
	}
	return nil
}

// skipLogs returns the offset after the pod logs that start at data[i]:
// the line after the END line of the same container.
func skipLogs(data []byte, i int) (int, error) {
	line, _, _ := bytes.Cut(data[i:], []byte("\n"))
	end := append([]byte(logsEnd), bytes.TrimPrefix(line, []byte(logsStart))...)
	j := bytes.Index(data[i:], end)
	if j < 0 {
		return 0, fmt.Errorf("offset %d: %s has no END line", i, line)
	}
	j += i + len(end)
	if k := bytes.IndexByte(data[j:], '\n'); k >= 0 {
		return j + k + 1, nil
	}
	return len(data), nil
}

// addYAML reads "---"-separated YAML documents.
func (r *reader) addYAML(data []byte, source string) error {
	docs := splitYAML(data)
	for n, doc := range docs {
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return fmt.Errorf("%w: %s: not JSON or YAML: %v", ErrInvalid, source, err)
		}
		if t := bytes.TrimSpace(j); len(t) == 0 || string(t) == "null" {
			continue // an empty document
		}
		if skipSpace(j, 0) < len(j) && j[skipSpace(j, 0)] != '{' {
			return fmt.Errorf("%w: %s: not a List: not JSON or YAML of an object (kubectl get ... -o json or -o yaml)", ErrInvalid, source)
		}
		name := source
		if len(docs) > 1 {
			name = fmt.Sprintf("%s (document %d)", source, n+1)
		}
		if err := r.addDocument(j, name); err != nil {
			return err
		}
	}
	return nil
}

// splitYAML cuts data at the lines that start a new document ("---",
// optionally followed by a space and more).
func splitYAML(data []byte) [][]byte {
	var docs [][]byte
	start := 0
	for i := 0; i <= len(data); {
		j := bytes.IndexByte(data[i:], '\n')
		end := len(data)
		if j >= 0 {
			end = i + j
		}
		line := strings.TrimRight(string(data[i:end]), "\r")
		if line == "---" || strings.HasPrefix(line, "--- ") {
			docs = append(docs, data[start:i])
			start = min(end+1, len(data))
		}
		if j < 0 {
			break
		}
		i = end + 1
	}
	return append(docs, data[start:])
}
