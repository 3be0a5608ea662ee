package observe

import (
	"testing"
	"time"
)

// LogPeriod finds the period of the vblanks an app's log puts its frames
// on, whether they are the display's or an emulated display's at another
// rate, and however many vblanks most frames miss.
func TestLogPeriod(t *testing.T) {
	// frames returns a log of shown frames on a grid of period p, each
	// step[i%len(step)] vblanks after the one before.
	frames := func(p time.Duration, step ...int) []LogFrame {
		var log []LogFrame
		k := 10
		for i := range 300 {
			log = append(log, LogFrame{ID: uint64(i + 1), Display: time.Second + time.Duration(k)*p, Shown: true})
			k += step[i%len(step)]
		}
		return log
	}
	// jittered stamps every n-th frame late by d: the step before it
	// longer, the step after it shorter.
	jittered := func(log []LogFrame, d time.Duration, n int) []LogFrame {
		for i := n / 2; i < len(log)-1; i += n {
			log[i].Display += d
		}
		return log
	}
	p144, p60, p240, p360 := time.Second/144, time.Second/60, time.Second/240, time.Second/360
	for _, c := range []struct {
		name    string
		log     []LogFrame
		display time.Duration
		want    time.Duration
	}{
		{"the display's own vblanks", frames(p144, 1), p144 + 3*time.Microsecond, p144 + 3*time.Microsecond},
		{"an emulated 144 Hz beside a 60 Hz CRTC", frames(p144, 1), p60, p144},
		{"an emulated 60 Hz beside a 144 Hz CRTC", frames(p60, 1, 1, 2), p144, p60},
		{"an emulated 60 Hz beside a 240 Hz CRTC (a multiple)", frames(p60, 1), p240, p60},
		{"a 360 Hz display, most frames two vblanks apart", frames(p360, 2, 2, 2, 1), p360, p360},
		// make test beside a build loop: the app at a third of an
		// emulated 360 Hz, one step of one vblank in 307; the 60 Hz
		// CRTC's period was taken, and 211 frames read dropped.
		{"an emulated 360 Hz beside a 60 Hz CRTC, never two frames a vblank apart", frames(p360, 2, 3, 3, 2, 4, 3), p60, p360},
		{"a 144 Hz display whose vblanks were stamped late now and then", jittered(frames(p144, 1), 1465*time.Microsecond, 20), p144, p144},
		{"too few frames", frames(p144, 1)[:10], p60, p60},
	} {
		if got := LogPeriod(c.log, c.display); absDur(got-c.want) > time.Microsecond {
			t.Errorf("%s: LogPeriod %v, want %v", c.name, got, c.want)
		}
	}
}
