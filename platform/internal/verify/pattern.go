package verify

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kind names a family of display patterns.
type Kind string

// The display pattern families; see ParsePattern for their grammar.
const (
	Steady    Kind = "steady"    // a fixed refresh rate
	Jitter    Kind = "jitter"    // each interval off by up to ±Jitter of the nominal one
	Hitch     Kind = "hitch"     // the render thread stalls once every Every
	Pause     Kind = "pause"     // the window is hidden for Hidden and the app pauses the simulation
	VRR       Kind = "vrr"       // variable refresh: random intervals between 1/MaxHz and 1/MinHz
	Panel     Kind = "panel"     // a variable-refresh panel that scans a frame out when it is ready (panel.go)
	Overload  Kind = "overload"  // steady display, but each simulation step costs more than a step
	Intervals Kind = "intervals" // a list of frame intervals, repeated
)

// Limits on pattern parameters. They reject values that would make a row
// meaningless or endless rather than ones that are merely unusual.
const (
	// MaxDisplayHz: 10 kHz is far beyond any display and keeps a row's
	// frame count reasonable.
	MaxDisplayHz = 10000
	// MinDisplayHz: a display slower than 1 Hz shows no motion to judge.
	MinDisplayHz = 1
	// maxIntervals bounds the list of an intervals pattern.
	maxIntervals = 1000
	// maxHidden bounds a pause pattern's hidden time: the row lasts that
	// much longer.
	maxHidden = 10 * time.Minute
	// maxCost bounds an overload pattern's step cost, in steps: beyond 10
	// the simulation runs at a tenth of real time and a row says nothing
	// new.
	maxCost = 10
)

// Defaults of the non-steady patterns, as named on the command line.
const (
	DefaultBaseHz       = 144  // jitter, hitch and pause
	DefaultJitter       = 0.25 // ±25 %
	DefaultHitch        = 100 * time.Millisecond
	DefaultHitchEvery   = time.Second
	DefaultHidden       = 5 * time.Second
	DefaultVRRMinHz     = 48
	DefaultVRRMaxHz     = 165
	DefaultOverloadHz   = 60
	DefaultOverloadCost = 1.25 // steps
)

// Pattern is a display pattern: when frames are presented, and what else the
// app does meanwhile (hide its window, or load the simulation beyond real
// time). Get one from ParsePattern; the zero value is not a pattern.
type Pattern struct {
	Kind Kind
	// Hz is the nominal refresh rate (all kinds but VRR and Intervals).
	Hz float64
	// Jitter is the largest relative deviation of an interval (Jitter).
	Jitter float64
	// MinHz and MaxHz bound a VRR display's instantaneous rate.
	MinHz, MaxHz float64
	// Hitch is how long the render thread stalls, once every Every (Hitch).
	Hitch, Every time.Duration
	// Hidden is how long the window stays hidden (Pause).
	Hidden time.Duration
	// Cost is a simulation step's cost in steps, above 1 (Overload).
	Cost float64
	// List is the frame intervals, repeated (Intervals).
	List []time.Duration
	// Costs is how a Panel row's frames cost: PanelSteady, PanelJitter or
	// PanelHeavy.
	Costs string
	// Late is how late the simulation wakes and how often the render
	// thread stalls; the zero value is the default calm pattern.
	Late Lateness
}

// namedPatterns are the non-numeric names -display accepts, in table order.
var namedPatterns = []string{"jitter", "hitch", "pause", "vrr", "overload"}

// defaultSteady are the steady refresh rates of the default matrix.
var defaultSteady = []string{"30", "59.94", "60", "75", "90", "120", "144", "165", "240", "360", "500"}

// DefaultDisplays returns the display names of the default matrix, in order.
func DefaultDisplays() []string {
	return append(append([]string(nil), defaultSteady...), namedPatterns...)
}

