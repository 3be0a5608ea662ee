package renderer

import (
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
)

// notice is the app's own line of text (SetNotice), drawn as a world's
// overlay is, from a snapshot of its own that only it fills.
type notice struct {
	snap simthread.Snapshot
	plan interp.Plan // Ready, Next: &snap
}

// SetNotice sets a short line the renderer draws at the top centre of
// every frame, on a dark band, over the scene and the world's overlay and
// whether or not the HUD is shown: what the app itself must say on screen
// ("paused"). "" clears it. It reuses its memory: once the longest text
// has been set, setting one allocates nothing.
func (r *Renderer) SetNotice(text string) {
	n := &r.notice
	n.plan.Ready, n.plan.Next = text != "", &n.snap
	o := &n.snap.Overlay
	o.Reset()
	if text == "" {
		return
	}
	const size, pad = simthread.DefaultTextSize, 10 // units: 26 px at 1280×720
	w := float32(len(text))*size*7/13 + 2*pad
	o.Rect(simthread.Top, 0, 12, w, size+2*pad, simthread.RGBA(0, 0, 0, 150))
	o.Text(simthread.Top, 0, 12+pad, size, simthread.White, text)
}

// drawNotice draws the notice, if any, over the frame.
func (r *Renderer) drawNotice(width, height int) {
	if r.notice.plan.Ready {
		r.over.draw(&r.notice.plan, &r.vp, width, height)
	}
}
