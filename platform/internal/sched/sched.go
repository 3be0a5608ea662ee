package sched

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// Config configures the scheduling design. Its zero value means the
// defaults.
type Config struct {
	// Headroom is how many Ps the governor keeps beyond the goroutines
	// that want to run: 0 means 2 (a simulation and a render thread),
	// -1 leaves GOMAXPROCS alone.
	Headroom int
	// MaxProcs caps GOMAXPROCS: 0 means 8×NumCPU + Headroom, at least 32.
	MaxProcs int
	// Interval is how often the governor samples the scheduler: 0 means
	// 20 ms, a couple of busy goroutines' time slices.
	Interval time.Duration
	// FallAfter is how long demand must stay lower before GOMAXPROCS
	// falls by one: 0 means 30 s. Every change stops the world, so it
	// rises at once but falls rarely.
	FallAfter time.Duration
	// SweepEvery is how often threads are moved to BackgroundNice: 0
	// means 250 ms (Go creates threads rarely; each sweep reads
	// /proc/self/task).
	SweepEvery time.Duration
	// CriticalNice is the nice value asked for critical threads: 0 means
	// -10; 1 or more means none is asked (they keep nice 0).
	CriticalNice int
	// BackgroundNice is the nice value of the process's other busy
	// threads that carry Go code, and of those registered with
	// BackgroundThread: 0 means BackgroundGap above the least raised critical
	// thread that asked for a priority (5 when the render thread got −5,
	// 10 when the critical threads kept nice 0), and none when they all
	// got real-time scheduling (CriticalRT); -1 means they are left
	// alone.
	BackgroundNice int
	// CriticalSlice is the time slice asked for critical threads from
	// Linux's EEVDF scheduler (6.12 and later; no privilege needed): a
	// thread waking with a shorter slice than the one running preempts it
	// at once, instead of waiting up to the running thread's whole slice
	// (0.7 ms × (1 + log2 CPUs) by default: 1.4 ms on two cores). Threads
	// a critical thread creates afterwards (a GL driver's workers) inherit
	// it. 0 means 300 µs; -1 means none is asked. The kernel accepts 100 µs
	// to 100 ms.
	CriticalSlice time.Duration
	// CriticalRT, from 1 to 99, asks for real-time round-robin scheduling
	// (SCHED_RR) at that priority for critical threads, and for the
	// threads they start afterwards (a GL driver's workers): they then
	// run whenever they are ready, ahead of every ordinary thread of the
	// machine. It needs CAP_SYS_NICE or an RLIMIT_RTPRIO allowing it;
	// denied, the thread keeps its nice value and slice. 0 (the default)
	// asks none: where rendering is the CPU's work (a software
	// rasterizer), a real-time render thread and its workers can take
	// 95 % of every core from the rest of the desktop.
	CriticalRT int
	// Broker says whether a raise the kernel denies (no CAP_SYS_NICE, no
	// RLIMIT_NICE or RLIMIT_RTPRIO allowing it: an ordinary desktop user)
	// is asked of a broker, as desktop programs get theirs: the xdg
	// desktop portal's Realtime interface (org.freedesktop.portal.Realtime,
	// session bus) first, then RealtimeKit (org.freedesktop.RealtimeKit1,
	// system bus), whose polkit rules decide. 0 (the default) asks; -1
	// never does. The broker grants CriticalNice no lower than its
	// MinNiceLevel (RealtimeKit's default −15) and sets
	// SCHED_RESET_ON_FORK on the thread, so threads it starts afterwards
	// (a driver's workers) begin at nice 0.
	Broker int
	// BrokerRT is the SCHED_RR priority asked of the broker for a critical
	// thread when the kernel denies real-time scheduling: 0 means
	// CriticalRT (if set), n ≥ 1 asks n even when CriticalRT is 0 (real
	// time only where a broker bounds it), -1 asks none (the thread asks
	// for CriticalNice only: for a thread that may run long without
	// blocking, such as a render thread compiling shaders). Capped at the
	// broker's MaxRealtimePriority (RealtimeKit's default 20). Before
	// asking, the process's RLIMIT_RTTIME is lowered to the broker's
	// RTTimeUSecMax (200 ms by default), its soft limit to an eighth: every
	// real-time thread of the process (a C library's too) gets SIGXCPU
	// when it runs that long without blocking, and on SIGXCPU the
	// brokered threads are made ordinary again (ThreadPriority.RT
	// "demoted") before the kernel would kill the process.
	BrokerRT int
}

