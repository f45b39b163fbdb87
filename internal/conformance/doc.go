// Package conformance runs nodelife and k8s.io/kubernetes side by side on
// the same generated inputs. It is a nested module (its own go.mod, pinned
// to k8s.io/kubernetes v1.37.2 and its staging modules) so that nodelife
// itself keeps depending on k8s.io/apimachinery only.
package conformance
