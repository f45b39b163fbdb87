package cloud

import (
	"math/bits"
	"net/netip"
	"strconv"
)

// maxIPv6Diff is how many bits longer than an IPv6 cluster CIDR a node mask
// may be (upstream's clusterSubnetMaxDiff): at most 65,536 node CIDRs.
// maxIPv4Diff is the same limit for IPv4, which upstream does not have:
// 2^24 blocks (a /8 of /32s, or 0.0.0.0/0 in /24s) keep the bitmap at
// 2 MiB, where 2^32 would need 512 MiB.
const (
	maxIPv6Diff = 16
	maxIPv4Diff = 24
)

// CIDRSet hands out the node-sized blocks of one cluster CIDR, as the node
// IPAM controller's cidrset: a bitmap of used blocks, a next-candidate cursor
// that moves past each allocation and wraps around, and occupy/release of any
// CIDR that overlaps the cluster CIDR (marking every node block it touches).
//
// A CIDRSet is not safe for concurrent use; the allocator owning it
// serializes calls. The bitmap grows only as far as blocks are used.
//
// There is no zero value: use NewCIDRSet.
type CIDRSet struct {
	cluster   netip.Prefix
	nodeBits  int // node mask size
	max       int // number of node blocks
	allocated int
	next      int
	used      []uint64
}

// NewCIDRSet returns the set of nodeMaskSize blocks of cluster. cluster is
// masked first ("10.0.1.7/16" is 10.0.0.0/16). nodeMaskSize must be between
// the cluster's prefix length and the address length; for IPv6 it may be at
// most 16 bits longer than the cluster's (upstream's limit, 65,536 blocks);
// for IPv4 at most 24 bits (16,777,216 blocks; upstream sets no limit, and
// its bitmap for 2^32 blocks would take 512 MiB).
func NewCIDRSet(cluster netip.Prefix, nodeMaskSize int) (*CIDRSet, error) {
	if !cluster.IsValid() {
		return nil, wrap(ErrInvalidConfig, "cluster CIDR "+quote(cluster.String())+" is not a valid prefix")
	}
	cluster = cluster.Masked()
	addrBits := cluster.Addr().BitLen()
	switch {
	case nodeMaskSize < cluster.Bits() || nodeMaskSize > addrBits:
		return nil, wrap(ErrInvalidConfig, "node CIDR mask size "+strconv.Itoa(nodeMaskSize)+" is outside "+
			strconv.Itoa(cluster.Bits())+".."+strconv.Itoa(addrBits)+" for cluster CIDR "+cluster.String())
	case addrBits == 128 && nodeMaskSize-cluster.Bits() > maxIPv6Diff:
		return nil, wrap(ErrInvalidConfig, "node CIDR mask size "+strconv.Itoa(nodeMaskSize)+" is more than 16 bits longer than cluster CIDR "+
			cluster.String()+" (New CIDR set failed; the node CIDR size is too big)")
	case addrBits == 32 && nodeMaskSize-cluster.Bits() > maxIPv4Diff:
		return nil, wrap(ErrInvalidConfig, "node CIDR mask size "+strconv.Itoa(nodeMaskSize)+" is more than 24 bits longer than cluster CIDR "+
			cluster.String()+" (more than 16,777,216 node CIDRs)")
	}
	return &CIDRSet{cluster: cluster, nodeBits: nodeMaskSize, max: 1 << (nodeMaskSize - cluster.Bits())}, nil
}

// Cluster returns the (masked) cluster CIDR.
func (s *CIDRSet) Cluster() netip.Prefix { return s.cluster }

// NodeMaskSize returns the prefix length of the node blocks.
func (s *CIDRSet) NodeMaskSize() int { return s.nodeBits }

// Max returns how many node blocks the cluster CIDR holds.
func (s *CIDRSet) Max() int { return s.max }

// Allocated returns how many node blocks are in use.
func (s *CIDRSet) Allocated() int { return s.allocated }

