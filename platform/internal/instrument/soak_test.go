package instrument

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/vdisplay"
	"github.com/tickframe/tickframe/platform/internal/window"
)

// virtualClock is a window.Clock whose sleeps move it on at once.
type virtualClock struct{ now time.Duration }

func (c *virtualClock) Now() time.Duration { return c.now }
func (c *virtualClock) SleepUntil(_ context.Context, t time.Duration) error {
	c.now = max(c.now, t)
	return nil
}

// TestSoakPresentCounts gives the present tracker a day of virtual frames
// on the virtual display of package loop's soak (package vdisplay: its
// rate drifts by up to ±100 ppm and switches mode 144 → 60 → 240 Hz),
// paced on its vblanks, of a cost light with a heavy tail (a frame in 400
// takes one to three periods): the frames the tracker counts displayed,
// dropped and repeated are what the display did, exactly, over the whole
// day, with no allocation.
func TestSoakPresentCounts(t *testing.T) {
	length := 24 * time.Hour
	if testing.Short() || raceEnabled {
		length = time.Hour
	}
	clock := &virtualClock{}
	disp := vdisplay.New(rand.New(rand.NewPCG(24, 1)), time.Second/144)
	pacer, err := window.NewPacer(clock, 144, true)
	if err != nil {
		t.Fatal(err)
	}
	var st frameStats
	track := presentTracker{stats: &st}
	var truth vdisplay.Truth
	modes := []struct {
		at time.Duration
		hz float64
	}{{length / 3, 60}, {2 * length / 3, 240}}
	costs := rand.New(rand.NewPCG(24, 2))
	ctx := context.Background()
	frame := func() {
		now := clock.Now()
		if len(modes) > 0 && now >= modes[0].at {
			disp.SetMode(modes[0].hz)
			modes = modes[1:]
		}
		disp.Upto(now)
		pacer.Follow(disp.V, disp.Period) // the display's own vblanks, as a grid that knows them
		if _, err := pacer.FrameAt(ctx, disp.Period/2); err != nil {
			t.Fatal(err)
		}
		start := clock.Now()
		cost := time.Duration(300+costs.IntN(1200)) * time.Microsecond
		if costs.IntN(400) == 0 {
			cost = time.Duration(float64(disp.Nominal) * (1 + 2*costs.Float64()))
		}
		clock.now += cost
		ready := clock.Now()
		shown, msc := disp.ShownAt(ready)
		for disp.NextReport() <= shown {
			disp.PopReport() // the display system's reports: not what the tracker is given here
		}
		track.shown(shownFrame{valid: true, poll: start, present: ready, display: shown, msc: msc}, pacer)
		truth.Frame(msc)
	}
	for range 1000 {
		frame() // the tracker's first frames aside
	}
	if n := testing.AllocsPerRun(1000, frame); n != 0 {
		t.Errorf("a frame's present accounting allocates %.1f times", n)
	}
	for clock.Now() < length {
		frame()
	}
	truth.End()
	if track.cand.valid {
		track.finish(track.cand, pacer)
	}
	p := &st.Present
	t.Logf("%v virtual: %d frames; the display showed %d, dropped %d, repeated %d vblanks; the tracker counts %d, %d, %d",
		length, truth.Frames, truth.Displayed, truth.Dropped, truth.Repeated, p.Displayed, p.Dropped, p.Repeated)
	if p.Displayed != truth.Displayed || p.Dropped != truth.Dropped || p.Repeated != truth.Repeated {
		t.Errorf("the tracker counts %d displayed, %d dropped, %d repeated; the display showed %d, dropped %d, repeated %d",
			p.Displayed, p.Dropped, p.Repeated, truth.Displayed, truth.Dropped, truth.Repeated)
	}
	if truth.Dropped == 0 || truth.Repeated == 0 || len(modes) != 0 {
		t.Errorf("the run lacks a case: %+v, %d mode switches left", truth, len(modes))
	}
}
