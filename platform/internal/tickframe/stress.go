package tickframe

import (
	"context"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/simthread"
)

// load runs the stress goroutines; stop ends them and waits.
type load struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startLoad starts n goroutines of busy work (labelled loop=stress in
// profiles) and, if mbPerSec > 0, one goroutine allocating that much
// garbage per second (loop=gcpressure).
func startLoad(ctx context.Context, n int, mbPerSec float64) *load {
	ctx, cancel := context.WithCancel(ctx)
	l := &load{cancel: cancel}
	for i := 0; i < n; i++ {
		l.wg.Add(1)
		go pprof.Do(ctx, pprof.Labels("loop", "stress"), func(ctx context.Context) {
			defer l.wg.Done()
			busy(ctx)
		})
	}
	if mbPerSec > 0 {
		l.wg.Add(1)
		go pprof.Do(ctx, pprof.Labels("loop", "gcpressure"), func(ctx context.Context) {
			defer l.wg.Done()
			garbage(ctx, mbPerSec)
		})
	}
	return l
}

func (l *load) stop() {
	l.cancel()
	l.wg.Wait()
}

// sink keeps the busy loops' results alive so the compiler cannot drop them.
var sink atomic.Uint64

// busy burns CPU in slices of about a millisecond until ctx is done.
func busy(ctx context.Context) {
	x := uint64(88172645463325252)
	for ctx.Err() == nil {
		for i := 0; i < 200000; i++ { // xorshift: about 1 ms here
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
		}
	}
	sink.Add(x)
}

// garbage allocates mbPerSec megabytes of short-lived 1 KiB objects per
// second, in 10 ms batches, keeping only the last batch reachable.
func garbage(ctx context.Context, mbPerSec float64) {
	const batch = 10 * time.Millisecond
	perBatch := int(mbPerSec * 1e6 * batch.Seconds() / 1024)
	perBatch = max(perBatch, 1)
	keep := make([][]byte, perBatch)
	tick := time.NewTicker(batch)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		for i := range keep {
			keep[i] = make([]byte, 1024)
		}
	}
}

// costlyWorld adds a fixed amount of busy work to every step of the
// reference world, to push the simulation past its budget.
type costlyWorld struct {
	*refworld.World
	cost time.Duration
}

func (w *costlyWorld) Step(tick uint64, dt float64, inputs []simthread.Input) {
	for start := time.Now(); time.Since(start) < w.cost; {
	}
	w.World.Step(tick, dt, inputs)
}
