package interp_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/sync/waitfree"
)

// refSnap fills s with the reference world's state after tick k at rate,
// its tick time and its publish time.
func refPub(p *waitfree.Producer[simthread.Snapshot], w *refworld.World, k uint64, at, published time.Duration) {
	s := p.Slot()
	w.Snapshot(s)
	s.Tick, s.Time, s.Published = k, at, published
	p.Publish()
}

// TestPlannerExtrapolates drives a planner in extrapolate mode with a 30
// Hz spinner world published up to 3 ms late, frames at 144 Hz, then a
// render stall and a pause, and checks what the mode promises: no render
// delay; a prediction no further than MaxAhead ticks, beyond which the
// frame holds (late); at each new snapshot a switch whose Prev is the old
// basis, with the correction weights; frames continuous at the switch
// (what the old basis predicted, corrected); a displayed time that never
// goes back, frozen during the pause.
func TestPlannerExtrapolates(t *testing.T) {
	const rate = 30
	step := time.Second / rate
	prod, view := newView(t, 4)
	w, err := refworld.NewWithSpinner(8, 2)
	if err != nil {
		t.Fatal(err)
	}
	pl := interp.NewPlanner(view, interp.NewDelay(step, 0))
	pl.SetMotion(renderer.MotionExtrapolate)
	if pl.Motion() != renderer.MotionExtrapolate {
		t.Fatal("SetMotion did not take")
	}
	rng := rand.New(rand.NewPCG(8, 8))
	tick, shift := uint64(0), time.Duration(0) // shift: the timeline's offset after the pause
	late := time.Duration(rng.Int64N(int64(3 * time.Millisecond)))
	refPub(prod, w, 0, 0, 0)
	corr := make([]renderer.Correction, 8)
	var last renderer.Plan
	var lastSim float64
	switches, late2, paused := 0, 0, 0
	stall := [2]time.Duration{2 * time.Second, 2*time.Second + 150*time.Millisecond}
	pause := [2]time.Duration{3 * time.Second, 4 * time.Second} // the sim paused, frames go on
	for i := 1; i <= 144*5; i++ {
		f := time.Duration(i) * time.Second / 144
		for {
			at := time.Duration(tick+1)*step + shift
			if at+late > f || (f >= stall[0] && f < stall[1]) {
				break
			}
			if at >= pause[0] && at < pause[1] {
				shift += pause[1] - pause[0] // the sim resumes at the end of the pause
				continue
			}
			tick++
			w.Step(tick, 1.0/rate, nil)
			refPub(prod, w, tick, at, at+late)
			late = time.Duration(rng.Int64N(int64(3 * time.Millisecond)))
		}
		switch {
		case f == time.Duration(144*3)*time.Second/144:
			pl.Pause()
		case f >= pause[1] && i == 144*4+1:
			pl.Resume(f)
		}
		plan := pl.Plan(f)
		if plan.Delay != 0 || plan.RenderTime != f || plan.Motion != renderer.MotionExtrapolate || plan.Alpha != 1 {
			t.Fatalf("frame %d: delay %v, render time %v, motion %v, alpha %v", i, plan.Delay, plan.RenderTime, plan.Motion, plan.Alpha)
		}
		if plan.Reach < interp.MaxAhead*step || plan.Next != view.History(0) || (plan.Ahead < 0 && !plan.Paused) ||
			plan.Ahead > float32(max(plan.Reach, last.Reach).Seconds())+1e-6 {
			t.Fatalf("frame %d: basis tick %d (newest %d), %v s ahead", i, plan.Next.Tick, view.History(0).Tick, plan.Ahead)
		}
		if plan.Late {
			late2++
			if plan.Ahead < float32(plan.Reach.Seconds())-1e-6 {
				t.Fatalf("frame %d: late but only %v s ahead", i, plan.Ahead)
			}
		}
		if plan.Paused {
			paused++
			if plan.SimTick != lastSim {
				t.Fatalf("frame %d: paused, but the displayed tick moved from %v to %v", i, lastSim, plan.SimTick)
			}
		}
		if i > 1 && plan.SimTick < lastSim {
			t.Fatalf("frame %d: displayed tick went back from %v to %v", i, lastSim, plan.SimTick)
		}
		if plan.Switched {
			switches++
			// The old basis, or none across the jump of the timeline.
			if i > 1 && (plan.Prev != last.Next || plan.PrevSeq != last.NextSeq) && plan.Prev != plan.Next {
				t.Fatalf("frame %d: switched from tick %d, the last basis was tick %d", i, plan.Prev.Tick, last.Next.Tick)
			}
			if i > 1 && math.Abs(float64(plan.Carry-last.Blend)) > 1e-6 {
				t.Fatalf("frame %d: carry %v, the last frame showed %v", i, plan.Carry, last.Blend)
			}
			want := float32(math.Exp(-(f - last.RenderTime).Seconds() * 3 / interp.CorrectionTime.Seconds()))
			if plan.Prev == plan.Next {
				want = 0 // a snap
			}
			if i > 1 && math.Abs(float64(plan.Blend-want)) > 1e-6 {
				t.Fatalf("frame %d: blend %v at a switch, want %v", i, plan.Blend, want)
			}
		} else if plan.Prev != plan.Next || (i > 1 && plan.Blend > last.Blend) {
			t.Fatalf("frame %d: no switch, but prev tick %d next %d, blend %v after %v", i, plan.Prev.Tick, plan.Next.Tick, plan.Blend, last.Blend)
		}
		// Continuity: at a switch, every body is drawn where the old
		// basis, with its offset, would have drawn it, but for the part
		// of the correction that the frame interval has blended in.
		var before [8]renderer.Pose
		if plan.Switched && i > 1 && !plan.Paused {
			old := plan
			old.Switched, old.Next, old.Ahead, old.Blend = false, plan.Prev, plan.PrevAhead, plan.Carry*plan.Blend
			for b := range corr {
				before[b], _, _ = renderer.BodyPose(&old, b, &corr[b])
			}
		}
		var d [8]mgl32.Vec3
		for b := range corr {
			d[b], _ = corr[b].Follow(&plan, b)
		}
		if plan.Switched && i > 1 && !plan.Paused {
			for b := range corr {
				now, _, _ := renderer.BodyPose(&plan, b, &corr[b])
				jump, want := now.Pos.Sub(before[b].Pos).Len(), d[b].Len()*(1-plan.Blend)
				if math.Abs(float64(jump-want)) > 1e-4 {
					t.Fatalf("frame %d, body %d: jumped by %v m at the switch, want %v (correction %v, blend %v)", i, b, jump, want, d[b].Len(), plan.Blend)
				}
			}
		}
		last, lastSim = plan, plan.SimTick
	}
	st := pl.Stats()
	t.Logf("%d switches, %d frames late, %d paused, stats %+v", switches, late2, paused, st)
	if switches < 100 || late2 < 5 || paused < 100 || st.Late != uint64(late2) {
		t.Errorf("%d switches, %d late, %d paused frames; stats %+v", switches, late2, paused, st)
	}
}

