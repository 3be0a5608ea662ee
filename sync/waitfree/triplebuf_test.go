package waitfree_test

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tickframe/tickframe/sync/waitfree"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestNewRejectsBadHistory(t *testing.T) {
	for _, h := range []int{-1, 0, waitfree.MaxHistory + 1} {
		if _, _, err := waitfree.NewTripleBuffer[int](h, nil); err == nil {
			t.Errorf("New(%d) = nil error, want one", h)
		}
	}
}

func TestInitRunsOnEverySlot(t *testing.T) {
	calls := 0
	p, c, err := waitfree.NewTripleBuffer(3, func(s *[]int) { calls++; *s = make([]int, 0, 16) })
	if err != nil {
		t.Fatal(err)
	}
	if calls != 5 {
		t.Fatalf("init called %d times, want history+2 = 5", calls)
	}
	for i := 0; i < 10; i++ {
		*p.Slot() = append((*p.Slot())[:0], i)
		p.Publish()
		c.Acquire()
		if got := *c.History(0); cap(got) != 16 || got[0] != i {
			t.Fatalf("acquire %d: got %v cap %d", i, got, cap(got))
		}
	}
}

// model is the reference behaviour: the newest published value, whether the
// consumer has seen it, and the consumer's history newest first.
type model struct {
	latest      int
	fresh       bool
	history     []int
	depth       int
	overwritten uint64
}

func (m *model) publish(v int) {
	if m.fresh {
		m.overwritten++
	}
	m.latest, m.fresh = v, true
}

func (m *model) acquire() bool {
	if !m.fresh {
		return false
	}
	m.fresh = false
	m.history = append([]int{m.latest}, m.history...)
	if len(m.history) > m.depth {
		m.history = m.history[:m.depth]
	}
	return true
}

// runModel interprets ops as a sequence of publishes (even bytes) and
// acquires (odd bytes) and checks the buffer against the model after each.
func runModel(t *testing.T, depth int, ops []byte) {
	t.Helper()
	p, c, err := waitfree.NewTripleBuffer[int](depth, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := &model{depth: depth}
	next := 1
	for i, op := range ops {
		if op%2 == 0 {
			*p.Slot() = next
			p.Publish()
			m.publish(next)
			next++
		} else {
			got, want := c.Acquire(), m.acquire()
			if got != want {
				t.Fatalf("op %d: Acquire() = %v, model says %v", i, got, want)
			}
		}
		if c.Len() != len(m.history) {
			t.Fatalf("op %d: Len() = %d, model has %d", i, c.Len(), len(m.history))
		}
		for j, want := range m.history {
			if got := *c.History(j); got != want {
				t.Fatalf("op %d: History(%d) = %d, want %d (model %v)", i, j, got, want, m.history)
			}
		}
		if c.History(len(m.history)) != nil || c.History(-1) != nil {
			t.Fatalf("op %d: History out of range is not nil", i)
		}
		if p.Overwritten() != m.overwritten {
			t.Fatalf("op %d: Overwritten() = %d, want %d", i, p.Overwritten(), m.overwritten)
		}
	}
}

func TestModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for depth := 1; depth <= 6; depth++ {
		for run := 0; run < 200; run++ {
			ops := make([]byte, rng.IntN(64))
			for i := range ops {
				ops[i] = byte(rng.IntN(256))
			}
			runModel(t, depth, ops)
		}
	}
}

func FuzzModel(f *testing.F) {
	f.Add(uint8(3), []byte{0, 1, 0, 0, 1, 1, 0, 1})
	f.Add(uint8(1), []byte{1, 0, 0, 0, 1})
	f.Add(uint8(4), []byte{0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1})
	f.Fuzz(func(t *testing.T, depth uint8, ops []byte) {
		runModel(t, int(depth%8)+1, ops)
	})
}

func TestLockstepGetsExactlyTheNewest(t *testing.T) {
	p, c, _ := waitfree.NewTripleBuffer[uint64](3, nil)
	if c.Acquire() {
		t.Fatal("Acquire on an empty buffer reported a value")
	}
	for v := uint64(1); v <= 1000; v++ {
		// Publish a burst of k values; the consumer must get the last.
		k := v%4 + 1
		for j := uint64(0); j < k; j++ {
			*p.Slot() = v*10 + j
			p.Publish()
		}
		if !c.Acquire() {
			t.Fatalf("value %d: Acquire reported nothing new", v)
		}
		if got, want := *c.History(0), v*10+k-1; got != want {
			t.Fatalf("got %d, want the newest %d", got, want)
		}
		if c.Acquire() {
			t.Fatalf("value %d: second Acquire reported something new", v)
		}
	}
}

// payload is large enough that a torn read would show as disagreeing words.
type payload struct {
	tick  uint64
	words [2048]uint64
}

func fill(p *payload, tick uint64) {
	p.tick = tick
	for i := range p.words {
		p.words[i] = tick
	}
}

func check(p *payload) (uint64, bool) {
	for _, w := range p.words {
		if w != p.tick {
			return w, false
		}
	}
	return 0, true
}

// TestConcurrentNoTornReadsMonotonic runs a producer and a consumer flat out
// and checks that every acquired value is whole, that ticks never go
// backwards, and that every history entry is still intact after the consumer
// has "rendered" with it. Run it with -race and -cpu 1,2,4.
func TestConcurrentNoTornReadsMonotonic(t *testing.T) {
	const depth = 4
	n := uint64(20000)
	if testing.Short() {
		n = 2000
	}
	p, c, _ := waitfree.NewTripleBuffer[payload](depth, nil)
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer done.Store(true)
		for tick := uint64(1); tick <= n; tick++ {
			fill(p.Slot(), tick)
			p.Publish()
			if tick%64 == 0 {
				runtime.Gosched()
			}
		}
	}()

	var last, acquired uint64
	for {
		finished := done.Load()
		if c.Acquire() {
			acquired++
			s := c.History(0)
			if w, ok := check(s); !ok {
				t.Fatalf("torn read: tick %d holds word %d", s.tick, w)
			}
			if s.tick <= last {
				t.Fatalf("tick went from %d to %d", last, s.tick)
			}
			last = s.tick
			// "Render" with the whole history, then check nothing moved.
			for i := 0; i < c.Len(); i++ {
				h := c.History(i)
				if w, ok := check(h); !ok {
					t.Fatalf("history %d (tick %d) changed under the consumer: word %d", i, h.tick, w)
				}
				if i > 0 && h.tick >= c.History(i-1).tick {
					t.Fatalf("history not newest first: %d then %d", c.History(i-1).tick, h.tick)
				}
			}
		} else if finished {
			break
		} else {
			runtime.Gosched() // nothing new: let the producer run (GOMAXPROCS=1)
		}
	}
	wg.Wait()
	if last != n {
		t.Fatalf("last acquired tick %d, want the last published %d", last, n)
	}
	if got := acquired + p.Overwritten(); got != n {
		t.Fatalf("acquired %d + overwritten %d = %d, want every published value accounted for (%d)",
			acquired, p.Overwritten(), got, n)
	}
}

func TestZeroAllocs(t *testing.T) {
	p, c, _ := waitfree.NewTripleBuffer[payload](3, nil)
	tick := uint64(0)
	if a := testing.AllocsPerRun(1000, func() {
		tick++
		p.Slot().tick = tick
		p.Publish()
		c.Acquire()
		c.Acquire()
		_ = c.History(0)
	}); a != 0 {
		t.Fatalf("publish+acquire allocates %.1f times per run, want 0", a)
	}
}
