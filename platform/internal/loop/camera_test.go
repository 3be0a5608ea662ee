package loop

import (
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// lookWorld publishes a third-person camera on a known path, turned by
// the look inputs it consumes, and cut to another place at cutTick.
type lookWorld struct {
	tick  uint64
	x, y  float64 // the look motion consumed
	epoch uint32
}

const (
	lookKind  = 1
	lookScale = 0.002 // rad per unit of motion
	cutTick   = 60
)

func (w *lookWorld) Step(tick uint64, dt float64, inputs []simthread.Input) {
	w.tick = tick
	for _, in := range inputs {
		if in.Kind == lookKind {
			w.x += in.X
			w.y += in.Y
		}
	}
	if tick == cutTick {
		w.epoch++
	}
}

func (w *lookWorld) Snapshot(dst *simthread.Snapshot) {
	dst.Bodies = dst.Bodies[:0]
	dst.Camera = pathPose(float64(w.tick), w.x, w.y, w.epoch)
}

// pathPose is the camera at a (fractional) tick after look motion x, y,
// in epoch e: its subject walks a straight line while the camera turns
// steadily, and the motion turns it further.
func pathPose(tick, x, y float64, e uint32) simthread.CameraPose {
	subject := mgl32.Vec3{float32(0.05*tick + 100*float64(e)), 1.5, float32(-0.1 * tick)}
	rot := mgl32.QuatRotate(float32(0.01*tick-x*lookScale), mgl32.Vec3{0, 1, 0}).
		Mul(mgl32.QuatRotate(float32(-0.2-y*lookScale), mgl32.Vec3{1, 0, 0}))
	const boom = 4
	return simthread.CameraPose{Valid: true, Rot: rot, Boom: boom, FOV: 1, Epoch: e,
		Pos:  subject.Sub(rot.Rotate(mgl32.Vec3{0, 0, -1}).Mul(boom)),
		Look: simthread.MouseLook{X: x, Y: y, Scale: lookScale, MinPitch: -1.4, MaxPitch: 1.4}}
}

// lookInput is the world's Config.Input: cursor motion becomes a look.
func lookInput(e platform.Event) (simthread.Input, bool) {
	return simthread.Input{Kind: lookKind, X: e.DX, Y: e.DY}, e.Kind == platform.CursorEvent
}

func motion(dx, dy float64) platform.Event {
	return platform.Event{Kind: platform.CursorEvent, DX: dx, DY: dy}
}

// lookApp is a headless App (no window) running lookWorld on a virtual
// clock, with frames at 144 Hz over the simulation's 120 Hz.
type lookApp struct {
	*App
	clock *sim.VirtualClock
	next  time.Duration // the simulation's next deadline
	frame time.Duration
}

func newLookApp(t *testing.T, mouseLook bool, inputs int) *lookApp {
	t.Helper()
	clock := new(sim.VirtualClock)
	cfg := Config{Input: lookInput, Sim: simthread.Tuning{Inputs: inputs}, Mouse: Mouse{MouseLook: mouseLook}}
	a, err := NewHeadless(cfg, &lookWorld{}, clock)
	if err != nil {
		t.Fatal(err)
	}
	l := &lookApp{App: a, clock: clock}
	l.next, _ = a.Sim().Wake()
	return l
}

// tick runs the simulation up to the next frame's time.
func (l *lookApp) tick() {
	l.frame += time.Second / 144
	for l.next <= l.frame {
		l.clock.Set(l.next)
		l.next, _ = l.Sim().Wake()
	}
}

// draw plans the frame and settles its camera, as present does just
// before drawing.
func (l *lookApp) draw() renderer.Plan {
	l.plan = l.pipe.Plan(l.frame)
	l.latchCamera(&l.plan)
	return l.plan
}

// samePose compares positions and orientations (q and −q are the same)
// within tol.
// subjectOf is the point a pose's camera turns about: Boom ahead of the
// eye, along its view (−z turned by Rot).
func subjectOf(p *simthread.CameraPose) mgl32.Vec3 {
	return p.Pos.Add(p.Rot.Normalize().Rotate(mgl32.Vec3{0, 0, -1}).Mul(p.Boom))
}

func samePose(a, b simthread.CameraPose, tol float32) bool {
	d := a.Rot.Sub(b.Rot)
	if a.Rot.Dot(b.Rot) < 0 {
		d = a.Rot.Add(b.Rot)
	}
	return a.Valid == b.Valid && a.Pos.Sub(b.Pos).Len() <= tol && d.Len() <= tol
}

// TestCameraFromTheWorld checks the drawn camera against the world's
// known path: before the first snapshot the orbit camera; then every
// frame the pose between the plan's two snapshots at its alpha, which on
// this path is the path's pose at the plan's SimTick; across the cut,
// the new camera at once.
func TestCameraFromTheWorld(t *testing.T) {
	l := newLookApp(t, false, 0)
	if l.latchCamera(&renderer.Plan{}); l.ctl.cam != renderer.DefaultCamera() {
		t.Fatalf("before any snapshot: camera %+v, want the orbit camera", l.ctl.cam)
	}
	cuts := 0
	for range 200 {
		l.tick()
		plan := l.draw()
		prev, next := plan.Prev.Camera, plan.Next.Camera
		drawn := l.ctl.cam.Pose
		if prev.Epoch != next.Epoch {
			cuts++
			if drawn != next {
				t.Fatalf("frame at tick %.2f across the cut: pose %+v, want the new camera %+v", plan.SimTick, drawn, next)
			}
			continue
		}
		// mathgl's slerp of the normalised ends, on the shorter arc.
		rot := mgl32.QuatSlerp(prev.Rot.Normalize(), next.Rot.Normalize(), plan.Alpha).Normalize()
		if !samePose(simthread.CameraPose{Valid: true, Rot: drawn.Rot}, simthread.CameraPose{Valid: true, Rot: rot}, 1e-5) {
			t.Fatalf("tick %.2f: rotation %v, want the slerp at alpha %v, %v", plan.SimTick, drawn.Rot, plan.Alpha, rot)
		}
		subject := renderer.Lerp(subjectOf(&prev), subjectOf(&next), plan.Alpha)
		if s := subjectOf(&drawn); s.Sub(subject).Len() > 1e-4 {
			t.Fatalf("tick %.2f: subject %v, want the lerp at alpha %v, %v", plan.SimTick, s, plan.Alpha, subject)
		}
		if want := pathPose(plan.SimTick, 0, 0, next.Epoch); !samePose(drawn, want, 1e-4) {
			t.Fatalf("tick %.2f: pose %v %v, want the path's %v %v", plan.SimTick, drawn.Pos, drawn.Rot, want.Pos, want.Rot)
		}
		if v, want := l.ctl.cam.View(), (renderer.Camera{Pose: drawn}).View(); v != want || l.ctl.cam.Pose.FOV != drawn.FOV {
			t.Fatal("the drawn view is not the interpolated pose's")
		}
	}
	if cuts == 0 {
		t.Fatal("no frame fell across the cut")
	}
}

// TestMouseLookLatchesBetweenTicks moves the mouse while the simulation
// is between ticks: the same frame's view turns by all of the motion, as
// the world will turn when it consumes it, the world receives the motion,
// and once it has, the view stays where it was.
func TestMouseLookLatchesBetweenTicks(t *testing.T) {
	l := newLookApp(t, true, 0)
	for range 30 {
		l.tick()
		l.draw()
	}
	plan := l.draw()
	before := l.ctl.cam.Pose
	if want := pathPose(plan.SimTick, 0, 0, 0); !samePose(before, want, 1e-4) {
		t.Fatalf("without motion: pose %v %v, want the path's %v %v", before.Pos, before.Rot, want.Pos, want.Rot)
	}
	// No tick runs: the motion reaches the view only through the latch.
	l.Handle([]platform.Event{motion(30, -8), motion(12.5, 3)})
	plan = l.draw()
	if want := pathPose(plan.SimTick, 42.5, -5, 0); !samePose(l.ctl.cam.Pose, want, 1e-4) {
		t.Fatalf("after motion between ticks: pose %v %v, want the world's after it %v %v", l.ctl.cam.Pose.Pos, l.ctl.cam.Pose.Rot, want.Pos, want.Rot)
	}
	if samePose(l.ctl.cam.Pose, before, 1e-3) {
		t.Fatal("the motion did not turn the view")
	}
	if l.ctl.look != (lookLedger{42.5, -5}) {
		t.Fatalf("ledger %+v, want {42.5 -5}", l.ctl.look)
	}
	// The world consumes it at its next tick; once every snapshot the
	// frame uses has it, the view is the world's alone, and still where
	// the mouse put it.
	for range 10 {
		l.tick()
		plan = l.draw()
		if want := pathPose(plan.SimTick, 42.5, -5, 0); !samePose(l.ctl.cam.Pose, want, 1e-4) {
			t.Fatalf("tick %.2f: pose %v %v, want %v %v", plan.SimTick, l.ctl.cam.Pose.Pos, l.ctl.cam.Pose.Rot, want.Pos, want.Rot)
		}
	}
	if c := plan.Prev.Camera.Look; c.X != 42.5 || c.Y != -5 {
		t.Fatalf("the world consumed look motion (%v, %v), want (42.5, -5)", c.X, c.Y)
	}
	if lerped := renderer.LerpPose(&plan.Prev.Camera, &plan.Next.Camera, plan.Alpha); l.ctl.cam.Pose != lerped {
		t.Fatal("with every motion consumed, the view is not the interpolated pose")
	}

	// Without MouseLook the view waits for the simulation.
	l.cfg.Mouse.MouseLook = false
	l.Handle([]platform.Event{motion(50, 0)})
	plan = l.draw()
	if want := pathPose(plan.SimTick, 42.5, -5, 0); !samePose(l.ctl.cam.Pose, want, 1e-4) {
		t.Fatal("without MouseLook, motion not yet simulated turned the view")
	}
}

// TestMouseLookCountsOnlyWhatTheWorldGets fills the input queue: motion
// it refuses never reaches the world, so the view must not turn by it.
func TestMouseLookCountsOnlyWhatTheWorldGets(t *testing.T) {
	l := newLookApp(t, true, 4)
	for range 10 {
		l.tick()
		l.draw()
	}
	l.Handle([]platform.Event{motion(1, 0), motion(2, 0), motion(4, 0), motion(8, 0), motion(16, 0), motion(32, 0)})
	if l.ctl.look.x != 15 || l.pipe.Sim().InputsDropped() != 2 {
		t.Fatalf("ledger %v with %d inputs dropped, want 15 (1+2+4+8) with 2", l.ctl.look.x, l.pipe.Sim().InputsDropped())
	}
	for range 10 {
		l.tick()
	}
	plan := l.draw()
	if want := pathPose(plan.SimTick, 15, 0, 0); !samePose(l.ctl.cam.Pose, want, 1e-4) {
		t.Fatalf("pose %v %v, want the world's after the motion it got %v %v", l.ctl.cam.Pose.Pos, l.ctl.cam.Pose.Rot, want.Pos, want.Rot)
	}
}

// TestMouseLookFrameDoesNotAllocate runs steady-state frames with mouse
// motion in each: input, plan, interpolated camera, latch.
func TestMouseLookFrameDoesNotAllocate(t *testing.T) {
	l := newLookApp(t, true, 0)
	events := []platform.Event{motion(3, -1)}
	frame := func() {
		l.tick()
		l.Handle(events)
		l.draw()
	}
	for range 300 {
		frame()
	}
	if n := testing.AllocsPerRun(300, frame); n != 0 {
		t.Fatalf("a frame with mouse look allocates %.1f times", n)
	}
	if !l.ctl.cam.Pose.Valid || l.ctl.look.x != 3*601 {
		t.Fatalf("pose valid %v, ledger %v: the frames did not run as meant", l.ctl.cam.Pose.Valid, l.ctl.look.x)
	}
}

// TestMouseLookReplayTurnsTheView replays recorded look motion with
// MouseLook on: live motion is refused, and the view turns as the world
// turns by the replayed motion (the late latch undid it: the ledger of
// live motion stays 0 in a replay).
func TestMouseLookReplayTurnsTheView(t *testing.T) {
	clock := new(sim.VirtualClock)
	replay := []simthread.TickInput{
		{Tick: 5, Input: simthread.Input{Kind: lookKind, X: 40, Y: -10}},
		{Tick: 9, Input: simthread.Input{Kind: lookKind, X: 25, Y: 4}},
	}
	cfg := Config{Input: lookInput, Sim: simthread.Tuning{Replay: replay}, Mouse: Mouse{MouseLook: true}}
	a, err := NewHeadless(cfg, &lookWorld{}, clock)
	if err != nil {
		t.Fatal(err)
	}
	l := &lookApp{App: a, clock: clock}
	l.next, _ = a.Sim().Wake()
	turned := false
	for range 40 {
		l.tick()
		l.Handle([]platform.Event{motion(7, 7)}) // live motion: refused
		plan := l.draw()
		if !plan.Ready {
			continue
		}
		// The world's camera at the plan's alpha, turned by what it has
		// consumed of the replay.
		if lerped := renderer.LerpPose(&plan.Prev.Camera, &plan.Next.Camera, plan.Alpha); l.ctl.cam.Pose != lerped {
			t.Fatalf("tick %.2f: the drawn view %v %v is not the world's %v %v",
				plan.SimTick, l.ctl.cam.Pose.Pos, l.ctl.cam.Pose.Rot, lerped.Pos, lerped.Rot)
		}
		if plan.Prev.Camera.Look.X == 65 {
			turned = true
			if want := pathPose(plan.SimTick, 65, -6, 0); !samePose(l.ctl.cam.Pose, want, 1e-4) {
				t.Fatalf("tick %.2f: pose %v %v, want the path's after the replayed motion %v %v",
					plan.SimTick, l.ctl.cam.Pose.Pos, l.ctl.cam.Pose.Rot, want.Pos, want.Rot)
			}
		}
	}
	if !turned || l.ctl.look != (lookLedger{}) {
		t.Fatalf("replayed motion consumed: %v; ledger %+v (live motion must not count)", turned, l.ctl.look)
	}
}
