package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// Mode says how a row turns snapshots into frames.
type Mode string

const (
	// Interpolated is tickframe's way: the real Sim, the real planner
	// and adaptive delay, interpolation between the bracketing pair.
	Interpolated Mode = "interp"
	// NoInterp is the fixed-step baseline without interpolation: the
	// real Sim and pipeline, the planner holding every frame on the
	// newest snapshot as is, a step behind (interp.Planner.SetHold).
	NoInterp Mode = "noint"
	// Naive is the variable-step baseline: no scheduler, the world is
	// stepped once per frame by the measured frame interval.
	Naive Mode = "naive"
)

// Driver says how a row's simulation is driven.
type Driver string

const (
	// ByWake: the verifier calls Sim.Wake itself at each deadline plus
	// the lateness, on its own goroutine (the zero value means this too).
	ByWake Driver = ""
	// ByRun: the Sim runs on its own goroutine through Sim.Run, as in the
	// app, sleeping on the virtual clock, which the verifier moves.
	ByRun Driver = "run"
)

// The pass bounds of the interpolated rows, from the issue: "with
// interpolation, p99 animation error at most 0.05 tick and at most 0.25 ms
// at every display rate".
const (
	PosErrLimit  = 0.05 // ticks, p99 of the position error
	AnimErrLimit = 0.25 // ms, p99 of PresentMon's animation error
	// PosErrMotion is the position error allowed however short a tick:
	// 0.05 tick at 120 Hz, 0.42 ms of motion. At 500 or 1000 Hz a tick is
	// so short that lerping across the ticks a late wake runs at once
	// (only the last is published) cuts a chord longer than 0.05 tick of
	// the curve while the drawn point is less than half a millisecond of
	// motion away from the truth.
	PosErrMotion = PosErrLimit * float64(time.Second/120) / float64(time.Millisecond) // ms
)

// MinSteady is the least share of a stressed row's frames that must be
// steady (measured, neither clamped nor rising) for its bounds to say
// something; a row below it fails.
const MinSteady = 0.9

// posLimit returns the position error bound of a row, in its ticks: the
// larger of PosErrLimit and PosErrMotion of motion.
func posLimit(sim int) float64 {
	return max(PosErrLimit, PosErrMotion*float64(sim)/1000)
}

// The bounds that catch small lies.
const (
	// RecoveryFrames is how many frames after a stall of the render
	// thread (a hitch) may be out of bounds: from the next one on, every
	// frame until the next stall must be within PosErrLimit and
	// AnimErrLimit, and unclamped. The first frame after a stall
	// interpolates between snapshots acquired before and after it, and
	// the chord across 100 ms of the reference body's orbit is off its
	// path by up to 0.13 tick at 1000 Hz; the second frame is back on a
	// pair one frame apart. Checked on calm rows; reported under stress,
	// where the simulation's own lateness mixes in.
	RecoveryFrames = 1
	// MinMeasured is the share of the frames after the warm-up (paused
	// ones aside) whose position error must be measured on a row within
	// its lateness budget, so that a meter that skips every frame cannot
	// pass. Only frames across a timeline discontinuity (a pause's edges,
	// discarded or clamped time) lack a truth, and such a row has next to
	// none.
	MinMeasured = 0.95
)

// Defaults for Options.
const (
	DefaultDuration = 12 * time.Second
	DefaultSeed     = 1
	// DefaultBodies: the reference body is what is measured; a small
	// swarm keeps the hash meaningful and a row fast.
	DefaultBodies   = 64
	DefaultStepCost = 300 * time.Microsecond
	// MinDuration leaves the warm-up second, a hashed tick after it and
	// a margin of 2 s after that.
	MinDuration = 3 * time.Second
	// MaxDuration: longer rows add nothing but waiting.
	MaxDuration = 10 * time.Minute
	// hashMargin is how long before the end the hashed tick lies, so
	// that every row gets there even when its last wake is late.
	hashMargin = 2 * time.Second
)

// DefaultSims returns the simulation rates of the default matrix.
func DefaultSims() []int { return []int{30, 60, 64, 120, 240, 500, 1000} }

