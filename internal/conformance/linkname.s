// Empty: lets cgroup_test.go declare the kubelet helpers it reaches with
// go:linkname without a body.
