package sched

import (
	"fmt"
	"sync"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
)

// macOS's levers, called in libSystem through purego (so that this file
// builds, and is vetted, without a C compiler for darwin): a critical
// thread asks for the QoS class USER_INTERACTIVE
// (pthread_set_qos_class_self_np), the class of the threads that draw what
// the user is looking at; the most raised one (Config.CriticalNice −10 or
// lower: the simulation) also asks for THREAD_TIME_CONSTRAINT_POLICY, the
// real-time band CoreAudio's and Chromium's display threads use. Each is
// read back (pthread_get_qos_class_np, thread_policy_get). A process
// cannot change another of its threads' QoS, so the sweep moves none;
// Go's threads (sched.Go) ask for UTILITY themselves.
//
// This file is compiled and vetted for darwin, never run: no Mac ran it.
const (
	qosClassUserInteractive = 0x21
	qosClassUserInitiated   = 0x19
	qosClassDefault         = 0x15
	qosClassUtility         = 0x11
	qosClassBackground      = 0x09

	threadTimeConstraintPolicy      = 2
	threadTimeConstraintPolicyCount = 4 // natural_t words in the policy

	// The time-constraint policy asked for the simulation thread: at most
	// 5 ms of computation within 10 ms of a wake, aperiodic (period 0:
	// ticks are not always evenly spaced). XNU accepts computation from
	// 50 µs to 50 ms, and demotes a thread that overruns it repeatedly.
	rtComputation = 5 * time.Millisecond
	rtConstraint  = 10 * time.Millisecond
)

// timeConstraintPolicy is struct thread_time_constraint_policy, in
// mach absolute time units.
type timeConstraintPolicy struct {
	period, computation, constraint uint32
	preemptible                     uint32 // boolean_t
}

var darwin struct {
	once sync.Once
	err  error

	setQosSelf     func(class uint32, rel int32) int32
	pthreadSelf    func() uintptr
	getQos         func(thread uintptr, class *uint32, rel *int32) int32
	threadID       func(thread uintptr, id *uint64) int32
	machThreadSelf func() uint32
	portDealloc    func(task, name uint32) int32
	policySet      func(thread, flavor uint32, policy unsafe.Pointer, count uint32) int32
	policyGet      func(thread, flavor uint32, policy unsafe.Pointer, count *uint32, getDefault *uint32) int32
	timebase       func(info *[2]uint32) int32
	taskSelf       uintptr // &mach_task_self_
}

