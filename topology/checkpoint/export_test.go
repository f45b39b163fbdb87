package checkpoint

// MemoryHashText is the text the kubelet hashes for s written in format V1,
// for tests that check it against go-spew's rules by hand.
func MemoryHashText(s MemoryState) string {
	machine, entries := kubeletCopy(s)
	c := &memV1{PolicyName: s.PolicyName, MachineState: machine, Entries: entries}
	return textOf(c, "MemoryManagerCheckpoint")
}