// DefaultMotions returns the motion modes the interpolated rows run in by
// default: every one, lerp (the baseline of the other two) first.
func DefaultMotions() []renderer.MotionMode {
	return []renderer.MotionMode{renderer.MotionLerp, renderer.MotionHermite, renderer.MotionExtrapolate}
}

// The targets of the motion modes, checked at and below MotionHz on the
// calm rows within their lateness budget. In ticks, both depend on the
// rate: the reference body's circle cut into 30 Hz chords is off by 0.0033
// tick, and float32 positions are exact to about 3e-6 tick there, but at
// 1000 Hz the chord is as close as float32's rounding, 1e-4 tick; and a
// correction is what a linear prediction gets wrong over the time between
// two bases, which the display's frame interval sets when it is longer
// than a tick: a few millimetres at 30 Hz, which is a hundredth of a 30 Hz
// tick and half a 1000 Hz one. The other rates are shown, not bounded.
const (
	// MotionHz is the highest simulation rate at which HermiteRatio and
	// CorrectionLimit are checked.
	MotionHz = 30
	// HermiteRatio: the hermite row's p99 position error at most this
	// part of its lerp row's.
	HermiteRatio = 0.01
	// CorrectionLimit is the p99 of extrapolate's corrections, in ticks,
	// on the steady motion of the reference body; also the size beyond
	// which the kicked body's corrections are counted.
	CorrectionLimit = PosErrLimit
)

// Options configures a verification run. Zero fields take the defaults,
// except Seed (0 is a seed like any other) and Sims and Displays, which
// must not both be empty: Sims must list a rate, and Displays or Baselines
// a pattern.
type Options struct {
	// Sims are the simulation rates, in Hz.
	Sims []int
	// Displays are the display patterns run with interpolation, each
	// under its lateness (Pattern.Late), once in each of Motions.
	Displays []Pattern
	// Motions are the motion modes the interpolated rows run in; empty
	// means DefaultMotions. The baselines and the rows driven by Sim.Run
	// run once, the latter in the first mode.
	Motions []renderer.MotionMode
	// Baselines are the display patterns on which the two baselines
	// (NoInterp and Naive) also run. The naive loop has no pause and no
	// overload policy, so it skips those patterns.
	Baselines []Pattern
	// Duration is the simulated time a row covers (a pause row lasts the
	// hidden time longer, an overload row Cost times longer). The world is
	// hashed at the tick 2 s before the end.
	Duration time.Duration
	// Seed seeds the world and every random choice; the same options give
	// the same results.
	Seed uint64
	// Bodies is the world's size.
	Bodies int
	// StepCost is how long one simulation step takes (overload rows use
	// their own, above the step).
	StepCost time.Duration
	// Driven are the display patterns of Displays that also run with the
	// Sim on its own goroutine (Sim.Run), next to the row that drives it
	// through Sim.Wake, which it must match exactly; those not in Displays
	// are ignored. Pause and overload patterns cannot be driven so: a
	// paused Sim waits on Resume, and an overloaded one never sleeps.
	Driven []Pattern
	// Workers is how many rows run at once; 0 means GOMAXPROCS.
	Workers int
	// Progress, if not nil, receives a line now and then: about ten for
	// a whole run, or one per row with Verbose.
	Progress io.Writer
	Verbose  bool

	// breakInterpolation, if set, makes for each interpolated row an
	// editor of every frame's plan, applied before the frame is measured:
	// the tests and -break break the renderer on purpose (see lies) and
	// expect the run to fail. broken names it in the results.
	breakInterpolation func() planEdit
	broken             string
	// gridAlpha plans a Panel row's frames for a fixed grid at the
	// panel's highest rate instead of their predicted scan-out (-break
	// vrr-grid): the broken variant of the VRR rows.
	gridAlpha bool
	// tamper, if set, rewrites the inputs of every simulated step: the
	// tests change the world on purpose and expect the hash check to fail.
	tamper func(tick uint64, inputs []simthread.Input) []simthread.Input
}

