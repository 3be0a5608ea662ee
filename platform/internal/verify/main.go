package verify

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/platform/internal/outfile"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// Exit statuses of Main.
const (
	ExitPass     = 0 // every check passed
	ExitFail     = 1 // a check failed, or the output could not be written
	ExitBadUsage = 2 // bad flags; a one-line error went to stderr
)

// defaultBaselines are the displays of the default matrix on which the
// baselines run too: a few steady rates and the two irregular displays, so
// that the table shows the difference without tripling in length.
var defaultBaselines = []string{"60", "144", "240", "jitter", "vrr"}

// defaultStress are the displays of the default matrix that also run under
// the stress and heavy latenesses: a slow, a fast and a variable display.
var (
	defaultStress    = []string{"60", "144", "vrr"}
	defaultStressLat = []string{"stress", "heavy"}
)

// defaultDriven are the display patterns that also run with the Sim on its
// own goroutine (Sim.Run), where the run has them.
var defaultDriven = []string{"144", "144@stress"}

const usage = `usage: tickframe verify [flags]

Runs the real simulation scheduler, render delay, interpolation and animation meter against a
virtual clock and virtual displays, and checks determinism, tick accounting and smoothness.
Exit status: 0 all checks passed, 1 a check failed, 2 bad flags.

Display patterns (-display names, -pattern specs):
  HZ | steady:HZ            steady refresh, 1 to 10000 Hz
  jitter[:HZ[:FRACTION]]    each interval 1/HZ × (1 ± up to FRACTION); default 144 Hz, 0.25
  hitch[:HZ[:MS[:EVERY]]]   a MS-ms stall of the render thread every EVERY s; default 144 Hz, 100 ms, 1 s
  pause[:HZ[:SECONDS]]      window hidden (simulation paused) for SECONDS; default 144 Hz, 5 s
  vrr[:MINHZ:MAXHZ]         random intervals between 1/MAXHZ and 1/MINHZ; default 48 to 165 Hz
  panel[:MINHZ:MAXHZ[:COSTS]]  a variable-refresh panel driven by the VRR pacing policy, frame costs
                            steady, jitter or heavy; default 48 to 144 Hz, steady (-vrr runs the matrix)
  overload[:HZ[:COST]]      each step costs COST steps (> 1); default 60 Hz display, 1.25
  intervals:MS,MS,...       these frame intervals, repeated
each optionally followed by @LATENESS, how late the simulation wakes (-lateness):
  calm[:MS]                        uniformly up to MS ms late; default 2 ms
  stress[:P50[:P99[:STALLS]]]      lognormal with median P50 ms and p99 P99 ms, and STALLS render-thread
                                   stalls of 10 to 20 ms a second; default 15 ms, 40 ms, 1
  heavy                            stress:15:100:1
-vrr runs panels of 48-144 and 48-360 Hz with each kind of frame cost instead, in lerp and hermite.
The default matrix runs every display calm, and 60, 144 and vrr under stress and heavy too. The 144
and 144@stress rows run again with the simulation on its own goroutine (Sim.Run, mode "run").
Each interpolated row runs in every motion mode (-motion): lerp (mode interp), hermite (velocities)
and extrapolate (extrap: no render delay, corrections blended).

Flags:
`

// Main runs `tickframe verify` with args (the arguments after "verify") and
// returns the process exit status: 0 all checks passed, 1 a check failed,
// 2 bad flags (one-line error on stderr). The table goes to stdout,
// progress to stderr; -json and -plot files are written whole or not at
// all.
func Main(args []string, stdout, stderr io.Writer) int {
	opts, out, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitPass
	}
	if err != nil {
		fmt.Fprintf(stderr, "tickframe verify: %v\n", oneLine(err))
		return ExitBadUsage
	}
	for _, path := range []string{out.json, out.plot} {
		if path == "" {
			continue
		}
		if err := outfile.CheckWritable(path); err != nil {
			fmt.Fprintf(stderr, "tickframe verify: %s: %v\n", path, oneLine(err))
			return ExitBadUsage
		}
	}

	start := time.Now()
	res, err := Run(context.Background(), opts)
	if err != nil {
		// Run fails only on a cancelled context or on options that
		// parseFlags validated; neither should happen here.
		fmt.Fprintf(stderr, "tickframe verify: %v\n", oneLine(err))
		return ExitFail
	}
	fmt.Fprintf(stderr, "tickframe verify: %d rows in %v\n", len(res.Rows), time.Since(start).Round(time.Millisecond))

	status := ExitPass
	if !res.Pass {
		status = ExitFail
	}
	if err := writeTable(stdout, res); err != nil {
		fmt.Fprintf(stderr, "tickframe verify: write table: %v\n", oneLine(err))
		status = ExitFail
	}
	if out.json != "" {
		err := outfile.Write(out.json, func(w io.Writer) error { return WriteJSON(w, res) })
		if err != nil {
			fmt.Fprintf(stderr, "tickframe verify: %v\n", oneLine(err))
			status = ExitFail
		}
	}
	if out.plot != "" {
		if err := writePlot(out.plot, res); err != nil {
			fmt.Fprintf(stderr, "tickframe verify: %v\n", oneLine(err))
			status = ExitFail
		}
	}
	return status
}

