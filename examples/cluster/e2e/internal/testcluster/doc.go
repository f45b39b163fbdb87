// Package testcluster starts a real kube-apiserver (k8s.io/kubernetes
// v1.36's cmd/kube-apiserver/app/testing), backed by an embedded etcd
// (go.etcd.io/etcd/server/v3/embed, temp dir, free loopback ports), inside
// the test process: no binaries, no containers, only Go modules. Call Start
// from TestMain; tests share the one server and isolate themselves by
// namespace, and delete the nodes they made. The server runs RBAC and
// leaves out the ServiceAccount admission plugin (its token controller is
// not running here); its other default admission plugins, such as
// DefaultTolerationSeconds, Priority and TaintNodesByCondition, are on.
package testcluster
