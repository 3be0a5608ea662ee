package renderer_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
)

// TestProbeMatchesCPUReferencePerMode runs the real simulation at 30 Hz
// (refworld with its spinner) through the real planner in each motion
// mode and draws a second of 144 Hz frames, probing the reference body
// (its curved path) and then the spinner (240° a tick). Every frame's
// read-back must equal the CPU reference for the plan drawn,
// interp.BodyPose, with an interp.Correction following the body in
// extrapolate mode: so the GPU's correction offsets, kept from frame to
// frame, are checked too. Then it checks what each mode is for, on the
// GPU's own poses: lerp turns the spinner backwards, hermite and
// extrapolate never do.
func TestProbeMatchesCPUReferencePerMode(t *testing.T) {
	onMain(t, func(w *platform.Window) error {
		for _, mode := range []interp.MotionMode{interp.MotionLerp, interp.MotionHermite, interp.MotionExtrapolate} {
			for _, body := range []int{0, refworld.SpinBody} {
				if err := probeMode(t, w, mode, body); err != nil {
					return fmt.Errorf("%v, body %d: %w", mode, body, err)
				}
			}
		}
		return nil
	})
}

func probeMode(t *testing.T, w *platform.Window, mode interp.MotionMode, body int) error {
	world, err := refworld.NewWithSpinner(50, 3)
	if err != nil {
		return err
	}
	g := &simRig{clock: new(simthread.VirtualClock), win: w}
	if g.sim, err = simthread.New(simthread.Config{Timing: simthread.Timing{Rate: 30}}, world, g.clock); err != nil {
		return err
	}
	g.planner = interp.NewPlanner(g.sim.Snapshots(), interp.NewDelay(g.sim.Step(), 0))
	g.planner.SetMotion(mode)
	if g.r, err = renderer.New(g.planner.Depth(), renderer.Options{Samples: -1, Probe: true, ProbeBody: body}); err != nil {
		return err
	}
	defer g.r.Delete()
	g.r.HUD().Visible = false
	if g.wake, err = g.sim.Wake(); err != nil {
		return err
	}
	var corr interp.Correction
	want := map[uint64]pose{}
	got := map[uint64]renderer.Probe{}
	for range 144 {
		plan, err := g.plan(time.Second / 144)
		if err != nil {
			return err
		}
		if err := g.draw(&plan); err != nil {
			return err
		}
		corr.Follow(&plan, body)
		p, ok, err := interp.BodyPose(&plan, body, &corr)
		if err != nil || !ok {
			return fmt.Errorf("frame %d: CPU reference: %v %v", g.r.Frames(), ok, err)
		}
		want[g.r.Frames()] = pose{p.Pos, plan.Next.Bodies[body].Scale, p.Rot}
		for p, ok := g.r.Probed(); ok; p, ok = g.r.Probed() {
			got[p.Frame] = p
		}
	}
	drain(g.r, got)
	var worstPos, worstRot float64
	wrong, judged := 0, 0
	// The spinner turns 120° to 480° between snapshots, where llvmpipe's
	// acos, sin and cos put the GPU's slerp up to 3e-4 rad from the CPU's
	// (rotTol is for the reference body's small turns).
	tol := rotTol
	if body == refworld.SpinBody {
		tol = 5e-4
	}
	for f := uint64(2); f <= g.r.Frames(); f++ {
		p, ok := got[f]
		if !ok || !p.Valid {
			return fmt.Errorf("frame %d: no valid record", f)
		}
		pos, rot, err := poseDiff(probePose(p), want[f])
		if err != nil {
			return fmt.Errorf("frame %d: %v", f, err)
		}
		worstPos, worstRot = math.Max(worstPos, pos), math.Max(worstRot, rot)
		if pos > posTol || rot > tol {
			return fmt.Errorf("frame %d: the GPU drew %v %v, the CPU reference says %v %v (off by %.2g, %.2g rad)",
				f, p.Pos, p.Rot, want[f].pos, want[f].rot, pos, rot)
		}
		// Which way the drawn spinner turned since the frame before:
		// 240° a tick is 50° a frame at 144 Hz, forwards about SpinAxis.
		if q, ok := got[f-1]; body == refworld.SpinBody && ok && q.Valid {
			d := p.Rot.Mul(q.Rot.Conjugate())
			if d.W < 0 {
				d = d.Scale(-1)
			}
			axis := refworld.SpinAxis
			along := float64(d.V[0])*axis[0] + float64(d.V[1])*axis[1] + float64(d.V[2])*axis[2]
			if math.Abs(along) > 1e-3 {
				judged++
				if along < 0 {
					wrong++
				}
			}
		}
	}
	t.Logf("%v, body %d: %d frames match the CPU reference (worst %.2g relative, %.2g rad)", mode, body, g.r.Frames()-1, worstPos, worstRot)
	if body == refworld.SpinBody {
		t.Logf("%v: the spinner turned the wrong way in %d of %d frames", mode, wrong, judged)
		switch {
		case judged < 100:
			return fmt.Errorf("only %d frames of spin judged", judged)
		case mode == interp.MotionLerp && wrong < judged*9/10:
			return fmt.Errorf("lerp: only %d of %d frames turned backwards: the spinner spins too slowly to show slerp's short arc", wrong, judged)
		case mode != interp.MotionLerp && wrong > 0:
			return fmt.Errorf("%d of %d frames turned the wrong way", wrong, judged)
		}
	}
	return nil
}

// TestFrameDoesNotAllocatePerMode draws frames in the hermite and
// extrapolate modes, a switch of basis (a correction pass) every other
// frame, each uploading a new snapshot, and counts heap allocations: none.
func TestFrameDoesNotAllocatePerMode(t *testing.T) {
	onMain(t, func(*platform.Window) error {
		for _, mode := range []interp.MotionMode{interp.MotionHermite, interp.MotionExtrapolate} {
			r, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1, Probe: true})
			if err != nil {
				return err
			}
			r.HUD().Visible = false
			world, _ := refworld.NewWithSpinner(300, 1)
			s := newScene()
			for k := range 8 {
				var snap simthread.Snapshot
				world.Step(uint64(k+1), 1.0/30, nil)
				world.Snapshot(&snap)
				s.publish(uint64(k+1), snap.Bodies)
			}
			cam := renderer.DefaultCamera()
			plans := make([]interp.Plan, 7)
			for i := range plans {
				plans[i] = interp.Plan{Prev: s.snaps[i], Next: s.snaps[i+1], PrevSeq: uint64(i + 1), NextSeq: uint64(i + 2), Alpha: 0.5, Ready: true,
					Motion: mode, Span: 1.0 / 30, Ahead: 0.01, PrevAhead: 0.04, Switched: i%2 == 0, Carry: 0.3, Blend: 0.8}
			}
			var ferr error
			i := 0
			frame := func() {
				p := &plans[i%len(plans)]
				i++
				p.PrevSeq += 100
				p.NextSeq += 100
				if err := r.Draw(p, &cam, width, height); err != nil && ferr == nil {
					ferr = err
				}
				gl.Finish()
				for _, ok := r.Probed(); ok; _, ok = r.Probed() {
				}
			}
			for range 20 {
				frame()
			}
			allocs := testing.AllocsPerRun(100, frame)
			r.Delete()
			if ferr != nil {
				return ferr
			}
			if allocs != 0 {
				return fmt.Errorf("%v: Frame and Probed allocate %v times per frame", mode, allocs)
			}
		}
		return nil
	})
}