// Free returns how many node blocks are free: Max() - Allocated().
func (s *CIDRSet) Free() int { return s.max - s.allocated }

func (s *CIDRSet) bit(i int) bool {
	w := i >> 6
	return w < len(s.used) && s.used[w]&(1<<(uint(i)&63)) != 0
}

// set marks block i used or free and reports whether it changed.
func (s *CIDRSet) set(i int, on bool) bool {
	if s.bit(i) == on {
		return false
	}
	w := i >> 6
	for w >= len(s.used) {
		s.used = append(s.used, 0)
	}
	s.used[w] ^= 1 << (uint(i) & 63)
	if on {
		s.allocated++
	} else {
		s.allocated--
	}
	return true
}

// AllocateNext returns the first free block at or after the cursor, wrapping
// around, marks it used and moves the cursor past it. With every block used
// it returns ErrCIDRExhausted.
func (s *CIDRSet) AllocateNext() (netip.Prefix, error) {
	if s.allocated >= s.max {
		return netip.Prefix{}, wrap(ErrCIDRExhausted, "all "+strconv.Itoa(s.max)+" /"+strconv.Itoa(s.nodeBits)+" blocks of "+s.cluster.String()+" are in use")
	}
	i := s.scanFree(s.next, s.max)
	if i < 0 {
		i = s.scanFree(0, s.next)
	}
	s.set(i, true)
	s.next = (i + 1) % s.max
	return s.block(i), nil
}

// scanFree returns the first free block in [lo, hi), or -1.
func (s *CIDRSet) scanFree(lo, hi int) int {
	for i := lo; i < hi; {
		w := i >> 6
		var word uint64
		if w < len(s.used) {
			word = s.used[w]
		}
		word |= 1<<(uint(i)&63) - 1 // blocks below i count as used
		if word != ^uint64(0) {
			if j := w<<6 + bits.TrailingZeros64(^word); j < hi {
				return j
			}
			return -1
		}
		i = (w + 1) << 6
	}
	return -1
}

// block returns node block i.
func (s *CIDRSet) block(i int) netip.Prefix {
	hi, lo := split(s.cluster.Addr())
	shift := uint(s.cluster.Addr().BitLen() - s.nodeBits)
	// Add i << shift to the 128-bit (hi, lo) value; the block lies inside
	// the cluster CIDR, so nothing carries out of its bits.
	addLo := uint64(i) << shift
	addHi := uint64(0)
	if shift >= 64 {
		addLo, addHi = 0, uint64(i)<<(shift-64)
	} else if shift > 0 {
		addHi = uint64(i) >> (64 - shift)
	}
	lo, carry := bits.Add64(lo, addLo, 0)
	hi += addHi + carry
	return netip.PrefixFrom(join(hi, lo, s.cluster.Addr().Is4()), s.nodeBits)
}

// index returns the number of the node block that holds a (which lies in the
// cluster CIDR).
func (s *CIDRSet) index(a netip.Addr) int {
	hi, lo := split(a)
	chi, clo := split(s.cluster.Addr())
	hi, lo = hi-chi, lo-clo // a - cluster base: only the low host bits remain
	shift := uint(a.BitLen() - s.nodeBits)
	switch {
	case shift >= 64:
		return int(hi >> (shift - 64))
	case shift == 0:
		return int(lo)
	default:
		return int(lo>>shift | hi<<(64-shift))
	}
}

// split returns an address as a 128-bit number; IPv4 in the low 32 bits.
func split(a netip.Addr) (hi, lo uint64) {
	if a.Is4() {
		b := a.As4()
		return 0, uint64(b[0])<<24 | uint64(b[1])<<16 | uint64(b[2])<<8 | uint64(b[3])
	}
	b := a.As16()
	for i := 0; i < 8; i++ {
		hi = hi<<8 | uint64(b[i])
		lo = lo<<8 | uint64(b[8+i])
	}
	return hi, lo
}