// ParsePattern parses a display pattern:
//
//	HZ                        steady:HZ
//	steady:HZ                 a fixed refresh rate
//	jitter[:HZ[:FRACTION]]    intervals of 1/HZ × (1 ± up to FRACTION), uniformly
//	hitch[:HZ[:MS[:EVERY]]]   at HZ, with one MS-millisecond frame every EVERY seconds
//	pause[:HZ[:SECONDS]]      at HZ, with the window hidden for SECONDS
//	vrr[:MINHZ:MAXHZ]         intervals uniform between 1/MAXHZ and 1/MINHZ
//	overload[:HZ[:COST]]      at HZ, each simulation step costing COST steps
//	intervals:MS,MS,...       the listed intervals in milliseconds, repeated
//
// followed by an optional @LATENESS (see ParseLateness): "144@stress" is a
// 144 Hz display on a machine under stress. Omitted fields take the defaults (jitter 144 Hz ±25 %, hitch 144 Hz
// 100 ms every 1 s, pause 144 Hz for 5 s, vrr 48 to 165 Hz, overload 60 Hz
// at 1.25 steps). Rates lie in [1, 10000] Hz; NaN, infinities, zero and
// negative values are errors.
func ParsePattern(s string) (Pattern, error) {
	disp, late, hasLate := strings.Cut(s, "@")
	p, err := parseDisplayPattern(disp)
	if err != nil || !hasLate {
		return p, err
	}
	if p.Late, err = ParseLateness(late); err != nil {
		return p, fmt.Errorf("pattern %q: %w", s, err)
	}
	if p.Late.isDefault() {
		p.Late = Lateness{} // one value for one pattern
	}
	return p, nil
}

// parseDisplayPattern parses a pattern without its lateness.
func parseDisplayPattern(s string) (Pattern, error) {
	kind, rest, _ := strings.Cut(s, ":")
	var args []string
	if rest != "" || strings.Contains(s, ":") {
		args = strings.Split(rest, ":")
	}
	if _, err := strconv.ParseFloat(kind, 64); err == nil && len(args) == 0 {
		kind, args = string(Steady), []string{s}
	}
	p := Pattern{Kind: Kind(kind)}
	var err error
	switch p.Kind {
	case Steady:
		if len(args) != 1 {
			return p, fmt.Errorf("pattern %q: want steady:HZ", s)
		}
		p.Hz, err = parseHz(args[0])
	case Jitter:
		p.Hz, p.Jitter = DefaultBaseHz, DefaultJitter
		err = parseArgs(s, "jitter[:HZ[:FRACTION]]", args,
			hzArg(&p.Hz),
			floatArg("jitter fraction", 0, 0.9, false, &p.Jitter))
	case Hitch:
		p.Hz, p.Hitch, p.Every = DefaultBaseHz, DefaultHitch, DefaultHitchEvery
		err = parseArgs(s, "hitch[:HZ[:MS[:EVERY]]]", args,
			hzArg(&p.Hz),
			durArg("hitch (ms)", time.Millisecond, time.Millisecond, 10*time.Second, &p.Hitch),
			durArg("hitch period (s)", time.Second, 10*time.Millisecond, time.Minute, &p.Every))
		if err == nil && p.Hitch >= p.Every {
			err = fmt.Errorf("pattern %q: the hitch must be shorter than its period", s)
		}
	case Pause:
		p.Hz, p.Hidden = DefaultBaseHz, DefaultHidden
		err = parseArgs(s, "pause[:HZ[:SECONDS]]", args,
			hzArg(&p.Hz),
			durArg("hidden time (s)", time.Second, 10*time.Millisecond, maxHidden, &p.Hidden))
	case VRR:
		p.MinHz, p.MaxHz = DefaultVRRMinHz, DefaultVRRMaxHz
		if len(args) == 1 {
			return p, fmt.Errorf("pattern %q: want vrr[:MINHZ:MAXHZ]", s)
		}
		err = parseArgs(s, "vrr[:MINHZ:MAXHZ]", args, hzArg(&p.MinHz), hzArg(&p.MaxHz))
		if err == nil && p.MinHz >= p.MaxHz {
			err = fmt.Errorf("pattern %q: the lowest rate must be below the highest", s)
		}
	case Panel:
		p.MinHz, p.MaxHz, p.Costs = DefaultVRRMinHz, DefaultPanelMaxHz, PanelSteady
		if len(args) == 1 {
			return p, fmt.Errorf("pattern %q: want panel[:MINHZ:MAXHZ[:COSTS]]", s)
		}
		err = parseArgs(s, "panel[:MINHZ:MAXHZ[:COSTS]]", args, hzArg(&p.MinHz), hzArg(&p.MaxHz), costsArg(&p.Costs))
		if err == nil && p.MaxHz < 2*p.MinHz {
			err = fmt.Errorf("pattern %q: a panel's range must span a factor of two at least (low-framerate compensation repeats frames)", s)
		}
	case Overload:
		p.Hz, p.Cost = DefaultOverloadHz, DefaultOverloadCost
		err = parseArgs(s, "overload[:HZ[:COST]]", args,
			hzArg(&p.Hz),
			floatArg("step cost (steps)", 1, maxCost, false, &p.Cost))
	case Intervals:
		if len(args) != 1 || args[0] == "" {
			return p, fmt.Errorf("pattern %q: want intervals:MS,MS,...", s)
		}
		items := strings.Split(args[0], ",")
		if len(items) > maxIntervals {
			return p, fmt.Errorf("pattern %q: more than %d intervals", s, maxIntervals)
		}
		for _, item := range items {
			var ms float64
			if err = floatArg("interval (ms)", 1000.0/MaxDisplayHz, 1000.0/MinDisplayHz, true, &ms)(item); err != nil {
				break
			}
			p.List = append(p.List, time.Duration(math.Round(ms*float64(time.Millisecond))))
		}
	default:
		return p, fmt.Errorf("pattern %q: unknown kind %q (want a rate, steady, jitter, hitch, pause, vrr, panel, overload or intervals)", s, kind)
	}
	if err != nil {
		if !strings.HasPrefix(err.Error(), "pattern ") {
			err = fmt.Errorf("pattern %q: %w", s, err)
		}
		return p, err
	}
	return p, nil
}

