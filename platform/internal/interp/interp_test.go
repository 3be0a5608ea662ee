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

func TestAlpha(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		t, ta, tb time.Duration
		alpha     float64
		clamped   bool
	}{
		{15 * ms, 0, 20 * ms, 0.75, false},
		{0, 0, 20 * ms, 0, false},
		{20 * ms, 0, 20 * ms, 1, false},
		{-1, 0, 20 * ms, 0, true},
		{21 * ms, 0, 20 * ms, 1, true},
		{5 * ms, 5 * ms, 5 * ms, 1, true}, // empty interval, at it
		{4 * ms, 5 * ms, 5 * ms, 0, true}, // empty interval, before it
		{5 * ms, 10 * ms, 0, 1, true},     // backwards interval, t past tb
		{math.MaxInt64, math.MinInt64, math.MaxInt64, 1, false},
		{0, math.MinInt64, math.MaxInt64, 0.5, false},
	}
	for _, tt := range tests {
		a, c := interp.Alpha(tt.t, tt.ta, tt.tb)
		if math.Abs(a-tt.alpha) > 1e-12 || c != tt.clamped {
			t.Errorf("Alpha(%d, %d, %d) = %v, %v; want %v, %v", tt.t, tt.ta, tt.tb, a, c, tt.alpha, tt.clamped)
		}
	}
	inf, nan := math.Inf(1), math.NaN()
	for _, in := range [][3]float64{{nan, 0, 1}, {0, nan, 1}, {0, 0, nan}, {inf, 0, 1}, {-inf, 0, 1}, {1, 0, inf}, {inf, 0, inf}, {0, -inf, inf}} {
		a, _ := interp.AlphaSeconds(in[0], in[1], in[2])
		if math.IsNaN(a) || a < 0 || a > 1 {
			t.Errorf("AlphaSeconds(%v) = %v", in, a)
		}
	}
}

func FuzzAlpha(f *testing.F) {
	f.Add(int64(15), int64(0), int64(20))
	f.Add(int64(5), int64(5), int64(5))
	f.Add(int64(math.MaxInt64), int64(math.MinInt64), int64(0))
	f.Fuzz(func(t *testing.T, tr, ta, tb int64) {
		a, clamped := interp.Alpha(time.Duration(tr), time.Duration(ta), time.Duration(tb))
		if math.IsNaN(a) || a < 0 || a > 1 {
			t.Fatalf("Alpha(%d, %d, %d) = %v", tr, ta, tb, a)
		}
		if !clamped && (tr < ta || tr > tb) {
			t.Fatalf("Alpha(%d, %d, %d) outside the interval not reported clamped", tr, ta, tb)
		}
	})
}

func FuzzAlphaSeconds(f *testing.F) {
	f.Add(0.5, 0.0, 1.0)
	f.Add(math.NaN(), 0.0, 1.0)
	f.Add(math.Inf(1), math.Inf(-1), math.Inf(1))
	f.Add(1.0, 1.0, 1.0)
	f.Add(2.0, 3.0, 1.0)
	f.Fuzz(func(t *testing.T, tr, ta, tb float64) {
		a, _ := interp.AlphaSeconds(tr, ta, tb)
		if math.IsNaN(a) || a < 0 || a > 1 {
			t.Fatalf("AlphaSeconds(%v, %v, %v) = %v", tr, ta, tb, a)
		}
		if ta < tb && tr >= ta && tr <= tb && !math.IsInf(tb-ta, 0) {
			if want := (tr - ta) / (tb - ta); math.Abs(a-want) > 1e-12 {
				t.Fatalf("AlphaSeconds(%v, %v, %v) = %v, want %v", tr, ta, tb, a, want)
			}
		}
	})
}

