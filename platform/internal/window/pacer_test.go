package window_test

import (
	"context"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/window"
)

// fakeClock (example_test.go) drives the pacer: sleeping only moves time.
var _ window.Clock = (*fakeClock)(nil)

func TestSoftwarePacerHitsTheGrid(t *testing.T) {
	for _, hz := range []float64{59.94, 60, 144, 240, 360} {
		c := &fakeClock{now: 5 * time.Millisecond}
		p, err := window.NewPacer(c, hz, true)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		f0, _ := p.Next(ctx)
		for k := 1; k <= int(hz)*10; k++ {
			c.now += time.Duration(k%3) * 100 * time.Microsecond // some work
			f, err := p.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want := f0 + time.Duration(float64(k)*1e9/hz+0.5)
			if d := f - want; d < -1 || d > 1 {
				t.Fatalf("%v Hz frame %d at %v, want %v", hz, k, f, want)
			}
			if c.now != f {
				t.Fatalf("%v Hz frame %d: pacer returned %v but slept until %v", hz, k, f, c.now)
			}
		}
		if p.Missed() != 0 {
			t.Fatalf("%v Hz: %d missed with light work", hz, p.Missed())
		}
	}
}

func TestSoftwarePacerSkipsMissedVblanks(t *testing.T) {
	c := &fakeClock{}
	p, _ := window.NewPacer(c, 100, true) // 10 ms
	ctx := context.Background()
	p.Next(ctx)
	p.Next(ctx)                    // 10 ms
	c.now += 25 * time.Millisecond // a 25 ms frame: misses 20 and 30
	f, _ := p.Next(ctx)
	if f != 40*time.Millisecond || p.Missed() != 2 {
		t.Fatalf("after a 25 ms frame: frame at %v, missed %d; want 40ms, 2", f, p.Missed())
	}
	ctx2, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.Next(ctx2); err == nil {
		t.Fatal("Frame ignored a cancelled context")
	}
}

func TestHardwarePacerSnapsJitterToTheGrid(t *testing.T) {
	c := &fakeClock{}
	p, _ := window.NewPacer(c, 144, false)
	ctx := context.Background()
	period := time.Second / 144
	f0, _ := p.Next(ctx)
	jitter := []time.Duration{300, -200, 500, 0, -400, 100}
	for k := 1; k < 1000; k++ {
		c.now = f0 + time.Duration(k)*period + jitter[k%len(jitter)]*time.Microsecond
		f, _ := p.Next(ctx)
		if d := f - (f0 + time.Duration(k)*period); d < -200*time.Microsecond || d > 200*time.Microsecond {
			t.Fatalf("frame %d at %v, %v off the grid", k, f, d)
		}
	}
	// After a stall the display kept its rhythm: the frame lands on the
	// vblank nearest to its start, and the skipped ones are counted.
	missed := p.Missed()
	c.now += 500 * time.Millisecond
	f, _ := p.Next(ctx)
	if d := f - c.now; d < -period/2 || d > period/2 {
		t.Fatalf("after a stall the frame is at %v, %v from its start", f, d)
	}
	if p.Missed()-missed < 70 {
		t.Fatalf("a 500 ms stall at 144 Hz missed only %d vblanks", p.Missed()-missed)
	}
	// A start far off the grid (a mode change) re-anchors the grid on it.
	c.now = f + period + period/3
	if f2, _ := p.Next(ctx); f2 != c.now {
		t.Fatalf("off-grid start at %v gave frame %v", c.now, f2)
	}
}

func TestNewPacerRejectsBadRates(t *testing.T) {
	for _, hz := range []float64{0, -60, 0.5, 1e5} {
		if _, err := window.NewPacer(&fakeClock{}, hz, true); err == nil {
			t.Errorf("NewPacer(%v) accepted", hz)
		}
	}
}