func (c Config) withDefaults() Config {
	if c.Headroom == 0 {
		c.Headroom = 2
	}
	if c.MaxProcs == 0 {
		c.MaxProcs = max(8*runtime.NumCPU()+max(c.Headroom, 0), 32)
	}
	if c.Interval == 0 {
		c.Interval = 20 * time.Millisecond
	}
	if c.FallAfter == 0 {
		c.FallAfter = 30 * time.Second
	}
	if c.SweepEvery == 0 {
		c.SweepEvery = 250 * time.Millisecond
	}
	if c.CriticalNice == 0 {
		c.CriticalNice = -10
	}
	if c.CriticalSlice == 0 {
		c.CriticalSlice = 300 * time.Microsecond
	}
	return c
}

// Validate reports the first setting out of range.
func (c Config) Validate() error {
	switch {
	case c.Headroom < -1:
		return fmt.Errorf("sched: headroom %d out of range (-1 for off)", c.Headroom)
	case c.MaxProcs < 0:
		return fmt.Errorf("sched: negative GOMAXPROCS cap %d", c.MaxProcs)
	case c.Interval < 0 || c.FallAfter < 0 || c.SweepEvery < 0:
		return errors.New("sched: negative interval")
	case c.CriticalNice < -20 || c.CriticalNice > 19:
		return fmt.Errorf("sched: critical nice %d out of range [-20, 19]", c.CriticalNice)
	case c.BackgroundNice < -1 || c.BackgroundNice > 19:
		return fmt.Errorf("sched: background nice %d out of range [1, 19] (or 0 for automatic, -1 for off)", c.BackgroundNice)
	case c.CriticalRT < 0 || c.CriticalRT > 99:
		return fmt.Errorf("sched: real-time priority %d out of range [1, 99] (or 0 for none)", c.CriticalRT)
	case c.BrokerRT < -1 || c.BrokerRT > 99:
		return fmt.Errorf("sched: broker real-time priority %d out of range [1, 99] (or 0 for CriticalRT, -1 for none)", c.BrokerRT)
	case c.Broker < -1 || c.Broker > 0:
		return fmt.Errorf("sched: broker %d out of range (0 to ask, -1 never)", c.Broker)
	case c.CriticalSlice != 0 && c.CriticalSlice != -1 && (c.CriticalSlice < MinSlice || c.CriticalSlice > MaxSlice):
		return fmt.Errorf("sched: critical slice %v out of range [%v, %v] (or -1 for off)", c.CriticalSlice, MinSlice, MaxSlice)
	}
	return nil
}

// BackgroundGap is how many nice levels the busy background threads sit
// below the least raised critical thread by default: a CPU weight about 9
// times smaller. Measured on two cores under Xvfb (see the README): a
// smaller gap (5) let eight busy goroutines slow the frame when the
// critical threads could not be raised; a larger one (15, and nice 10
// below a render thread at −5) starved the background threads against
// other processes' load, and every stop of the world by the garbage
// collector waited for them: the simulation then woke 15 ms late at p99,
// against 3.6 ms.
const BackgroundGap = 10

// backgroundNice is the nice value busy threads are moved to: the
// configured one, or (0) BackgroundGap above the least raised critical
// thread registered now that asked for a priority, within [1, 19], or -1
// (none) when all of those got real-time scheduling; -1: none.
func (c Config) backgroundNice() int {
	if c.BackgroundNice != 0 {
		return c.BackgroundNice
	}
	base := 0
	global.Lock()
	first, allRT := true, true
	for _, tp := range global.critical {
		if tp.How != "raised" && tp.How != "denied" && tp.How != "rtkit" && tp.How != "portal" {
			continue
		}
		if first || tp.Nice > base {
			base, first = tp.Nice, false
		}
		allRT = allRT && (tp.RT == "set" || tp.RT == "rtkit" || tp.RT == "portal")
	}
	global.Unlock()
	if !first && allRT {
		// Real-time threads run ahead of every ordinary one whatever its
		// nice value: lowering the busy ones would only starve them
		// against other processes, and stall the stops of the world that
		// wait for them.
		return -1
	}
	return min(max(base+BackgroundGap, 1), 19)
}

