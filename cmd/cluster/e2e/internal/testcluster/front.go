package testcluster

import (
	"io"
	"net"
	"sync"
)

// front is the cluster's stable address: a TCP forwarder on a loopback
// port that passes every connection through to the API server of the
// moment. TLS runs end to end between the client and the API server (the
// forwarder sees bytes only), so client certificates authenticate as they
// would directly. When the API server is replaced, retarget closes every
// connection in flight, as the old server's going away would, and new
// connections reach the new server: clients keep one address, one CA and
// their credentials across restarts, as they keep a load balancer's.
type front struct {
	ln net.Listener

	mu     sync.Mutex
	target string // host:port of the API server; "" refuses connections
	conns  map[net.Conn]struct{}
}

// newFront listens on a free loopback port and starts forwarding to target.
func newFront(target string) (*front, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &front{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	go f.serve()
	return f, nil
}

// addr is the address clients use.
func (f *front) addr() string { return f.ln.Addr().String() }

func (f *front) serve() {
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return // closed
		}
		go f.forward(c)
	}
}

// forward pipes c to the current target until either side closes.
func (f *front) forward(c net.Conn) {
	f.mu.Lock()
	target := f.target
	f.mu.Unlock()
	if target == "" {
		c.Close()
		return
	}
	b, err := net.Dial("tcp", target)
	if err != nil {
		c.Close()
		return
	}
	f.mu.Lock()
	if f.target != target { // retargeted while dialling
		f.mu.Unlock()
		c.Close()
		b.Close()
		return
	}
	f.conns[c], f.conns[b] = struct{}{}, struct{}{}
	f.mu.Unlock()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(b, c)
	go pipe(c, b)
	<-done
	c.Close()
	b.Close()
	<-done
	f.mu.Lock()
	delete(f.conns, c)
	delete(f.conns, b)
	f.mu.Unlock()
}

// retarget sends new connections to target ("" refuses them) and closes
// the ones in flight.
func (f *front) retarget(target string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.target = target
	for c := range f.conns {
		c.Close()
	}
}

// close stops listening and closes every connection.
func (f *front) close() {
	f.ln.Close()
	f.retarget("")
}
