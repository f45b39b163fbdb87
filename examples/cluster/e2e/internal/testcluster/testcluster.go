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

// Server is a running kube-apiserver and its etcd.
type Server struct {
	// Config is a loopback client config with full rights.
	Config *rest.Config
	// Client is a clientset for Config.
	Client kubernetes.Interface
	// Started is how long etcd and the API server took to come up.
	Started time.Duration

	etcd     *embed.Etcd
	teardown func()
	dir      string
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

func start(t *mainTB) (*Server, error) {
	began := time.Now()
	dir, err := os.MkdirTemp("", "nodelife-etcd")
	if err != nil {
		return nil, err
	}
	cport, err := freePort()
	if err != nil {
		return nil, err
	}
	pport, err := freePort()
	if err != nil {
		return nil, err
	}
	curl := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", cport)}
	purl := url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", pport)}
	cfg := embed.NewConfig()
	cfg.Name = "nodelife"
	cfg.Dir = dir
	cfg.LogLevel = "fatal"   // its shutdown reports closed listeners as errors
	cfg.UnsafeNoFsync = true // a test store: speed over durability
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{curl}, []url.URL{curl}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{purl}, []url.URL{purl}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start etcd: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case <-time.After(60 * time.Second):
		e.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("etcd not ready after 60s")
	}
	storage := storagebackend.NewDefaultConfig("/nodelife/registry", nil)
	storage.Transport.ServerList = []string{curl.String()}
	// The ServiceAccount admission plugin needs the token controller of
	// kube-controller-manager, which does not run here.
	// RBAC, so that tests can show what a user without rights gets.
	flags := []string{"--disable-admission-plugins=ServiceAccount", "--authorization-mode=RBAC"}
	ts, err := kubeapiserver.StartTestServer(t, kubeapiserver.NewDefaultTestServerOptions(), flags, storage)
	if err != nil {
		e.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start kube-apiserver: %w", err)
	}
	cc := rest.CopyConfig(ts.ClientConfig)
	client, err := kubernetes.NewForConfig(cc)
	if err != nil {
		ts.TearDownFn()
		e.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	return &Server{Config: cc, Client: client, Started: time.Since(began), etcd: e, teardown: ts.TearDownFn, dir: dir, tb: t}, nil
}

// Kubeconfig writes a kubeconfig for the server into dir and returns its
// path; with impersonate set, its user acts as that user (with no rights
// unless a test grants some).
func (s *Server) Kubeconfig(dir, impersonate string) (string, error) {
	c := s.Config
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: c.Host, CertificateAuthorityData: c.TLSClientConfig.CAData,
		InsecureSkipTLSVerify: c.TLSClientConfig.Insecure, TLSServerName: c.TLSClientConfig.ServerName}
	cfg.AuthInfos["test"] = &clientcmdapi.AuthInfo{Token: c.BearerToken, Impersonate: impersonate}
	cfg.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "test"}
	cfg.CurrentContext = "test"
	path := filepath.Join(dir, "kubeconfig")
	return path, clientcmd.WriteToFile(*cfg, path)
}

func (s *Server) stop() {
	s.teardown()
	s.tb.cleanup()
	s.etcd.Close()
	os.RemoveAll(s.dir)
}