func TestDelayConvergesAndNeverRunsBackwards(t *testing.T) {
	step := time.Second / 120
	d := interp.NewDelay(step, 0)
	rng := rand.New(rand.NewPCG(2, 2))
	var f, lastRender time.Duration
	first := true
	for i := 0; i < 144*20; i++ {
		f += time.Second / 144
		if i%5 == 0 {
			// Publish delays up to 2 ms; a 6 ms spike at 5 s.
			pd := time.Duration(rng.Int64N(int64(2 * time.Millisecond)))
			if i == 144*5 {
				pd = 6 * time.Millisecond
			}
			d.Observe(f, pd)
		}
		r := f - d.Update(f)
		if !first && r < lastRender {
			t.Fatalf("frame %d: render time went back from %v to %v", i, lastRender, r)
		}
		first = false
		lastRender = r
		if i == 144*6 && d.Value() < step+6*time.Millisecond {
			t.Fatalf("1 s after a 6 ms spike the delay is %v", d.Value())
		}
	}
	// 15 s after the spike: back to about step + 2 ms + pad.
	if v := d.Value(); v < step+1900*time.Microsecond || v > step+2*time.Millisecond+interp.DefaultPad+100*time.Microsecond {
		t.Fatalf("delay settled at %v, want about %v", v, step+2*time.Millisecond+interp.DefaultPad)
	}
	fixed := interp.NewFixedDelay(step, time.Millisecond)
	if fixed.Update(0) != step {
		t.Fatal("a fixed delay below one step is not raised to one step")
	}
}

