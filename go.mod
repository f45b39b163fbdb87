module github.com/nodelife/nodelife

go 1.22.0

require (
	github.com/google/go-cmp v0.7.0
	k8s.io/apimachinery v0.31.14
	pgregory.net/rapid v1.2.0
)

require (
	github.com/fxamacker/cbor/v2 v2.7.0 // indirect
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
	k8s.io/utils v0.0.0-20240711033017-18e509b52bc8 // indirect
)