// argParser parses one field of a pattern into its destination.
type argParser func(string) error

func parseArgs(s, grammar string, args []string, parsers ...argParser) error {
	if len(args) > len(parsers) {
		return fmt.Errorf("pattern %q: too many fields, want %s", s, grammar)
	}
	for i, a := range args {
		if err := parsers[i](a); err != nil {
			return err
		}
	}
	return nil
}

func hzArg(dst *float64) argParser {
	return func(s string) (err error) {
		*dst, err = parseHz(s)
		return err
	}
}

// parseHz parses a display refresh rate.
func parseHz(s string) (float64, error) {
	var hz float64
	err := floatArg("rate (Hz)", MinDisplayHz, MaxDisplayHz, true, &hz)(s)
	return hz, err
}

// floatArg parses a finite positive number in [lo, hi], or in (lo, hi] when
// loIncluded is false.
func floatArg(what string, lo, hi float64, loIncluded bool, dst *float64) argParser {
	return func(s string) error {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s %q is not a finite number", what, s)
		}
		if loIncluded && v >= lo && v <= hi && v > 0 {
			*dst = v
			return nil
		}
		if !loIncluded && v > lo && v <= hi && v > 0 {
			*dst = v
			return nil
		}
		if loIncluded {
			return fmt.Errorf("%s %v out of range [%v, %v]", what, v, lo, hi)
		}
		return fmt.Errorf("%s %v out of range (%v, %v]", what, v, lo, hi)
	}
}

// durArg parses a duration written as a plain number of units (milliseconds
// or seconds), in [lo, hi].
func durArg(what string, unit, lo, hi time.Duration, dst *time.Duration) argParser {
	return func(s string) error {
		var v float64
		u := float64(unit)
		if err := floatArg(what, float64(lo)/u, float64(hi)/u, true, &v)(s); err != nil {
			return err
		}
		*dst = time.Duration(math.Round(v * u))
		return nil
	}
}