func TestMeasureRefresh(t *testing.T) {
	ms := func(f float64) time.Duration { return time.Duration(f * 1e6) }
	var paced, unpaced, renderBound, erratic []window.SwapSample
	for i := 0; i < 32; i++ {
		delayed := i%2 == 1
		probe := time.Duration(0)
		if delayed {
			probe = window.ProbeDelay
		}
		jitter := ms(0.05 * float64(i%3-1))
		// A 144 Hz display: the vblank absorbs the probe delay.
		paced = append(paced, window.SwapSample{Interval: ms(6.944) + jitter, Delayed: delayed})
		// Xvfb: swaps return at once, frames as fast as they come.
		unpaced = append(unpaced, window.SwapSample{Interval: ms(0.2) + probe + jitter, Delayed: delayed})
		// Xvfb with frames that take a steady 4 ms: regular, but every
		// delayed frame is longer by the delay.
		renderBound = append(renderBound, window.SwapSample{Interval: ms(4) + probe + jitter, Delayed: delayed})
		erratic = append(erratic, window.SwapSample{Interval: ms(5+float64(i%7)*3) + probe, Delayed: delayed})
	}
	if hz, ok := window.MeasureRefresh(paced); !ok || hz < 143 || hz > 145 {
		t.Fatalf("144 Hz swaps measured as %v, %v", hz, ok)
	}
	for name, s := range map[string][]window.SwapSample{"unpaced": unpaced, "render-bound": renderBound, "erratic": erratic, "a few samples": paced[:6]} {
		if hz, ok := window.MeasureRefresh(s); ok {
			t.Errorf("%s swaps taken for a %v Hz display", name, hz)
		}
	}
}

func TestDisplayAtIsTheNextVblank(t *testing.T) {
	clock := &fakeClock{}
	p, err := window.NewPacer(clock, 100, true)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := p.Next(ctx); err != nil { // vblank 0 at time 0
		t.Fatal(err)
	}
	ms := time.Millisecond
	for _, c := range []struct{ at, want time.Duration }{
		{0, 0}, {ms, 10 * ms}, {10 * ms, 10 * ms}, {10*ms + 1, 20 * ms}, {95 * ms, 100 * ms},
	} {
		if got := p.DisplayAt(c.at); got != c.want {
			t.Errorf("DisplayAt(%v) = %v, want %v", c.at, got, c.want)
		}
	}
}

// TestFrameAtFirstFrameMissesNothing: the first frame is displayed lead
// from its start, and a second frame started a period later makes its
// own vblank. With a whole period of lead (throughput), the grid started
// at the first frame's start and the second frame always counted one
// missed vblank.
func TestFrameAtFirstFrameMissesNothing(t *testing.T) {
	for _, lead := range []time.Duration{0, 3 * time.Millisecond, 10 * time.Millisecond} {
		c := &fakeClock{now: 7 * time.Millisecond}
		p, _ := window.NewPacer(c, 100, true) // 10 ms
		ctx := context.Background()
		first, _ := p.FrameAt(ctx, lead)
		c.now += time.Millisecond
		second, _ := p.FrameAt(ctx, lead)
		if first != 7*time.Millisecond+lead || second != first+10*time.Millisecond || p.Missed() != 0 {
			t.Errorf("lead %v: frames at %v and %v, %d missed; want %v, %v, 0",
				lead, first, second, p.Missed(), 7*time.Millisecond+lead, 17*time.Millisecond+lead)
		}
	}
}

// TestIdleVblanksAreNotMissed: a hidden window rests 20 ms at a time
// instead of drawing (Idle before each rest): the vblanks it rests
// through are not frames that came late. A late frame after it still
// counts.
func TestIdleVblanksAreNotMissed(t *testing.T) {
	for _, software := range []bool{true, false} {
		c := &fakeClock{}
		p, _ := window.NewPacer(c, 144, software)
		ctx := context.Background()
		p.FrameAt(ctx, time.Millisecond)
		for range 60 { // 1.2 s hidden
			p.FrameAt(ctx, time.Millisecond)
			p.Idle()
			c.now += 20 * time.Millisecond
		}
		p.FrameAt(ctx, time.Millisecond)
		if p.Missed() != 0 {
			t.Errorf("software %v: %d vblanks counted missed while resting", software, p.Missed())
		}
		at, _ := p.FrameAt(ctx, time.Millisecond)
		c.now = at + 15*time.Millisecond // a 15 ms frame: two vblanks missed
		p.FrameAt(ctx, time.Millisecond)
		if software && p.Missed() != 2 || !software && p.Missed() == 0 {
			t.Errorf("software %v: a late frame after resting counted %d missed", software, p.Missed())
		}
	}
}
