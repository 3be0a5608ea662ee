package observe

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// synthInputs is an app at period polling its input once a frame, at
// phase after each vblank, whose reaction reaches the framebuffer land
// after the poll (and, late, a frame later): n presses at random times,
// their reactions as the watcher records them (the polls 200 µs apart
// around the arrival), and the display's vblanks.
func synthInputs(n int, period, phase, land time.Duration, late bool, seed uint64) ([]Injection, []Change, Grid) {
	rng := rand.New(rand.NewPCG(seed, 1))
	grid := func(t time.Duration) (time.Duration, bool) { return (t/period + 1) * period, true }
	var inj []Injection
	var ch []Change
	t := time.Second
	for i := 1; i <= n; i++ {
		t += 20*time.Millisecond + time.Duration(rng.Int64N(int64(40*time.Millisecond)))
		inj = append(inj, Injection{N: uint64(i), Sent: t, Synced: t + 80*time.Microsecond})
		poll := (t-phase)/period*period + period + phase // the app's next poll
		arrival := poll + land
		if late {
			arrival += period
		}
		ch = append(ch, Change{Prev: arrival - 100*time.Microsecond, At: arrival + 100*time.Microsecond, Index: uint8(i % 16)})
		t = arrival
	}
	return inj, ch, grid
}

// Every press is joined with its reaction: the latency to the
// framebuffer is the press to the middle of the polls around the
// change, to the photon the press to the next vblank; and the input
// broken a frame deeper moves both by a period, which the summaries show.
func TestAnalyzeInputs(t *testing.T) {
	const period = 16666667 * time.Nanosecond
	inj, ch, grid := synthInputs(200, period, 2*time.Millisecond, 3*time.Millisecond, false, 1)
	a := AnalyzeInputs(inj, ch, grid, nil)
	if a.Sent != 200 || a.Seen != 200 || a.Missed != 0 {
		t.Fatalf("sent %d, seen %d, missed %d: want 200 seen", a.Sent, a.Seen, a.Missed)
	}
	for _, l := range a.Inputs {
		// The wait for the next poll (0 to a period) and the 3 ms to the
		// framebuffer.
		if l.ToFramebuffer < 3*time.Millisecond || l.ToFramebuffer > period+3*time.Millisecond {
			t.Fatalf("press %d: %v to the framebuffer: want 3 ms to a period more", l.N, l.ToFramebuffer)
		}
		if l.ToPhoton <= l.ToFramebuffer || l.ToPhoton > l.ToFramebuffer+period || (l.Vblank%period) != 0 {
			t.Fatalf("press %d: %v to the photon at %v, %v to the framebuffer: want the next vblank", l.N, l.ToPhoton, l.Vblank, l.ToFramebuffer)
		}
	}
	// Random presses wait half a period for the poll, on average.
	if p50 := a.ToFramebuffer.P50; p50 < 3*time.Millisecond+period/4 || p50 > 3*time.Millisecond+3*period/4 {
		t.Errorf("p50 %v to the framebuffer: want about 3 ms and half a period", p50)
	}
	inj, ch, grid = synthInputs(200, period, 2*time.Millisecond, 3*time.Millisecond, true, 1)
	b := AnalyzeInputs(inj, ch, grid, nil)
	for _, s := range []struct {
		what       string
		good, late Summary
	}{{"framebuffer", a.ToFramebuffer, b.ToFramebuffer}, {"photon", a.ToPhoton, b.ToPhoton}} {
		if d := s.late.P50 - s.good.P50; d < period-time.Millisecond || d > period+time.Millisecond {
			t.Errorf("a frame deeper moved the p50 to the %s by %v (%v to %v): want a period, %v", s.what, d, s.good.P50, s.late.P50, period)
		}
	}
}

// A press whose reaction never came is missed, with why: across a stall
// of the observer's, or not; a change to another colour is not its
// reaction.
func TestAnalyzeInputsMissed(t *testing.T) {
	const period = 16666667 * time.Nanosecond
	inj, ch, grid := synthInputs(10, period, 0, 3*time.Millisecond, false, 2)
	ch[3].Index = 9                // press 4's reaction misread as another colour
	ch = append(ch[:6], ch[7:]...) // press 7's lost
	stall := Span{From: inj[6].Sent + time.Millisecond, To: inj[6].Sent + 30*time.Millisecond}
	a := AnalyzeInputs(inj, ch, grid, []Span{stall})
	if a.Seen != 8 || a.Missed != 2 {
		t.Fatalf("seen %d, missed %d: want 8 and 2", a.Seen, a.Missed)
	}
	if l := a.Inputs[3]; l.Seen || !strings.Contains(l.Missed, "before the next press") {
		t.Errorf("press 4 (another colour): seen %v, %q", l.Seen, l.Missed)
	}
	if l := a.Inputs[6]; l.Seen || !strings.Contains(l.Missed, "stalled") {
		t.Errorf("press 7 (over a stall): seen %v, %q", l.Seen, l.Missed)
	}
	if a.ToFramebuffer.N != 8 || a.Send.N != 10 {
		t.Errorf("summaries of %d and %d presses: want 8 seen, 10 sent", a.ToFramebuffer.N, a.Send.N)
	}
}
