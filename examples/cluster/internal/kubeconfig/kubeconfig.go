// Package kubeconfig loads a client configuration the way kubectl finds
// it (-kubeconfig, then $KUBECONFIG, then ~/.kube/config), for the
// commands of this module, with errors that say where it looked.
package kubeconfig

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Load reads the kubeconfig at path ("" means $KUBECONFIG, then
// ~/.kube/config; a list separated like $PATH is merged) and returns the
// configuration of context ("" means the current one). A missing file is
// an error wrapping notFound, naming the file; prog prefixes the other
// errors.
func Load(path, context, prog string, notFound error) (*rest.Config, error) {
	cfg, _, err := LoadNamed(path, context, prog, notFound)
	return cfg, err
}

// Identity names who a configuration connects as, for error messages: the
// API server, the kubeconfig's user (auth info) and context, and the file.
type Identity struct {
	Server, User, Context, Path string
}

// String is "user U (context C in PATH) at SERVER".
func (id Identity) String() string {
	return fmt.Sprintf("user %q (context %q in %s) at %s", id.User, id.Context, id.Path, id.Server)
}

// Refused is err, a 401 from the API server, as the commands report it:
// wrapping sentinel, naming the user, context, file and server, and saying
// that the credentials are invalid or expired (the server answers both
// with 401).
func (id Identity) Refused(sentinel, err error) error {
	return fmt.Errorf("%w: the API server refused the credentials of %s (invalid or expired): %w", sentinel, id, err)
}

// LoadNamed is Load that also returns whom the configuration names.
func LoadNamed(path, context, prog string, notFound error) (*rest.Config, Identity, error) {
	if path == "" {
		path = os.Getenv("KUBECONFIG")
	}
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, Identity{}, fmt.Errorf("%w: no -kubeconfig, no KUBECONFIG and no home directory: %v", notFound, err)
		}
		path = filepath.Join(home, ".kube", "config")
	}
	for _, p := range filepath.SplitList(path) {
		if _, err := os.Stat(p); err != nil {
			return nil, Identity{}, fmt.Errorf("%w at %s: %v (set -kubeconfig or KUBECONFIG)", notFound, p, err)
		}
	}
	rules := &clientcmd.ClientConfigLoadingRules{Precedence: filepath.SplitList(path)}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, Identity{}, fmt.Errorf("%s: kubeconfig %s: %w", prog, path, err)
	}
	id := Identity{Server: cfg.Host, Path: path, Context: context}
	if raw, err := cc.RawConfig(); err == nil {
		if id.Context == "" {
			id.Context = raw.CurrentContext
		}
		if c := raw.Contexts[id.Context]; c != nil {
			id.User = c.AuthInfo
		}
	}
	return cfg, id, nil
}
