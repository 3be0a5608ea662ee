package tickframe

import (
	"errors"
	"io"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/app"
)

// FuzzFlags feeds arbitrary values to the numeric flags: parseFlags and
// the configuration's Validate either refuse them with a usage error or
// return settings inside every range the rest of the program relies on.
// Neither panics.
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
		d, err := parseFlags(args, io.Discard)
		if err == nil {
			err = d.validate()
		}
		if err != nil {
			if ce := (*app.ConfigError)(nil); !errors.As(err, &ce) {
				t.Fatalf("%v: %T %v, want a usage error", args, err, err)
			}
			return
		}
		o, cfg, tm, disp := d.o, d.cfg, d.set.Sim.Timing, d.set.Display
		switch {
		case cfg.Rate < 1 || cfg.Rate > 10000, o.bodies < 1, tm.MaxSteps < 1,
			disp.Refresh != 0 && !(disp.Refresh >= 1 && disp.Refresh <= 10000),
			d.set.Duration < 0, tm.MaxDelta != 0 && tm.MaxDelta < time.Second/time.Duration(cfg.Rate), o.stress < 0,
			!(o.gcPressureMB >= 0) || math.IsInf(o.gcPressureMB, 0), o.stepCost < 0, disp.Samples < -1 || disp.Samples > 16:
			t.Fatalf("%v accepted: %+v, %+v", args, o, cfg)
		}
	})
}
