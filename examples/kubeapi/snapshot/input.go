package snapshot

// The shapes of input readFrom takes, in the order it tells them apart:
//
//   - gzip-compressed data (by its magic number), read through gunzip;
//   - JSON: one List (kubectl get ... -o json), or several top-level
//     objects one after another, with the pod logs kubectl cluster-info
//     dump prints between them ("==== START logs for container ...",
//     through the matching END line) skipped; read as a stream
//     (readJSON), a List's items decoded a batch at a time;
//   - anything else is read as YAML: one document or many, "---"
//     separated (kubectl get ... -o yaml; a file of manifests), also as
//     a stream (readYAML, in yaml.go), a List's items one at a time.
//
// Each document is a List or a single object of a kind the replay reads.

// gzipMagic starts every gzip stream.
var gzipMagic = []byte{0x1f, 0x8b}

const (
	logsStart = "==== START logs for container "
	logsEnd   = "==== END logs for container "
)
