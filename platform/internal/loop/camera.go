package loop

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/renderer"
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
//     wheel), which with Camera.Follow turns about body Camera.FollowBody
//     where this frame draws it (renderer.BodyPose in the plan's motion
//     mode, the extrapolation's correction mirrored): the body stays at
//     the window's centre between ticks, and the orbit, which belongs to
//     the render thread, turns and zooms while the world is paused.
//  2. With Config.Mouse.MouseLook, that camera is turned by the mouse motion the
//     world has not simulated yet: late latching.
//  3. The frame's projection (App.Projection) is recorded.
//
// Just before step 1, the window is polled once more (latePoll) for mouse
// look and for the orbit camera's drag and wheel, so that the view takes
// the motion that arrived while the frame was planned and waited: a drag
// is drawn in the next frame whatever the ticks and the render delay.
//
// Late latching. The world turns its camera by cursor motion at its ticks,
// and what a frame draws is a tick and a margin old (the render delay), so
// a view driven by the simulation alone lags the hand by 10 ms or more and
// moves in tick-sized steps. Instead, the app keeps a ledger: the sums of
// the DX and DY of every cursor event whose input the simulation's queue
// accepted. The world publishes the sums of the motion it has consumed
// (simthread.MouseLook), which are interpolated along with the pose; the
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

// orbitState is the render thread's part of the orbit camera and of the
// frame's projection.
type orbitState struct {
	// corr mirrors the renderer's extrapolation correction of the body
	// the orbit follows (renderer.Correction), for body corrBody.
	corr     renderer.Correction
	corrBody int
	// drawn is the projection of the frame last drawn (App.Projection).
	drawn renderer.Projection
}

// latePoll reports whether the frame polls the window once more just
// before it is drawn: for mouse look, and for the orbit camera's drag and
// wheel, so that the view takes the motion that arrived while the frame
// was planned and waited.
func (a *App) latePoll(plan *renderer.Plan) bool {
	orbit := !plan.Ready || !plan.Next.Camera.Valid
	return a.cfg.Mouse.MouseLook || (orbit && !a.cfg.Mouse.NoMouseCamera)
}

// latchCamera settles the camera the plan is drawn from (see above) and
// records the frame's projection. It does not allocate.
func (a *App) latchCamera(plan *renderer.Plan) {
	if a.win != nil && a.latePoll(plan) {
		a.poll() // the newest motion, just before drawing
	}
	a.settleCamera(plan)
	if a.win != nil {
		if w, h := a.win.FramebufferSize(); w > 0 && h > 0 {
			a.ctl.orbit.drawn = renderer.Projection{Camera: a.ctl.cam, Width: w, Height: h}
		}
	}
}

// settleCamera is latchCamera's camera: the world's, interpolated and
// latched, or the orbit, following its body.
func (a *App) settleCamera(plan *renderer.Plan) {
	if !plan.Ready || !plan.Next.Camera.Valid {
		a.ctl.cam.Pose.Valid = false // the orbit camera
		a.follow(plan)
		return
	}
	a.ctl.cam.Pose = renderer.LerpPose(&plan.Prev.Camera, &plan.Next.Camera, plan.Alpha)
	if a.cfg.Mouse.MouseLook && a.cfg.Sim.Replay == nil {
		a.ctl.cam.Latch(a.ctl.look.x, a.ctl.look.y)
	}
}

// follow points the orbit at the body it follows (renderer.Camera.Follow)
// where the frame draws it: renderer.BodyPose, the CPU reference of the
// shader's maths in the plan's motion mode, with the renderer's
// extrapolation correction mirrored, so that the body is drawn at the
// window's centre in every mode.
func (a *App) follow(plan *renderer.Plan) {
	c := &a.ctl.cam
	o := &a.ctl.orbit
	if !c.Follow {
		return
	}
	if o.corrBody != c.FollowBody {
		o.corr, o.corrBody = renderer.Correction{}, c.FollowBody
	}
	o.corr.Follow(plan, c.FollowBody)
	if pose, ok, _ := renderer.BodyPose(plan, c.FollowBody, &o.corr); ok && finite3(pose.Pos) {
		c.Target = pose.Pos
	}
}

// finite3 reports whether every component of v is finite.
func finite3(v mgl32.Vec3) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

// Projection returns the projection of the frame last drawn: the camera
// it was drawn from, as drawn (posed, followed, dragged, latched), and its
// framebuffer's size. Its Project maps a world point to that frame's
// pixels and its Ray casts a pixel back into the world, for labels and
// picking. From a hook's BeforeSwap on, it is the frame being swapped;
// before any frame is drawn, the zero Projection. Call it on the render
// thread (a Hook, Config.Input, an app's Finish): the world never sees it,
// as data flows one way; a world that picks gets the ray in an input that
// Config.Input builds from the click (Ray(x, y) with the cursor's
// position scaled to the framebuffer's pixels). Once the frame is drawn it
// is the renderer's too (renderer.Renderer.Projection), which an app run
// by app.Main, which does not hold its App while it runs, keeps from
// Config.Scene.
func (a *App) Projection() renderer.Projection { return a.ctl.orbit.drawn }

// SetCamera replaces the orbit camera from the next frame on: its target,
// turn, distance, field of view, clip planes and Follow (to follow
// another body, or none). Pose is ignored: each frame settles it. Call it
// on the render thread (a Hook, Config.Input); a drag or the wheel go on
// from the camera set.
func (a *App) SetCamera(c renderer.Camera) {
	c.Pose = a.ctl.cam.Pose
	a.ctl.cam = c
}
