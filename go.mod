module github.com/nodelife/nodelife

go 1.22.0

require (
	github.com/google/go-cmp v0.7.0
	k8s.io/apimachinery v0.31.14
	pgregory.net/rapid v1.2.0
)

require k8s.io/utils v0.0.0-20240711033017-18e509b52bc8 // indirect
