package verify

import (
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/platform/internal/sim"
)

// TestAppAndVerifierShareThePipeline changes one default of the shared
// pipeline (the meter's warm-up) and checks that the pipeline the app
// builds and the one a verify row runs both follow, and that the row's
// measured frames shrink by the frames of the longer warm-up.
func TestAppAndVerifierShareThePipeline(t *testing.T) {
	o := Options{Duration: 6 * time.Second, Bodies: 16, Seed: 1, StepCost: 300 * time.Microsecond}
	c := cell{sim: 120, disp: mustPattern(t, "steady:100"), mode: Interpolated}
	before := runCell(&o, c, nil)

	old := interp.MeterWarmup
	interp.MeterWarmup = 3 * time.Second
	defer func() { interp.MeterWarmup = old }()

	// Every app runs through loop.New, which builds loop.Config.Pipeline's
	// chain; package app's instruments add the demo's truth as this
	// reference (instrument.Set.Open).
	app := (&loop.Config{}).Pipeline()
	app.Reference = &interp.Reference{Truth: refworld.RefPosition, Speed: refworld.RefSpeed}
	for name, pc := range map[string]interp.PipelineConfig{"app": app, "verify": pipelineConfig(&o, c)} {
		w, err := refworld.New(16, 1)
		if err != nil {
			t.Fatal(err)
		}
		s, err := sim.New(pc.SimConfig(), w, new(sim.VirtualClock))
		if err != nil {
			t.Fatal(err)
		}
		p, err := interp.NewPipeline(pc, s)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Meter().Warmup(); got != 3*time.Second {
			t.Errorf("%s: meter warm-up %v after the default changed to 3s", name, got)
		}
	}
	after := runCell(&o, c, nil)
	// 100 frames a second: 2 s more of warm-up is 200 frames fewer.
	if d := before.Frames - after.Frames; d < 195 || d > 205 {
		t.Errorf("measured frames %d with a 1 s warm-up, %d with 3 s: want 200 fewer", before.Frames, after.Frames)
	}
}
