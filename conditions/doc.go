// Package conditions computes node conditions: what the kubelet posts
// (Ready and the pressure conditions, with upstream's reasons, messages and
// events) and when it posts them, and what the node lifecycle controller
// decides about a node that stops posting.
package conditions