// feed publishes snapshots of the given ticks at nominal time tick×10 ms.
func newView(t *testing.T, depth int) (*waitfree.Producer[simthread.Snapshot], *waitfree.Consumer[simthread.Snapshot]) {
	t.Helper()
	p, c, err := waitfree.NewTripleBuffer[simthread.Snapshot](depth, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, c
}

func publish(p *waitfree.Producer[simthread.Snapshot], tick uint64, late time.Duration) {
	s := p.Slot()
	s.Tick = tick
	s.Time = time.Duration(tick) * 10 * time.Millisecond
	s.Published = s.Time + late
	p.Publish()
}

func TestPlannerBrackets(t *testing.T) {
	ms := time.Millisecond
	p, c := newView(t, 4)
	pl := interp.NewPlanner(c, interp.NewFixedDelay(10*ms, 12*ms))
	if plan := pl.Plan(0); plan.Ready {
		t.Fatal("ready before any snapshot")
	}
	publish(p, 0, 0)
	plan := pl.Plan(5 * ms) // render time −7 ms, only tick 0 held
	if !plan.Ready || !plan.Acquired || plan.Prev != c.History(0) || plan.Next != c.History(0) || plan.PrevSeq != 1 || plan.NextSeq != 1 || !plan.Early {
		t.Fatalf("one snapshot: %+v", plan)
	}
	for k := uint64(1); k <= 3; k++ {
		publish(p, k, ms)
		pl.Plan(time.Duration(k)*10*ms + ms)
	}
	// Held, newest first: ticks 3 2 1 0 at 30 20 10 0 ms. Render time is
	// the frame time − 12 ms.
	tests := []struct {
		frame      time.Duration
		prev, next int
		alpha      float32
		clamp      string // "", "late" or "early"
		simTick    float64
	}{
		{37 * ms, 1, 0, 0.5, "", 2.5},  // r 25 ms
		{32 * ms, 1, 0, 0, "", 2},      // r 20 ms, on tick 2
		{42 * ms, 1, 0, 1, "", 3},      // r 30 ms, on the newest
		{50 * ms, 1, 0, 1, "late", 3},  // r 38 ms, past the newest
		{11 * ms, 3, 2, 0, "early", 0}, // r −1 ms, before the oldest
		{12 * ms, 3, 2, 0, "", 0},      // r 0, on the oldest
		{27 * ms, 2, 1, 0.5, "", 1.5},  // r 15 ms
	}
	for _, tt := range tests {
		plan := pl.Plan(tt.frame)
		if plan.Acquired || plan.Prev != c.History(tt.prev) || plan.Next != c.History(tt.next) ||
			plan.PrevSeq != 4-uint64(tt.prev) || plan.NextSeq != 4-uint64(tt.next) || math.Abs(float64(plan.Alpha-tt.alpha)) > 1e-6 ||
			clampOf(&plan) != tt.clamp || math.Abs(plan.SimTick-tt.simTick) > 1e-6 || plan.RenderTime != tt.frame-12*ms {
			t.Errorf("frame at %v: %+v; want prev %d next %d alpha %v clamp %v sim %v",
				tt.frame, plan, tt.prev, tt.next, tt.alpha, tt.clamp, tt.simTick)
		}
	}
	st := pl.Stats()
	if st.Late != 1 || st.Early != 3 { // with the one-snapshot frame and the warm-up frame at 11 ms
		t.Errorf("stats %+v", st)
	}
}

// TestPlannerSmoothUnderJitter publishes at 120 Hz with 0–2 ms of publish
// jitter and renders at 144 Hz: after the first second no frame clamps, the
// displayed simulation time never goes back, and it tracks the frame time
// minus the delay exactly (to float32 precision of alpha).
func TestPlannerSmoothUnderJitter(t *testing.T) {
	step := time.Second / 120
	p, c := newView(t, 4)
	pl := interp.NewPlanner(c, interp.NewDelay(step, 0))
	rng := rand.New(rand.NewPCG(9, 9))
	tick := uint64(0)
	tickTime := func(k uint64) time.Duration { return time.Duration(k) * time.Second / 120 }
	pub := func(k uint64, late time.Duration) {
		s := p.Slot()
		s.Tick, s.Time, s.Published = k, tickTime(k), tickTime(k)+late
		p.Publish()
	}
	nextLate := time.Duration(rng.Int64N(int64(2 * time.Millisecond)))
	pub(0, 0)
	var lastSim float64
	for i := 1; i <= 144*10; i++ {
		f := time.Duration(i) * time.Second / 144
		for tickTime(tick+1)+nextLate <= f {
			tick++
			pub(tick, nextLate)
			nextLate = time.Duration(rng.Int64N(int64(2 * time.Millisecond)))
		}
		plan := pl.Plan(f)
		if i < 144 {
			lastSim = plan.SimTick
			continue
		}
		if plan.Late || plan.Early {
			t.Fatalf("frame %d clamped %s: delay %v", i, clampOf(&plan), plan.Delay)
		}
		if plan.SimTick < lastSim {
			t.Fatalf("frame %d: displayed tick went back from %v to %v", i, lastSim, plan.SimTick)
		}
		lastSim = plan.SimTick
		want := plan.RenderTime.Seconds() * 120
		if math.Abs(plan.SimTick-want) > 1e-4 {
			t.Fatalf("frame %d: displayed tick %v, render time says %v", i, plan.SimTick, want)
		}
	}
}

func TestPlannerDoesNotAllocate(t *testing.T) {
	p, c := newView(t, 4)
	pl := interp.NewPlanner(c, interp.NewDelay(10*time.Millisecond, 0))
	k := uint64(0)
	f := time.Duration(0)
	if a := testing.AllocsPerRun(1000, func() {
		k++
		f += 7 * time.Millisecond
		if k%2 == 0 {
			publish(p, k/2, time.Millisecond)
		}
		pl.Plan(f)
	}); a != 0 {
		t.Fatalf("Frame allocates %.1f times", a)
	}
}

// TestMeter renders 10 s of a 120 Hz reference orbit at 144 Hz with publish
// jitter, and checks that the meter sees the interpolated motion as nearly
// exact and the same frames without interpolation as judder.
func TestMeter(t *testing.T) {
	const rate = 120
	for _, broken := range []bool{false, true} {
		p, c := newView(t, 4)
		pl := interp.NewPlanner(c, interp.NewDelay(time.Second/rate, 0))
		m := interp.NewMeter(rate, interp.Reference{Truth: refworld.RefPosition, Speed: refworld.RefSpeed})
		rng := rand.New(rand.NewPCG(4, 4))
		tickTime := func(k uint64) time.Duration { return time.Duration(k) * time.Second / rate }
		pub := func(k uint64, late time.Duration) {
			s := p.Slot()
			s.Tick, s.Time, s.Published = k, tickTime(k), tickTime(k)+late
			pos := refworld.RefPosition(float64(k) / rate)
			s.Bodies = append(s.Bodies[:0], simthread.Body{Pos: mgl32.Vec3{float32(pos[0]), float32(pos[1]), float32(pos[2])}})
			p.Publish()
		}
		pub(0, 0)
		tick := uint64(0)
		for i := 1; i <= 144*10; i++ {
			f := time.Duration(i) * time.Second / 144
			for late := time.Duration(rng.Int64N(int64(2 * time.Millisecond))); tickTime(tick+1)+late <= f; late = time.Duration(rng.Int64N(int64(2 * time.Millisecond))) {
				tick++
				pub(tick, late)
			}
			plan := pl.Plan(f)
			if broken { // show the newest snapshot: fixed step without interpolation
				plan.Prev, plan.Next, plan.Alpha = c.History(0), c.History(0), 1
				plan.SimTick = float64(c.History(0).Tick)
				plan.RenderTime = f - time.Second/rate
			}
			if i > 144 {
				m.Measure(f, &plan)
			}
		}
		p50, p99 := m.PosErrTicks(0.5), m.PosErrTicks(0.99)
		if !broken && (p99 > 0.05 || m.AnimErrMs(0.99) > 0.25 || m.Backwards != 0) {
			t.Errorf("interpolated: position error p50 %.4f p99 %.4f ticks, animation error p99 %.3f ms, %d backwards",
				p50, p99, m.AnimErrMs(0.99), m.Backwards)
		}
		if broken && (p50 < 0.25 || m.AnimErrMs(0.99) < 2) {
			t.Errorf("not interpolated: position error p50 %.4f ticks, animation error p99 %.3f ms: the meter missed the judder",
				p50, m.AnimErrMs(0.99))
		}
		t.Logf("broken=%v: position error p50 %.4f p99 %.4f max %.4f ticks; animation error p50 %.3f p99 %.3f ms; skipped %d",
			broken, p50, p99, float64(m.PosErr().Max())/1e6, m.AnimErrMs(0.5), m.AnimErrMs(0.99), m.Skipped)
	}
}

// After a frame whose bracket straddles a discontinuity (a pause), the
// next frame's animation error must not be measured against it.
func TestMeterAnimErrAfterDiscontinuousFrame(t *testing.T) {
	const rate = 60
	step := time.Second / rate
	p, c, _ := waitfree.NewTripleBuffer[simthread.Snapshot](4, nil)
	pub := func(k uint64, at time.Duration) {
		s := p.Slot()
		s.Tick, s.Time, s.Published = k, at, at
		pos := refworld.RefPosition(float64(k) / rate)
		s.Bodies = append(s.Bodies[:0], simthread.Body{Pos: mgl32.Vec3{float32(pos[0]), float32(pos[1]), float32(pos[2])}})
		p.Publish()
		c.Acquire()
	}
	m := interp.NewMeter(rate, interp.Reference{Truth: refworld.RefPosition, Speed: refworld.RefSpeed})
	pause := 5 * time.Second
	for k := uint64(0); k <= 10; k++ {
		pub(k, time.Duration(k)*step)
	}
	pub(11, 11*step+pause) // tick 11 after a 5 s pause: a new segment
	// Frame 1: render time between tick 10 (old segment) and 11 (new): no truth.
	f1 := 11*step + pause - step/100
	m.Measure(f1+20*time.Millisecond, &renderer.Plan{Prev: c.History(1), Next: c.History(0), Alpha: 0.998, RenderTime: f1, SimTick: 10.998, Ready: true})
	pub(12, 12*step+pause)
	// Frame 2, 6.9 ms later: between 11 and 12, both on the new segment.
	f2 := f1 + 6944*time.Microsecond
	a := float32((f2 - (11*step + pause)).Seconds() * rate)
	m.Measure(f2+20*time.Millisecond, &renderer.Plan{Prev: c.History(1), Next: c.History(0), Alpha: a, RenderTime: f2, SimTick: 11 + float64(a), Ready: true})
	if n := m.AnimErr().Count(); n != 0 {
		t.Errorf("animation error measured against a frame across the pause: %d samples, max %.3f ms", n, float64(m.AnimErr().Max())/1e6)
	}
}

// clampOf names why plan's alpha was clamped: "", "late" or "early".
func clampOf(plan *renderer.Plan) string {
	switch {
	case plan.Late:
		return "late"
	case plan.Early:
		return "early"
	}
	return ""
}

func TestParseMotion(t *testing.T) {
	for _, m := range []renderer.MotionMode{renderer.MotionLerp, renderer.MotionHermite, renderer.MotionExtrapolate} {
		got, err := interp.ParseMotion(m.String())
		if err != nil || got != m {
			t.Errorf("ParseMotion(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := interp.ParseMotion("cubic"); err == nil {
		t.Error("ParseMotion accepted cubic")
	}
}
