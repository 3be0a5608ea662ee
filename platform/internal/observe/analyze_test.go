package observe_test

import (
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/observe"
)

const period = 6944 * time.Microsecond

func grid(t time.Duration) (time.Duration, bool) {
	k := (t + period - 1) / period
	return k * period, true
}

// run builds a synthetic run: frame i is swapped 1 ms before vblank i+10
// and shows simulated time vblank i+10; lateness moves a frame's landing
// (and so its vblank) later; drop marks frames that never reach the
// screen. The app's log says what the app believed: appShown.
func run(n int, late map[int]time.Duration, drop map[int]bool, appLate map[int]time.Duration) ([]observe.Change, []observe.LogFrame) {
	var ch []observe.Change
	var log []observe.LogFrame
	for i := range n {
		v := time.Duration(i+10) * period
		swap := v - time.Millisecond
		landed := swap + 200*time.Microsecond + late[i]
		disp, _ := grid(swap + 300*time.Microsecond + appLate[i] + late[i])
		log = append(log, observe.LogFrame{ID: uint64(i + 1), Swap: swap, Display: disp,
			Sim: v.Seconds(), Seg: 0, HasSim: true, Shown: !drop[i]})
		if !drop[i] {
			ch = append(ch, observe.Change{Prev: landed - 100*time.Microsecond, At: landed + 100*time.Microsecond, Index: uint8((i + 1) % 16)})
		}
	}
	// The app, too, counts a frame the next one replaced within its
	// vblank as dropped.
	for i := range log {
		for j := i + 1; j < len(log) && log[i].Shown; j++ {
			if log[j].Shown {
				log[i].Shown = log[j].Display > log[i].Display
				break
			}
		}
	}
	return ch, log
}

func TestAnalyze(t *testing.T) {
	for _, tc := range []struct {
		name                            string
		late, appLate                   map[int]time.Duration
		drop                            map[int]bool
		displayed, dropped              uint64
		repeated, otherVblank, replaced uint64
		appDropped, observerOnly        uint64
		animMax, appAnimMax             time.Duration
	}{
		{name: "on time", displayed: 100},
		// Frame 50 comes 20 ms late, and 51 and 52 wait for it: all three
		// land before vblank 63, where 53, on time, replaces them: 49
		// shows for four vblanks, and 53 shows what it should.
		{name: "one late by 20 ms", late: map[int]time.Duration{50: 20 * time.Millisecond, 51: 14 * time.Millisecond, 52: 7 * time.Millisecond},
			displayed: 97, dropped: 3, replaced: 3, repeated: 3},
		// Frame 30 lands just after its vblank, and 31, on time, replaces
		// it before the next: 29 shows twice.
		{name: "one a vblank late", late: map[int]time.Duration{30: 1200 * time.Microsecond},
			displayed: 99, dropped: 1, replaced: 1, repeated: 1},
		{name: "one in ten dropped", drop: map[int]bool{9: true, 19: true, 29: true, 39: true, 49: true, 59: true, 69: true, 79: true, 89: true},
			displayed: 91, dropped: 9, repeated: 9},
		// The app believes frame 40 a vblank late, replaced by 41: the
		// observer saw it.
		{name: "the app a vblank late", appLate: map[int]time.Duration{40: period}, displayed: 100, appDropped: 1, observerOnly: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch, log := run(100, tc.late, tc.drop, tc.appLate)
			r := observe.Analyze(ch, log, grid, period)
			if r.Displayed != tc.displayed || r.Dropped != tc.dropped || r.Repeated != tc.repeated || r.OtherVblank != tc.otherVblank || r.Replaced != tc.replaced || r.Unmatched != 0 {
				t.Fatalf("report %+v", r)
			}
			if r.AppDisplayed != tc.displayed-tc.appDropped || r.AppDropped != tc.dropped+tc.appDropped || r.AppOnly != 0 || r.ObserverOnly != tc.observerOnly {
				t.Fatalf("the app's side: %+v", r)
			}
			if tol := 10 * time.Microsecond; r.AnimErr.Max < tc.animMax-tol || r.AnimErr.Max > tc.animMax+tol {
				t.Errorf("observer's animation error max %v, want %v", r.AnimErr.Max, tc.animMax)
			}
			if tol := 10 * time.Microsecond; r.AppAnimErr.Max < tc.appAnimMax-tol || r.AppAnimErr.Max > tc.appAnimMax+tol {
				t.Errorf("app's animation error max %v, want %v", r.AppAnimErr.Max, tc.appAnimMax)
			}
		})
	}
}

