package loop

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/present"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/platform/internal/vdisplay"
	"github.com/tickframe/tickframe/platform/internal/window"
)

// The soak runs the render loop's timing parts for a day of virtual time:
// the simulation (simthread on a virtual clock, 120 Hz), the pipeline's
// planner, the pacing (a software pacer at the display's own rate,
// following the vblanks present.Grid measures, with the just-in-time
// lead) and the hidden window's rest, against a virtual display
// (package vdisplay) whose truth it knows: its rate drifts by up
// to ±100 ppm, it switches mode 144 → 60 → 240 Hz, its vblank reports
// come up to 300 µs late, now and then one very late, and a starved
// server's runs of 40 late reports make the grid start over. Frame costs
// are light with a heavy tail (a frame in 400 takes one to three
// periods). What it holds to:
//
//   - no frame waits in the pacer more than two of the display's
//     periods;
//   - the count does not drift: the vblanks the pacer counts missed are
//     the display's vblanks the frames skipped, exactly, over the whole
//     day (package app's soak holds its present tracker's counts to the
//     same display's);
//   - the render time and the displayed simulated time never go back;
//   - nothing of tickframe's allocates after the first minute (counted
//     from the allocation profile: the stacks through tickframe's code;
//     the runtime's own, its GC workers and threads, are reported beside),
//     and the heap is flat.
//
// The display's mode switches are the one place the frames may not be
// on its vblanks: until the grid has its new rate (a few reports) the
// pacer paces the old one. The missed count is compared outside the
// second after each switch, and the wait bound there is two of the
// longer period.

// soakRun is the loop's state: the app's parts and the truth.
type soakRun struct {
	t     *testing.T
	app   *App
	clock *sim.VirtualClock
	next  time.Duration // the simulation's next tick
	// how late the simulation thread wakes for it (a stall: its
	// snapshots come late, and the adaptive delay rises)
	simLate time.Duration
	grid    present.Grid
	disp    *vdisplay.Display
	ctx     context.Context
	failed  bool
}

// Now and SleepUntil make soakRun the pacer's clock: sleeping runs the
// simulation's ticks and delivers the display's reports up to t, in time
// order, as the simulation thread and the display system would.
func (s *soakRun) Now() time.Duration { return s.clock.Now() }

func (s *soakRun) SleepUntil(_ context.Context, t time.Duration) error {
	s.advance(t)
	return nil
}

func (s *soakRun) advance(t time.Duration) {
	d := s.disp
	for {
		d.Upto(t)
		report := d.NextReport()
		switch {
		case s.next+s.simLate <= t && s.next+s.simLate <= report:
			s.clock.Set(s.next + s.simLate)
			s.simLate = 0
			var err error
			if s.next, err = s.app.Sim().Wake(); err != nil {
				s.t.Fatal(err)
			}
		case report <= t:
			r := d.PopReport()
			s.clock.Set(r.At)
			s.grid.Observe(r.At, r.MSC)
		default:
			s.clock.Set(t)
			return
		}
	}
}

// soakTruth is what the display did, and the pacer's count beside the
// display's.
type soakTruth struct {
	frames, displayed, dropped, repeated uint64
	missed, appMissed                    uint64 // outside the switches' seconds and the rests
	worstWait                            float64
	mallocs, ours                        uint64 // heap objects after the first minute: all, and by tickframe's code
	switchFrames, hiddenFrames           uint64
}

// ourAllocs reads the allocation profile (every allocation, since the
// test set MemProfileRate to 1) after two collections, which publish it.
// Without since it returns the profile, by stack; with it, the objects
// allocated since then whose stacks pass through tickframe's code, under
// the zero key (and logs nothing: it must not allocate while counting).
// ourStacks are the stacks ourAllocs found allocating in tickframe's code.
var ourStacks []string