// modeRun renders 12 s of a 30 Hz spinner world at 144 Hz in one motion
// mode, publish jitter up to 2 ms, and returns the meter (measured after
// the first second).
func modeRun(t *testing.T, mode renderer.MotionMode) *interp.Meter {
	const rate = 30
	step := time.Second / rate
	prod, view := newView(t, 4)
	w, err := refworld.NewWithSpinner(4, 1)
	if err != nil {
		t.Fatal(err)
	}
	pl := interp.NewPlanner(view, interp.NewDelay(step, 0))
	pl.SetMotion(mode)
	m := interp.NewMeter(rate, interp.Reference{Truth: refworld.RefPosition, Speed: refworld.RefSpeed,
		SpinBody: refworld.SpinBody, SpinTruth: refworld.SpinRotation})
	rng := rand.New(rand.NewPCG(5, 5))
	refPub(prod, w, 0, 0, 0)
	tick := uint64(0)
	late := time.Duration(rng.Int64N(int64(2 * time.Millisecond)))
	for i := 1; i <= 144*12; i++ {
		f := time.Duration(i) * time.Second / 144
		for time.Duration(tick+1)*step+late <= f {
			tick++
			w.Step(tick, 1.0/rate, nil)
			refPub(prod, w, tick, time.Duration(tick)*step, time.Duration(tick)*step+late)
			late = time.Duration(rng.Int64N(int64(2 * time.Millisecond)))
		}
		plan := pl.Plan(f)
		if i == 144 {
			m.Reset()
		}
		m.Measure(f, &plan)
	}
	return m
}