// outputs are the files Main writes.
type outputs struct{ json, plot string }

// parseFlags turns the command line into Options. On -h it prints the usage
// and returns flag.ErrHelp.
func parseFlags(args []string, stderr io.Writer) (Options, outputs, error) {
	var opts Options
	var out outputs
	fs := flag.NewFlagSet("tickframe verify", flag.ContinueOnError)
	// The flag package's own messages are followed by the whole usage;
	// errors are reported in one line by Main instead.
	fs.SetOutput(io.Discard)
	sims := fs.String("sim", joinInts(DefaultSims()), "comma-separated simulation `rates` in Hz")
	displays := fs.String("display", "all", "comma-separated display `patterns` (rates or names), or all")
	pattern := fs.String("pattern", "", "a custom display `pattern`, e.g. steady:200, jitter:144:0.1, intervals:16.7,16.7,33.4")
	fs.DurationVar(&opts.Duration, "duration", DefaultDuration, "simulated `time` per row (the world is hashed 2 s before the end)")
	fs.Uint64Var(&opts.Seed, "seed", DefaultSeed, "random `seed` for the world, the wake lateness and the displays")
	fs.IntVar(&opts.Bodies, "bodies", DefaultBodies, "`number` of bodies in the world")
	fs.DurationVar(&opts.StepCost, "stepcost", DefaultStepCost, "virtual `time` each simulation step takes")
	fs.StringVar(&out.json, "json", "", "write the results as JSON to `file`")
	fs.StringVar(&out.plot, "plot", "", "plot the p99 errors to `file` (.png or .svg)")
	lateness := fs.String("lateness", "", "comma-separated lateness `patterns` every display runs under (default: calm, and stress and heavy on 60, 144 and vrr)")
	brk := fs.String("break", "", "run a deliberately broken `renderer`, which must fail: "+strings.Join(Lies(), ", ")+
		", or "+breakVRRGrid+" (with -vrr: panel frames animated to a fixed grid, not their present time)")
	vrr := fs.Bool("vrr", false, "run the variable-refresh matrix instead of the default one: panels of 48-144 and 48-360 Hz, with steady, jittery and heavy-tailed frame costs")
	baselines := fs.Bool("baselines", true, "also run the no-interpolation and naive baselines")
	motions := fs.String("motion", "all", "comma-separated motion `modes` of the interpolated rows (lerp, hermite, extrapolate), or all")
	fs.BoolVar(&opts.Verbose, "v", false, "report every row on stderr")

	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, usage)
			fs.SetOutput(stderr)
			fs.PrintDefaults()
		}
		return opts, out, err
	}
	if fs.NArg() > 0 {
		return opts, out, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := make(map[string]bool)
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	var err error
	if opts.Sims, err = parseSims(*sims); err != nil {
		return opts, out, err
	}
	if opts.Motions, err = parseMotions(*motions); err != nil {
		return opts, out, err
	}
	if *vrr && !set["motion"] {
		opts.Motions = panelMotions
	}
	// Zero means the default to Options, but on the command line it is a
	// mistake.
	if opts.Duration <= 0 {
		return opts, out, fmt.Errorf("-duration %v must be positive", opts.Duration)
	}
	if opts.Bodies < 1 || opts.Bodies > maxBodiesFlag {
		return opts, out, fmt.Errorf("-bodies %d out of range [1, %d]", opts.Bodies, maxBodiesFlag)
	}
	if opts.StepCost <= 0 {
		return opts, out, fmt.Errorf("-stepcost %v must be positive: steps take time", opts.StepCost)
	}

	// The default matrix runs every display with the baselines on a few;
	// an explicit -display or -pattern list is a closer look, so the
	// baselines run on all of it.
	if *vrr && !set["display"] && !set["pattern"] {
		// The VRR matrix, calm, without baselines (they know no panel).
		for _, name := range panelRows {
			p, _ := ParsePattern(name)
			opts.Displays = append(opts.Displays, p)
		}
	} else if !set["pattern"] || set["display"] {
		names := DefaultDisplays()
		if *displays != "all" {
			names = strings.Split(*displays, ",")
		}
		for _, name := range names {
			p, err := parseDisplay(name)
			if err != nil {
				return opts, out, fmt.Errorf("-display: %w", err)
			}
			if slices.ContainsFunc(opts.Displays, func(q Pattern) bool { return q.String() == p.String() }) {
				return opts, out, fmt.Errorf("-display: %q given twice", name)
			}
			opts.Displays = append(opts.Displays, p)
		}
		if *baselines {
			if set["display"] && *displays != "all" {
				opts.Baselines = slices.Clone(opts.Displays)
			} else {
				for _, name := range defaultBaselines {
					p, _ := parseDisplay(name)
					opts.Baselines = append(opts.Baselines, p)
				}
			}
		}
	}
	if set["pattern"] {
		p, err := ParsePattern(*pattern)
		if err != nil {
			return opts, out, fmt.Errorf("-pattern: %w", err)
		}
		opts.Displays = append(opts.Displays, p)
		if *baselines {
			opts.Baselines = append(opts.Baselines, p)
		}
	}
	if set["lateness"] {
		if opts.Displays, err = underLateness(opts.Displays, *lateness); err != nil {
			return opts, out, fmt.Errorf("-lateness: %w", err)
		}
	} else if !set["display"] && !set["pattern"] && !*vrr {
		for _, name := range defaultStress {
			for _, l := range defaultStressLat {
				p, _ := parseDisplay(name + "@" + l)
				opts.Displays = append(opts.Displays, p)
			}
		}
	}
	for _, name := range defaultDriven {
		if *vrr {
			break
		}
		p, _ := parseDisplay(name)
		opts.Driven = append(opts.Driven, p)
	}
	if set["break"] && *brk == breakVRRGrid {
		opts.gridAlpha, opts.broken = true, *brk
	} else if set["break"] {
		lie, ok := lies[*brk]
		if !ok {
			return opts, out, fmt.Errorf("-break: unknown renderer %q (want %s or %s)", *brk, strings.Join(Lies(), ", "), breakVRRGrid)
		}
		opts.breakInterpolation, opts.broken = lie, *brk
	}

	if out.plot != "" {
		if _, err := plotFormat(out.plot); err != nil {
			return opts, out, fmt.Errorf("-plot: %w", err)
		}
	}
	if out.json != "" && out.json == out.plot {
		return opts, out, errors.New("-json and -plot name the same file")
	}
	opts.Progress = stderr
	return opts, out, opts.validate()
}

