package kubeconfig

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var errNotFound = errors.New("x: no kubeconfig")

// FuzzLoad loads arbitrary kubeconfig files with an arbitrary context: no
// panic; an error either wraps the not-found error or carries the
// program's prefix and the file; a configuration names a server.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		"apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"https://127.0.0.1:1\"}}]\nusers: [{name: u, user: {token: x}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\n",
		"apiVersion: v1\nkind: Config\n",
		"{}", "", "kind: [", "\x00\x01",
	} {
		f.Add(s, "")
		f.Add(s, "c")
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data, context string) {
		path := filepath.Join(dir, "kubeconfig")
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, id, err := LoadNamed(path, context, "x", errNotFound)
		if err != nil {
			if !errors.Is(err, errNotFound) && !strings.HasPrefix(err.Error(), "x: kubeconfig "+path+": ") {
				t.Fatalf("error without the prefix and file: %v", err)
			}
			return
		}
		if cfg == nil || id.Server != cfg.Host || id.Path != path {
			t.Fatalf("config %v, identity %+v", cfg, id)
		}
	})
}
