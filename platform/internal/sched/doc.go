// Package sched keeps a few latency-critical goroutines on time while the
// rest of the process keeps every core busy.
//
// Go has no goroutine priorities, and its scheduler lets a busy goroutine
// hold a P (the right to run Go code) for up to a 10 ms time slice. When
// the process's other goroutines hold every P, a goroutine whose timer has
// fired (a simulation tick) or that returns from a cgo call (a buffer
// swap) waits for one of them to be preempted: 10 to 40 ms late on two
// cores. No OS priority helps while it waits, since it is not yet on any
// thread the OS could run. So the design has five levers, each optional:
//
//  1. P headroom (Config.Headroom). A governor samples runtime/metrics
//     (/sched/goroutines/running and /runnable) every Config.Interval and
//     keeps GOMAXPROCS at the goroutines that want to run plus Headroom,
//     never below the CPU count, never above Config.MaxProcs: a critical
//     goroutine then always finds an idle P and wakes on time; contention
//     moves from Go's scheduler to the OS's, where priorities work. It
//     rises at once and falls by one only after Config.FallAfter (30 s) of
//     lower demand, since each change stops the world. The governor runs
//     on a thread of its own at normal priority: a world stopped by a
//     thread at background priority would stay stopped while that thread
//     waits for a CPU. Cost: one OS thread per extra P in use, the idle
//     Ps' brief spinning, a stop of the world per change (tens of µs).
//  2. OS priority for the critical threads (Critical). The calling
//     goroutine is locked to its OS thread, which is registered as
//     critical and asked for nice Config.CriticalNice (−10). That needs
//     CAP_SYS_NICE or an RLIMIT_NICE allowing it (root has both).
//     Denied, it is asked of a broker, as desktop programs (SDL,
//     PipeWire) get theirs (Config.Broker): the xdg desktop portal's
//     Realtime interface on the session bus, then RealtimeKit on the
//     system bus, whose polkit rules decide; Config.BrokerRT asks the
//     broker for real-time scheduling too, after the process's
//     RLIMIT_RTTIME is lowered within the broker's RTTimeUSecMax, and a
//     SIGXCPU (a real-time thread ran half of it without blocking) makes
//     the brokered threads ordinary again. ThreadPriority says "raised",
//     "rtkit" or "portal" only as the kernel reads the grant back, and
//     "denied" (with each broker's answer) otherwise. Nothing else
//     depends on it.
//  3. Lower priority for the busy rest (Config.BackgroundNice). Any
//     thread may lower its own priority, so this needs no privilege:
//     every Config.SweepEvery the governor moves each thread of the
//     process that is not critical, is known to carry Go code, still
//     carries the process's own name (a driver's worker threads, which
//     name themselves, such as Mesa's llvmpipe-N, keep theirs) and used
//     at least 3 % of a CPU since the last sweep to BackgroundGap (10)
//     nice levels below the least raised critical thread: nice 5 when the
//     render thread got −5, 10 when the critical threads kept 0. A thread
//     is known to carry Go code once a sweep finds it blocked in a system
//     call made by a Go function (/proc/TID/syscall's instruction
//     pointer, looked up with runtime.FuncForPC), or once two sweeps in a
//     row found only the runtime's own threads, as many as
//     /sched/threads/total:threads counts. Threads Go did not create (a C
//     library's audio or network workers) keep their policy and nice
//     unless the application registers them (BackgroundThread to be
//     moved, CriticalThread to be raised), and no real-time policy is
//     changed but the design's own (SCHED_RR at a critical thread's
//     priority, inherited by the threads it starts). Goroutines that
//     burn CPU, plain uncooperative ones included, run on such threads,
//     so they yield the CPU to the critical threads whenever those wake.
//     Lower still, they starve against other processes, and the garbage
//     collector's stops of the world wait for them. The runtime's system
//     monitor (sysmon, which preempts goroutines and retakes Ps) is never
//     moved, however busy. An unprivileged process cannot lower a nice
//     value again, so a thread once moved stays background, whatever
//     goroutine it runs later; register critical goroutines (Critical)
//     before Start.
//  4. A short time slice for the critical threads (Config.CriticalSlice,
//     Linux 6.12 and later, no privilege needed). The EEVDF scheduler lets
//     a running thread finish its slice (1.4 ms on two cores) before a
//     waking one of the same slice runs; one asking a shorter slice (300
//     µs) preempts it at once. The driver threads a critical thread starts
//     afterwards inherit it. Older kernels ignore it, and ThreadPriority
//     says "unsupported".
//  5. Real-time scheduling, opt-in (Config.CriticalRT): SCHED_RR for the
//     critical threads and the driver threads they start, where
//     CAP_SYS_NICE or RLIMIT_RTPRIO allows it. They then run whenever they
//     are ready, ahead of every ordinary thread, and the busy threads are
//     left at their priority. Not the default: a render thread whose
//     drawing is the CPU's work (a software rasterizer) would take the
//     CPUs from the rest of the desktop.
//
// Go runs a function on a thread of its own at BackgroundNice, for work an
// application knows to be background (asset decoding, path finding).
// CriticalThread and BackgroundThread register a thread Go did not create
// (a C library's, by its thread id) to be raised or moved.
//
// On the software path (llvmpipe, Xvfb, VNC) a frame reaches the
// framebuffer only when the X server gets a CPU to copy it:
// FindDisplayServer finds its process (the display socket's peer), and
// WatchDisplayServer reads its wait for a CPU from the kernel's schedstat,
// for reports. docs/scheduling.md says what was measured.
//
// Scheduling latency (/sched/latencies:seconds) is read with Latency.
//
// The levers above are Linux's. Windows and macOS have counterparts of
// their own (MMCSS and thread priorities; thread QoS), read back in their
// own terms (Native; docs/platforms.md); the brokers, foreign threads and
// the display server are Linux's alone. Elsewhere Start and Critical
// change nothing and report so (ThreadPriority.How is "unsupported").
package sched
