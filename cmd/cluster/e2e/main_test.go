package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/nodelife/nodelife/cmd/cluster/e2e/internal/testcluster"
)

func TestMain(m *testing.M) {
	s, err := testcluster.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "etcd and kube-apiserver up in %v\n", s.Started.Round(1e6))
	code := m.Run()
	testcluster.Stop()
	os.Exit(code)
}

func TestServerUp(t *testing.T) {
	s := testcluster.Shared(t)
	n, err := s.Client.CoreV1().Nodes().Create(context.Background(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "smoke"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, n.UID)
	require.NoError(t, s.Client.CoreV1().Nodes().Delete(context.Background(), "smoke", metav1.DeleteOptions{}))
}
