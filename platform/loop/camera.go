package loop

import (
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/interp"
)

// The camera a frame is drawn from is settled just before it is drawn
// (latchCamera):
//
//  1. If the plan's newer snapshot holds a valid camera
//     (simthread.Snapshot.Camera), the world's camera, interpolated
//     between the plan's two snapshots at its alpha exactly as the bodies
//     are (renderer.LerpPose): a camera that follows a body moves with it,
//     frame for frame, without jitter. A change of the camera's Epoch
//     cuts. Else the render thread's orbit camera (Config.Camera, drag and
//     wheel).
//  2. With Config.Mouse.MouseLook, that camera is turned by the mouse motion the
//     world has not simulated yet: late latching.
//
// Late latching. The world turns its camera by cursor motion at its ticks,
// and what a frame draws is a tick and a margin old (the render delay), so
// a view driven by the simulation alone lags the hand by 10 ms or more and
// moves in tick-sized steps. Instead, the app keeps a ledger: the sums of
// the DX and DY of every cursor event whose input the simulation's queue
// accepted. The world publishes the sums of the motion it has consumed
// (simthread.Look), which are interpolated along with the pose; the
// difference is the motion sent but not yet simulated, and the drawn view
// is turned by it, as the world will turn (Look.Scale radians per unit,
// within Look's pitch limits), about the camera's subject
// (renderer.Camera.Latch). Just before drawing, the app polls the window
// once more, so the view takes motion that arrived while the frame waited.
// The view then shows all the motion sent, the simulation's share and the
// remainder, whatever the frame's alpha: nothing is reset, the remainder
// shrinks to zero as the world's ticks consume it, and a dropped input
// (a full queue, a replay) is never counted. The motion still reaches the
// world, which turns the character and its camera by it at its ticks, so
// a recording replays the same run; only the drawn view runs ahead.
//
// A replay has no late latching: its look motion comes from the
// recording, at the ticks the world consumed it, so no motion is ever
// sent and not yet simulated, and the world's camera is drawn as it is.
// (The ledger counts live motion only, which a replay refuses: latching
// it, 0, would undo every turn the world replays.)
//
// The contract with Config.Input: with MouseLook, every cursor event it
// turns into an input counts as that event's DX, DY of look motion, and
// the world adds exactly those values (simthread.Input's X, Y, say), in
// arrival order, to its Look sums, whether or not it turns by them.

// lookLedger is the mouse motion sent to the world.
type lookLedger struct {
	x, y float64 // sums of the DX, DY of cursor events the queue accepted
}

// forwardCursor is forward for a cursor event: with Config.Mouse.MouseLook, the
// motion of an input the queue accepts goes into the ledger.
func (a *App) forwardCursor(e platform.Event) {
	if a.cfg.Input == nil {
		return
	}
	in, ok := a.cfg.Input(e)
	if !ok || !a.pipe.Sim().Send(in) {
		return
	}
	if a.cfg.Mouse.MouseLook {
		a.ctl.look.x += e.DX
		a.ctl.look.y += e.DY
	}
}

// latchCamera settles the camera the plan is drawn from (see above). It
// does not allocate.
func (a *App) latchCamera(plan *interp.Plan) {
	if a.cfg.Mouse.MouseLook && a.win != nil {
		a.poll() // the newest motion, just before drawing
	}
	if !plan.Ready || !plan.Next.Camera.Valid {
		a.ctl.cam.Pose.Valid = false // the orbit camera
		return
	}
	a.ctl.cam.Pose = renderer.LerpPose(&plan.Prev.Camera, &plan.Next.Camera, plan.Alpha)
	if a.cfg.Mouse.MouseLook && a.cfg.Sim.Replay == nil {
		a.ctl.cam.Latch(a.ctl.look.x, a.ctl.look.y)
	}
}
