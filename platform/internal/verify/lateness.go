package verify

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// LateKind names a family of lateness patterns.
type LateKind string

// The lateness pattern families; see ParseLateness for their grammar.
const (
	// Calm: the simulation wakes up to Max after its deadline, uniformly,
	// and the render thread never stalls: a machine with spare cores.
	Calm LateKind = "calm"
	// Stress: the simulation wakes late by a lognormal amount with median
	// P50 and 99th percentile P99, and the render thread stalls for 10 to
	// 20 ms about Stalls times a second: a machine whose cores are all
	// busy, as `tickframe -stress` measures it.
	Stress LateKind = "stress"
)

// Defaults of the lateness patterns, as named on the command line.
const (
	// DefaultCalmMax: a real simulation wakes up to a couple of
	// milliseconds after its deadline when the OS is merely busy
	// (RealClock's spin makes it punctual on an idle machine; the verifier
	// assumes the worse case).
	DefaultCalmMax = 2 * time.Millisecond
	// DefaultStressP50 and DefaultStressP99 are what the simulation's
	// wake lateness measured under `tickframe -stress` on every core: a
	// median around 15 ms and a 99th percentile of 35 to 100 ms. The
	// stress pattern takes the low end of the tail, which the render
	// delay's limit covers at every rate; the heavy pattern the high end,
	// whose tail goes beyond it.
	DefaultStressP50 = 15 * time.Millisecond
	DefaultStressP99 = 40 * time.Millisecond
	HeavyStressP99   = 100 * time.Millisecond
	// DefaultStalls: how often the render thread stalls under stress, per
	// second on average. The stalls last 10 to 20 ms (StallMin, StallMax),
	// what a render thread preempted for a scheduler slice or two loses.
	DefaultStalls = 1.0
	StallMin      = 10 * time.Millisecond
	StallMax      = 20 * time.Millisecond
)

// Limits on lateness parameters.
const (
	maxLateMax = time.Second // a calm lateness beyond 1 s is not calm
	maxLateP99 = 2 * time.Second
	maxStalls  = 20 // per second: more is a hitch pattern, not a stall
)

// z99 is the standard normal's 99th percentile: a lognormal whose median
// is P50 has σ = ln(P99/P50) / z99.
const z99 = 2.3263478740408408

// Lateness is how late the simulation wakes after its deadlines, and how
// often the render thread stalls, on the machine a row stands for. The zero
// value is the default calm pattern (up to 2 ms late, no stalls).
type Lateness struct {
	Kind LateKind
	// Max bounds a calm lateness: uniform in [0, Max].
	Max time.Duration
	// P50 and P99 are a stress lateness's median and 99th percentile
	// (lognormal).
	P50, P99 time.Duration
	// Stalls is how many render-thread stalls of StallMin to StallMax
	// happen per second on average, at random (Stress).
	Stalls float64
}

// namedLateness are the non-default names -lateness accepts.
var namedLateness = map[string]Lateness{
	"calm":   {Kind: Calm, Max: DefaultCalmMax},
	"stress": {Kind: Stress, P50: DefaultStressP50, P99: DefaultStressP99, Stalls: DefaultStalls},
	"heavy":  {Kind: Stress, P50: DefaultStressP50, P99: HeavyStressP99, Stalls: DefaultStalls},
}

// ParseLateness parses a lateness pattern:
//
//	calm[:MS]                    uniform in [0, MS]; default 2 ms
//	stress[:P50[:P99[:STALLS]]]  lognormal with median P50 ms and p99 P99 ms,
//	                             render stalls of 10-20 ms STALLS times a
//	                             second; default 15 ms, 40 ms, 1
//	heavy                        stress:15:100:1
func ParseLateness(s string) (Lateness, error) {
	kind, rest, _ := strings.Cut(s, ":")
	var args []string
	if strings.Contains(s, ":") {
		args = strings.Split(rest, ":")
	}
	l, ok := namedLateness[kind]
	if !ok {
		return l, fmt.Errorf("lateness %q: unknown kind %q (want calm, stress or heavy)", s, kind)
	}
	var err error
	switch kind {
	case "calm":
		err = parseArgs(s, "calm[:MS]", args,
			orZero(&l.Max, durArg("lateness (ms)", time.Millisecond, time.Microsecond, maxLateMax, &l.Max)))
	case "stress":
		err = parseArgs(s, "stress[:P50[:P99[:STALLS]]]", args,
			durArg("median lateness (ms)", time.Millisecond, time.Microsecond, maxLateP99, &l.P50),
			durArg("p99 lateness (ms)", time.Millisecond, time.Microsecond, maxLateP99, &l.P99),
			// Zero stalls is a stress of the simulation alone.
			orZero(&l.Stalls, floatArg("stalls per second", 0, maxStalls, false, &l.Stalls)))
		if err == nil && l.P99 < l.P50 {
			err = fmt.Errorf("lateness %q: the p99 is below the median", s)
		}
	case "heavy":
		if len(args) > 0 {
			err = fmt.Errorf("lateness %q: heavy takes no fields (write stress:P50:P99:STALLS)", s)
		}
	}
	if err != nil {
		if !strings.HasPrefix(err.Error(), "lateness ") {
			err = fmt.Errorf("lateness %q: %w", s, err)
		}
		return l, err
	}
	return l, nil
}

