package sim

import (
	"context"
	"sort"
	"sync"
	"time"
)

// Clock is the time source the simulation and the renderer share. Times are
// durations since the clock's origin on a monotonic timeline: they never go
// backwards and do not jump when the wall clock is set.
type Clock interface {
	// Now reports the current time.
	Now() time.Duration
	// SleepUntil blocks until Now() >= t or ctx is done, and returns
	// ctx.Err() in the second case.
	SleepUntil(ctx context.Context, t time.Duration) error
}

// RealClock reads the operating system's most precise monotonic clock
// (ClockSource names it).
type RealClock struct {
	origin time.Duration // monotonic() at creation
	spin   time.Duration
}

// DefaultSpin is how long before a deadline RealClock stops sleeping and
// spins. Go's timers here wake about 150 µs late on average and up to about
// 300 µs late; spinning the last 300 µs makes wake-ups punctual for about
// 3.6 % of one core at 120 Hz.
const DefaultSpin = 300 * time.Microsecond

// NewRealClock returns a monotonic clock whose origin is now. SleepUntil
// sleeps until spin before the deadline and spins on the clock for the rest;
// spin = 0 only sleeps.
func NewRealClock(spin time.Duration) *RealClock {
	return &RealClock{origin: monotonic(), spin: max(spin, 0)}
}

// Now reports the time since the clock's origin.
func (c *RealClock) Now() time.Duration { return monotonic() - c.origin }

// timers recycles sleep timers, so that a steady-state SleepUntil
// allocates nothing whichever goroutines share the clock: a timer is made
// only when all are in use, so there are never more than sleepers at once.
// (A sync.Pool would drop them at every GC and miss across Ps.)
var timers = make(chan *time.Timer, 16)

func getTimer(d time.Duration) *time.Timer {
	select {
	case t := <-timers:
		t.Reset(d) // since Go 1.23 a stopped timer's channel is empty
		return t
	default:
		return time.NewTimer(d)
	}
}

func putTimer(t *time.Timer) {
	t.Stop()
	select {
	case timers <- t:
	default:
	}
}

// SleepUntil sleeps until t, spinning the last part; see NewRealClock. It
// returns as soon as ctx is done (within sleepChunk when sleeping in the
// kernel).
//
// On Linux it sleeps in the kernel (nanosleep) rather than on a Go timer,
// and on Windows on a high-resolution waitable timer (sleep_windows.go).
// A Go timer is fired by whichever thread runs the scheduler next: when
// every other goroutine of the process is busy, that can be 10 ms or more
// late, whatever the sleeping thread's priority. A thread asleep in the
// kernel is woken by the kernel on time and, being runnable at its own
// priority, runs at once; it then needs an idle P to go on running Go code,
// which package platform/sched keeps available. The cost: the sleeping
// goroutine holds its OS thread (the simulation's and the render thread's
// are locked to theirs anyway).
func (c *RealClock) SleepUntil(ctx context.Context, t time.Duration) error {
	for {
		d := t - c.Now() - c.spin
		if d <= 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if kernelSleep(min(d, sleepChunk)) {
			continue
		}
		// No kernel sleep here: a recycled Go timer.
		timer := getTimer(d)
		select {
		case <-ctx.Done():
			putTimer(timer)
			return ctx.Err()
		case <-timer.C:
		}
		putTimer(timer)
		break
	}
	for c.Now() < t {
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// sleepChunk bounds one kernel sleep, so that a cancelled context is
// noticed within it.
const sleepChunk = 10 * time.Millisecond

// VirtualClock is a Clock whose time moves only when told to, for
// deterministic tests and for the verifier. All methods are safe for
// concurrent use. Its zero value starts at time 0 and is ready to use.
type VirtualClock struct {
	mu       sync.Mutex
	now      time.Duration
	sleepers []*sleeper
	changed  chan struct{} // closed and replaced when sleepers change
}

type sleeper struct {
	until time.Duration
	wake  chan struct{}
}

// Now reports the virtual time.
func (c *VirtualClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the virtual time to t (never backwards) and wakes every sleeper
// whose deadline has come.
func (c *VirtualClock) Set(t time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t > c.now {
		c.now = t
	}
	kept := c.sleepers[:0]
	for _, s := range c.sleepers {
		if s.until <= c.now {
			close(s.wake)
		} else {
			kept = append(kept, s)
		}
	}
	clear(c.sleepers[len(kept):])
	c.sleepers = kept
	c.notifyLocked()
}

// Advance moves the virtual time forward by d; see Set.
func (c *VirtualClock) Advance(d time.Duration) { c.Set(c.Now() + d) }

// SleepUntil blocks until the virtual time reaches t or ctx is done.
func (c *VirtualClock) SleepUntil(ctx context.Context, t time.Duration) error {
	c.mu.Lock()
	if t <= c.now {
		c.mu.Unlock()
		return ctx.Err()
	}
	s := &sleeper{until: t, wake: make(chan struct{})}
	c.sleepers = append(c.sleepers, s)
	c.notifyLocked()
	c.mu.Unlock()
	select {
	case <-s.wake:
		return ctx.Err()
	case <-ctx.Done():
		c.mu.Lock()
		for i, x := range c.sleepers {
			if x == s {
				c.sleepers = append(c.sleepers[:i], c.sleepers[i+1:]...)
				break
			}
		}
		c.notifyLocked()
		c.mu.Unlock()
		return ctx.Err()
	}
}

func (c *VirtualClock) notifyLocked() {
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
}

// deadlines reports the deadlines of the goroutines now sleeping, earliest
// first.
func (c *VirtualClock) deadlines() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := make([]time.Duration, len(c.sleepers))
	for i, s := range c.sleepers {
		d[i] = s.until
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d
}

// WaitSleepers blocks until at least n goroutines are sleeping on the clock
// or ctx is done, and returns their deadlines, earliest first. Tests use it
// to know that the code under test has done all it can at the current time.
func (c *VirtualClock) WaitSleepers(ctx context.Context, n int) ([]time.Duration, error) {
	for {
		c.mu.Lock()
		if len(c.sleepers) >= n {
			c.mu.Unlock()
			return c.deadlines(), nil
		}
		if c.changed == nil {
			c.changed = make(chan struct{})
		}
		ch := c.changed
		c.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
