package loop

import (
	"context"
	"runtime"

	"github.com/tickframe/tickframe/platform/internal/sched"
	"github.com/tickframe/tickframe/platform/internal/sim"
)

// scheduling keeps the simulation and render threads on time (package
// sched): their priorities, the governor of GOMAXPROCS and of the busy
// threads, and the runtime's scheduling latency. It belongs to the render
// thread.
type scheduling struct {
	cfg         sched.Config
	render, sim sched.ThreadPriority
	unregister  func() // the render thread's registration
	gov         *sched.Governor
	procsStart  int
	simEnd      chan sched.ThreadPriority // the simulation thread's priority as Run ended
	renderCfg   sched.Config              // what the render thread asked for
	drivers     []sched.ThreadPriority    // driver threads given the render thread's priority
	undrivers   []func()
	display     *sched.ServerWait // nil where the display server is not found
}

// renderCritical registers the calling thread, the main one, as the
// critical render thread. It is never moved to the background, and asks
// for half the simulation's raise (renderNice) and one real-time priority
// below it: the simulation preempts it and the driver threads it starts
// whenever it wakes, and it still outranks the busy background threads
// by far (docs/ARCHITECTURE.md, Scheduling).
func (s *scheduling) renderCritical(cfg sched.Config) {
	s.cfg = cfg
	rc := cfg
	if rc.CriticalNice <= 0 {
		rc.CriticalNice = renderNice(rc.CriticalNice)
	}
	if rc.CriticalRT > 1 {
		rc.CriticalRT--
	}
	// A broker's real time is bounded by RLIMIT_RTTIME, which a render
	// thread compiling shaders or waiting in the driver can run past:
	// the render thread asks a broker for its nice value only.
	rc.BrokerRT = -1
	s.renderCfg = rc
	s.render, s.unregister = sched.Critical("render", rc)
}

// raiseDrivers gives the render thread's priority to the driver threads
// it started since before (sched.Threads, taken before the window and
// its GL context were made): where a broker raised the render thread, it
// runs with SCHED_RESET_ON_FORK, and the threads it starts (Mesa's
// llvmpipe workers, which do a software rasterizer's drawing) begin at
// nice 0 instead of inheriting its raise as they do from the kernel's.
func (s *scheduling) raiseDrivers(before []int) {
	if s.render.How != "rtkit" && s.render.How != "portal" {
		return
	}
	for _, tid := range sched.DriverThreads(before) {
		tp, unregister := sched.CriticalThread("render-driver", tid, s.renderCfg)
		s.drivers = append(s.drivers, tp)
		s.undrivers = append(s.undrivers, unregister)
	}
}

// renderNice is the nice value the render thread asks for, given the
// simulation's (0: the default −10): half of it, rounded towards zero, or
// 1 (ask for nothing) when that is 0.
func renderNice(critical int) int {
	if critical == 0 {
		critical = -10
	}
	if critical/2 == 0 {
		return 1
	}
	return critical / 2
}

// startSim runs the simulation sm on a goroutine locked to a critical
// thread of its own, then starts the governor (after the critical threads
// are registered, so it never lowers their priority).
func (s *scheduling) startSim(ctx context.Context, sm *sim.Sim) {
	ready := make(chan sched.ThreadPriority, 1)
	s.simEnd = make(chan sched.ThreadPriority, 1)
	go func() {
		tp, unregister := sched.Critical("sim", s.cfg)
		defer unregister()
		ready <- tp
		_ = sm.Run(ctx) // its error is Wait's
		// Read back again: a broker's real time may have been taken
		// away during the run (SIGXCPU: RT "demoted").
		tp, _ = sched.CriticalNamed("sim")
		s.simEnd <- tp
	}()
	var err error
	if s.display, err = sched.WatchDisplayServer(""); err != nil {
		s.display = nil // a remote display, or no /proc: the report says null
	}
	s.sim = <-ready
	s.procsStart = runtime.GOMAXPROCS(0)
	if s.gov, err = sched.Start(s.cfg); err != nil {
		s.gov = nil // validated in New: cannot happen
	}
}

// stopGovernor stops the governor, if it runs; it may be called twice.
func (s *scheduling) stopGovernor() {
	if s.gov != nil {
		s.gov.Stop()
	}
}

// allocs is what the governor's GOMAXPROCS changes allocated so far.
func (s *scheduling) allocs() uint64 {
	if s.gov == nil {
		return 0
	}
	return s.gov.Stats().Allocs
}

// close unregisters the render thread and its driver threads.
func (s *scheduling) close() {
	for _, f := range s.undrivers {
		f()
	}
	s.undrivers = nil
	if s.unregister != nil {
		s.unregister()
		s.unregister = nil
	}
}

// SchedReport is what the scheduling design did during Run.
type SchedReport struct {
	// Procs is GOMAXPROCS before Run, at its end, and the most it was.
	ProcsStart, ProcsEnd, ProcsMax int
	// Sim and Render are the priorities the two critical threads got.
	Sim, Render sched.ThreadPriority
	// Drivers are the driver threads the render thread started that were
	// given its priority (raiseDrivers); none where they inherit it.
	Drivers []sched.ThreadPriority
	// BackgroundNice is the nice value other threads were moved to (−1:
	// left alone), and Reniced how many threads were moved.
	BackgroundNice, Reniced int
	// Config is the scheduling configuration with defaults filled in.
	Config sched.Config
	// DisplayServer is the display server's CPU use and wait since the
	// simulation started; nil where it is not known.
	DisplayServer *sched.ServerWaitSummary
}

func (s *scheduling) report() SchedReport {
	r := SchedReport{ProcsStart: s.procsStart, ProcsEnd: runtime.GOMAXPROCS(0),
		Sim: s.sim, Render: s.render, Drivers: s.drivers, BackgroundNice: -1}
	r.ProcsMax = max(r.ProcsStart, r.ProcsEnd)
	select {
	case tp := <-s.simEnd: // the simulation has stopped: its last priority
		if tp.Name != "" {
			s.sim = tp
			r.Sim = tp
		}
	default:
	}
	if s.display != nil {
		if sum, err := s.display.Summary(); err == nil {
			r.DisplayServer = &sum
		}
	}
	if s.gov != nil {
		st := s.gov.Stats()
		r.ProcsEnd = st.Procs // its last setting: Stop puts the process's back
		r.ProcsMax = max(r.ProcsStart, st.Procs, st.MaxProcs)
		r.Reniced = st.Reniced
		r.Config = s.gov.Config()
		r.BackgroundNice = st.BackgroundNice
	}
	return r
}
