//go:build linux && wayland

package present

import (
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A compositor that never answers (a window it never maps) leaves every
// feedback pending: the tracker keeps at most wlPendingMax of them and
// counts the rest given up and lost, and the C heap (the feedback's records and
// libwayland's proxies, about 130 bytes a frame) stops growing. The
// compositor here is the far end of a socket pair, never answered (read
// after each swap, so that the connection never backs up). libwayland
// keeps each destroyed feedback's id reserved until the compositor says
// it deleted it (an entry of its object map, 8 bytes), which the bound
// leaves: 14 bytes a swap here, against 143 without the bound.
func TestWaylandUnansweredFeedbackIsBounded(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	peer := fds[1]
	defer unix.Close(peer)
	if err := unix.SetNonblock(peer, true); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<16)
	read := func() { // reads every request sent so far, answers none
		for {
			if n, err := unix.Read(peer, buf); n <= 0 || err != nil {
				return
			}
		}
	}
	var clock time.Duration
	tr := &Tracker{now: func() time.Duration { return clock }, completeFrom: ^uint64(0)}
	if err := tr.plat.openUnanswered(tr, fds[0]); err != nil {
		t.Fatal(err)
	}
	const swaps, settled = 10_000, 1_000
	var heap uint64
	for n := range uint64(swaps) {
		clock += time.Second / 360
		tr.Swapping()            // asks for this swap's feedback
		tr.Swapped(100+n, clock) // flushes
		read()
		if n+1 == settled {
			heap = cHeap()
		}
	}
	pending, grown := int(tr.plat.w.npending), int64(cHeap())-int64(heap)
	tr.Flush(0)
	if err := tr.Close(); err != nil {
		t.Error(err)
	}
	t.Logf("%d feedback pending after %d swaps; C heap grew %d B over the last %d", pending, swaps, grown, swaps-settled)
	if pending > wlPendingMax {
		t.Errorf("%d feedback pending, more than wlPendingMax (%d)", pending, wlPendingMax)
	}
	// Each swap asks for its own: swaps in all.
	if d := tr.plat.dropped; d != swaps-uint64(pending) || tr.Stats().Lost < d {
		t.Errorf("%d feedback given up, %d frames counted lost; want %d given up and lost (all but the %d pending)", d, tr.Stats().Lost, swaps-pending, pending)
	}
	if per := grown / (swaps - settled); per > 32 {
		t.Errorf("the C heap grew %d B a swap with no answer", per)
	}
}