// TestMeterPerMode measures the three modes on the 30 Hz spinner world:
// lerp cuts the circle's chords and turns the spinner backwards; hermite
// stays on the circle (p99 a hundredth of lerp's) and turns the right way
// in every frame; extrapolate turns the right way too, with corrections
// of a few hundredths of a tick.
func TestMeterPerMode(t *testing.T) {
	lerp := modeRun(t, renderer.MotionLerp)
	herm := modeRun(t, renderer.MotionHermite)
	extr := modeRun(t, renderer.MotionExtrapolate)
	for _, r := range []struct {
		name string
		m    *interp.Meter
	}{{"lerp", lerp}, {"hermite", herm}, {"extrapolate", extr}} {
		t.Logf("%-11s position p99 %.6f ticks; rotation p99 %.4f rad; %d of %d frames turned the wrong way; corrections %d, p99 %.4f ticks",
			r.name, r.m.PosErrTicks(0.99), float64(r.m.RotErr().Quantile(0.99))/1e6, r.m.WrongWay, r.m.Spins, r.m.Corrections,
			float64(r.m.Correction().Quantile(0.99))/1e6)
	}
	switch {
	case lerp.Spins < 1000 || lerp.WrongWay < lerp.Spins*9/10:
		t.Errorf("lerp: only %d of %d frames turned the wrong way", lerp.WrongWay, lerp.Spins)
	case herm.Spins < 1000 || herm.WrongWay != 0 || extr.WrongWay != 0:
		t.Errorf("wrong way: hermite %d of %d frames, extrapolate %d of %d", herm.WrongWay, herm.Spins, extr.WrongWay, extr.Spins)
	case herm.PosErrTicks(0.99) > lerp.PosErrTicks(0.99)/100:
		t.Errorf("hermite position p99 %.6f ticks, lerp %.6f: not a hundredth", herm.PosErrTicks(0.99), lerp.PosErrTicks(0.99))
	case float64(herm.RotErr().Quantile(0.99)) > 1e-3*1e6:
		t.Errorf("hermite rotation p99 %.4f rad", float64(herm.RotErr().Quantile(0.99))/1e6)
	case extr.Corrections < 300 || float64(extr.Correction().Quantile(0.99))/1e6 > 0.05 || extr.PosErrTicks(0.99) > 0.05:
		t.Errorf("extrapolate: %d corrections, p99 %.4f ticks; position p99 %.4f ticks", extr.Corrections,
			float64(extr.Correction().Quantile(0.99))/1e6, extr.PosErrTicks(0.99))
	}
}

func TestExtrapolatePlannerAndMeterDoNotAllocate(t *testing.T) {
	p, c := newView(t, 4)
	pl := interp.NewPlanner(c, interp.NewDelay(10*time.Millisecond, 0))
	pl.SetMotion(renderer.MotionExtrapolate)
	m := interp.NewMeter(100, interp.Reference{Truth: refworld.RefPosition, Speed: refworld.RefSpeed, SpinBody: 1, SpinTruth: refworld.SpinRotation})
	bodies := []simthread.Body{{Rot: mgl32.QuatIdent(), Vel: mgl32.Vec3{1, 0, 0}}, {Rot: mgl32.QuatIdent(), AngVel: mgl32.Vec3{0, 9, 0}}}
	k := uint64(0)
	f := time.Duration(0)
	if a := testing.AllocsPerRun(1000, func() {
		k++
		f += 7 * time.Millisecond
		if k%2 == 0 {
			s := p.Slot()
			s.Tick, s.Time, s.Published = k/2, time.Duration(k/2)*10*time.Millisecond, f
			s.Bodies = append(s.Bodies[:0], bodies...)
			p.Publish()
		}
		plan := pl.Plan(f)
		m.Measure(f, &plan)
	}); a != 0 {
		t.Fatalf("Frame allocates %.1f times", a)
	}
}

// TestExtrapolateAfterARenderStall: a frame more than CorrectionTime after
// the last has nothing recent to be continuous with, so its switch snaps:
// the correction is still there to count (Prev is the old basis), but the
// offsets are dropped and none is shown until the next switch. A switch
// after a normal frame interval blends.
func TestExtrapolateAfterARenderStall(t *testing.T) {
	ms := time.Millisecond
	p, c := newView(t, 4)
	pl := interp.NewPlanner(c, interp.NewDelay(10*ms, 0))
	pl.SetMotion(renderer.MotionExtrapolate)
	publish(p, 0, 0)
	pl.Plan(ms)
	publish(p, 1, 0)
	if plan := pl.Plan(11 * ms); !plan.Switched || plan.Prev.Tick != 0 || plan.Carry != 1 || plan.Blend >= 1 || plan.Blend <= 0 {
		t.Errorf("switch 10 ms after the last frame: prev tick %d next %d, carry %v, blend %v", plan.Prev.Tick, plan.Next.Tick, plan.Carry, plan.Blend)
	}
	publish(p, 2, 0)
	f := 11*ms + interp.CorrectionTime + ms
	if plan := pl.Plan(f); !plan.Switched || plan.Prev.Tick != 1 || plan.Carry != 0 || plan.Blend != 0 {
		t.Errorf("switch after a stall: prev tick %d next %d, carry %v, blend %v", plan.Prev.Tick, plan.Next.Tick, plan.Carry, plan.Blend)
	}
	if plan := pl.Plan(f + 5*ms); plan.Switched || plan.Blend != 0 {
		t.Errorf("the frame after the snap: switched %v, blend %v", plan.Switched, plan.Blend)
	}
	publish(p, 3, 0)
	if plan := pl.Plan(f + 10*ms); !plan.Switched || plan.Carry != 0 || plan.Blend >= 1 || plan.Blend <= 0 {
		t.Errorf("the next switch: carry %v, blend %v", plan.Carry, plan.Blend)
	}
}
