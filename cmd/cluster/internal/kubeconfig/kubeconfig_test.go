package kubeconfig

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// certPEM makes a self-signed client certificate valid over [nb, na].
func certPEM(t *testing.T, nb, na time.Time) (cert, key []byte) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "u"}, NotBefore: nb, NotAfter: na}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, k.Public(), k)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd})
}

// The identity carries the client certificate's validity, inline or from
// a file, and Refused names an expired or not yet valid certificate with
// its date; other refusals keep the general wording.
func TestRefusedNamesCertificateValidity(t *testing.T) {
	dir := t.TempDir()
	now := time.Now().Truncate(time.Second)
	errDenied := errors.New("unauthorized")
	errServer := errors.New("Unauthorized")
	for _, c := range []struct {
		name   string
		nb, na time.Time
		file   bool
		want   string
	}{
		{"expired", now.Add(-48 * time.Hour), now.Add(-24 * time.Hour), false, ": the client certificate expired at " + now.Add(-24*time.Hour).UTC().Format(time.RFC3339) + ": Unauthorized"},
		{"expired-file", now.Add(-48 * time.Hour), now.Add(-24 * time.Hour), true, ": the client certificate expired at " + now.Add(-24*time.Hour).UTC().Format(time.RFC3339) + ": Unauthorized"},
		{"future", now.Add(24 * time.Hour), now.Add(48 * time.Hour), false, ": the client certificate is not valid before " + now.Add(24*time.Hour).UTC().Format(time.RFC3339) + ": Unauthorized"},
		{"valid", now.Add(-time.Hour), now.Add(time.Hour), false, " (invalid or expired): Unauthorized"},
	} {
		cert, key := certPEM(t, c.nb, c.na)
		user := &clientcmdapi.AuthInfo{ClientCertificateData: cert, ClientKeyData: key}
		if c.file {
			cf, kf := filepath.Join(dir, c.name+".crt"), filepath.Join(dir, c.name+".key")
			if err := os.WriteFile(cf, cert, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(kf, key, 0o600); err != nil {
				t.Fatal(err)
			}
			user = &clientcmdapi.AuthInfo{ClientCertificate: cf, ClientKey: kf}
		}
		cfg := clientcmdapi.NewConfig()
		cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: "https://192.0.2.1:6443"}
		cfg.AuthInfos["u"] = user
		cfg.Contexts["x"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
		cfg.CurrentContext = "x"
		path := filepath.Join(dir, c.name+".kubeconfig")
		if err := clientcmd.WriteToFile(*cfg, path); err != nil {
			t.Fatal(err)
		}
		_, id, err := LoadNamed(path, "", "prog", errors.New("missing"))
		if err != nil {
			t.Fatal(err)
		}
		if !id.NotAfter.Equal(c.na) || !id.NotBefore.Equal(c.nb) {
			t.Errorf("%s: validity [%v, %v], want [%v, %v]", c.name, id.NotBefore, id.NotAfter, c.nb, c.na)
		}
		got := id.Refused(errDenied, errServer)
		want := `unauthorized: the API server refused the credentials of user "u" (context "x" in ` + path + `) at https://192.0.2.1:6443` + c.want
		if got.Error() != want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, want)
		}
		if !errors.Is(got, errDenied) || !errors.Is(got, errServer) {
			t.Errorf("%s: %v does not wrap both errors", c.name, got)
		}
		if strings.Count(got.Error(), "Unauthorized") != 1 {
			t.Errorf("%s: %v", c.name, got)
		}
	}
}
