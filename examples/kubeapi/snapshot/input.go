package snapshot

import (
	"bufio"
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
//     through the matching END line) skipped; read as a stream
//     (readJSON), a List's items decoded a batch at a time;
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

// addYAML reads "---"-separated YAML documents (held whole: YAML is not
// read as a stream).
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
		if err := r.readDocument(newStream(bufio.NewReader(bytes.NewReader(j))), name); err != nil {
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