// withDefaults returns o with zero fields replaced by the defaults.
func (o Options) withDefaults() Options {
	if o.Duration == 0 {
		o.Duration = DefaultDuration
	}
	if o.Bodies == 0 {
		o.Bodies = DefaultBodies
	}
	if o.StepCost == 0 {
		o.StepCost = DefaultStepCost
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if len(o.Motions) == 0 {
		o.Motions = DefaultMotions()
	}
	return o
}

// validate reports the first option out of range, after defaults.
func (o *Options) validate() error {
	switch {
	case len(o.Sims) == 0:
		return errors.New("no simulation rate")
	case len(o.Displays) == 0 && len(o.Baselines) == 0:
		return errors.New("no display pattern")
	case o.Duration < MinDuration || o.Duration > MaxDuration:
		return fmt.Errorf("duration %v out of range [%v, %v]", o.Duration, MinDuration, MaxDuration)
	case o.Bodies < 1 || o.Bodies > refworld.MaxBodies:
		return fmt.Errorf("%d bodies out of range [1, %d]", o.Bodies, refworld.MaxBodies)
	case o.StepCost < 0:
		return fmt.Errorf("step cost %v is negative", o.StepCost)
	}
	for i, m := range o.Motions {
		if _, err := interp.ParseMotion(m.String()); err != nil {
			return fmt.Errorf("motion mode %v unknown", m)
		}
		if slices.Contains(o.Motions[:i], m) {
			return fmt.Errorf("motion mode %v given twice", m)
		}
	}
	for _, hz := range o.Sims {
		if err := (simthread.Timing{Rate: hz}).Validate(); err != nil || hz <= 0 {
			return fmt.Errorf("simulation rate %d Hz out of range [1, %d]", hz, simthread.MaxRate)
		}
		// A step that costs a step or more is an overload, which only
		// the overload pattern runs, with bounds of its own.
		if step := (simthread.Timing{Rate: hz}).Step(); o.StepCost >= step {
			return fmt.Errorf("step cost %v is not below the %d Hz step (%v); use the overload pattern", o.StepCost, hz, step)
		}
	}
	for _, p := range slices.Concat(o.Displays, o.Baselines, o.Driven) {
		if p.Kind == "" {
			return errors.New("a display pattern is empty")
		}
	}
	for _, p := range o.Driven {
		// A paused Sim waits on Resume, not on the clock, and an
		// overloaded one never sleeps: the clock would never move.
		if p.Kind == Pause || p.Kind == Overload {
			return fmt.Errorf("pattern %s cannot be driven by Sim.Run: its Sim does not sleep on the clock", p)
		}
	}
	return nil
}

// hashAt returns the simulated time whose tick is hashed.
func (o *Options) hashAt() time.Duration { return o.Duration - hashMargin }

// Stat is the median, 99th percentile and maximum of a measurement.
type Stat struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// Check is the outcome of one check of a row.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// Row is one cell of the matrix: what was run, what was measured and what
// was checked. Durations are in nanoseconds in JSON.
type Row struct {
	Sim     int    `json:"sim_hz"`
	Display string `json:"display"` // the pattern's label
	Pattern string `json:"pattern"` // the pattern, as ParsePattern reads it
	Kind    Kind   `json:"kind"`
	Mode    Mode   `json:"mode"`
	// Motion is an interpolated row's motion mode: lerp, hermite or
	// extrapolate (renderer.MotionMode); empty for the baselines.
	Motion   string `json:"motion,omitempty"`
	Driver   Driver `json:"driver,omitempty"`
	Baseline bool   `json:"baseline"` // a baseline row never fails the run
	// History is how many snapshots the planner keeps (see historyFor).
	History int `json:"history"`

	Elapsed  time.Duration `json:"elapsed_ns"`   // virtual time the row ran
	StepCost time.Duration `json:"step_cost_ns"` // virtual time each step took
	Frames   int           `json:"frames"`       // frames displayed after the warm-up

	// Tick accounting (zero for the naive loop, which has no scheduler;
	// Ticks is then its step count).
	Ticks          uint64        `json:"ticks"`
	DiscardedTicks uint64        `json:"discarded_ticks"`
	Discarded      time.Duration `json:"discarded_ns"`
	Clamped        time.Duration `json:"clamped_ns"`
	Paused         time.Duration `json:"paused_ns"`
	LastWake       time.Duration `json:"last_wake_ns"` // the last wake that advanced the scheduler
	Pending        int64         `json:"pending_ticks"`
	// EndLate is how late the wake after the end would have come, EndSpan
	// how long the last wake's steps ran: together they bound Pending.
	EndLate          time.Duration `json:"end_late_ns"`
	EndSpan          time.Duration `json:"end_span_ns"`
	MaxSteps         int           `json:"max_steps"`           // the scheduler's cap per wake
	MostStepsPerWake int           `json:"most_steps_per_wake"` // the most steps one wake ran (16 means 16 or more)

	// The world's hash after tick HashTick (for the naive loop, after the
	// first step that reached the same simulated time), and the
	// reference's. Checkpoints counts the hashes compared with the
	// reference on the way there, about ten per simulated second;
	// FirstDiff is the first tick whose hash differed (0: none).
	HashTick    uint64 `json:"hash_tick"`
	Hashed      bool   `json:"hashed"`
	Hash        uint64 `json:"hash,string"`
	RefHash     uint64 `json:"ref_hash,string"`
	Checkpoints int    `json:"checkpoints"`
	FirstDiff   uint64 `json:"first_diff_tick"`

	// PosErr is the position error in ticks, AnimErr PresentMon's
	// animation error in ms, both after the warm-up, over PosSamples and
	// AnimSamples frames (frames without a defined truth are Skipped).
	PosErr Stat `json:"pos_err_ticks"`
	// Coarse counts measured frames whose bracket spans several ticks (a
	// late wake ran them at once and published only the last: lerp cuts
	// the chord of a curved path there); Rising those whose render delay
	// rose (a wake later than any before: the displayed time stood still
	// for the frame). Steady counts the measured frames neither clamped
	// nor rising; PosSteady and AnimSteady are their errors, a coarse
	// frame's position error less the chord an exact lerp of the two
	// ticks' true positions cuts (what is beyond it is the planner's).
	Coarse      uint64 `json:"coarse_frames"`
	Steady      uint64 `json:"steady_frames"`
	Rising      uint64 `json:"rising_frames"`
	PosSteady   Stat   `json:"pos_err_steady_ticks"`
	AnimSteady  Stat   `json:"anim_err_steady_ms"`
	AnimErr     Stat   `json:"anim_err_ms"`
	PosSamples  uint64 `json:"pos_samples"`
	AnimSamples uint64 `json:"anim_samples"`
	Backwards   uint64 `json:"backwards"` // over the whole row, warm-up included
	Skipped     uint64 `json:"skipped"`   // frames across a timeline discontinuity
	// Transition counts the frames after a pause whose bracket still held
	// a snapshot from before it: their render time lies across the pause,
	// so they have no truth, but the meter cannot tell before it holds a
	// snapshot from after the resume. TransitionSpan is how long they
	// lasted from the show, TransitionBound how long they may last: the
	// render delay, one step, the wake lateness and a frame.
	Transition      uint64        `json:"transition"`
	TransitionSpan  time.Duration `json:"transition_span_ns"`
	TransitionBound time.Duration `json:"transition_bound_ns"`
	// Crossed counts the frames after a pause that the planner no
	// longer marked Paused but whose bracket still reached back across
	// the pause: they would show a time that never was.
	Crossed uint64 `json:"crossed"`

	// Clamps and pauses after the warm-up, as the plans said: Late
	// frames' render time was past the newest snapshot (shown as is),
	// Early ones' before the oldest held; PausedFrames were marked Paused
	// (the frozen pose of a pause) and are not measured. Counted reports
	// that the planner's own statistics over the whole row agree with the
	// plans, CountDetail the numbers.
	Late         uint64 `json:"late"`
	Early        uint64 `json:"early"`
	PausedFrames uint64 `json:"paused_frames"`
	Counted      bool   `json:"counted"`
	CountDetail  string `json:"count_detail"`

	// Lateness is how late the Sim's wakes came after their deadlines,
	// PublishDelay how long after its tick time each snapshot was
	// published, both in ms (the Sim's telemetry).
	Lateness     Stat `json:"lateness_ms"`
	PublishDelay Stat `json:"publish_delay_ms"`
	// LateKind is the row's lateness family. LateBudget is the largest
	// wake lateness the row's render delay, step cap and MaxDelta cover
	// (see budget); Within reports that no wake was later. A row beyond
	// its budget has its loss counted, not bounded.
	LateKind   LateKind      `json:"lateness_kind"`
	LateBudget time.Duration `json:"lateness_budget_ns"`
	Within     bool          `json:"within"`
	// Delay is the render delay at the end of the row, DelayMax the
	// largest after the warm-up, DelayLimit the most it may reach.
	Delay      time.Duration `json:"delay_ns"`
	DelayMax   time.Duration `json:"delay_max_ns"`
	DelayLimit time.Duration `json:"delay_limit_ns"`

	// Stalls counts the render thread's stalls after the warm-up (the
	// hitches of a hitch pattern, the stalls of a stress lateness).
	// Recovery is, over the stalls, the most frames from a stall to the
	// last frame out of bounds (clamped, or an error over PosErrLimit or
	// AnimErrLimit) before the next stall, that frame included: 0 if none
	// was, 1 if only the first frame after the stall was. SettledPos and
	// SettledAnim are the largest position (ticks) and animation (ms)
	// errors but in the first RecoveryFrames frames after each stall.
	Stalls      int     `json:"stalls"`
	Recovery    int     `json:"recovery_frames"`
	SettledPos  float64 `json:"settled_pos_max_ticks"`
	SettledAnim float64 `json:"settled_anim_max_ms"`

	// The motion figures (interpolated rows; after the warm-up). RotErr
	// is the spinner's orientation error in degrees, over RotSamples
	// frames; of Spins frames whose turn was judged, WrongWay turned the
	// spinner the other way than it spins (see interp.Meter). Correction
	// is extrapolate's correction of the reference body at each switch
	// of basis, in ticks, over Corrections switches. At the switch across
	// the scripted kick, KickMax is the correction of a kicked swarm body,
	// in ticks of the reference body's motion (unannounced motion: not
	// bounded), and KickCorrections counts it when beyond CorrectionLimit.
	RotErr          Stat    `json:"rot_err_deg"`
	RotSamples      uint64  `json:"rot_samples"`
	Spins           uint64  `json:"spins"`
	WrongWay        uint64  `json:"wrong_way"`
	Correction      Stat    `json:"correction_ticks"`
	Corrections     uint64  `json:"corrections"`
	KickCorrections uint64  `json:"kick_corrections"`
	KickMax         float64 `json:"kick_max_ticks"`
	// Kicked reports that an extrapolate row followed a kicked body
	// through the kick (the world has one, the row reached the tick).
	Kicked bool `json:"kicked"`
	// Bounce is what the row measured of the bouncer (see BounceStats).
	Bounce BounceStats `json:"bounce"`

	Err    string  `json:"error,omitempty"` // the row could not run
	Checks []Check `json:"checks"`
	Pass   bool    `json:"pass"`
}

// measure copies the meter's readings into the row.
func (row *Row) measure(m *interp.Meter) {
	row.PosErr = Stat{m.PosErrTicks(0.5), m.PosErrTicks(0.99), float64(m.PosErr().Max()) / 1e6}
	row.AnimErr = Stat{m.AnimErrMs(0.5), m.AnimErrMs(0.99), float64(m.AnimErr().Max()) / 1e6}
	row.PosSamples = m.PosErr().Count()
	row.AnimSamples = m.AnimErr().Count()
	row.Skipped = m.Skipped
	deg := 180 / math.Pi / 1e6 // microradians to degrees
	row.RotErr = Stat{float64(m.RotErr().Quantile(0.5)) * deg, float64(m.RotErr().Quantile(0.99)) * deg, float64(m.RotErr().Max()) * deg}
	row.RotSamples, row.Spins, row.WrongWay = m.RotErr().Count(), m.Spins, m.WrongWay
	row.Correction = Stat{float64(m.Correction().Quantile(0.5)) / 1e6, float64(m.Correction().Quantile(0.99)) / 1e6, float64(m.Correction().Max()) / 1e6}
	row.Corrections = m.Corrections
}

// Results is the outcome of a run.
type Results struct {
	Sims      []int         `json:"sims_hz"`
	Displays  []string      `json:"displays"`  // interpolated, as ParsePattern reads them
	Baselines []string      `json:"baselines"` // where the baselines ran
	Motions   []string      `json:"motions"`   // the interpolated rows' motion modes
	Driven    []string      `json:"driven"`    // where the Sim also ran through Sim.Run
	Duration  time.Duration `json:"duration_ns"`
	Warmup    time.Duration `json:"warmup_ns"`
	HashAt    time.Duration `json:"hash_at_ns"` // the simulated time whose tick is hashed
	Seed      uint64        `json:"seed"`
	Bodies    int           `json:"bodies"`
	StepCost  time.Duration `json:"step_cost_ns"`
	// PosErrLimit and AnimErrLimit are the bounds the checked rows met
	// or failed.
	PosErrLimit  float64 `json:"pos_err_limit_ticks"`
	AnimErrLimit float64 `json:"anim_err_limit_ms"`
	// RecoveryFrames and MinMeasured are the other bounds.
	RecoveryFrames int     `json:"recovery_frames"`
	MinMeasured    float64 `json:"min_measured"`
	// Broken names the deliberately broken renderer the run used (-break),
	// which must make it fail; empty for the real one.
	Broken string `json:"broken,omitempty"`
	Rows   []Row  `json:"rows"`
	// Failed counts the rows that failed, baselines excluded.
	Failed int  `json:"failed"`
	Pass   bool `json:"pass"`
}

// Run runs the matrix, rows in parallel, and returns the rows in a stable
// order: by simulation rate as given, then by display as given, the
// interpolated row first and its baselines after it. The results depend only
// on the options, not on timing or on the number of workers. Run returns an
// error for invalid options or a cancelled ctx; a row that cannot run is a
// failed row.
func Run(ctx context.Context, opts Options) (*Results, error) {
	opts = opts.withDefaults()
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	cells := opts.cells()
	refs := make(map[int][]sim.Checkpoint, len(opts.Sims))
	for _, hz := range opts.Sims {
		ref, err := reference(opts.Bodies, opts.Seed, hz, opts.hashAt())
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		refs[hz] = ref
	}

	rows := make([]Row, len(cells))
	work := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex // serialises progress output and the done count
	done := 0
	for range min(opts.Workers, len(cells)) {
		wg.Go(func() {
			for i := range work {
				start := time.Now()
				rows[i] = runCell(&opts, cells[i], refs[cells[i].sim])
				evaluate(&rows[i])
				mu.Lock()
				done++
				opts.progress(done, len(cells), &rows[i], time.Since(start))
				mu.Unlock()
			}
		})
	}
feed:
	for i := range cells {
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	sameRun(rows)
	versusLerp(rows)

	res := &Results{
		Sims:           opts.Sims,
		Displays:       specs(opts.Displays),
		Baselines:      specs(opts.Baselines),
		Motions:        motionNames(opts.Motions),
		Duration:       opts.Duration,
		Warmup:         warmup(),
		HashAt:         opts.hashAt(),
		Seed:           opts.Seed,
		Bodies:         opts.Bodies,
		StepCost:       opts.StepCost,
		PosErrLimit:    PosErrLimit,
		AnimErrLimit:   AnimErrLimit,
		RecoveryFrames: RecoveryFrames,
		MinMeasured:    MinMeasured,
		Broken:         opts.broken,
		Rows:           rows,
	}
	for i := range rows {
		if !rows[i].Baseline && !rows[i].Pass {
			res.Failed++
		}
	}
	res.Pass = res.Failed == 0
	return res, nil
}

func motionNames(ms []renderer.MotionMode) []string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = m.String()
	}
	return s
}

