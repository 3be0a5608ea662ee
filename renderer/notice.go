package renderer

import (
	"github.com/tickframe/tickframe/simthread"
)

// notice is the app's own line of text (SetNotice), drawn as a world's
// overlay is, from a snapshot of its own that only it fills, laid out
// again when the text or the window's size changes.
type notice struct {
	text          []byte
	snap          simthread.Snapshot
	plan          Plan // Ready, Next: &snap
	width, height int  // the window the snapshot was laid out for
}

// noticeMinPx is the smallest the notice's text is drawn, in pixels: the
// overlay's text follows the window (26 px at 1280×720: 7 px at 320×240,
// which antialiasing leaves unreadable), and the notice must be read in
// any window.
const noticeMinPx = 12

// SetNotice sets a short line the renderer draws at the top centre of
// every frame, on a dark band, over the scene and the world's overlay and
// whether or not the HUD is shown: what the app itself must say on screen
// ("paused"), at least noticeMinPx pixels high. "" clears it. It reuses
// its memory: once the longest text has been set, setting one allocates
// nothing.
func (r *Renderer) SetNotice(text string) {
	n := &r.notice
	n.text = append(n.text[:0], text...)
	n.plan.Ready, n.plan.Next = text != "", &n.snap
	n.width, n.height = 0, 0 // laid out at the next draw
}

// drawNotice draws the notice, if any, over the frame.
func (r *Renderer) drawNotice(width, height int) {
	n := &r.notice
	if !n.plan.Ready {
		return
	}
	if n.width != width || n.height != height {
		n.width, n.height = width, height
		n.layout(r.over.fonts, width, height)
	}
	r.over.draw(&n.plan, &r.vp, width, height)
}

// layout fills the notice's overlay for a width×height window: its text
// at the overlay's default size or noticeMinPx, whichever is larger, on a
// band as wide as the text measures in that font.
func (n *notice) layout(fonts *glyphCache, width, height int) {
	o := &n.snap.Overlay
	o.Reset()
	scale := overlayScale(width, height)
	if !(scale > 0) {
		return
	}
	size := max(float32(simthread.DefaultTextSize), noticeMinPx/scale) // overlay units
	pad := size * 10 / 26
	w := float32(len(n.text)) * size * 7 / 13
	if s := fonts.get(faceRegular, roundPx(size*scale)); s != nil {
		tw, _ := s.measure(n.text)
		w = float32(tw) / scale
	}
	o.Rect(simthread.Top, 0, 12, w+2*pad, size+2*pad, simthread.RGBA(0, 0, 0, 150))
	it := o.Text(simthread.Top, 0, 12+pad, size, simthread.White, "")
	it.Text = append(it.Text, n.text...)
}
