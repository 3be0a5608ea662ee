// Package sched keeps a few latency-critical goroutines on time while the
// rest of the process keeps every core busy.
//
// Go has no goroutine priorities, and its scheduler lets a busy goroutine
// hold a P (the right to run Go code) for up to a 10 ms time slice. When
// the process's other goroutines hold every P, a goroutine whose timer has
// fired (a simulation tick) or that returns from a cgo call (a buffer
// swap) waits for one of them to be preempted: 10 to 40 ms late on two
// cores. No OS priority helps while it waits, since it is not yet on any
// thread the OS could run. So the design has three levers, each optional:
//
//  1. P headroom (Config.Headroom). A governor samples runtime/metrics
//     (/sched/goroutines/running and /runnable) every Config.Interval and
//     keeps GOMAXPROCS at the goroutines that want to run plus Headroom,
//     never below the CPU count, never above Config.MaxProcs: a critical
//     goroutine then always finds an idle P and wakes on time; contention
//     moves from Go's scheduler to the OS's, where priorities work. It
//     rises at once and falls only after Config.FallAfter of lower demand,
//     since each change of GOMAXPROCS stops the world (tens of µs). Cost:
//     one OS thread per extra P that is used, and the idle Ps' spinning.
//  2. OS priority for the critical threads (Critical). The calling
//     goroutine is locked to its OS thread, which is registered as
//     critical and asked for nice Config.CriticalNice (below 0). That
//     needs CAP_SYS_NICE or an RLIMIT_NICE allowing it (root has both);
//     without it the thread stays at nice 0, and ThreadPriority says so.
//  3. Lower priority for everything else (Config.BackgroundNice). Any
//     thread may lower its own priority, so this needs no privilege: every
//     Config.Interval the governor raises the nice value of every thread
//     of the process that is not critical and still carries the
//     process's own name (Go's threads; a driver's worker threads, which
//     name themselves, such as Mesa's llvmpipe-N, keep theirs) to
//     BackgroundNice. Goroutines move between those threads, so all the
//     process's other goroutines run at that priority, plain uncooperative
//     ones included. Go creates few threads and reuses them; a new one is
//     reniced within one interval. An unprivileged process cannot lower a
//     nice value again, so a thread that was background stays so: register
//     critical goroutines (Critical) before Start.
//
// Go runs a function on a thread of its own at BackgroundNice, for work an
// application knows to be background (asset decoding, path finding).
//
// Scheduling latency (/sched/latencies:seconds) is read with Latency.
//
// Everything here is Linux's; elsewhere Start and Critical change nothing
// and report so (ThreadPriority.How is "unsupported").
package sched