func specs(ps []Pattern) []string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return s
}

// in reports whether ps holds p.
func in(ps []Pattern, p Pattern) bool {
	return slices.ContainsFunc(ps, func(q Pattern) bool { return q.String() == p.String() })
}

// cells lists the rows to run in their output order.
func (o *Options) cells() []cell {
	var cells []cell
	for _, hz := range o.Sims {
		seen := make(map[string]bool)
		add := func(p Pattern, interpolated, base bool) {
			if seen[p.String()] {
				return
			}
			seen[p.String()] = true
			if interpolated {
				for i, m := range o.Motions {
					cells = append(cells, cell{sim: hz, disp: p, mode: Interpolated, motion: m})
					if i == 0 && in(o.Driven, p) {
						cells = append(cells, cell{sim: hz, disp: p, mode: Interpolated, driver: ByRun, motion: m})
					}
				}
			}
			if base {
				cells = append(cells, cell{sim: hz, disp: p, mode: NoInterp})
				if p.Kind != Pause && p.Kind != Overload {
					cells = append(cells, cell{sim: hz, disp: p, mode: Naive})
				}
			}
		}
		for _, p := range o.Displays {
			add(p, true, in(o.Baselines, p))
		}
		for _, p := range o.Baselines {
			add(p, false, true)
		}
	}
	return cells
}