// A frame the app counts displayed that never reached the screen is
// AppOnly; the marker's 16 colours are told apart by the swap times even
// when 15 frames in a row are lost.
func TestAnalyzeCatchesWhatTheAppMissed(t *testing.T) {
	drop := map[int]bool{}
	for i := 20; i < 35; i++ {
		drop[i] = true
	}
	ch, log := run(100, nil, drop, nil)
	for i := range log {
		log[i].Shown = true // the app believes all were shown
	}
	r := observe.Analyze(ch, log, grid, period)
	if r.Displayed != 85 || r.Dropped != 15 || r.AppOnly != 15 || r.Unmatched != 0 || r.Repeated != 15 {
		t.Fatalf("report %+v", r)
	}
}

// The observer's own grid, fitted to the arrivals alone, finds the rate
// and puts its vblank where no frame arrives: every on-time frame lands a
// fixed time before its fitted vblank, and a frame that lands after the
// bulk by more than the emptiest stretch counts late.
func TestFitChanges(t *testing.T) {
	late := map[int]time.Duration{}
	for i := 5; i < 400; i += 37 {
		late[i] = 3*period + 2*time.Millisecond // held back: lands three vblanks and 1.2 ms late
	}
	ch, log := run(400, late, nil, nil)
	f := observe.FitChanges(ch, observe.StallGap)
	if d := f.Period - period; d > period/1000 || d < -period/1000 {
		t.Fatalf("fitted period %v, want %v", f.Period, period)
	}
	g := f.Grid()
	// The on-time frames land 0.8 ms before their vblank, one a period:
	// the fitted vblank after each is the same distance from it.
	var first time.Duration
	for i, c := range ch {
		if late[i] > 0 {
			continue
		}
		mid := c.Prev + (c.At-c.Prev)/2
		v, _ := g(mid)
		if i == 0 {
			first = v - mid
		}
		if d := v - mid - first; d > time.Microsecond || d < -time.Microsecond {
			t.Fatalf("frame %d: fitted vblank %v after its arrival, frame 0's %v", i, v-mid, first)
		}
	}
	if f.OffLine != len(late) || f.Arrivals != len(ch) {
		t.Errorf("fit %+v: want %d changes, %d off the line", f, len(ch), len(late))
	}
	_ = log
}

// Where the display system's vblanks run at another rate than the app
// paces (a 60 Hz fake CRTC, the app at 144 Hz), an app that maps its
// frames onto those vblanks counts most of them dropped; the observer's
// own placement sees each frame change the content once a 144 Hz period
// and says so, while the placement on the app's vblanks agrees with the
// app (it shares its definition).
func TestOwnPlacementCatchesARateMismatch(t *testing.T) {
	ch, log := run(400, nil, nil, nil)
	slow := 16667 * time.Microsecond
	for i := range log {
		log[i].Display = (log[i].Swap/slow + 1) * slow
	}
	for i := range log {
		log[i].Shown = i+1 == len(log) || log[i+1].Display > log[i].Display
	}
	res := observe.Result{Changes: ch, Period: slow, Watch: observe.WatchStats{GapP99: 200 * time.Microsecond}}
	c := observe.Compare(res, log)
	if d := c.Fit.Period - period; d > period/1000 || d < -period/1000 {
		t.Fatalf("own fit %v, want %v", c.Fit.Period, period)
	}
	o := c.Own
	if o.Displayed < 390 || o.AppDisplayed > 200 || o.ObserverOnly < 190 {
		t.Errorf("own placement: seen %d displayed, the app %d, seen and counted dropped by the app %d: want the app's drops shown up", o.Displayed, o.AppDisplayed, o.ObserverOnly)
	}
	s := c.Server
	if d := int64(s.Displayed) - int64(s.AppDisplayed); d > 4 || d < -4 {
		t.Errorf("placement on the app's vblanks: seen %d displayed, the app %d: want them alike", s.Displayed, s.AppDisplayed)
	}
}

