package pressure

// UpdateContainerFsThresholds derives the containerfs.* thresholds from
// the filesystem layout, as the kubelet does once at its first eviction
// cycle (pkg/kubelet/eviction.UpdateContainerFsThresholds):
//
//   - LayoutSingle and LayoutSplit: containerfs.available and
//     containerfs.inodesFree, hard and soft, copy the nodefs thresholds
//     (value, minimum reclaim, and the soft grace period);
//   - LayoutImageFs: they copy the imagefs thresholds.
//
// A containerfs threshold the user configured is overwritten in place and
// reported in the warnings (upstream logs "found containerfs.available for
// hard eviction. ignoring"); the others are appended. When the threshold
// to copy does not exist, upstream still appends a zero-valued copy with
// no operator, which is never met; so does this function, with a warning.
// ths is not modified.
func UpdateContainerFsThresholds(ths []Threshold, layout Layout) ([]Threshold, []Warning) {
	var nodeFs, imageFs [2][2]*Threshold      // [inodes][soft]
	existing := [2][2]int{{-1, -1}, {-1, -1}} // index of the user's containerfs thresholds, -1 if none
	// One allocation for the result: the input plus up to four copies.
	out := make([]Threshold, len(ths), len(ths)+4)
	copy(out, ths)
	var warnings []Warning
	for i := range out {
		t := &out[i]
		soft := 0
		if !t.IsHard() {
			soft = 1
		}
		switch t.Signal {
		case SignalNodeFsAvailable:
			nodeFs[0][soft] = t
		case SignalNodeFsInodesFree:
			nodeFs[1][soft] = t
		case SignalImageFsAvailable:
			imageFs[0][soft] = t
		case SignalImageFsInodesFree:
			imageFs[1][soft] = t
		case SignalContainerFsAvailable, SignalContainerFsInodesFree:
			inodes := 0
			if t.Signal == SignalContainerFsInodesFree {
				inodes = 1
			}
			existing[inodes][soft] = i
			warnings = appendWarning(warnings, Warning{
				Reason:  ReasonContainerFsOverwritten,
				Message: overwrittenMessages[layout.imageFs()][inodes][soft],
			})
		}
	}
	src := &nodeFs
	if layout == LayoutImageFs {
		src = &imageFs
	}
	// Upstream appends in the order hard available, soft available, hard
	// inodes, soft inodes: the order of these loops.
	for inodes, sig := range [2]Signal{SignalContainerFsAvailable, SignalContainerFsInodesFree} {
		for soft := 0; soft < 2; soft++ {
			c := Threshold{Signal: sig}
			if s := src[inodes][soft]; s != nil {
				c.Operator, c.Value, c.MinReclaim, c.GracePeriod = s.Operator, s.Value, s.MinReclaim, s.GracePeriod
			} else {
				warnings = appendWarning(warnings, Warning{Reason: ReasonZeroValuedCopy, Message: zeroCopyMessages[layout.imageFs()][inodes][soft]})
			}
			if i := existing[inodes][soft]; i >= 0 {
				out[i] = c
			} else {
				out = append(out, c)
			}
		}
	}
	return out, warnings
}

// appendWarning appends w, allocating room for the at most eight warnings
// UpdateContainerFsThresholds can give on the first one.
func appendWarning(ws []Warning, w Warning) []Warning {
	if ws == nil {
		ws = make([]Warning, 0, 8)
	}
	return append(ws, w)
}

func (l Layout) imageFs() int {
	if l == LayoutImageFs {
		return 1
	}
	return 0
}

// The warnings' messages, by [source is imagefs][inodes][soft], built once
// so that a call allocates none.
var overwrittenMessages, zeroCopyMessages = func() (over, zero [2][2][2]string) {
	for fs, l := range [2]Layout{LayoutSingle, LayoutImageFs} {
		for inodes, sig := range [2]Signal{SignalContainerFsAvailable, SignalContainerFsInodesFree} {
			for soft := 0; soft < 2; soft++ {
				over[fs][inodes][soft] = "found " + string(sig) + " for " + kindName(soft) + " eviction. ignoring: containerfs thresholds are derived from the " +
					l.source() + " thresholds"
				zero[fs][inodes][soft] = "no " + kindName(soft) + " " + string(l.sourceSignal(inodes == 1)) + " threshold to copy: a zero-valued " +
					string(sig) + " threshold that is never met is added"
			}
		}
	}
	return over, zero
}()

func kindName(soft int) string {
	if soft == 1 {
		return "soft"
	}
	return "hard"
}

// source names the filesystem whose thresholds containerfs copies.
func (l Layout) source() string {
	if l == LayoutImageFs {
		return "imagefs"
	}
	return "nodefs"
}

func (l Layout) sourceSignal(inodes bool) Signal {
	switch {
	case l == LayoutImageFs && inodes:
		return SignalImageFsInodesFree
	case l == LayoutImageFs:
		return SignalImageFsAvailable
	case inodes:
		return SignalNodeFsInodesFree
	}
	return SignalNodeFsAvailable
}