// sameRun adds to each row driven by Sim.Run the check that it matches
// the row of the same cell driven by Sim.Wake: the same ticks, hashes,
// clamps and errors, to the nanosecond.
func sameRun(rows []Row) {
	for i := range rows {
		r := &rows[i]
		if r.Driver != ByRun || r.Err != "" {
			continue
		}
		for j := range rows {
			w := &rows[j]
			if w.Driver != ByWake || w.Mode != r.Mode || w.Motion != r.Motion || w.Sim != r.Sim || w.Pattern != r.Pattern {
				continue
			}
			a, b := *r, *w
			a.Driver, a.Checks, a.Pass = "", nil, false
			b.Checks, b.Pass = nil, false
			same := reflect.DeepEqual(a, b)
			detail := "the same measurements as the row driven by Sim.Wake"
			if !same {
				detail = fmt.Sprintf("differs from the row driven by Sim.Wake: ticks %d/%d, hash %016x/%016x, p99 pos %.4f/%.4f, late %d/%d",
					r.Ticks, w.Ticks, r.Hash, w.Hash, r.PosErr.P99, w.PosErr.P99, r.Late, w.Late)
			}
			r.Checks = append(r.Checks, Check{Name: "same", OK: same, Detail: detail})
			r.Pass = r.Pass && same
		}
	}
}

