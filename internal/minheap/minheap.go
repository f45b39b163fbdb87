// Package minheap is the binary min-heap the library's event and eviction
// queues share: a slice kept in heap order by a less function, with no
// interface values and no allocation beyond the slice's growth.
package minheap

// Push adds x to h, a heap ordered by less, and returns the heap.
func Push[T any](h []T, x T, less func(a, b *T) bool) []T {
	h = append(h, x)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !less(&h[i], &h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

// Pop removes the least element of h, which must not be empty, and returns
// it and the heap.
func Pop[T any](h []T, less func(a, b *T) bool) (T, []T) {
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	var zero T
	h[n] = zero // let the garbage collector have what it held
	h = h[:n]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < n && less(&h[l], &h[m]) {
			m = l
		}
		if r := l + 1; r < n && less(&h[r], &h[m]) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	return top, h
}