// An observer stall as long as 16 frames hides them behind the marker's
// colours coming round again: no change is seen across it. Without its
// stalls the analysis reads those frames as counted displayed by the app
// and never on the screen; with them they are unseen, on both sides.
func TestStallIsNotABrokenApp(t *testing.T) {
	ch, log := run(200, nil, nil, nil)
	// Frames 100..115 (colours 101..116 mod 16) are not seen: the poll
	// before the stall saw frame 99 (colour 100 mod 16 = 4), the first
	// after it frame 115 (colour 116 mod 16 = 4), the same colour.
	stall := observe.Span{From: ch[99].At + 50*time.Microsecond, To: ch[115].At + 50*time.Microsecond}
	kept := append(append([]observe.Change{}, ch[:100]...), ch[116:]...)
	kept[100].Prev = max(kept[100].Prev, stall.To)
	old := observe.Analyze(kept, log, grid, period)
	if old.AppOnly < 10 {
		t.Fatalf("without the stall: %d frames counted displayed and never seen; the case does not show the fault it guards", old.AppOnly)
	}
	res := observe.Result{Changes: kept, Period: period, Watch: observe.WatchStats{GapP99: 200 * time.Microsecond, Stalls: []observe.Span{stall}}}
	c := observe.Compare(res, log)
	for name, r := range map[string]observe.Report{"app's vblanks": c.Server, "own vblanks": c.Own} {
		if r.AppOnly != 0 || r.Unseen != 16 || r.Displayed != r.AppDisplayed || r.Repeated != r.AppRepeated {
			t.Errorf("%s: %d counted displayed and never seen, %d unseen (want 16), displayed %d/%d, repeated %d/%d",
				name, r.AppOnly, r.Unseen, r.Displayed, r.AppDisplayed, r.Repeated, r.AppRepeated)
		}
	}
}

// The first change the observer sees after a stall spans the stall (its
// poll before it came before the stall): the frame's arrival is known
// only to within the stall, and the vblanks after it up to the next
// frame must not count as repeats on its guess (a 216 ms stall under load
// read 19 repeats more than the app's). Such a frame is unsure: the
// repeats around it are left out on both sides.
func TestStallDoesNotMakeRepeats(t *testing.T) {
	// Frames 100..115 are hidden by the stall, as in
	// TestStallIsNotABrokenApp, but the change after it is read with the
	// poll before the stall as its Prev, as the watcher reads it.
	ch, log := run(200, nil, nil, nil)
	stall := observe.Span{From: ch[99].At + 50*time.Microsecond, To: ch[115].At + 50*time.Microsecond}
	kept := append(append([]observe.Change{}, ch[:100]...), ch[116:]...)
	kept[100].Prev = ch[99].At // the poll before the change: before the stall
	res := observe.Result{Changes: kept, Period: period, Watch: observe.WatchStats{GapP99: 200 * time.Microsecond, Stalls: []observe.Span{stall}}}
	c := observe.Compare(res, log)
	r := c.Server
	if r.Repeated != r.AppRepeated || r.AppOnly != 0 {
		t.Errorf("repeated %d (observer) against %d (app), %d counted displayed never seen: the stall's guess made repeats", r.Repeated, r.AppRepeated, r.AppOnly)
	}
}

// A frame the app counts displayed at a vblank the observer has no poll
// after (its next change's poll before was earlier) is one the observer
// could not place: a pair of the observer's across it, and the app's
// pairs through it, are guesses on either side and count on neither. The
// case (make test beside a build loop): the two fits of the vblanks half
// a millisecond apart, the observer's pair across such a frame read 125
// ms of animation error and the app's pairs through it 19 ms
// (TestObserverAgreesWithTheDisplaysFeedback).
func TestUnplacedFrameBetweenAPairIsLeftOut(t *testing.T) {
	const off = 500 * time.Microsecond // the observer's vblanks this much earlier than the app's
	early := func(t time.Duration) (time.Duration, bool) { v, _ := grid(t + off); return v - off, true }
	ch, log := run(200, nil, nil, nil)
	x := 100
	// Frame x was in the framebuffer while the observer did not poll: its
	// change is not seen, and the next change's poll before it came just
	// before the app's vblank of x (after the observer's).
	ch = append(ch[:x:x], ch[x+1:]...)
	ch[x].Prev = log[x].Display - 100*time.Microsecond
	// The simulation jumps at x, so that a pair across x or through it
	// reads the jump.
	for i := x; i < len(log); i++ {
		log[i].Sim += 0.050
	}
	r := observe.Analyze(ch, log, early, period)
	if r.Ambiguous != 1 || r.Displayed != 199 || r.AppDisplayed != 200 {
		t.Fatalf("frame %d is not the one unplaced frame: %+v", x, r)
	}
	if r.SeenAnimErr.Max > 10*time.Millisecond || r.AppSpanAnimErr.Max > 10*time.Millisecond {
		t.Errorf("animation error max: observer %v, app %v: a pair across or through the unplaced frame counted", r.SeenAnimErr.Max, r.AppSpanAnimErr.Max)
	}
	if r.SeenAnimErr.N != 197 || r.AppSpanAnimErr.N != 197 {
		t.Errorf("pairs: observer %d, app %d; want 197 each (all but those around frame %d)", r.SeenAnimErr.N, r.AppSpanAnimErr.N, x)
	}
}

