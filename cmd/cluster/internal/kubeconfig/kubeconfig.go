// Package kubeconfig loads a client configuration the way kubectl finds
// it (-kubeconfig, then $KUBECONFIG, then ~/.kube/config), for the
// commands of this module, with errors that say where it looked.
package kubeconfig

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"time"

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
	// NotBefore and NotAfter bound the validity of the user's client
	// certificate; zero when the user has none (or it cannot be read).
	NotBefore, NotAfter time.Time
}

// String is "user U (context C in PATH) at SERVER".
func (id Identity) String() string {
	return fmt.Sprintf("user %q (context %q in %s) at %s", id.User, id.Context, id.Path, id.Server)
}

// Refused is err, a 401 from the API server, as the commands report it:
// wrapping sentinel, naming the user, context, file and server, and saying
// that the credentials are invalid or expired (the server answers both
// with 401). When the user's client certificate is outside its validity
// at the moment, it says so, with the date: the likeliest cause, and one
// the server never names.
func (id Identity) Refused(sentinel, err error) error {
	now := time.Now()
	switch {
	case !id.NotAfter.IsZero() && now.After(id.NotAfter):
		return fmt.Errorf("%w: the API server refused the credentials of %s: the client certificate expired at %s: %w",
			sentinel, id, id.NotAfter.UTC().Format(time.RFC3339), err)
	case !id.NotBefore.IsZero() && now.Before(id.NotBefore):
		return fmt.Errorf("%w: the API server refused the credentials of %s: the client certificate is not valid before %s: %w",
			sentinel, id, id.NotBefore.UTC().Format(time.RFC3339), err)
	}
	return fmt.Errorf("%w: the API server refused the credentials of %s (invalid or expired): %w", sentinel, id, err)
}

// certValidity reads the validity of cfg's client certificate (inline or
// from its file), the first certificate of the PEM data.
func certValidity(cfg *rest.Config) (notBefore, notAfter time.Time) {
	data := cfg.TLSClientConfig.CertData
	if len(data) == 0 && cfg.TLSClientConfig.CertFile != "" {
		data, _ = os.ReadFile(cfg.TLSClientConfig.CertFile)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		return time.Time{}, time.Time{}
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return time.Time{}, time.Time{}
	}
	return c.NotBefore, c.NotAfter
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
	id.NotBefore, id.NotAfter = certValidity(cfg)
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