// The time slices Linux accepts for a thread (sched_setattr's
// sched_runtime for SCHED_OTHER).
const (
	MinSlice = 100 * time.Microsecond
	MaxSlice = 100 * time.Millisecond
)

// ThreadPriority is the priority a critical thread asked for and got.
type ThreadPriority struct {
	Name string `json:"name"`
	TID  int    `json:"tid"`
	// Nice is the thread's nice value as read back after the request.
	Nice int `json:"nice"`
	// How is "raised" (CriticalNice granted by the kernel), "rtkit" or
	// "portal" (denied by the kernel, granted by that broker: Config.Broker,
	// and read back), "denied" (no privilege and no broker: the thread
	// keeps Nice), "not asked" (CriticalNice ≥ 1) or "unsupported" (not
	// Linux).
	How string `json:"how"`
	// Err is why a raise was denied, "" otherwise.
	Err string `json:"error,omitempty"`
	// SliceUS is the thread's EEVDF time slice in µs as read back after
	// the request (Config.CriticalSlice), 0 where the kernel has none.
	SliceUS float64 `json:"slice_us"`
	// Slice is "set" (the kernel took CriticalSlice), "unsupported" (a
	// kernel before 6.12, or not Linux), "refused" (SliceErr says why) or
	// "not asked" (CriticalSlice -1).
	Slice    string `json:"slice"`
	SliceErr string `json:"slice_error,omitempty"`
	// RTPriority is the thread's SCHED_RR priority as read back (0: an
	// ordinary thread), RT "set" (by the kernel), "rtkit" or "portal"
	// (granted by that broker, Config.BrokerRT, and read back), "demoted"
	// (brokered, then made ordinary on SIGXCPU: Criticals shows it),
	// "denied" (RTErr says why) or "" (none asked).
	RTPriority int    `json:"rt_priority"`
	RT         string `json:"rt,omitempty"`
	RTErr      string `json:"rt_error,omitempty"`
	// BrokerErr is why the brokers asked did not grant what was asked of
	// them, one "name: reason" each ("portal: no session bus; rtkit:
	// org.freedesktop.DBus.Error.AccessDenied: ..."), "" when none was
	// asked or one granted it.
	BrokerErr string `json:"broker_error,omitempty"`
}

// Stats are the governor's counters.
type Stats struct {
	// GOMAXPROCS as the governor set it (its last setting, after Stop),
	// the largest it was set to, and how often it changed.
	Procs, MaxProcs, Changes int
	// BackgroundNice is the nice value the last sweep moved busy threads
	// to (-1: none is moved).
	BackgroundNice int
	// Reniced counts the threads moved to BackgroundNice.
	Reniced int
	// RenicedFailed counts the threads that could not be (they exited
	// first, or the system refused).
	RenicedFailed int
	// Allocs counts the heap objects allocated while the governor changed
	// GOMAXPROCS: the runtime allocates a P's state the first time the
	// count reaches it. Subtract it from the process's allocations to see
	// the application's own.
	Allocs uint64
}

// Governor runs the scheduling design for the process. Create it with
// Start; Stop ends it. Its methods are safe for concurrent use.
type Governor struct {
	cfg    Config
	cancel context.CancelFunc
	done   chan struct{}
	procs0 int // GOMAXPROCS at Start, put back by Stop

	mu        sync.Mutex
	critical  map[int]ThreadPriority // by TID
	stats     Stats
	lastHigh  time.Time // when demand last called for the current level
	samples   [2]metrics.Sample
	allocs    [1]metrics.Sample
	sweeper   sweeper
	lastSweep time.Time
}

// global is the process's registry of critical threads: Critical may be
// called before Start, and every Governor spares them.
var global struct {
	sync.Mutex
	critical map[int]ThreadPriority
}

// Critical locks the calling goroutine to its OS thread, registers that
// thread as critical (the governor never lowers its priority) and asks
// for Config.CriticalNice on it (cfg as given to Start; pass the same).
// It returns what the thread got and a function that unregisters it. The
// goroutine stays locked: when it exits, its thread exits with it, so no
// other goroutine ever runs at the thread's raised priority.
func Critical(name string, cfg Config) (ThreadPriority, func()) {
	runtime.LockOSThread()
	return critical(raise(name, cfg.withDefaults().CriticalNice), cfg)
}