// An app that keeps up with every other vblank only (a loaded machine,
// the app paced at 144 Hz) changes the content at half the display's
// rate: the observer's own fit finds that half rate, which is not a
// display the frames could be placed on (each would read a vblank late or
// a repeat short). The own placement is left out, saying why; the
// placement on the app's vblanks still holds the app to every bound.
func TestOwnFitAtASubRateIsNotPlaced(t *testing.T) {
	var ch []observe.Change
	var log []observe.LogFrame
	v := 10 * period
	for i := range 300 {
		// Mostly two vblanks a frame, now and then one and then three:
		// a load's pattern, its arrivals mostly on a grid of twice the
		// period.
		switch i % 10 {
		case 5:
			v += period
		case 6:
			v += 3 * period
		default:
			v += 2 * period
		}
		swap := v - time.Millisecond
		landed := swap + 200*time.Microsecond
		log = append(log, observe.LogFrame{ID: uint64(i + 1), Swap: swap, Display: v, Sim: v.Seconds(), HasSim: true, Shown: true})
		ch = append(ch, observe.Change{Prev: landed - 100*time.Microsecond, At: landed + 100*time.Microsecond, Index: uint8((i + 1) % 16)})
	}
	res := observe.Result{Changes: ch, Period: period, Watch: observe.WatchStats{GapP99: 200 * time.Microsecond}}
	c := observe.Compare(res, log)
	if !c.Fit.Determined() || c.Fit.Period < period*3/2 {
		t.Fatalf("own fit %+v: want it determined at twice the period %v (the case the rule is for)", c.Fit, period)
	}
	if !c.OffRate || c.Own.Displayed != 0 {
		t.Errorf("own fit at %v beside the app's %v: off rate %v, %d frames placed on it: want none placed", c.Fit.Period, period, c.OffRate, c.Own.Displayed)
	}
	if s := c.Server; s.Displayed != 300 || s.AppDisplayed != 300 || s.Repeated != s.AppRepeated || s.OtherVblank != 0 {
		t.Errorf("on the app's vblanks: %+v: want 300 displayed on both sides, the repeats alike", s)
	}
}

// A fit slower than the app's vblanks but no multiple of them is the
// output's own cadence (Weston's x11 backend repaints on a timer, 44 to
// 50 Hz for a stated 60): kept, and frames placed on it.
func TestOwnFitAtAnotherCadenceIsPlaced(t *testing.T) {
	var ch []observe.Change
	var log []observe.LogFrame
	step := period * 13 / 10 // 1.3 periods: the output's cadence
	for i := range 300 {
		at := time.Duration(i+10) * step
		swap := at - time.Millisecond
		landed := swap + 200*time.Microsecond
		disp, _ := grid(at) // the app says: the stated display's next vblank
		log = append(log, observe.LogFrame{ID: uint64(i + 1), Swap: swap, Display: disp, Sim: disp.Seconds(), HasSim: true, Shown: true})
		ch = append(ch, observe.Change{Prev: landed - 100*time.Microsecond, At: landed + 100*time.Microsecond, Index: uint8((i + 1) % 16)})
	}
	res := observe.Result{Changes: ch, Period: period, Watch: observe.WatchStats{GapP99: 200 * time.Microsecond}}
	c := observe.Compare(res, log)
	if !c.Fit.Determined() || absDur(c.Fit.Period-step) > step/100 {
		t.Fatalf("own fit %+v: want it determined at %v (the case the rule is for)", c.Fit, step)
	}
	if c.OffRate || c.Own.Displayed < 290 {
		t.Errorf("own fit at %v beside the app's %v: off rate %v, %d frames placed on it: want them placed", c.Fit.Period, period, c.OffRate, c.Own.Displayed)
	}
}

