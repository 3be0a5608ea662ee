//go:build linux && wayland

package present

import (
	"encoding/binary"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// wireCompositor is the far end of a Wayland connection that answers
// wp_presentation feedback as a compositor does: a feedback request
// applies to the surface's next commit, and the commits read at one call
// of serve are presented at the next (a repaint later), their feedback
// answered with presented, the commit's number (from 1) as the sequence
// number. It reads the client's requests off the wire
// and knows the objects tf_open_unanswered binds by the interface names
// in their bind requests.
type wireCompositor struct {
	fd       int
	buf      []byte // requests read and not yet parsed
	pres     uint32 // wp_presentation
	comp     uint32 // wl_compositor
	surf     uint32
	waiting  []uint32    // feedback asked for the next commit
	shown    [][2]uint32 // feedback and its commit, presented at the next serve
	commits  uint32
	answered int
}

const (
	wlDisplayID        = 1
	wlGetRegistry      = 1 // wl_display.get_registry
	wlRegistryBind     = 0
	wlCreateSurface    = 0 // wl_compositor.create_surface
	wlSurfaceCommit    = 6
	wpFeedback         = 1 // wp_presentation.feedback
	wpFeedbackPresents = 1 // wp_presentation_feedback.presented
)

// serve presents the commits read at its last call, then reads the
// requests sent since.
func (c *wireCompositor) serve(t *testing.T) {
	t.Helper()
	for _, s := range c.shown {
		c.presented(t, s[0], s[1])
	}
	c.shown = c.shown[:0]
	b := make([]byte, 1<<16)
	for {
		n, err := unix.Read(c.fd, b)
		if n <= 0 || err != nil {
			break
		}
		c.buf = append(c.buf, b[:n]...)
	}
	var registry uint32
	for len(c.buf) >= 8 {
		obj := binary.LittleEndian.Uint32(c.buf)
		op, size := binary.LittleEndian.Uint32(c.buf[4:])&0xffff, int(binary.LittleEndian.Uint32(c.buf[4:])>>16)
		if size < 8 || len(c.buf) < size {
			break
		}
		args := c.buf[8:size]
		word := func(i int) uint32 { return binary.LittleEndian.Uint32(args[4*i:]) }
		switch {
		case obj == wlDisplayID && op == wlGetRegistry:
			registry = word(0)
		case obj == registry && op == wlRegistryBind || obj == 2 && op == wlRegistryBind:
			// name, then the new_id's interface (a string), version, id.
			l := int(word(1))
			iface := string(args[8 : 8+l-1])
			off := 8 + (l+3)&^3
			id := binary.LittleEndian.Uint32(args[off+4:])
			switch iface {
			case "wp_presentation":
				c.pres = id
			case "wl_compositor":
				c.comp = id
			}
		case obj == c.comp && op == wlCreateSurface:
			c.surf = word(0)
		case obj == c.pres && op == wpFeedback:
			if word(0) != c.surf {
				t.Fatalf("feedback asked for object %d, not the surface %d", word(0), c.surf)
			}
			c.waiting = append(c.waiting, word(1))
		case obj == c.surf && op == wlSurfaceCommit:
			c.commits++
			for _, fb := range c.waiting {
				c.shown = append(c.shown, [2]uint32{fb, c.commits})
			}
			c.waiting = c.waiting[:0]
		}
		c.buf = c.buf[size:]
	}
}

// presented sends wp_presentation_feedback.presented for fb, with commit
// as its sequence number and a refresh of 0.
func (c *wireCompositor) presented(t *testing.T, fb, commit uint32) {
	t.Helper()
	m := make([]byte, 36)
	binary.LittleEndian.PutUint32(m, fb)
	binary.LittleEndian.PutUint32(m[4:], 36<<16|wpFeedbackPresents)
	for i, v := range []uint32{0, 1000 + commit, 0, 0, 0, commit, 0} { // sec hi, lo, nsec, refresh, seq hi, lo, flags
		binary.LittleEndian.PutUint32(m[8+4*i:], v)
	}
	if _, err := unix.Write(c.fd, m); err != nil {
		t.Fatal(err)
	}
	c.answered++
}

// GLFW commits the window's surface between swaps (its libdecor path, at
// a configure that does not resize the window, and at libdecor's own
// commit callback), while the render thread handles the window's events.
// Each frame's feedback must still be its own swap's commit's: asked for
// right before the swap (Tracker.Swapping), no other commit can take it.
// The compositor here presents every commit at once and numbers the
// presentations by commit; each frame must carry its swap's.
func TestWaylandFeedbackIsTheSwapsOwnCommit(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[1])
	if err := unix.SetNonblock(fds[1], true); err != nil {
		t.Fatal(err)
	}
	comp := &wireCompositor{fd: fds[1]}
	var clock time.Duration
	tr := &Tracker{now: func() time.Duration { return clock }, completeFrom: ^uint64(0)}
	if err := tr.plat.openUnanswered(tr, fds[0]); err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	const swaps = 40
	swapCommit := map[uint64]uint64{} // frame id → the number of its swap's commit
	var commits uint64
	var frames []Frame
	for n := range uint64(swaps) {
		clock += time.Second / 60
		tr.Swapping()
		tr.plat.commit() // the swap's (eglSwapBuffers)
		commits++
		swapCommit[100+n] = commits
		tr.Swapped(100+n, clock)
		if n%3 != 2 {
			// The window's events, handled before the next frame: a
			// configure that commits the surface.
			tr.plat.commit()
			commits++
		}
		comp.serve(t)
		for {
			f, ok := tr.Collect()
			if !ok {
				break
			}
			frames = append(frames, f)
		}
	}
	if comp.pres == 0 || comp.surf == 0 {
		t.Fatalf("the compositor did not see wp_presentation (%d) or the surface (%d) bound", comp.pres, comp.surf)
	}
	if len(frames) < swaps-2 {
		t.Errorf("%d frames reported of %d swapped (%d feedback answered)", len(frames), swaps, comp.answered)
	}
	wrong := 0
	for _, f := range frames {
		if want := swapCommit[f.ID]; f.MSC != want {
			if wrong < 5 {
				t.Errorf("frame %d reported with the presentation of commit %d; its swap's commit is %d", f.ID, f.MSC, want)
			}
			wrong++
		}
	}
	if wrong > 0 {
		t.Errorf("%d of %d frames took another commit's feedback", wrong, len(frames))
	}
}