func join(hi, lo uint64, v4 bool) netip.Addr {
	if v4 {
		return netip.AddrFrom4([4]byte{byte(lo >> 24), byte(lo >> 16), byte(lo >> 8), byte(lo)})
	}
	var b [16]byte
	for i := 7; i >= 0; i-- {
		b[i], b[8+i] = byte(hi), byte(lo)
		hi, lo = hi>>8, lo>>8
	}
	return netip.AddrFrom16(b)
}

// lastAddr returns the last address of p.
func lastAddr(p netip.Prefix) netip.Addr {
	hi, lo := split(p.Addr())
	host := uint(p.Addr().BitLen() - p.Bits())
	switch {
	case host >= 64:
		hi |= 1<<(host-64) - 1
		lo = ^uint64(0)
		if host == 128 {
			hi = ^uint64(0)
		}
	default:
		lo |= 1<<host - 1
	}
	return join(hi, lo, p.Addr().Is4())
}

// span returns the first and last block numbers cidr covers: every block
// when cidr is as large as the cluster CIDR or larger, otherwise the blocks
// holding its first and last addresses. cidr must overlap the cluster CIDR
// and be of its family.
func (s *CIDRSet) span(cidr netip.Prefix) (first, last int, err error) {
	if !cidr.IsValid() {
		return 0, 0, wrap(ErrInvalidCIDR, "CIDR "+quote(cidr.String())+" is not a valid prefix")
	}
	cidr = cidr.Masked()
	if cidr.Addr().Is4() != s.cluster.Addr().Is4() || !cidr.Overlaps(s.cluster) {
		return 0, 0, wrap(ErrInvalidCIDR, "CIDR "+cidr.String()+" is out of the range of cluster CIDR "+s.cluster.String())
	}
	if cidr.Bits() <= s.cluster.Bits() {
		return 0, s.max - 1, nil
	}
	return s.index(cidr.Addr()), s.index(lastAddr(cidr)), nil
}

// Occupy marks every node block cidr touches as used (a node that already
// has the CIDR, or a Service range to keep out). A CIDR of another family or
// outside the cluster CIDR is ErrInvalidCIDR.
func (s *CIDRSet) Occupy(cidr netip.Prefix) error {
	first, last, err := s.span(cidr)
	if err != nil {
		return err
	}
	s.setRange(first, last, true)
	return nil
}

// Release marks every node block cidr touches as free. Releasing a free
// block does nothing.
func (s *CIDRSet) Release(cidr netip.Prefix) error {
	first, last, err := s.span(cidr)
	if err != nil {
		return err
	}
	s.setRange(first, last, false)
	return nil
}

// setRange marks blocks first..last used or free, a 64-bit word at a time.
func (s *CIDRSet) setRange(first, last int, on bool) {
	if on {
		for last>>6 >= len(s.used) {
			s.used = append(s.used, 0)
		}
	}
	for i := first; i <= last; {
		w := i >> 6
		if w >= len(s.used) {
			return // releasing blocks never used
		}
		hi := uint(63)
		if w<<6+63 > last {
			hi = uint(last & 63)
		}
		mask := ^uint64(0) >> (63 - hi) &^ (1<<(uint(i)&63) - 1)
		old := s.used[w]
		if on {
			s.used[w] |= mask
			s.allocated += bits.OnesCount64(s.used[w] &^ old)
		} else {
			s.used[w] &^= mask
			s.allocated -= bits.OnesCount64(old &^ s.used[w])
		}
		i = (w + 1) << 6
	}
}

// InUse reports whether every node block cidr touches is used.
func (s *CIDRSet) InUse(cidr netip.Prefix) bool {
	first, last, err := s.span(cidr)
	if err != nil {
		return false
	}
	for i := first; i <= last; i++ {
		if !s.bit(i) {
			return false
		}
	}
	return true
}