func absDur(d time.Duration) time.Duration { return max(d, -d) }

// A stall of the machine (the observer's real-time thread did not run for
// three periods) just after a frame reached the framebuffer delays the
// app's read of that frame's landing by as much: the app places it three
// vblanks late, the observer saw it on time, and the app's worst
// animation error is three periods worse than the viewer's. The observer
// knows of the stall: the frame is one neither side can place, left out
// of the pairs on both sides and counted with those it could not place.
// Without the stall on record the app's late frame shows as a
// disagreement (the case is one the analysis otherwise reads as an app
// error).
func TestMachineStallAcrossALandingIsUnplaced(t *testing.T) {
	var ch []observe.Change
	var log []observe.LogFrame
	const lag = 3 // periods the app stalled after frame 100
	for i := range 200 {
		v := time.Duration(i+10) * period
		if i > 100 {
			v += lag * period // the app's next frames come after its stall
		}
		swap := v - time.Millisecond
		disp := v
		if i == 100 {
			disp += lag * period // its landing read after the stall
		}
		log = append(log, observe.LogFrame{ID: uint64(i + 1), Swap: swap, Display: disp, Sim: swap.Seconds(), HasSim: true, Shown: true})
		landed := swap + 200*time.Microsecond
		ch = append(ch, observe.Change{Prev: landed - 100*time.Microsecond, At: landed + 100*time.Microsecond, Index: uint8((i + 1) % 16)})
	}
	stall := observe.Span{From: log[100].Swap + 500*time.Microsecond, To: log[100].Swap + 500*time.Microsecond + lag*period - period/2}
	judge := func(stalls []observe.Span) observe.Report {
		res := observe.Result{Changes: ch, Period: period, Watch: observe.WatchStats{GapP99: 200 * time.Microsecond, Stalls: stalls}}
		return observe.Compare(res, log).Server
	}
	without := judge(nil)
	if without.AppAnimErr.Max-without.AnimErr.Max < 2*period {
		t.Fatalf("without the stall: app's worst %v, the observer's %v: the case does not show the app's late read", without.AppAnimErr.Max, without.AnimErr.Max)
	}
	r := judge([]observe.Span{stall})
	if d := r.AppAnimErr.Max - r.AnimErr.Max; d > period/10 || d < -period/10 {
		t.Errorf("with the stall on record: app's worst %v, the observer's %v: want the late read left out", r.AppAnimErr.Max, r.AnimErr.Max)
	}
	if r.Ambiguous != 1 || r.Displayed != 200 || r.AppDisplayed != 200 || r.AppOnly != 0 {
		t.Errorf("with the stall on record: %+v: want one frame unplaced, 200 displayed on both sides", r)
	}
}

// The app's steps between displayed frames are whole periods on a
// display system's vblanks; on a compositor's timer (21 ms apart at a
// nominal 60 Hz) most are not, and the report counts them.
func TestAppStepsOffTheGrid(t *testing.T) {
	ch, log := run(200, nil, nil, nil)
	r := observe.Analyze(ch, log, grid, period)
	if r.AppSteps < 190 || r.AppOffGrid != 0 {
		t.Errorf("on vblanks: %d of %d steps off the grid, want none", r.AppOffGrid, r.AppSteps)
	}
	step := period * 3 / 2 // 1.5 periods: as far from the grid as a step goes
	for i := range log {
		log[i].Display = log[0].Display + time.Duration(i)*step
		log[i].Sim = log[i].Display.Seconds()
	}
	r = observe.Analyze(ch, log, nil, period)
	if r.AppSteps < 190 || r.AppOffGrid != r.AppSteps {
		t.Errorf("on a timer 1.5 periods apart: %d of %d steps off the grid, want all", r.AppOffGrid, r.AppSteps)
	}
}