// versusLerp adds to each hermite row at or below MotionHz, calm and
// within its lateness budget, the check that its p99 position error is at
// most HermiteRatio of its lerp row's: the chords of the curved path are
// gone.
func versusLerp(rows []Row) {
	for i := range rows {
		h := &rows[i]
		if h.Motion != renderer.MotionHermite.String() || h.Driver != ByWake || h.Sim > MotionHz ||
			h.LateKind != Calm || !h.Within || h.Kind == Overload || h.Err != "" {
			continue
		}
		for j := range rows {
			l := &rows[j]
			if l.Motion != renderer.MotionLerp.String() || l.Driver != ByWake || l.Sim != h.Sim || l.Pattern != h.Pattern || l.Err != "" {
				continue
			}
			ok := l.PosSamples > 0 && h.PosSamples > 0 && h.PosErr.P99 <= HermiteRatio*l.PosErr.P99
			h.Checks = append(h.Checks, Check{Name: "vs lerp", OK: ok,
				Detail: fmt.Sprintf("p99 position error %.6f ticks, lerp's %.6f (at most %g of it)", h.PosErr.P99, l.PosErr.P99, HermiteRatio)})
			h.Pass = h.Pass && ok
		}
	}
}

// progress reports a finished row.
func (o *Options) progress(done, total int, row *Row, took time.Duration) {
	if o.Progress == nil {
		return
	}
	if o.Verbose {
		verdict := "ok"
		if !row.Pass {
			verdict = "FAIL " + failedNames(row)
		}
		if row.Baseline {
			verdict = "baseline"
		}
		fmt.Fprintf(o.Progress, "tickframe verify: [%d/%d] %d Hz × %s %s: %s (%v)\n",
			done, total, row.Sim, row.Display, modeLabel(row), verdict, took.Round(time.Millisecond))
		return
	}
	// About ten lines for a whole run.
	if step := max(total/10, 1); done%step == 0 || done == total {
		fmt.Fprintf(o.Progress, "tickframe verify: %d/%d rows\n", done, total)
	}
}