// String returns the pattern in the syntax ParsePattern reads, with every
// field spelled out (the lateness only when it is not the default).
func (p Pattern) String() string {
	if p.Late.isDefault() {
		return p.displayString()
	}
	return p.displayString() + "@" + p.Late.String()
}

func (p Pattern) displayString() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	ms := func(d time.Duration) string { return f(float64(d) / float64(time.Millisecond)) }
	switch p.Kind {
	case Steady:
		return "steady:" + f(p.Hz)
	case Jitter:
		return fmt.Sprintf("jitter:%s:%s", f(p.Hz), f(p.Jitter))
	case Hitch:
		return fmt.Sprintf("hitch:%s:%s:%s", f(p.Hz), ms(p.Hitch), f(p.Every.Seconds()))
	case Pause:
		return fmt.Sprintf("pause:%s:%s", f(p.Hz), f(p.Hidden.Seconds()))
	case VRR:
		return fmt.Sprintf("vrr:%s:%s", f(p.MinHz), f(p.MaxHz))
	case Panel:
		return fmt.Sprintf("panel:%s:%s:%s", f(p.MinHz), f(p.MaxHz), p.Costs)
	case Overload:
		return fmt.Sprintf("overload:%s:%s", f(p.Hz), f(p.Cost))
	case Intervals:
		parts := make([]string, len(p.List))
		for i, d := range p.List {
			parts[i] = ms(d)
		}
		return "intervals:" + strings.Join(parts, ",")
	}
	return string(p.Kind)
}

// Label returns the pattern's short name for tables and plots.
func (p Pattern) Label() string {
	if l := p.Late.Label(); l != "" {
		return p.displayLabel() + " @" + l
	}
	return p.displayLabel()
}

func (p Pattern) displayLabel() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 5, 64) }
	switch p.Kind {
	case Steady:
		return f(p.Hz)
	case Jitter:
		return fmt.Sprintf("jitter %s±%s%%", f(p.Hz), f(100*p.Jitter))
	case Hitch:
		return fmt.Sprintf("hitch %s", f(p.Hz))
	case Pause:
		return fmt.Sprintf("pause %s", f(p.Hz))
	case VRR:
		return fmt.Sprintf("vrr %s-%s", f(p.MinHz), f(p.MaxHz))
	case Panel:
		return fmt.Sprintf("panel %s-%s %s", f(p.MinHz), f(p.MaxHz), p.Costs)
	case Overload:
		return fmt.Sprintf("overload %s", f(p.Hz))
	case Intervals:
		return fmt.Sprintf("intervals×%d", len(p.List))
	}
	return string(p.Kind)
}

// rowLength returns how long a row with this pattern runs in virtual time,
// given the time the simulation must cover: a pause adds the hidden time,
// an overload stretches it by the step cost (the simulation then runs at
// 1/Cost of real time).
func (p Pattern) rowLength(d time.Duration) time.Duration {
	switch p.Kind {
	case Pause:
		return d + p.Hidden
	case Overload:
		return time.Duration(math.Ceil(float64(d) * p.Cost))
	}
	return d
}

// hideAt returns when a pause pattern hides the window: 3 s in, after the
// warm-up and well before the hashed tick, or earlier in short runs.
func (p Pattern) hideAt(d time.Duration) time.Duration {
	return min(3*time.Second, d-time.Second)
}

// frames generates a pattern's frame times. It is deterministic for a
// given pattern and random sources.
type frames struct {
	p    Pattern
	rng  *rand.Rand
	n    int64         // frames generated
	last time.Duration // the last frame's time
	base time.Duration // steady grid origin
	// hide and show bound the hidden window of a pause pattern (both 0
	// otherwise); frames falling inside it are not presented.
	hide, show time.Duration
	// stalls are the render thread's stalls of a stress lateness: the
	// frames that fall inside one are missed.
	stalls *stalls
	// stalled reports that the render thread stalled just before the last
	// frame: a hitch, or a stall that missed frames.
	stalled bool
	// panel is a Panel pattern's state.
	panel panelState
}

