package testcluster

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"
	kubeapiserver "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
)

// Server is a running kube-apiserver and its etcd, behind a stable
// address (see front), with the test's own certificate authority.
//
// The API server authorizes with --authorization-mode=Node,RBAC and admits
// with the NodeRestriction plugin, so a client with a node's certificate
// (NodeConfig) has a kubelet's rights and no more: its own Node, its own
// Lease, the status of the pods bound to it.
type Server struct {
	// Config is a client config with full rights: a client certificate of
	// user "nodelife-admin" in group system:masters, through the stable
	// address.
	Config *rest.Config
	// Client is a clientset for Config.
	Client kubernetes.Interface
	// Started is how long etcd and the API server took to come up.
	Started time.Duration

	ca      *authority
	front   *front
	dir     string // etcd's data and the certificate files
	etcdURL [2]url.URL
	etcd    *embed.Etcd
	storage *storagebackend.Config
	flags   []string
	// teardown stops the API server of the moment.
	teardown func()
	tb       *mainTB
}

var shared *Server

// Start starts the server of this test binary; call it from TestMain before
// m.Run, and Stop after. Set NODELIFE_APISERVER_LOG=1 to see the server's
// logs.
func Start() (*Server, error) {
	if shared != nil {
		return shared, nil
	}
	verbose := os.Getenv("NODELIFE_APISERVER_LOG") == "1"
	if !verbose {
		klog.SetLogger(logr.Discard())
	}
	s, err := start(&mainTB{verbose: verbose})
	if err != nil {
		return nil, err
	}
	shared = s
	return s, nil
}

// Shared returns the server Start started.
func Shared(t testing.TB) *Server {
	t.Helper()
	if shared == nil {
		t.Fatal("testcluster: Start was not called from TestMain")
	}
	return shared
}

// Stop tears the server down, if it was started.
func Stop() {
	if shared != nil {
		shared.stop()
		shared = nil
	}
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func start(t *mainTB) (_ *Server, err error) {
	began := time.Now()
	dir, err := os.MkdirTemp("", "nodelife-cluster")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, tb: t}
	defer func() {
		if err != nil {
			s.stop()
		}
	}()
	for i := range s.etcdURL {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		s.etcdURL[i] = url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", port)}
	}
	if err := s.startEtcd(); err != nil {
		return nil, err
	}
	if s.ca, err = newAuthority(); err != nil {
		return nil, err
	}
	now := time.Now()
	serving, err := s.ca.issue("kube-apiserver", nil, now.Add(-time.Hour), now.Add(365*24*time.Hour), true)
	if err != nil {
		return nil, err
	}
	// The serving pair goes where the API server looks for its own
	// (--cert-dir, named apiserver.*), so that it uses it rather than make
	// a self-signed one, and so that the peer proxy finds it there too.
	certs := filepath.Join(dir, "certs")
	if err := os.Mkdir(certs, 0o700); err != nil {
		return nil, err
	}
	files := map[string][]byte{"ca.crt": s.ca.certPEM, "apiserver.crt": serving.cert, "apiserver.key": serving.key}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(certs, name), data, 0o600); err != nil {
			return nil, err
		}
	}
	s.storage = storagebackend.NewDefaultConfig("/nodelife/registry", nil)
	s.storage.Transport.ServerList = []string{s.etcdURL[0].String()}
	s.flags = []string{
		// The ServiceAccount admission plugin needs the token controller of
		// kube-controller-manager, which does not run here.
		"--disable-admission-plugins=ServiceAccount",
		// Kubelets' rights: the Node authorizer and NodeRestriction, as the
		// seeds ask; RBAC so that tests can show what a user without
		// rights gets.
		"--authorization-mode=Node,RBAC",
		"--enable-admission-plugins=NodeRestriction",
		"--client-ca-file=" + filepath.Join(certs, "ca.crt"),
		"--cert-dir=" + certs,
		// No watch cache: lists and watches go to etcd. With it, each
		// consistent list waits for the cache to prove itself fresh (20-40
		// ms here), and the harness lists after every instant it steps;
		// without it the e2e suite runs about twice as fast.
		"--watch-cache=false",
	}
	target, err := s.startAPIServer()
	if err != nil {
		return nil, err
	}
	if s.front, err = newFront(target); err != nil {
		return nil, err
	}
	if s.Config, err = s.UserConfig("nodelife-admin", []string{"system:masters"}, now.Add(-time.Hour), now.Add(365*24*time.Hour)); err != nil {
		return nil, err
	}
	s.Config.QPS, s.Config.Burst = 1000, 10000
	if s.Client, err = kubernetes.NewForConfig(s.Config); err != nil {
		return nil, err
	}
	s.Started = time.Since(began)
	return s, nil
}