// maxBodiesFlag bounds -bodies. The verifier measures one body; the others
// only feed the hash, and they cost: one 120 Hz cell with 10 000 bodies
// takes about 6 s on one core (the Sim and the reference both step and hash
// every body), so the whole matrix would take about ten minutes on two.
const maxBodiesFlag = 10_000

// parseSims parses a comma-separated list of simulation rates.
func parseSims(s string) ([]int, error) {
	var sims []int
	for _, item := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(item), 64)
		switch {
		case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
			return nil, fmt.Errorf("-sim: rate %q is not a number", item)
		case v != math.Trunc(v):
			return nil, fmt.Errorf("-sim: rate %v is not a whole number of Hz", v)
		case v < 1 || v > simthread.MaxRate:
			return nil, fmt.Errorf("-sim: rate %v out of range [1, %d]", v, simthread.MaxRate)
		case slices.Contains(sims, int(v)):
			return nil, fmt.Errorf("-sim: rate %v given twice", v)
		}
		sims = append(sims, int(v))
	}
	return sims, nil
}

// parseMotions parses -motion: a comma-separated list of motion modes, or
// all (DefaultMotions).
func parseMotions(s string) ([]renderer.MotionMode, error) {
	if s == "all" {
		return DefaultMotions(), nil
	}
	var ms []renderer.MotionMode
	for _, item := range strings.Split(s, ",") {
		m, err := interp.ParseMotion(strings.TrimSpace(item))
		if err != nil {
			return nil, fmt.Errorf("-motion: mode %q is not lerp, hermite, extrapolate or all", item)
		}
		if slices.Contains(ms, m) {
			return nil, fmt.Errorf("-motion: mode %q given twice", item)
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// underLateness returns the displays, each of those without a lateness of
// its own once under each lateness in the comma-separated list.
func underLateness(displays []Pattern, list string) ([]Pattern, error) {
	var lates []Lateness
	for _, item := range strings.Split(list, ",") {
		l, err := ParseLateness(strings.TrimSpace(item))
		if err != nil {
			return nil, err
		}
		if l.isDefault() {
			l = Lateness{}
		}
		if slices.Contains(lates, l) {
			return nil, fmt.Errorf("lateness %q given twice", item)
		}
		lates = append(lates, l)
	}
	var out []Pattern
	for _, p := range displays {
		if !p.Late.isDefault() {
			out = append(out, p)
			continue
		}
		for _, l := range lates {
			q := p
			q.Late = l
			if !slices.ContainsFunc(out, func(r Pattern) bool { return r.String() == q.String() }) {
				out = append(out, q)
			}
		}
	}
	return out, nil
}

// parseDisplay parses one -display item: a rate, a pattern name with its
// defaults, or a full pattern spec.
func parseDisplay(name string) (Pattern, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Pattern{}, errors.New("empty display name")
	}
	return ParsePattern(name)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// oneLine keeps an error message to one line.
func oneLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
