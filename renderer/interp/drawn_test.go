package interp_test

import (
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
)

// drawnRun plans 5 s of a 120 Hz reference orbit at 144 Hz and reports each
// tracked frame to the meter as shown: the GPU's position from gpu (given
// the plan), displayed at display (given the intended frame time).
func drawnRun(t *testing.T, gpu func(*interp.Plan) mgl32.Vec3, display func(i int, f time.Duration) time.Duration) *interp.Meter {
	t.Helper()
	const rate = 120
	p, c := newView(t, 4)
	pl := interp.NewPlanner(c, interp.NewDelay(time.Second/rate, 0))
	m := interp.NewMeter(rate, interp.Reference{Truth: refworld.RefPosition, Speed: refworld.RefSpeed})
	tickTime := func(k uint64) time.Duration { return time.Duration(k) * time.Second / rate }
	pub := func(k uint64) {
		s := p.Slot()
		s.Tick, s.Time, s.Published = k, tickTime(k), tickTime(k)+time.Millisecond
		pos := refworld.RefPosition(float64(k) / rate)
		s.Bodies = append(s.Bodies[:0], simthread.Body{Pos: mgl32.Vec3{float32(pos[0]), float32(pos[1]), float32(pos[2])}})
		p.Publish()
	}
	pub(0)
	tick := uint64(0)
	type waiting struct {
		id  uint64
		pos mgl32.Vec3
		at  time.Duration
	}
	var queue []waiting
	for i := 1; i <= 144*5; i++ {
		f := time.Duration(i) * time.Second / 144
		for tickTime(tick+1)+time.Millisecond <= f {
			tick++
			pub(tick)
		}
		plan := pl.Plan(f)
		m.Measure(f, &plan)
		id := uint64(i)
		m.Track(id)
		queue = append(queue, waiting{id, gpu(&plan), display(i, f)})
		// The read-back arrives three frames later, as a renderer's does.
		if len(queue) > 3 {
			w := queue[0]
			queue = queue[1:]
			m.Shown(interp.Shown{Frame: w.id, Pos: w.pos, HasPos: true, At: w.at})
		}
	}
	return m
}

// cpuLerp is what the shader is meant to compute for the reference body.
func cpuLerp(plan *interp.Plan) mgl32.Vec3 {
	return interp.Lerp(plan.Prev.Bodies[0].Pos, plan.Next.Bodies[0].Pos, plan.Alpha)
}

func TestDrawnAgreesWithTheCPUWhenTheGPUIsRight(t *testing.T) {
	m := drawnRun(t, cpuLerp, func(_ int, f time.Duration) time.Duration { return f })
	d := m.Drawn()
	if d.Measured < 600 || d.Lost != 0 {
		t.Fatalf("measured %d, lost %d of %d tracked", d.Measured, d.Lost, d.Tracked)
	}
	if d.GPUDiffMax != 0 {
		t.Errorf("GPU and CPU differ by %g with the same maths", d.GPUDiffMax)
	}
	gpu, cpu := float64(d.PosErrGPU.Quantile(0.99))/1e6, m.PosErrTicks(0.99)
	if math.Abs(gpu-cpu) > 1e-3 || gpu > 0.05 {
		t.Errorf("position error p99: GPU %.5f, CPU %.5f ticks; want equal and small", gpu, cpu)
	}
	if ae := float64(d.AnimErrShown.Quantile(0.99)) / 1e6; ae > 0.25 {
		t.Errorf("animation error on time-displayed frames p99 %.3f ms", ae)
	}
}

// A GPU path that draws the wrong pose (alpha off by a fifth) is seen by
// the drawn figures while the CPU's stay clean.
func TestDrawnSeesABrokenGPUPath(t *testing.T) {
	broken := func(plan *interp.Plan) mgl32.Vec3 {
		return interp.Lerp(plan.Prev.Bodies[0].Pos, plan.Next.Bodies[0].Pos, min(plan.Alpha+0.2, 1))
	}
	m := drawnRun(t, broken, func(_ int, f time.Duration) time.Duration { return f })
	d := m.Drawn()
	perTick := refworld.RefSpeed / 120
	if d.GPUDiffMax < 0.1*perTick {
		t.Errorf("GPU/CPU disagreement %g, want at least a tenth of a tick (%g)", d.GPUDiffMax, 0.1*perTick)
	}
	if gpu, cpu := float64(d.PosErrGPU.Quantile(0.5))/1e6, m.PosErrTicks(0.5); gpu < 0.1 || cpu > 0.01 {
		t.Errorf("position error p50: GPU %.4f, CPU %.4f ticks; want the GPU's to show the break", gpu, cpu)
	}
}

