// Package testcluster starts a real kube-apiserver (k8s.io/kubernetes
// v1.36's cmd/kube-apiserver/app/testing), backed by an embedded etcd
// (go.etcd.io/etcd/server/v3/embed, temp dir, free loopback ports), inside
// the test process: no binaries, no containers, only Go modules. Call Start
// from TestMain; tests share the one server and isolate themselves by
// namespace, and delete the nodes they made.
//
// The test makes its own certificate authority: the API server serves with
// a certificate it signed and trusts it for client certificates, and
// clients reach the server through a stable loopback address (a TCP
// forwarder). So the API server can be replaced by a new one on the same
// etcd (RestartAPIServer) and etcd stopped and started again (RestartEtcd)
// while every client keeps its address and credentials; and each agent can
// carry its own node's certificate (NodeConfig).
//
// The server authorizes with the Node authorizer and RBAC and admits with
// NodeRestriction, so node identities get a kubelet's rights and no more.
// It leaves out the ServiceAccount admission plugin (its token controller
// is not running here); its other default admission plugins, such as
// DefaultTolerationSeconds, Priority and TaintNodesByCondition, are on.
package testcluster
