package tickframe

import (
	"io"
	"math"
	"strconv"
	"testing"
	"time"
)

// FuzzFlags feeds arbitrary values to the numeric flags: parseFlags either
// refuses them with a usage error or returns options inside every range the
// rest of the program relies on. It never panics.
func FuzzFlags(f *testing.F) {
	f.Add(120, 4096, 144.0, int64(5*time.Second), 8, int64(250*time.Millisecond), 0, 0.0, int64(0), 4)
	f.Add(0, 0, math.NaN(), int64(-1), 0, int64(0), -1, math.Inf(1), int64(-5), -1)
	f.Add(10000, 1<<20, 10000.0, int64(24*time.Hour), 1000, int64(time.Minute), 1024, 100000.0, int64(time.Second), 16)
	f.Fuzz(func(t *testing.T, hz, bodies int, refresh float64, duration int64, maxSteps int, maxDelta int64,
		stress int, gcMB float64, stepCost int64, msaa int) {
		args := []string{
			"-hz", strconv.Itoa(hz), "-bodies", strconv.Itoa(bodies),
			"-refresh", strconv.FormatFloat(refresh, 'g', -1, 64),
			"-duration", time.Duration(duration).String(), "-maxsteps", strconv.Itoa(maxSteps),
			"-maxdelta", time.Duration(maxDelta).String(), "-stress", strconv.Itoa(stress),
			"-gcpressure", strconv.FormatFloat(gcMB, 'g', -1, 64),
			"-stepcost", time.Duration(stepCost).String(), "-msaa", strconv.Itoa(msaa),
		}
		o, err := parseFlags(args, io.Discard)
		if err != nil {
			if _, ok := err.(*usageError); !ok {
				t.Fatalf("%v: %T %v, want a usage error", args, err, err)
			}
			return
		}
		switch {
		case o.hz < 1 || o.hz > 10000, o.bodies < 1, o.maxSteps < 1,
			o.refresh != 0 && !(o.refresh >= 1 && o.refresh <= 10000),
			o.duration < 0, o.maxDelta != 0 && o.maxDelta < time.Second/time.Duration(o.hz), o.stress < 0,
			!(o.gcPressureMB >= 0) || math.IsInf(o.gcPressureMB, 0), o.stepCost < 0, o.msaa < 0:
			t.Fatalf("%v accepted: %+v", args, o)
		}
	})
}
