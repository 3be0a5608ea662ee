package interp

import (
	"fmt"
	"time"

	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/sync/waitfree"
)

// PipelineConfig configures a Pipeline: the chain from a simulation to
// the plans a renderer draws, as the app runs it and the verifier checks
// it.
type PipelineConfig struct {
	// Sim is the simulation's configuration, which the caller builds the
	// simulation from (SimConfig sizes its history).
	Sim simthread.Tuning
	// Delay, if above 0, fixes the render delay; 0 adapts it (NewDelay).
	Delay time.Duration
	// Motion is how bodies move between snapshots (Planner.SetMotion).
	Motion renderer.MotionMode
	// Hold makes the planner the baseline without interpolation
	// (Planner.SetHold).
	Hold bool
	// FrameInterval is the shortest time expected between frames; 0 means
	// a step. The planner acquires at most one snapshot a frame, so faster
	// frames need a longer history to reach back by the delay.
	FrameInterval time.Duration
	// Reference, if set, is the body the pipeline's meter follows; nil
	// means no meter.
	Reference *Reference
	// Warmup is how long after Begin the meter's figures start over (see
	// WarmMeter); 0 means the default, one second.
	Warmup time.Duration
}

// History returns the snapshot history the pipeline keeps: Sim.History if
// set; else enough snapshots to reach back by the delay's limit (the
// adaptive delay's DelayLimit, or the fixed delay) at one snapshot per
// step or per frame, whichever is slower (HistoryFor), never fewer than
// simthread.DefaultHistory nor more than waitfree.MaxHistory. A shorter
// history clamps frames early whenever the delay rises past its reach.
func (c PipelineConfig) History() int {
	if c.Sim.History != 0 {
		return c.Sim.History
	}
	step := c.Sim.Timing.WithDefaults().Step()
	reach := DelayLimit(step)
	if c.Delay > 0 {
		reach = max(c.Delay, step)
	}
	n := HistoryFor(reach, max(c.FrameInterval, step))
	return min(max(n, simthread.DefaultHistory), waitfree.MaxHistory)
}

// SimConfig returns the configuration to build the pipeline's simulation
// from (sim.New): Sim with its history sized by History.
func (c PipelineConfig) SimConfig() simthread.Tuning {
	sc := c.Sim
	sc.History = c.History()
	return sc
}

// Pipeline is the chain from a simulation to plans that the app and the
// verifier share, wired in one place: the render delay, the planner (the
// simulation's snapshot history's only reader) in its motion mode, and
// the meter with its warm-up. Pause and Resume keep the one order that
// keeps frames marked paused until the render time has passed the pause.
// The simulation is the caller's, and so is its goroutine (Sim.Run, or
// Sim.Wake's caller); the rest belongs to the render thread.
type Pipeline struct {
	sim     *sim.Sim
	planner *Planner
	meter   *WarmMeter // nil without a Reference
}

// NewPipeline builds the chain from s, which the caller built from
// cfg.SimConfig(): a history shorter than History's is refused, as it
// would clamp frames early whenever the delay rises past its reach.
func NewPipeline(cfg PipelineConfig, s *sim.Sim) (*Pipeline, error) {
	if got, want := s.Config().History, cfg.History(); got < want {
		return nil, fmt.Errorf("interp: a pipeline needs a snapshot history of %d, the simulation keeps %d (build it from PipelineConfig.SimConfig)", want, got)
	}
	delay := NewDelay(s.Step(), 0)
	if cfg.Delay > 0 {
		delay = NewFixedDelay(s.Step(), cfg.Delay)
	}
	p := &Pipeline{sim: s, planner: NewPlanner(s.Snapshots(), delay)}
	p.planner.SetMotion(cfg.Motion)
	p.planner.SetHold(cfg.Hold)
	if cfg.Reference != nil {
		p.meter = NewWarmMeter(NewMeter(s.Config().Rate, *cfg.Reference), cfg.Warmup)
	}
	return p, nil
}

// Sim returns the simulation.
func (p *Pipeline) Sim() *sim.Sim { return p.sim }

// Planner returns the planner, the only reader of the snapshot history.
func (p *Pipeline) Planner() *Planner { return p.planner }

// Meter returns the meter with its warm-up, nil without a Reference.
func (p *Pipeline) Meter() *WarmMeter { return p.meter }

// Pause pauses the simulation and marks the planner's frames paused from
// now on.
func (p *Pipeline) Pause() {
	p.sim.Pause()
	p.planner.Pause()
}

// Resume resumes the simulation at time now. The planner hears of it
// first, so that the snapshot the simulation republishes on resuming
// counts as published after the resume.
func (p *Pipeline) Resume(now time.Duration) {
	p.planner.Resume(now)
	p.sim.Resume()
}

// Begin marks the time the first frame is planned at: the meter's warm-up
// runs from it (0 until called).
func (p *Pipeline) Begin(now time.Duration) {
	if p.meter != nil {
		p.meter.start = now
	}
}

// Plan plans the frame displayed at frameTime (Planner.Plan). It does
// not allocate.
func (p *Pipeline) Plan(frameTime time.Duration) renderer.Plan { return p.planner.Plan(frameTime) }

// Measure measures a ready plan with the meter (WarmMeter.Measure) and
// reports whether the frame is past the warm-up; false without a meter.
func (p *Pipeline) Measure(frameTime time.Duration, plan *renderer.Plan) bool {
	if p.meter == nil {
		return false
	}
	return p.meter.Measure(frameTime, plan)
}

// WarmMeter is a Meter whose figures start over once, at the first ready
// frame at least the warm-up past its start: the meter runs through the
// warm-up, so that the first frame after it is compared with the one
// before, as every other frame is.
type WarmMeter struct {
	*Meter
	start, warmup time.Duration
	warm          bool
}

// MeterWarmup is the warm-up of a WarmMeter made with none: one second,
// for the adaptive render delay to learn the publish jitter from its
// initial guess. The app and the verifier both build their pipelines
// with it; it is a variable so that a test can change it and see both
// follow. Programs must not change it, and never while a pipeline is
// being built.
var MeterWarmup = time.Second

// DefaultWarmup returns MeterWarmup.
func DefaultWarmup() time.Duration { return MeterWarmup }

// NewWarmMeter returns m with a warm-up from time 0 (0: DefaultWarmup).
func NewWarmMeter(m *Meter, warmup time.Duration) *WarmMeter {
	if warmup <= 0 {
		warmup = DefaultWarmup()
	}
	return &WarmMeter{Meter: m, warmup: warmup}
}

// Warmup returns how long the warm-up lasts.
func (w *WarmMeter) Warmup() time.Duration { return w.warmup }

// Measure measures the frame planned by plan for frameTime, unless the plan
// is not ready, and reports whether the frame is past the warm-up.
func (w *WarmMeter) Measure(frameTime time.Duration, plan *renderer.Plan) bool {
	if !plan.Ready {
		return w.warm
	}
	if !w.warm && frameTime-w.start >= w.warmup {
		w.warm = true
		w.Reset()
	}
	w.Meter.Measure(frameTime, plan)
	return w.warm
}
