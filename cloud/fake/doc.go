// Package fake is an in-memory cloud for tests and examples: instances keyed
// by node name, with their metadata, a running/shut-down/gone state and
// injectable failures, and a route table filtered by cluster-name prefix. It
// implements cloud.Instances and cloud.Routes.
//
// A Cloud is not safe for concurrent use; the library's planners call it
// from one goroutine.
package fake