func loadLibSystem() error {
	darwin.once.Do(func() {
		lib, err := purego.Dlopen("/usr/lib/libSystem.B.dylib", purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err != nil {
			darwin.err = fmt.Errorf("sched: libSystem: %w", err)
			return
		}
		for _, f := range []struct {
			fn   any
			name string
		}{
			{&darwin.setQosSelf, "pthread_set_qos_class_self_np"},
			{&darwin.pthreadSelf, "pthread_self"},
			{&darwin.getQos, "pthread_get_qos_class_np"},
			{&darwin.threadID, "pthread_threadid_np"},
			{&darwin.machThreadSelf, "mach_thread_self"},
			{&darwin.portDealloc, "mach_port_deallocate"},
			{&darwin.policySet, "thread_policy_set"},
			{&darwin.policyGet, "thread_policy_get"},
			{&darwin.timebase, "mach_timebase_info"},
		} {
			sym, err := purego.Dlsym(lib, f.name)
			if err != nil {
				darwin.err = fmt.Errorf("sched: libSystem %s: %w", f.name, err)
				return
			}
			purego.RegisterFunc(f.fn, sym)
		}
		if darwin.taskSelf, err = purego.Dlsym(lib, "mach_task_self_"); err != nil {
			darwin.err = fmt.Errorf("sched: libSystem mach_task_self_: %w", err)
		}
	})
	return darwin.err
}

func qosName(c uint32) string {
	switch c {
	case qosClassUserInteractive:
		return "QOS_CLASS_USER_INTERACTIVE"
	case qosClassUserInitiated:
		return "QOS_CLASS_USER_INITIATED"
	case qosClassDefault:
		return "QOS_CLASS_DEFAULT"
	case qosClassUtility:
		return "QOS_CLASS_UTILITY"
	case qosClassBackground:
		return "QOS_CLASS_BACKGROUND"
	case 0:
		return "QOS_CLASS_UNSPECIFIED"
	}
	return fmt.Sprintf("QoS class %#x", c)
}

func currentQos() uint32 {
	var c uint32
	var rel int32
	if darwin.getQos(darwin.pthreadSelf(), &c, &rel) != 0 {
		return 0
	}
	return c
}

// raise asks for USER_INTERACTIVE on the calling thread, and for the
// simulation (n ≤ −10) the time-constraint policy, and reads both back:
// How is "raised" when the QoS class read back is USER_INTERACTIVE.
func raise(name string, n int) ThreadPriority {
	tp := ThreadPriority{Name: name}
	if err := loadLibSystem(); err != nil {
		tp.How, tp.Err = "unsupported", err.Error()
		return tp
	}
	var id uint64
	darwin.threadID(0, &id)
	tp.TID = int(id)
	if n >= 1 {
		tp.How = "not asked"
		setNative(tp.TID, "QoS "+qosName(currentQos()))
		return tp
	}
	rc := darwin.setQosSelf(qosClassUserInteractive, 0)
	got := currentQos()
	native := "QoS " + qosName(got)
	switch {
	case rc != 0:
		tp.How, tp.Err = "denied", fmt.Sprintf("pthread_set_qos_class_self_np: error %d", rc)
	case got != qosClassUserInteractive:
		tp.How, tp.Err = "denied", "pthread_set_qos_class_self_np read back "+qosName(got)
	default:
		tp.How = "raised"
	}
	if n <= -10 {
		native += "; " + timeConstraint()
	}
	setNative(tp.TID, native)
	return tp
}

// timeConstraint asks for the time-constraint policy on the calling thread
// and says what thread_policy_get read back.
func timeConstraint() string {
	var tb [2]uint32 // numer, denom: nanoseconds = ticks × numer / denom
	if darwin.timebase(&tb) != 0 || tb[0] == 0 || tb[1] == 0 {
		return "THREAD_TIME_CONSTRAINT_POLICY not asked: no timebase"
	}
	ticks := func(d time.Duration) uint32 { return uint32(uint64(d) * uint64(tb[1]) / uint64(tb[0])) }
	p := timeConstraintPolicy{computation: ticks(rtComputation), constraint: ticks(rtConstraint), preemptible: 1}
	th := darwin.machThreadSelf()
	task := **(**uint32)(unsafe.Pointer(&darwin.taskSelf))
	defer darwin.portDealloc(task, th)
	if kr := darwin.policySet(th, threadTimeConstraintPolicy, unsafe.Pointer(&p), threadTimeConstraintPolicyCount); kr != 0 {
		return fmt.Sprintf("THREAD_TIME_CONSTRAINT_POLICY refused: kern_return %d", kr)
	}
	var back timeConstraintPolicy
	count, getDefault := uint32(threadTimeConstraintPolicyCount), uint32(0)
	if kr := darwin.policyGet(th, threadTimeConstraintPolicy, unsafe.Pointer(&back), &count, &getDefault); kr != 0 {
		return fmt.Sprintf("THREAD_TIME_CONSTRAINT_POLICY set, read back failed: kern_return %d", kr)
	}
	if getDefault != 0 || back.computation != p.computation || back.constraint != p.constraint {
		return fmt.Sprintf("THREAD_TIME_CONSTRAINT_POLICY not in force (read back computation %d, constraint %d ticks, default %d)", back.computation, back.constraint, getDefault)
	}
	return fmt.Sprintf("THREAD_TIME_CONSTRAINT_POLICY computation %v constraint %v", rtComputation, rtConstraint)
}

// shorten: XNU has no per-thread time slice to ask for.
func shorten(tp *ThreadPriority, _ time.Duration) { tp.Slice = "unsupported" }

// realtime: macOS's real-time band is the time-constraint policy, which
// raise asks for the simulation thread whatever CriticalRT says.
func realtime(tp *ThreadPriority, prio int) {
	if prio > 0 {
		tp.RT, tp.RTErr = "unsupported", "macOS has no SCHED_RR: the simulation thread asks for THREAD_TIME_CONSTRAINT_POLICY (Native)"
	}
}

// lower moves the calling thread (sched.Go's) to QoS UTILITY.
func lower(int) {
	if loadLibSystem() == nil {
		darwin.setQosSelf(qosClassUtility, 0)
	}
}

// osBackground: the sweep moves no thread on macOS.
func osBackground(int) string { return "" }

type sweeper struct{ all bool }

func (*sweeper) renice(int, func(int) bool) (int, int) { return 0, 0 }

func (*sweeper) reniceBusy(int, func(int) bool, float64) (int, int) { return 0, 0 }