func ourAllocs(since map[[32]uintptr]int64) map[[32]uintptr]int64 {
	// The profile may be two collections old: after three, it holds every
	// allocation made before the first (other tests' included, which
	// -shuffle may have run just before).
	runtime.GC()
	runtime.GC()
	runtime.GC()
	n, _ := runtime.MemProfile(nil, true)
	recs := make([]runtime.MemProfileRecord, n+64)
	n, _ = runtime.MemProfile(recs, true)
	out := make(map[[32]uintptr]int64, n)
	var ours int64
	if since == nil {
		ourStacks = nil
	}
	for _, r := range recs[:n] {
		out[r.Stack0] = r.AllocObjects
		if since == nil || r.AllocObjects <= since[r.Stack0] {
			continue
		}
		frames := runtime.CallersFrames(r.Stack())
		var stack []string
		for {
			f, more := frames.Next()
			stack = append(stack, fmt.Sprintf("%s:%d", f.Function, f.Line))
			if strings.HasSuffix(f.Function, ".ourAllocs") {
				break // its own reading
			}
			if strings.HasPrefix(f.Function, "testing.") {
				break // the test harness's own (t.Logf), called from a test
			}
			if strings.HasPrefix(f.Function, "github.com/tickframe/tickframe/") {
				// The day's own: made on the test's goroutine, under
				// TestSoakVirtualDay (another test's late allocations
				// may reach the profile after the first minute).
				rest := strings.Join(stack, " < ")
				for more {
					f, more = frames.Next()
					rest += " < " + f.Function
				}
				if strings.Contains(rest, ".TestSoakVirtualDay") {
					ours += r.AllocObjects - since[r.Stack0]
					ourStacks = append(ourStacks, rest)
				}
				break
			}
			if !more {
				break
			}
		}
	}
	if since != nil {
		return map[[32]uintptr]int64{{}: ours}
	}
	return out
}

func TestSoakVirtualDay(t *testing.T) {
	rate := runtime.MemProfileRate
	runtime.MemProfileRate = 1
	defer func() { runtime.MemProfileRate = rate }()
	length := 24 * time.Hour
	if testing.Short() {
		length = time.Hour
	}
	if raceEnabled {
		// The race detector slows the loop many times over, and finds
		// nothing in it: the virtual soak runs on one goroutine. Its
		// pointer checks (-race turns on checkptr) see five minutes of
		// the same schedule; the whole day runs without it, beside make
		// test's -race pass (the Makefile's test target).
		length = 5 * time.Minute
	}
	cpu := time.Now()
	tr := runSoak(t, length)
	t.Logf("%v virtual in %v: %d frames (%d displayed, %d dropped, %d repeated vblanks), %d vblanks missed (pacer %d), "+
		"worst wait %.2f periods; %d frames within a second of a mode switch, %d hidden; %d heap objects after the first minute, %d of them tickframe's",
		length, time.Since(cpu).Round(time.Millisecond), tr.frames, tr.displayed, tr.dropped, tr.repeated, tr.missed, tr.appMissed,
		tr.worstWait, tr.switchFrames, tr.hiddenFrames, tr.mallocs, tr.ours)
}

