package verify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/simthread/refworld"
)

// Mode says how a row turns snapshots into frames.
type Mode string

const (
	// Interpolated is tickframe's way: the real Sim, the real planner
	// and adaptive delay, interpolation between the bracketing pair.
	Interpolated Mode = "interp"
	// NoInterp is the fixed-step baseline without interpolation: the
	// real Sim, but every frame shows the newest snapshot as is.
	NoInterp Mode = "noint"
	// Naive is the variable-step baseline: no scheduler, the world is
	// stepped once per frame by the measured frame interval.
	Naive Mode = "naive"
)

// The pass bounds of the interpolated rows, from the issue: "with
// interpolation, p99 animation error at most 0.05 tick and at most 0.25 ms
// at every display rate".
const (
	PosErrLimit  = 0.05 // ticks, p99 of the position error
	AnimErrLimit = 0.25 // ms, p99 of PresentMon's animation error
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
func DefaultSims() []int { return []int{30, 60, 64, 120} }

// Options configures a verification run. Zero fields take the defaults,
// except Seed (0 is a seed like any other) and Sims and Displays, which
// must not both be empty: Sims must list a rate, and Displays or Baselines
// a pattern.
type Options struct {
	// Sims are the simulation rates, in Hz.
	Sims []int
	// Displays are the display patterns run with interpolation.
	Displays []Pattern
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
	// Workers is how many rows run at once; 0 means GOMAXPROCS.
	Workers int
	// Progress, if not nil, receives a line now and then: about ten for
	// a whole run, or one per row with Verbose.
	Progress io.Writer
	Verbose  bool

	// breakInterpolation, if set, edits every interpolated frame's plan
	// before it is measured: the tests break interpolation on purpose
	// and expect the row to fail.
	breakInterpolation func(*interp.Plan)
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
	for _, p := range slices.Concat(o.Displays, o.Baselines) {
		if p.Kind == "" {
			return errors.New("a display pattern is empty")
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
	Sim      int    `json:"sim_hz"`
	Display  string `json:"display"` // the pattern's label
	Pattern  string `json:"pattern"` // the pattern, as ParsePattern reads it
	Kind     Kind   `json:"kind"`
	Mode     Mode   `json:"mode"`
	Baseline bool   `json:"baseline"` // a baseline row never fails the run

	Elapsed  time.Duration `json:"elapsed_ns"`   // virtual time the row ran
	StepCost time.Duration `json:"step_cost_ns"` // virtual time each step took
	Frames   int           `json:"frames"`       // frames displayed after the warm-up

	// Tick accounting (zero for the naive loop, which has no scheduler;
	// Ticks is then its step count).
	Ticks            uint64        `json:"ticks"`
	DiscardedTicks   uint64        `json:"discarded_ticks"`
	Discarded        time.Duration `json:"discarded_ns"`
	Clamped          time.Duration `json:"clamped_ns"`
	Paused           time.Duration `json:"paused_ns"`
	LastWake         time.Duration `json:"last_wake_ns"` // the last wake that advanced the scheduler
	Pending          int64         `json:"pending_ticks"`
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
	PosErr      Stat   `json:"pos_err_ticks"`
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
	Late            uint64        `json:"late"` // frames whose render time was past the newest snapshot
	Early           uint64        `json:"early"`
	// Delay is the render delay at the end of the row.
	Delay time.Duration `json:"delay_ns"`

	Err    string  `json:"error,omitempty"` // the row could not run
	Checks []Check `json:"checks"`
	Pass   bool    `json:"pass"`
}

// measure copies the meter's readings into the row.
func (row *Row) measure(m *interp.Meter) {
	row.PosErr = Stat{m.PosErrTicks(0.5), m.PosErrTicks(0.99), float64(m.PosErr.Max()) / 1e6}
	row.AnimErr = Stat{m.AnimErrMs(0.5), m.AnimErrMs(0.99), float64(m.AnimErr.Max()) / 1e6}
	row.PosSamples = m.PosErr.Count()
	row.AnimSamples = m.AnimErr.Count()
	row.Skipped = m.Skipped
}

// Results is the outcome of a run.
type Results struct {
	Sims      []int         `json:"sims_hz"`
	Displays  []string      `json:"displays"`  // interpolated, as ParsePattern reads them
	Baselines []string      `json:"baselines"` // where the baselines ran
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
	Rows         []Row   `json:"rows"`
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
	refs := make(map[int][]simthread.Checkpoint, len(opts.Sims))
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

	res := &Results{
		Sims:         opts.Sims,
		Displays:     specs(opts.Displays),
		Baselines:    specs(opts.Baselines),
		Duration:     opts.Duration,
		Warmup:       warmup,
		HashAt:       opts.hashAt(),
		Seed:         opts.Seed,
		Bodies:       opts.Bodies,
		StepCost:     opts.StepCost,
		PosErrLimit:  PosErrLimit,
		AnimErrLimit: AnimErrLimit,
		Rows:         rows,
	}
	for i := range rows {
		if !rows[i].Baseline && !rows[i].Pass {
			res.Failed++
		}
	}
	res.Pass = res.Failed == 0
	return res, nil
}

func specs(ps []Pattern) []string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return s
}

// cells lists the rows to run in their output order.
func (o *Options) cells() []cell {
	var cells []cell
	for _, hz := range o.Sims {
		seen := make(map[string]bool)
		add := func(p Pattern, interp, base bool) {
			if seen[p.String()] {
				return
			}
			seen[p.String()] = true
			if interp {
				cells = append(cells, cell{hz, p, Interpolated})
			}
			if base {
				cells = append(cells, cell{hz, p, NoInterp})
				if p.Kind != Pause && p.Kind != Overload {
					cells = append(cells, cell{hz, p, Naive})
				}
			}
		}
		for _, p := range o.Displays {
			add(p, true, slices.ContainsFunc(o.Baselines, func(b Pattern) bool { return b.String() == p.String() }))
		}
		for _, p := range o.Baselines {
			add(p, false, true)
		}
	}
	return cells
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
			done, total, row.Sim, row.Display, row.Mode, verdict, took.Round(time.Millisecond))
		return
	}
	// About ten lines for a whole run.
	if step := max(total/10, 1); done%step == 0 || done == total {
		fmt.Fprintf(o.Progress, "tickframe verify: %d/%d rows\n", done, total)
	}
}
