package interp_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/sync/waitfree"
)

func TestParseMotion(t *testing.T) {
	for _, m := range []interp.MotionMode{interp.MotionLerp, interp.MotionHermite, interp.MotionExtrapolate} {
		got, err := interp.ParseMotion(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMotion(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := interp.ParseMotion("cubic"); err == nil {
		t.Error("ParseMotion accepted cubic")
	}
	if s := interp.MotionMode(9).String(); s != "MotionMode(9)" {
		t.Errorf("MotionMode(9).String() = %q", s)
	}
}

func f32(v mgl64.Vec3) mgl32.Vec3 { return mgl32.Vec3{float32(v[0]), float32(v[1]), float32(v[2])} }

// qangle returns the angle between two orientations, in float64: 2·asin
// of the vector part of a⁻¹b, which unlike acos of the dot product keeps
// its precision for small angles.
func qangle(a, b mgl32.Quat) float64 {
	aw, ax, ay, az := float64(a.W), -float64(a.V[0]), -float64(a.V[1]), -float64(a.V[2])
	bw, bx, by, bz := float64(b.W), float64(b.V[0]), float64(b.V[1]), float64(b.V[2])
	x := aw*bx + ax*bw + ay*bz - az*by
	y := aw*by - ax*bz + ay*bw + az*bx
	z := aw*bz + ax*by - ay*bx + az*bw
	return 2 * math.Asin(math.Min(1, math.Sqrt(x*x+y*y+z*z)))
}

// TestHermiteStaysOnTheCurve samples the reference body's circle at 30 Hz
// and compares Hermite and Lerp between two samples with the circle: the
// chord is off by a sagitta, the Hermite curve by float32 rounding.
func TestHermiteStaysOnTheCurve(t *testing.T) {
	const dt = 1.0 / 30
	var worstLerp, worstHermite float64
	for k := range 30 {
		t0 := float64(k) * dt
		p0, p1 := f32(refworld.RefPosition(t0)), f32(refworld.RefPosition(t0+dt))
		v0, v1 := f32(refworld.RefVelocity(t0)), f32(refworld.RefVelocity(t0+dt))
		for _, a := range []float32{0, 0.1, 0.25, 0.5, 0.77, 1} {
			truth := refworld.RefPosition(t0 + float64(a)*dt)
			h := interp.Hermite(p0, v0, p1, v1, dt, a)
			l := interp.Lerp(p0, p1, a)
			worstHermite = math.Max(worstHermite, vec64(h).Sub(truth).Len())
			worstLerp = math.Max(worstLerp, vec64(l).Sub(truth).Len())
		}
	}
	perTick := refworld.RefSpeed * dt
	t.Logf("worst error in ticks: lerp %.5f, hermite %.7f", worstLerp/perTick, worstHermite/perTick)
	if worstHermite > worstLerp/100 || worstHermite/perTick > 2e-5 {
		t.Errorf("hermite off the circle by %.3g ticks, lerp by %.3g", worstHermite/perTick, worstLerp/perTick)
	}
	// Tangents along the chord: the lerp.
	p0, p1 := mgl32.Vec3{1, 2, 3}, mgl32.Vec3{4, -2, 7}
	v := p1.Sub(p0).Mul(10)
	for _, a := range []float32{0, 0.3, 1} {
		if h, l := interp.Hermite(p0, v, p1, v, 0.1, a), interp.Lerp(p0, p1, a); h.Sub(l).Len() > 1e-6 {
			t.Errorf("straight line at %v: hermite %v, lerp %v", a, h, l)
		}
	}
}

func vec64(v mgl32.Vec3) mgl64.Vec3 { return mgl64.Vec3{float64(v[0]), float64(v[1]), float64(v[2])} }

// TestHermiteRotCountsTurns spins a body about a fixed axis at 240°, 480°
// and 840° a tick: HermiteRot follows the spin at every t, the right way
// round; Slerp takes the shorter arc, backwards. Without angular
// velocities HermiteRot is the slerp.
func TestHermiteRotCountsTurns(t *testing.T) {
	const dt = float32(1.0 / 30)
	axis := mgl32.Vec3{0.3, 1, -0.2}.Normalize()
	q0 := mgl32.QuatRotate(0.4, mgl32.Vec3{1, 0, 0})
	for _, deg := range []float64{60, 240, 480, 840, -240} {
		rate := float32(deg * math.Pi / 180 / float64(dt))
		w := axis.Mul(rate)
		q1 := mgl32.QuatRotate(rate*dt, axis).Mul(q0)
		var worst, worstSlerp float64
		for _, a := range []float32{0, 0.2, 0.5, 0.9, 1} {
			truth := mgl32.QuatRotate(rate*dt*a, axis).Mul(q0)
			got, err := interp.HermiteRot(q0, w, q1, w, dt, a)
			if err != nil {
				t.Fatal(err)
			}
			s, _ := interp.Slerp(q0, q1, a)
			worst, worstSlerp = math.Max(worst, qangle(got, truth)), math.Max(worstSlerp, qangle(s, truth))
		}
		if worst > 1e-4 {
			t.Errorf("%v° a tick: HermiteRot off the spin by %.3g rad", deg, worst)
		}
		if math.Abs(deg) > 180 && worstSlerp < 1 {
			t.Errorf("%v° a tick: slerp only %.3g rad off: the test spins too slowly", deg, worstSlerp)
		}
	}
	// The angular velocity of the shorter arc at both ends: the slerp.
	// None: the same path, eased in and out.
	rng := rand.New(rand.NewPCG(3, 3))
	for range 100 {
		a := mgl32.QuatRotate(float32(rng.Float64()*6), mgl32.Vec3{float32(rng.NormFloat64()), float32(rng.NormFloat64()), 1}.Normalize())
		b := mgl32.QuatRotate(float32(rng.Float64()*6), mgl32.Vec3{1, float32(rng.NormFloat64()), float32(rng.NormFloat64())}.Normalize())
		at := float32(rng.Float64())
		r := b.Mul(a.Conjugate())
		if r.W < 0 {
			r = r.Scale(-1)
		}
		angle := 2 * float32(math.Atan2(float64(r.V.Len()), float64(r.W)))
		w := r.V.Normalize().Mul(angle / dt)
		h, _ := interp.HermiteRot(a, w, b, w, dt, at)
		s, _ := interp.Slerp(a, b, at)
		if d := qangle(h, s); d > 1e-4 {
			t.Fatalf("at the slerp's angular velocity: HermiteRot %v, Slerp %v (%.3g rad apart)", h, s, d)
		}
		eased := at * at * (3 - 2*at)
		h, _ = interp.HermiteRot(a, mgl32.Vec3{}, b, mgl32.Vec3{}, dt, at)
		s, _ = interp.Slerp(a, b, eased)
		if d := qangle(h, s); d > 1e-4 {
			t.Fatalf("without angular velocity: HermiteRot %v, eased Slerp %v (%.3g rad apart)", h, s, d)
		}
	}
	if _, err := interp.HermiteRot(mgl32.Quat{}, axis, q0, axis, dt, 0.5); err != interp.ErrBadQuat {
		t.Errorf("zero quaternion: %v", err)
	}
	nan := float32(math.NaN())
	if q, err := interp.HermiteRot(q0, mgl32.Vec3{nan, 0, 0}, q0, axis, dt, 0.5); err != nil || qangle(q, q0) > 1e-5 {
		t.Errorf("NaN angular velocity: %v %v, want q0 (counted as none)", q, err)
	}
}

func TestExtrapolate(t *testing.T) {
	p, v := mgl32.Vec3{1, 2, 3}, mgl32.Vec3{10, 0, -5}
	if got := interp.Extrapolate(p, v, 0.1); got.Sub(mgl32.Vec3{2, 2, 2.5}).Len() > 1e-6 {
		t.Errorf("Extrapolate = %v", got)
	}
	if got := interp.Extrapolate(p, mgl32.Vec3{float32(math.Inf(1)), 0, 0}, 0.1); got != p {
		t.Errorf("infinite velocity: %v, want p", got)
	}
	axis := mgl32.Vec3{0, 0, 1}
	q := mgl32.QuatRotate(0.5, axis)
	got, err := interp.ExtrapolateRot(q, axis.Mul(3), 0.5) // 1.5 rad more
	if err != nil || qangle(got, mgl32.QuatRotate(2, axis)) > 1e-5 {
		t.Errorf("ExtrapolateRot = %v, %v", got, err)
	}
	if _, err := interp.ExtrapolateRot(mgl32.Quat{}, axis, 1); err != interp.ErrBadQuat {
		t.Errorf("zero quaternion: %v", err)
	}
}

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
	pl.SetMotion(interp.MotionExtrapolate)
	if pl.Motion() != interp.MotionExtrapolate {
		t.Fatal("SetMotion did not take")
	}
	rng := rand.New(rand.NewPCG(8, 8))
	tick, shift := uint64(0), time.Duration(0) // shift: the timeline's offset after the pause
	late := time.Duration(rng.Int64N(int64(3 * time.Millisecond)))
	refPub(prod, w, 0, 0, 0)
	corr := make([]interp.Correction, 8)
	var last interp.Plan
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
		if plan.Delay != 0 || plan.RenderTime != f || plan.Motion != interp.MotionExtrapolate || plan.Alpha != 1 {
			t.Fatalf("frame %d: delay %v, render time %v, motion %v, alpha %v", i, plan.Delay, plan.RenderTime, plan.Motion, plan.Alpha)
		}
		if plan.Reach < interp.MaxAhead*step || plan.Next != view.History(0) || (plan.Ahead < 0 && !plan.Paused) ||
			plan.Ahead > float32(max(plan.Reach, last.Reach).Seconds())+1e-6 {
			t.Fatalf("frame %d: basis tick %d (newest %d), %v s ahead", i, plan.Next.Tick, view.History(0).Tick, plan.Ahead)
		}
		if plan.Clamp == interp.Late {
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
		var before [8]interp.Pose
		if plan.Switched && i > 1 && !plan.Paused {
			old := plan
			old.Switched, old.Next, old.Ahead, old.Blend = false, plan.Prev, plan.PrevAhead, plan.Carry*plan.Blend
			for b := range corr {
				before[b], _, _ = interp.BodyPose(&old, b, &corr[b])
			}
		}
		var d [8]mgl32.Vec3
		for b := range corr {
			d[b], _ = corr[b].Follow(&plan, b)
		}
		if plan.Switched && i > 1 && !plan.Paused {
			for b := range corr {
				now, _, _ := interp.BodyPose(&plan, b, &corr[b])
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
func modeRun(t *testing.T, mode interp.MotionMode) *interp.Meter {
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
	lerp := modeRun(t, interp.MotionLerp)
	herm := modeRun(t, interp.MotionHermite)
	extr := modeRun(t, interp.MotionExtrapolate)
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
	pl.SetMotion(interp.MotionExtrapolate)
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
	pl.SetMotion(interp.MotionExtrapolate)
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