// critical asks for the rest of cfg's priorities on the thread tp was
// raised on, and registers it.
func critical(tp ThreadPriority, cfg Config) (ThreadPriority, func()) {
	cfg = cfg.withDefaults()
	brokerNice(&tp, cfg)
	// After the broker's answer: RealtimeKit's sched_setscheduler resets
	// the slice.
	shorten(&tp, cfg.CriticalSlice)
	realtime(&tp, cfg.CriticalRT)
	brokerRT(&tp, cfg)
	brokered := tp.RT == "rtkit" || tp.RT == "portal"
	if brokered {
		brokered = guardRT(&tp)
	}
	global.Lock()
	if global.critical == nil {
		global.critical = map[int]ThreadPriority{}
	}
	global.critical[tp.TID] = tp
	global.Unlock()
	return tp, func() {
		if brokered {
			unwatchXCPU(tp.TID)
		}
		global.Lock()
		delete(global.critical, tp.TID)
		global.Unlock()
	}
}

// Criticals returns the critical threads registered now, by name.
func Criticals() map[string]ThreadPriority {
	global.Lock()
	defer global.Unlock()
	out := make(map[string]ThreadPriority, len(global.critical))
	for _, tp := range global.critical {
		out[tp.Name] = tp
	}
	return out
}

// CriticalNamed returns the critical thread registered now as name, if
// any. It does not allocate (Criticals builds a map): the simulation
// reads its own back as it stops, which a run's steady state counts.
func CriticalNamed(name string) (ThreadPriority, bool) {
	global.Lock()
	defer global.Unlock()
	for _, tp := range global.critical {
		if tp.Name == name {
			return tp, true
		}
	}
	return ThreadPriority{}, false
}

func isCritical(tid int) bool {
	global.Lock()
	defer global.Unlock()
	_, ok := global.critical[tid]
	return ok
}

// Start validates cfg and starts the governor on a goroutine of its own.
func Start(cfg Config) (*Governor, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	g := &Governor{cfg: cfg, cancel: cancel, done: make(chan struct{}), lastHigh: time.Now()}
	g.samples[0].Name = "/sched/goroutines/running:goroutines"
	g.samples[1].Name = "/sched/goroutines/runnable:goroutines"
	g.allocs[0].Name = "/gc/heap/allocs:objects"
	p := runtime.GOMAXPROCS(0)
	g.procs0 = p
	g.stats.Procs, g.stats.MaxProcs = p, p
	g.stats.BackgroundNice = -1
	if cfg.BackgroundNice >= 0 {
		g.stats.BackgroundNice = cfg.backgroundNice()
	}
	ready := make(chan struct{})
	go g.loop(ctx, ready)
	<-ready
	return g, nil
}

// Stop ends the governor and waits for it, and puts GOMAXPROCS back to
// what it was at Start where the governor managed it (the process's
// setting outlives the app). The threads' priorities stay as they are.
func (g *Governor) Stop() {
	g.cancel()
	<-g.done
	if g.cfg.Headroom >= 0 {
		runtime.GOMAXPROCS(g.procs0)
	}
}

// Stats returns the governor's counters.
func (g *Governor) Stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stats
}

// Config returns the configuration with defaults filled in.
func (g *Governor) Config() Config { return g.cfg }

// loop runs the governor on a thread of its own, registered critical
// and left at nice 0: it changes GOMAXPROCS, which stops the world, and a
// world stopped by a thread at background priority stays stopped while
// that thread waits for a CPU, critical threads included (priority
// inversion).
func (g *Governor) loop(ctx context.Context, ready chan<- struct{}) {
	defer close(g.done)
	_, unregister := Critical("sched-governor", Config{CriticalNice: 1})
	defer unregister()
	g.tick(true) // apply at once: the first interval counts too
	close(ready)
	sweep := time.Now()
	g.lastSweep = sweep
	// A sleep, not a ticker in a select: a goroutine parked in a select
	// takes a sudog from its P's cache, and a P that GOMAXPROCS has just
	// added has none, so the runtime allocates one, over and over in a
	// long run; a sleep parks on the goroutine's own timer. Stop waits at
	// most an Interval for the loop to see the context.
	next := sweep
	for {
		next = next.Add(g.cfg.Interval)
		time.Sleep(time.Until(next))
		if ctx.Err() != nil {
			return
		}
		now := time.Now()
		if now.Sub(next) > g.cfg.Interval {
			next = now // woke a whole interval late: no burst of ticks to catch up
		}
		due := now.Sub(sweep) >= g.cfg.SweepEvery
		if due {
			sweep = now
		}
		g.tick(due)
	}
}