// A frame displayed a vblank late is seen in the shown figures, not in
// the planned ones.
func TestDrawnSeesLateDisplay(t *testing.T) {
	period := time.Second / 144
	m := drawnRun(t, cpuLerp, func(i int, f time.Duration) time.Duration {
		if i%10 == 0 {
			return f + period // one frame in ten misses its vblank
		}
		return f
	})
	d := m.Drawn()
	if lag := time.Duration(d.DisplayLag.Quantile(0.99)); lag < period*9/10 || d.DisplayLag.Quantile(0.5) > int64(period/10) {
		t.Errorf("display lag p50 %v p99 %v, want 0 and a frame (%v)", time.Duration(d.DisplayLag.Quantile(0.5)), lag, period)
	}
	if ae := float64(d.AnimErrShown.Max()) / 1e6; ae < 0.8*period.Seconds()*1e3 {
		t.Errorf("animation error on real display times max %.3f ms, want about a frame (%.2f ms)", ae, period.Seconds()*1e3)
	}
	if m.PosErrTicks(0.99) > 0.05 {
		t.Errorf("the planned figure %.4f should not see display lateness", m.PosErrTicks(0.99))
	}
}

// Frames from a pause request until the render time reaches the first
// snapshot published after the resume are marked Paused and neither
// clamp nor measure; the ones after are normal again.
func TestPlannerMarksPausedFrames(t *testing.T) {
	const rate = 100
	step := time.Second / rate
	p, c := newView(t, 4)
	pl := interp.NewPlanner(c, interp.NewFixedDelay(step, step+2*time.Millisecond))
	m := interp.NewMeter(rate, interp.Reference{Truth: refworld.RefPosition, Speed: refworld.RefSpeed})
	pub := func(k uint64, at, published time.Duration) {
		s := p.Slot()
		s.Tick, s.Time, s.Published = k, at, published
		pos := refworld.RefPosition(float64(k) / rate)
		s.Bodies = append(s.Bodies[:0], simthread.Body{Pos: mgl32.Vec3{float32(pos[0]), float32(pos[1]), float32(pos[2])}})
		p.Publish()
	}
	frame := func(f time.Duration) interp.Plan {
		plan := pl.Plan(f)
		m.Measure(f, &plan)
		return plan
	}
	for k := uint64(0); k <= 50; k++ {
		pub(k, time.Duration(k)*step, time.Duration(k)*step+time.Millisecond)
		if plan := frame(time.Duration(k)*step + 5*time.Millisecond); plan.Paused {
			t.Fatalf("tick %d: paused before any pause", k)
		}
	}
	// Measure from here: the first frames clamped before tick 0.
	m.Reset()
	// Pause at 505 ms; 2 s of frames with no snapshot.
	pl.Pause()
	before := pl.Stats()
	for f := 505 * time.Millisecond; f < 2505*time.Millisecond; f += 7 * time.Millisecond {
		if plan := frame(f); !plan.Paused {
			t.Fatalf("frame at %v during the pause not marked", f)
		}
	}
	// Resume at 2.505 s: tick 50 republished on the shifted timeline, then ticks on.
	resume := 2505 * time.Millisecond
	pl.Resume(resume)
	shift := resume - 50*step
	pub(50, 50*step+shift, resume+100*time.Microsecond)
	var firstNormal time.Duration
	k := uint64(50)
	for f := resume + 3*time.Millisecond; f < resume+200*time.Millisecond; f += 7 * time.Millisecond {
		for time.Duration(k+1)*step+shift+time.Millisecond <= f {
			k++
			pub(k, time.Duration(k)*step+shift, time.Duration(k)*step+shift+time.Millisecond)
		}
		plan := frame(f)
		if !plan.Paused && firstNormal == 0 {
			firstNormal = f
			if plan.RenderTime < 50*step+shift {
				t.Errorf("first unpaused frame's render time %v is before the resumed snapshot %v", plan.RenderTime, 50*step+shift)
			}
		}
		if plan.Paused && firstNormal != 0 {
			t.Fatalf("frame at %v paused again after %v", f, firstNormal)
		}
	}
	if firstNormal == 0 || firstNormal > resume+step+20*time.Millisecond {
		t.Fatalf("frames stayed paused until %v after a resume at %v", firstNormal, resume)
	}
	st := pl.Stats()
	if st.Late != before.Late || st.Early != before.Early || st.Paused < 280 {
		t.Errorf("stats %+v (before the pause %+v): paused frames must not count as clamped", st, before)
	}
	if m.Paused != st.Paused || m.PosErrTicks(0.99) > 0.05 || m.AnimErrMs(0.99) > 0.25 {
		t.Errorf("meter: %d paused (planner %d), position error p99 %.4f, animation error p99 %.3f ms",
			m.Paused, st.Paused, m.PosErrTicks(0.99), m.AnimErrMs(0.99))
	}
}
