package sim_test

// Benchmarks of one simulation tick, split into its parts so that benchstat
// can set them side by side:
//
//	BenchmarkTick/bodies=<1k|10k|100k>/part=<step|publish|copy|tick>
//
//   - step: one Step of the tests' swarm world, on the bare world (no Sim).
//   - publish: one wake of a real Sim whose world's Step does nothing
//     (snapshotOnly), so that what is measured is the Sim's own code for a
//     tick minus the step: the scheduler's Advance and the telemetry, the
//     world's Snapshot into the triple buffer's back slot, the stamping and
//     the Publish, plus the render side's Acquire. It is the publish part
//     measured through the real code path rather than a copy of it, and an
//     upper bound on it: the wake's bookkeeping (tens of ns) is included.
//     Measuring tick − step instead would subtract two noisy numbers of
//     which the step is the larger.
//   - copy: a plain copy() of the snapshot's bodies into a preallocated
//     slice, the floor any publish that hands over a copy must pay; the
//     target is publish ≤ 2 × copy.
//   - tick: one wake of a real Sim on the swarm world that runs exactly
//     one step and publishes, plus the render side's Acquire.
//
// Every part sets the bytes per op to the snapshot's size (bodies × 40), so
// MB/s compares them directly. The render side acquires after every wake, as
// the app's render thread does, so the Sim's back slot rotates through all
// History+2 slots of the triple buffer (at 100k bodies that is 6 × 4 MB), not
// between two warm ones.

import (
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/simthread"
)

// benchSizes are the body counts of the scale benchmarks and tests.
var benchSizes = []struct {
	name string
	n    int
}{
	{"1k", 1_000},
	{"10k", 10_000},
	{"100k", 100_000},
}

// bodyBytes is the size of one snapshot body.
const bodyBytes = int(unsafe.Sizeof(simthread.Body{}))

// snapshotOnly is the swarm world with a Step that does nothing: a Sim
// driving it does all of a tick's work except the step.
type snapshotOnly struct{ *swarm }

func (snapshotOnly) Step(uint64, float64, []simthread.Input) {}

// ticker drives a real Sim by hand on a virtual clock, one tick per wake,
// with the render side acquiring each snapshot, as TestTickDoesNotAllocate
// does.
type ticker struct {
	sim   *sim.Sim
	clock *sim.VirtualClock
	view  func() bool
	next  time.Duration
	wakes uint64
	err   error
}

// newTicker returns a ticker for world, whose snapshots have n bodies; the
// snapshot slots are pre-sized so that no wake allocates. Tick 0 is
// published and acquired.
func newTicker(tb testing.TB, world simthread.World, n int) *ticker {
	tb.Helper()
	clock := new(sim.VirtualClock)
	s, err := sim.New(simthread.Tuning{InitSnapshot: func(s *simthread.Snapshot) {
		s.Bodies = make([]simthread.Body, 0, n)
	}}, world, clock)
	if err != nil {
		tb.Fatal(err)
	}
	t := &ticker{sim: s, clock: clock, view: s.Snapshots().Acquire}
	if t.next, err = s.Wake(); err != nil {
		tb.Fatal(err)
	}
	t.view()
	return t
}

// wake moves the clock to the next tick's deadline, so that the wake runs
// exactly one step and publishes it, and acquires the snapshot.
func (t *ticker) wake() {
	t.clock.Set(t.next)
	next, err := t.sim.Wake()
	if err != nil && t.err == nil {
		t.err = err
	}
	t.next = next
	t.wakes++
	t.view()
}

// check fails tb unless every wake ran exactly one step and published a
// snapshot of n bodies that the render side acquired.
func (t *ticker) check(tb testing.TB, n int) {
	tb.Helper()
	if t.err != nil {
		tb.Fatal(t.err)
	}
	st := t.sim.Telemetry().Read()
	if st.Ticks != t.wakes || st.StepsPerWake[1] != t.wakes || st.Wakes != t.wakes {
		tb.Fatalf("%d wakes ran %d ticks (%d wakes of one step)", t.wakes, st.Ticks, st.StepsPerWake[1])
	}
	view := t.sim.Snapshots()
	if view.Acquired() != t.wakes+1 || view.History(0).Tick != t.wakes || len(view.History(0).Bodies) != n {
		tb.Fatalf("acquired %d snapshots, newest tick %d with %d bodies; want %d, tick %d with %d",
			view.Acquired(), view.History(0).Tick, len(view.History(0).Bodies), t.wakes+1, t.wakes, n)
	}
}

func newWorld(tb testing.TB, n int) *swarm {
	tb.Helper()
	return newSwarm(n, 1)
}

func BenchmarkTick(b *testing.B) {
	for _, size := range benchSizes {
		n := size.n
		name := "bodies=" + size.name + "/part="
		b.Run(name+"step", func(b *testing.B) {
			w := newWorld(b, n)
			dt := 1.0 / simthread.DefaultRate
			b.SetBytes(int64(n * bodyBytes))
			b.ReportAllocs()
			var tick uint64
			for b.Loop() {
				tick++
				w.Step(tick, dt, nil)
			}
		})
		b.Run(name+"publish", func(b *testing.B) {
			t := newTicker(b, snapshotOnly{newWorld(b, n)}, n)
			b.SetBytes(int64(n * bodyBytes))
			b.ReportAllocs()
			for b.Loop() {
				t.wake()
			}
			b.StopTimer()
			t.check(b, n)
		})
		b.Run(name+"copy", func(b *testing.B) {
			var snap simthread.Snapshot
			newWorld(b, n).Snapshot(&snap)
			src, dst := snap.Bodies, make([]simthread.Body, n)
			b.SetBytes(int64(n * bodyBytes))
			b.ReportAllocs()
			for b.Loop() {
				copy(dst, src)
			}
			if dst[n-1] != src[n-1] {
				b.Fatal("copy did not copy")
			}
		})
		b.Run(name+"tick", func(b *testing.B) {
			t := newTicker(b, newWorld(b, n), n)
			b.SetBytes(int64(n * bodyBytes))
			b.ReportAllocs()
			for b.Loop() {
				t.wake()
			}
			b.StopTimer()
			t.check(b, n)
		})
	}
}

// TestTickDoesNotAllocateAtScale checks that with pre-sized snapshot slots
// (Config.InitSnapshot) a wake that steps the swarm world once,
// publishes and is acquired allocates nothing, at every benchmarked size,
// from the first tick on: no warm-up fills the slots first. Each wake is
// counted on its own, since AllocsPerRun's average over many runs rounds a
// few allocations down to zero.
func TestTickDoesNotAllocateAtScale(t *testing.T) {
	runs := map[int]int{1_000: 40, 10_000: 12, 100_000: 6} // measured wakes; each also runs one unmeasured
	for _, size := range benchSizes {
		n := size.n
		t.Run(fmt.Sprintf("bodies=%s", size.name), func(t *testing.T) {
			tk := newTicker(t, newWorld(t, n), n)
			for i := range runs[n] {
				if a := testing.AllocsPerRun(1, tk.wake); a != 0 {
					t.Fatalf("wake %d allocates %.0f times", 2*i+2, a)
				}
			}
			tk.check(t, n)
		})
	}
}