func runSoak(t *testing.T, length time.Duration) soakTruth {
	clock := new(sim.VirtualClock)
	s := &soakRun{t: t, clock: clock, ctx: context.Background()}
	cfg := Config{Settings: Settings{Display: Display{Latency: LowLatency}}}
	a, err := NewHeadless(cfg, &lookWorld{}, clock)
	if err != nil {
		t.Fatal(err)
	}
	s.app = a
	s.disp = vdisplay.New(rand.New(rand.NewPCG(24, 1)), time.Second/144)
	s.disp.V = 3 * time.Millisecond
	s.grid.SetSource(present.VblankPresentMSC)
	s.next, _ = a.Sim().Wake()
	// The app paces at the display's own rate once the grid knows it
	// (pacing.choose's case for a display system that reports vblanks).
	for !s.grid.Known() {
		s.advance(s.clock.Now() + time.Millisecond)
	}
	pacer, err := window.NewPacer(s, s.grid.Hz(), true)
	if err != nil {
		t.Fatal(err)
	}
	a.pacing = pacing{pacer: pacer, hz: s.grid.Hz(), source: s.grid.Source(), latency: LowLatency, grid: &s.grid, onGrid: true}

	// The schedule: a third of the run at each mode; the window hidden
	// for 1.2 s thirteen times.
	modes := []struct {
		at time.Duration
		hz float64
	}{{length / 3, 60}, {2 * length / 3, 240}}
	hideEvery, hideFor := length/13, 1200*time.Millisecond
	costs := rand.New(rand.NewPCG(24, 2))

	var tr soakTruth
	var truth vdisplay.Truth
	var lastRender time.Duration
	lastSim := -1.0
	var lastMSC uint64 // the display's vblank nearest the last frame's display time
	haveLast, rested := false, false
	var ms runtime.MemStats
	var mallocs0, heap0 uint64
	measured := false
	var prof0 map[[32]uintptr]int64
	start := s.clock.Now()
	for s.clock.Now()-start < length {
		now := s.clock.Now()
		if len(modes) > 0 && now-start >= modes[0].at {
			s.disp.SetMode(modes[0].hz)
			modes = modes[1:]
		}
		if !measured && now-start >= time.Minute {
			measured = true
			prof0 = ourAllocs(nil)
			runtime.GC()
			runtime.ReadMemStats(&ms)
			mallocs0, heap0 = ms.Mallocs, ms.HeapAlloc
		}
		oldPeriod := s.disp.Period
		missed := a.pacing.pacer.Missed()
		at, lead, err := a.pacing.frameAt(s.ctx, s, a.hooks)
		if err != nil {
			t.Fatal(err)
		}
		a.pipe.Planner().SetLead(lead)
		fstart := s.clock.Now()
		inSwitch := fstart >= s.disp.SwitchAt-2*s.disp.Nominal && fstart-s.disp.SwitchAt < time.Second
		wait, bound := fstart-now, 2*s.disp.Period
		if inSwitch {
			tr.switchFrames++
			bound = 2 * max(s.disp.Period, oldPeriod, a.pacing.pacer.Period())
		} else {
			tr.worstWait = max(tr.worstWait, float64(wait)/float64(s.disp.Period))
		}
		if wait > bound {
			t.Fatalf("%v: the pacer waited %v, more than two periods (%v)", fstart, wait, s.disp.Period)
		}
		a.plan = a.pipe.Plan(at)
		plan := a.plan
		if plan.RenderTime < lastRender || plan.Ready && plan.SimTick < lastSim {
			t.Fatalf("%v: the displayed time went back: render time %v after %v, tick %v after %v", fstart, plan.RenderTime, lastRender, plan.SimTick, lastSim)
		}
		lastRender = plan.RenderTime
		if plan.Ready {
			lastSim = plan.SimTick
		}

		// The missed vblanks' truth: the display's vblanks between this
		// frame's display time and the last one's; none after a rest,
		// which no frame was late for.
		m := s.disp.Nearest(at)
		if haveLast && !inSwitch {
			var want uint64
			if m > lastMSC+1 && !rested {
				want = m - lastMSC - 1
			}
			got := a.pacing.pacer.Missed() - missed
			if got != want {
				t.Fatalf("%v: frame at %v (vblank %d, the last at %d): the pacer counted %d missed, the display skipped %d",
					fstart, at, m, lastMSC, got, want)
			}
			tr.missed += want
			tr.appMissed += got
		}
		lastMSC, haveLast = m, true

		if rel := now - start; rel > hideEvery/2 && rel%hideEvery < hideFor {
			// Hidden: App.draw rests 20 ms instead of drawing.
			tr.hiddenFrames++
			a.pacing.pacer.Idle()
			s.advance(s.clock.Now() + 20*time.Millisecond)
			rested = true
			continue
		}
		rested = false
		// The frame's work: light, with a heavy tail; now and then a
		// stall that holds up the simulation thread too (the delay's
		// rise and the lead's land on the same frames).
		cost := time.Duration(300+costs.IntN(1200)) * time.Microsecond
		switch costs.IntN(2000) {
		case 0, 1, 2, 3:
			cost = time.Duration(float64(s.disp.Nominal) * (1 + 2*costs.Float64()))
		case 4:
			cost = time.Duration(float64(s.disp.Nominal) * (0.5 + costs.Float64()))
			s.simLate = time.Duration(1+costs.IntN(8)) * time.Millisecond
		}
		s.advance(s.clock.Now() + cost)
		ready := s.clock.Now()
		a.pacing.jit.add(ready - fstart)
		_, msc := s.disp.ShownAt(ready)
		truth.Frame(msc)
	}
	truth.End()
	tr.frames, tr.displayed, tr.dropped, tr.repeated = truth.Frames, truth.Displayed, truth.Dropped, truth.Repeated
	runtime.ReadMemStats(&ms)
	tr.mallocs = ms.Mallocs - mallocs0
	if tr.ours = uint64(ourAllocs(prof0)[[32]uintptr{}]); tr.ours != 0 {
		t.Errorf("%d allocations by tickframe's code after the first minute, at %s", tr.ours, strings.Join(ourStacks, "; "))
	}
	runtime.GC() // the reading's own garbage is not the run's
	runtime.ReadMemStats(&ms)
	if grow := int64(ms.HeapAlloc) - int64(heap0); grow > 64<<10 {
		t.Errorf("the heap grew by %d bytes after the first minute", grow)
	}
	if tr.missed != tr.appMissed {
		t.Errorf("the pacer counted %d missed vblanks, the display skipped %d", tr.appMissed, tr.missed)
	}
	// The run must have done what it claims: the modes, the tail, the
	// grid's restarts, the rests.
	if tr.missed == 0 || tr.dropped == 0 || tr.repeated == 0 || tr.hiddenFrames == 0 || tr.switchFrames == 0 || s.grid.Hz() < 230 {
		t.Errorf("the run lacks a case: %+v, grid at %.1f Hz", tr, s.grid.Hz())
	}
	return tr
}