// startEtcd starts etcd on the server's data directory and ports: the
// first time with an empty store, in RestartEtcd with what it held.
func (s *Server) startEtcd() error {
	cfg := embed.NewConfig()
	cfg.Name = "nodelife"
	cfg.Dir = filepath.Join(s.dir, "etcd")
	cfg.LogLevel = "fatal"   // its shutdown reports closed listeners as errors
	cfg.UnsafeNoFsync = true // a test store: speed over durability
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{s.etcdURL[0]}, []url.URL{s.etcdURL[0]}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{s.etcdURL[1]}, []url.URL{s.etcdURL[1]}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("start etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		return fmt.Errorf("etcd not ready after 60s")
	}
	s.etcd = e
	return nil
}

// startAPIServer starts a kube-apiserver on the server's etcd and returns
// its address.
func (s *Server) startAPIServer() (string, error) {
	ts, err := kubeapiserver.StartTestServer(s.tb, kubeapiserver.NewDefaultTestServerOptions(), s.flags, s.storage)
	if err != nil {
		return "", fmt.Errorf("start kube-apiserver: %w", err)
	}
	s.teardown = ts.TearDownFn
	u, err := url.Parse(ts.ClientConfig.Host)
	if err != nil {
		return "", err
	}
	return u.Host, nil
}

// RestartAPIServer stops the API server and starts a new one on the same
// etcd: the connections in flight are cut (watches end, requests fail),
// and from its return the stable address reaches the new server, which
// accepts the same credentials. It returns how long the server was away.
func (s *Server) RestartAPIServer() (time.Duration, error) {
	began := time.Now()
	s.front.retarget("")
	s.teardown()
	s.teardown = nil
	target, err := s.startAPIServer()
	if err != nil {
		return 0, err
	}
	s.front.retarget(target)
	return time.Since(began), nil
}

// RestartEtcd stops etcd and starts it again on the same data and ports,
// after down has passed: the API server keeps running and reconnects. It
// returns how long etcd was away.
func (s *Server) RestartEtcd(down time.Duration) (time.Duration, error) {
	began := time.Now()
	s.etcd.Close()
	s.etcd = nil
	closed := time.Now()
	time.Sleep(down)
	if err := s.startEtcd(); err != nil {
		return 0, err
	}
	s.tb.Logf("etcd: closed in %v, ready again %v after that", closed.Sub(began), time.Since(closed))
	return time.Since(began), nil
}

// UserConfig returns a client config for the stable address that
// authenticates with a client certificate of the test's authority for
// user, in groups, valid over [notBefore, notAfter] (the API server reads
// the user from the certificate's CN and the groups from its O).
func (s *Server) UserConfig(user string, groups []string, notBefore, notAfter time.Time) (*rest.Config, error) {
	p, err := s.ca.issue(user, groups, notBefore, notAfter, false)
	if err != nil {
		return nil, err
	}
	return &rest.Config{Host: "https://" + s.front.addr(), QPS: 100, Burst: 200,
		TLSClientConfig: rest.TLSClientConfig{CAData: s.ca.certPEM, CertData: p.cert, KeyData: p.key}}, nil
}

// NodeConfig returns a client config with a kubelet's identity for node:
// user system:node:<node> in group system:nodes, the identity the Node
// authorizer and NodeRestriction recognise.
func (s *Server) NodeConfig(node string) (*rest.Config, error) {
	now := time.Now()
	return s.UserConfig("system:node:"+node, []string{"system:nodes"}, now.Add(-time.Hour), now.Add(24*time.Hour))
}

// Kubeconfig writes a kubeconfig for the server into dir and returns its
// path; its user "test" is config's (s.Config when nil); with impersonate
// set, it acts as that user (with no rights unless a test grants some).
func (s *Server) Kubeconfig(dir, impersonate string, config *rest.Config) (string, error) {
	c := config
	if c == nil {
		c = s.Config
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: c.Host, CertificateAuthorityData: c.TLSClientConfig.CAData}
	cfg.AuthInfos["test"] = &clientcmdapi.AuthInfo{ClientCertificateData: c.TLSClientConfig.CertData, ClientKeyData: c.TLSClientConfig.KeyData,
		Token: c.BearerToken, Impersonate: impersonate}
	cfg.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "test"}
	cfg.CurrentContext = "test"
	path := filepath.Join(dir, "kubeconfig")
	return path, clientcmd.WriteToFile(*cfg, path)
}

// stop tears down what start started, in reverse.
func (s *Server) stop() {
	if s.front != nil {
		s.front.close()
	}
	if s.teardown != nil {
		s.teardown()
	}
	s.tb.cleanup()
	if s.etcd != nil {
		s.etcd.Close()
	}
	os.RemoveAll(s.dir)
}