// newFrames starts a pattern's frames at a random phase within its first
// interval, so that display and simulation are not artificially aligned.
// The render thread's stalls draw from their own source, so that a display
// pattern's frames are the same under every lateness but for the missed
// ones.
func newFrames(p Pattern, rng, stallRng *rand.Rand, simLen time.Duration) *frames {
	f := &frames{p: p, rng: rng, stalls: newStalls(p.Late, stallRng)}
	if p.Kind == Pause {
		f.hide = p.hideAt(simLen)
		f.show = f.hide + p.Hidden
	}
	f.base = time.Duration(rng.Float64() * float64(f.interval(0, 0)))
	f.last = f.base
	return f
}

// next returns the next frame's time.
func (f *frames) next() time.Duration {
	f.stalled = false
	if f.p.Kind == Panel {
		// A panel's frames are its own: its render stalls are the
		// heavy costs' tail.
		return f.panelNext()
	}
	for {
		t := f.nextRaw()
		if !f.stalls.stalled(t) {
			return t
		}
		// The render thread is stalled: this refresh passes without a
		// frame, and the next one after the stall shows.
		f.stalled = true
	}
}

// nextRaw returns the next frame's time of the display alone.
func (f *frames) nextRaw() time.Duration {
	var t time.Duration
	if f.n == 0 {
		t = f.base
	} else {
		t = f.last + f.interval(f.n, f.last)
	}
	if f.hide < f.show && t >= f.hide && t < f.show {
		// The window is hidden: no frame is presented until it shows
		// again, and then on the display's next refresh.
		k := (f.show - t + f.period() - 1) / f.period()
		t += k * f.period()
	}
	f.n++
	f.last = t
	return t
}

// period returns the nominal frame interval of a pattern with a nominal
// rate (the mean one of VRR and Intervals, which have none).
func (f *frames) period() time.Duration {
	switch f.p.Kind {
	case VRR:
		return time.Duration((1/f.p.MinHz + 1/f.p.MaxHz) / 2 * float64(time.Second))
	case Panel:
		return f.p.panelCost()
	case Intervals:
		var sum time.Duration
		for _, d := range f.p.List {
			sum += d
		}
		return sum / time.Duration(len(f.p.List))
	}
	return max(time.Duration(math.Round(float64(time.Second)/f.p.Hz)), 1)
}

// shortestInterval returns the shortest frame interval the pattern has
// (render stalls only make intervals longer).
func (p Pattern) shortestInterval() time.Duration {
	f := &frames{p: p}
	switch p.Kind {
	case Jitter:
		return time.Duration(float64(time.Second) / p.Hz * (1 - p.Jitter))
	case VRR, Panel:
		return time.Duration(float64(time.Second) / p.MaxHz)
	case Intervals:
		return slices.Min(p.List)
	}
	return f.period()
}

// interval returns the interval from frame n−1 (at last) to frame n.
func (f *frames) interval(n int64, last time.Duration) time.Duration {
	p := f.p
	switch p.Kind {
	case Steady, Pause, Overload:
		// On an exact grid from the first frame: no drift at 59.94 Hz.
		at := func(k int64) time.Duration { return time.Duration(math.Round(float64(k) * 1e9 / p.Hz)) }
		return at(n) - at(n-1)
	case Jitter:
		return time.Duration(float64(time.Second) / p.Hz * (1 + p.Jitter*(2*f.rng.Float64()-1)))
	case Hitch:
		d := f.period()
		if last/p.Every != (last+d)/p.Every {
			// The frame that would cross into the next period is the one
			// the stall delays.
			f.stalled = true
			return p.Hitch
		}
		return d
	case VRR:
		lo, hi := 1/p.MaxHz, 1/p.MinHz
		return time.Duration((lo + (hi-lo)*f.rng.Float64()) * float64(time.Second))
	case Intervals:
		return p.List[int(n%int64(len(p.List)))]
	case Panel:
		return f.period()
	}
	return time.Second
}
