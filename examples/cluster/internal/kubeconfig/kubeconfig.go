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
	if path == "" {
		path = os.Getenv("KUBECONFIG")
	}
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, fmt.Errorf("%w: no -kubeconfig, no KUBECONFIG and no home directory: %v", notFound, err)
		}
		path = filepath.Join(home, ".kube", "config")
	}
	for _, p := range filepath.SplitList(path) {
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("%w at %s: %v (set -kubeconfig or KUBECONFIG)", notFound, p, err)
		}
	}
	rules := &clientcmd.ClientConfigLoadingRules{Precedence: filepath.SplitList(path)}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("%s: kubeconfig %s: %w", prog, path, err)
	}
	return cfg, nil
}