// orZero accepts a zero where parse would refuse it, and sets dst to zero.
func orZero[T time.Duration | float64](dst *T, parse argParser) argParser {
	return func(a string) error {
		if v, err := strconv.ParseFloat(strings.TrimSpace(a), 64); err == nil && v == 0 {
			*dst = 0
			return nil
		}
		return parse(a)
	}
}

// norm returns l with the zero value spelled out as the default calm
// pattern.
func (l Lateness) norm() Lateness {
	if l.Kind == "" {
		return namedLateness["calm"]
	}
	return l
}

// isDefault reports whether l is the default calm pattern.
func (l Lateness) isDefault() bool { return l.norm() == namedLateness["calm"] }

// String returns the pattern in the syntax ParseLateness reads, with every
// field spelled out.
func (l Lateness) String() string {
	l = l.norm()
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	ms := func(d time.Duration) string { return f(float64(d) / float64(time.Millisecond)) }
	switch l.Kind {
	case Calm:
		return "calm:" + ms(l.Max)
	case Stress:
		return fmt.Sprintf("stress:%s:%s:%s", ms(l.P50), ms(l.P99), f(l.Stalls))
	}
	return string(l.Kind)
}

// Label returns the pattern's short name: "" for the default calm pattern,
// "stress" and "heavy" for theirs, the parameters otherwise.
func (l Lateness) Label() string {
	l = l.norm()
	for _, name := range []string{"calm", "stress", "heavy"} {
		if l == namedLateness[name] {
			if name == "calm" {
				return ""
			}
			return name
		}
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	ms := func(d time.Duration) string { return f(float64(d) / float64(time.Millisecond)) }
	if l.Kind == Calm {
		return "calm " + ms(l.Max)
	}
	return fmt.Sprintf("stress %s/%s", ms(l.P50), ms(l.P99))
}

// wakes draws how late each wake of the simulation comes.
type wakes struct {
	l     Lateness
	sigma float64
	rng   *rand.Rand
	last  time.Duration // the last lateness drawn
	max   time.Duration // the largest drawn
}

func newWakes(l Lateness, rng *rand.Rand) *wakes {
	l = l.norm()
	w := &wakes{l: l, rng: rng}
	if l.Kind == Stress && l.P99 > l.P50 {
		w.sigma = math.Log(float64(l.P99)/float64(l.P50)) / z99
	}
	return w
}

// next returns the next wake's lateness.
func (w *wakes) next() time.Duration {
	if w.l.Kind == Stress {
		d := float64(w.l.P50) * math.Exp(w.sigma*w.rng.NormFloat64())
		// 10 s: a wake later than that is a suspended process, which
		// MaxDelta clamps anyway; the cap keeps the arithmetic finite.
		w.last = time.Duration(min(d, float64(10*time.Second)))
	} else {
		w.last = time.Duration(w.rng.Int64N(int64(w.l.Max) + 1))
	}
	w.max = max(w.max, w.last)
	return w.last
}

// stalls generates the render thread's stalls: windows of StallMin to
// StallMax, starting at random with Stalls per second on average.
type stalls struct {
	rate       float64 // per second
	rng        *rand.Rand
	start, end time.Duration // the current or next stall
}

func newStalls(l Lateness, rng *rand.Rand) *stalls {
	l = l.norm()
	s := &stalls{rate: l.Stalls, rng: rng}
	if s.rate > 0 {
		s.schedule(0)
	}
	return s
}

// schedule draws the next stall after t.
func (s *stalls) schedule(t time.Duration) {
	gap := time.Duration(s.rng.ExpFloat64() / s.rate * float64(time.Second))
	s.start = t + gap
	s.end = s.start + StallMin + time.Duration(s.rng.Int64N(int64(StallMax-StallMin)+1))
}

// stalled reports whether the render thread is stalled at t, where the
// caller asks about non-decreasing times.
func (s *stalls) stalled(t time.Duration) bool {
	if s.rate <= 0 {
		return false
	}
	for t >= s.end {
		s.schedule(s.end)
	}
	return t >= s.start
}