// tick samples the scheduler, adjusts GOMAXPROCS and, when sweep is set,
// renices new threads.
func (g *Governor) tick(sweep bool) {
	if g.cfg.Headroom >= 0 {
		metrics.Read(g.samples[:])
		running, runnable := uint64Of(g.samples[0]), uint64Of(g.samples[1])
		g.adjust(int(running+runnable), time.Now())
	}
	if !sweep {
		return
	}
	n := g.cfg.backgroundNice()
	if n <= 0 {
		g.mu.Lock()
		g.stats.BackgroundNice = -1
		g.mu.Unlock()
		return
	}
	now := time.Now()
	var since float64
	if !g.lastSweep.IsZero() {
		since = now.Sub(g.lastSweep).Seconds()
	}
	g.lastSweep = now
	ok, failed := g.sweeper.reniceBusy(n, isCritical, since)
	g.mu.Lock()
	g.stats.BackgroundNice = n
	g.stats.Reniced += ok
	g.stats.RenicedFailed += failed
	g.mu.Unlock()
}

// adjust sets GOMAXPROCS for demand goroutines wanting to run at time now.
func (g *Governor) adjust(demand int, now time.Time) {
	want := g.Want(demand)
	g.mu.Lock()
	defer g.mu.Unlock()
	cur := g.stats.Procs
	switch {
	case want > cur:
		g.lastHigh = now
	case want < cur && now.Sub(g.lastHigh) >= g.cfg.FallAfter:
		// Fall one step at a time, each after FallAfter of lower demand.
		want = max(want, cur-1)
		g.lastHigh = now
	default:
		if want == cur {
			g.lastHigh = now
		}
		return
	}
	metrics.Read(g.allocs[:])
	before := uint64Of(g.allocs[0])
	runtime.GOMAXPROCS(want)
	metrics.Read(g.allocs[:])
	g.stats.Allocs += uint64Of(g.allocs[0]) - before
	g.stats.Procs = want
	g.stats.MaxProcs = max(g.stats.MaxProcs, want)
	g.stats.Changes++
}

// Want returns the GOMAXPROCS the governor aims at when demand goroutines
// want to run: demand plus the headroom, within [NumCPU, MaxProcs].
func (g *Governor) Want(demand int) int {
	return min(max(demand+g.cfg.Headroom, runtime.NumCPU()), g.cfg.MaxProcs)
}

func uint64Of(s metrics.Sample) uint64 {
	if s.Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s.Value.Uint64()
}

// Go runs fn on a new goroutine locked to an OS thread of its own at
// Config.BackgroundNice (by default BackgroundGap below the critical
// threads), and discards that thread when fn
// returns, so that no other goroutine ever runs at its priority. Use it
// for long background work that must yield to the frame and the
// simulation. The returned channel is closed when fn has returned.
func Go(cfg Config, fn func()) <-chan struct{} {
	cfg = cfg.withDefaults()
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		// Never unlocked: the thread exits with the goroutine.
		if n := cfg.backgroundNice(); n > 0 {
			lower(n)
		}
		fn()
	}()
	return done
}

// background is the process's registry of threads Go did not create that
// the application registered as background (BackgroundThread).
var background struct {
	sync.Mutex
	tids map[int]bool
}

func isBackground(tid int) bool {
	background.Lock()
	defer background.Unlock()
	return background.tids[tid]
}

// BackgroundThread registers thread tid of this process, one Go did not
// create (a C library's worker, whose id it can give with gettid), as
// background: the governor's sweep then moves it to the background nice
// value whenever it is busy, as it moves Go's own busy threads. Without
// it the sweep leaves such threads' policy and nice alone. It returns a
// function that unregisters it; a thread already moved stays where it is.
func BackgroundThread(tid int) func() {
	background.Lock()
	if background.tids == nil {
		background.tids = map[int]bool{}
	}
	background.tids[tid] = true
	background.Unlock()
	return func() {
		background.Lock()
		delete(background.tids, tid)
		background.Unlock()
	}
}
