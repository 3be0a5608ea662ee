//go:build linux

package sched

import (
	"bytes"
	"os"
	"runtime"
	"runtime/metrics"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// nice reads a thread's nice value; Linux's raw getpriority returns
// 20 − nice.
func nice(tid int) (int, error) {
	p, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	if err != nil {
		return 0, err
	}
	return 20 - p, nil
}

// raise asks for nice n on the calling thread (n ≥ 1: nothing asked).
func raise(name string, n int) ThreadPriority {
	return raiseThread(name, unix.Gettid(), n)
}

// raiseThread asks for nice n on thread tid of this process (n ≥ 1:
// nothing asked) and reads back what it got.
func raiseThread(name string, tid, n int) ThreadPriority {
	tp := ThreadPriority{Name: name, TID: tid, How: "not asked"}
	if n < 1 {
		if err := unix.Setpriority(unix.PRIO_PROCESS, tid, n); err != nil {
			tp.How, tp.Err = "denied", err.Error()
		} else {
			tp.How = "raised"
		}
	}
	tp.Nice, _ = nice(tid)
	return tp
}

// shorten asks for an EEVDF time slice on thread tp.TID (slice < 0:
// nothing asked), keeping its nice value, and reads back what it got.
// Kernels before 6.12 take the request and ignore it; they read back 0.
func shorten(tp *ThreadPriority, slice time.Duration) {
	if slice < 0 {
		tp.Slice = "not asked"
	} else {
		attr := unix.SchedAttr{Policy: unix.SCHED_NORMAL, Nice: int32(tp.Nice), Runtime: uint64(slice)}
		// Keep SCHED_RESET_ON_FORK (a broker sets it; only privilege may
		// clear it).
		if cur, err := unix.SchedGetAttr(tp.TID, 0); err == nil {
			attr.Flags = cur.Flags & unix.SCHED_FLAG_RESET_ON_FORK
		}
		if err := unix.SchedSetAttr(tp.TID, &attr, 0); err != nil {
			tp.Slice, tp.SliceErr = "refused", err.Error()
		}
	}
	got, err := unix.SchedGetAttr(tp.TID, 0)
	if err != nil || got.Policy != unix.SCHED_NORMAL {
		if tp.Slice == "" {
			tp.Slice = "unsupported"
		}
		return
	}
	tp.SliceUS = float64(got.Runtime) / 1e3
	if tp.Slice == "" {
		if got.Runtime == uint64(slice) {
			tp.Slice = "set"
		} else {
			tp.Slice = "unsupported"
		}
	}
}

// realtime asks for SCHED_RR at priority prio on thread tp.TID
// (prio 0: nothing asked) and reads back what it got. Threads it creates
// afterwards inherit the policy (no SCHED_RESET_ON_FORK): a GL driver's
// workers work for it. Go's own threads are not created by it: a
// goroutine locked to its thread has new threads made by the runtime's
// template thread.
func realtime(tp *ThreadPriority, prio int) {
	if prio <= 0 {
		return
	}
	attr := unix.SchedAttr{Policy: unix.SCHED_RR, Priority: uint32(prio)}
	if err := unix.SchedSetAttr(tp.TID, &attr, 0); err != nil {
		tp.RT, tp.RTErr = "denied", err.Error()
	} else {
		tp.RT = "set"
	}
	if got, err := unix.SchedGetAttr(tp.TID, 0); err == nil && got.Policy == unix.SCHED_RR {
		tp.RTPriority = int(got.Priority)
	}
}

// lower sets the calling thread's nice value to n if it is below.
func lower(n int) {
	tid := unix.Gettid()
	if cur, err := nice(tid); err == nil && cur < n {
		_ = unix.Setpriority(unix.PRIO_PROCESS, tid, n)
	}
}

// sysmonTID is the thread of the runtime's system monitor, which
// preempts goroutines that hold a P too long and retakes Ps from system
// calls: the runtime starts it first of all its threads, before any
// package's init, so it is the lowest thread id after the main thread's
// (the lowest of all if the ids wrapped). Under a dozen busy goroutines
// it wakes thousands of times a second and uses about 6 % of a CPU, so
// the sweep would move it; moved, it waited for a CPU 60 % of the time
// and the frame rate under -stress 8 fell by about 8 %.
var sysmonTID = findSysmon()

func findSysmon() int {
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return -1
	}
	pid := os.Getpid()
	after, lowest := -1, -1
	for _, e := range entries {
		tid, ok := atoi([]byte(e.Name()))
		if !ok || tid == pid {
			continue
		}
		if tid > pid && (after < 0 || tid < after) {
			after = tid
		}
		if lowest < 0 || tid < lowest {
			lowest = tid
		}
	}
	if after >= 0 {
		return after
	}
	return lowest
}

// sweeper lists the process's threads without allocating once warm: it
// reads /proc/self/task with getdents into a buffer it keeps.
type sweeper struct {
	dents [8192]byte
	comm  [512]byte
	self  []byte
	path  []byte
	// threads is what the sweeps learnt of each thread: its CPU time at
	// the last sweep, and whether it is known to carry Go code.
	threads [maxThreads]threadState
	// all moves every thread, busy or not (tests).
	all bool
	// attr is the sweep's sched_attr buffer: the unix wrappers allocate.
	attr unix.SchedAttr
	// sweeps counts the sweeps; census is the last ones' thread census.
	sweeps uint64
	census [2]census
	goM    [1]metrics.Sample
}

// census is one sweep's view of the process's threads: how many there
// were, a signature of their ids, and how many the Go runtime said it
// owned before and after the listing.
type census struct {
	tasks, goBefore, goAfter int
	sum, xor                 uint64
}

// allGo reports whether the census shows every listed thread to be one
// of the runtime's: as many as it owns, before and after the listing.
func (c census) allGo() bool {
	return c.tasks > 0 && c.tasks == c.goBefore && c.tasks == c.goAfter
}

// threadState is what the sweeps know of one thread.
type threadState struct {
	tid   int
	start uint64 // start time, clock ticks after boot: a reused id is a new thread
	ticks uint64 // CPU time at the last sweep, clock ticks
	seen  uint64 // the sweep that last saw it
	// goCode: the thread was seen blocked in a Go function, or it was
	// there in two sweeps in a row at which every thread was the
	// runtime's.
	goCode bool
}

// designRT reports whether a real-time policy and priority are ones the
// design set: SCHED_RR at the priority of a critical thread that got it,
// as the threads a critical thread starts inherit it.
func designRT(policy, prio uint32) bool {
	if policy != unix.SCHED_RR {
		return false
	}
	global.Lock()
	defer global.Unlock()
	for _, tp := range global.critical {
		if tp.RT == "set" && tp.RTPriority == int(prio) {
			return true
		}
	}
	return false
}

// ordinary makes a busy thread that inherited the design's real-time
// policy (designRT: one started by a critical thread that asked for
// SCHED_RR) an ordinary one at nice n, and reports whether it was
// real-time at all; a real-time policy the design did not set (an audio
// library's SCHED_FIFO thread) is left as it is, and so is its nice. A
// thread can always lower another of its process's threads' policy. moved
// says whether it was made ordinary.
func (s *sweeper) ordinary(tid, n int) (rt, moved bool) {
	s.attr = unix.SchedAttr{Size: unix.SizeofSchedAttr}
	_, _, errno := unix.Syscall6(unix.SYS_SCHED_GETATTR, uintptr(tid), uintptr(unsafe.Pointer(&s.attr)), unix.SizeofSchedAttr, 0, 0, 0)
	if errno != 0 {
		return false, false
	}
	switch s.attr.Policy {
	case unix.SCHED_RR, unix.SCHED_FIFO, unix.SCHED_DEADLINE:
	default:
		return false, false
	}
	if !designRT(s.attr.Policy, s.attr.Priority) {
		return true, false
	}
	// Normal users may not clear SCHED_RESET_ON_FORK: keep the flag.
	s.attr = unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL, Flags: s.attr.Flags & unix.SCHED_FLAG_RESET_ON_FORK, Nice: int32(n)}
	_, _, errno = unix.Syscall(unix.SYS_SCHED_SETATTR, uintptr(tid), uintptr(unsafe.Pointer(&s.attr)), 0)
	return true, errno == 0
}

// maxThreads bounds the threads followed; a process with more has its
// surplus left alone.
const maxThreads = 512

// busyShare is how much of one CPU a thread must have used since the last
// sweep to be moved: 3 %, so that a dozen busy threads crowding two cores
// behind the critical ones are (at 10 %, some of eight were not), and the
// runtime's own mostly idle threads (sysmon, which preempts goroutines and
// retakes Ps, the timer and network poller) are not: moved to background
// priority, they would delay the critical threads that depend on them
// when other processes load the CPUs.
const busyShare = 0.03

// renice moves every busy thread of the process (one that used
// busyShare of a CPU since the last sweep) that is known to carry Go code
// and still carries the process's own name, or that was registered as
// background (BackgroundThread), and is not critical, to nice n if it is
// below, and counts the threads moved and those that could not be.
// Threads Go did not create (a C library's workers) are left alone, and
// so is every real-time policy the design did not set.
func (s *sweeper) renice(n int, critical func(tid int) bool) (ok, failed int) {
	return s.reniceBusy(n, critical, 0)
}

// reniceBusy is renice with the time since the last sweep (0: unknown,
// the first sweep only records CPU times unless s.all).
func (s *sweeper) reniceBusy(n int, critical func(tid int) bool, since float64) (ok, failed int) {
	if s.self == nil {
		s.self = append([]byte(nil), s.read("/proc/self/comm")...)
		if len(s.self) == 0 {
			return 0, 0
		}
		s.goM[0].Name = "/sched/threads/total:threads"
	}
	s.path = append(s.path[:0], "/proc/self/task\x00"...)
	fd, err := s.open(unix.O_DIRECTORY)
	if err != nil {
		return 0, 0
	}
	defer unix.Close(fd)
	s.sweeps++
	// Threads that were there at the last two sweeps, both of which found
	// only the runtime's threads with the same ids, are the runtime's: a
	// thread the runtime was creating during one census (counted, not yet
	// listed) has been listed by the next, changing the ids.
	prev, last := s.census[0], s.census[1]
	trust := prev.allGo() && last.allGo() && prev.tasks == last.tasks && prev.sum == last.sum && prev.xor == last.xor
	var cur census
	cur.goBefore = s.goThreads()
	defer func() {
		cur.goAfter = s.goThreads()
		s.census[0], s.census[1] = last, cur
	}()
	for {
		m, err := unix.Getdents(fd, s.dents[:])
		if err != nil || m <= 0 {
			return ok, failed
		}
		for b := s.dents[:m]; len(b) > 0; {
			// struct linux_dirent64: ino u64, off u64, reclen u16, type u8, name.
			reclen := int(b[16]) | int(b[17])<<8
			if reclen <= 19 || reclen > len(b) {
				return ok, failed
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			tid, isNum := atoi(name)
			if !isNum {
				continue
			}
			cur.tasks++
			cur.sum += uint64(tid)
			cur.xor ^= uint64(tid) * 0x9e3779b97f4a7c15
			if tid == sysmonTID || critical(tid) {
				continue
			}
			st, busy := s.state(tid, name, since)
			if st == nil {
				continue
			}
			wasSeen := st.seen == s.sweeps-1
			st.seen = s.sweeps
			background := isBackground(tid)
			if !background {
				// Threads that named themselves (a driver's workers) keep
				// their priority: they work for whoever called them.
				s.path = append(append(append(s.path[:0], "/proc/self/task/"...), name...), "/comm\x00"...)
				if !bytes.Equal(s.readPath(), s.self) {
					continue
				}
				if !st.goCode {
					st.goCode = trust && wasSeen || s.inGo(name)
				}
				if !st.goCode {
					continue
				}
			}
			if !s.all && !busy {
				continue
			}
			if cur, err := nice(tid); err != nil || cur >= n {
				continue
			}
			if rt, moved := s.ordinary(tid, n); rt {
				// Made ordinary, or a real-time policy not the design's.
				if moved {
					ok++
				}
				continue
			}
			if unix.Setpriority(unix.PRIO_PROCESS, tid, n) == nil {
				ok++
			} else {
				failed++
			}
		}
	}
}

// goThreads is how many threads the Go runtime owns now (-1: unknown).
func (s *sweeper) goThreads() int {
	metrics.Read(s.goM[:])
	if s.goM[0].Value.Kind() != metrics.KindUint64 {
		return -1
	}
	return int(s.goM[0].Value.Uint64())
}

// inGo reports whether the thread is blocked in a system call made by a
// Go function (the runtime's futex, usleep, epoll_wait, a goroutine's
// read): /proc/TID/syscall gives its user instruction pointer while it
// sleeps ("running" while it runs). C code, a C library's threads and a
// Go thread inside a cgo call alike, makes its calls through libc.
func (s *sweeper) inGo(name []byte) bool {
	s.path = append(append(append(s.path[:0], "/proc/self/task/"...), name...), "/syscall\x00"...)
	line := s.readPath()
	i := bytes.LastIndexByte(line, ' ')
	if i < 0 || !bytes.HasPrefix(line[i+1:], []byte("0x")) {
		return false
	}
	var pc uintptr
	for _, c := range line[i+3:] {
		switch {
		case c >= '0' && c <= '9':
			pc = pc<<4 | uintptr(c-'0')
		case c >= 'a' && c <= 'f':
			pc = pc<<4 | uintptr(c-'a'+10)
		default:
			return false
		}
	}
	// pc is the instruction after the system call's; pc-1 is inside the
	// same function.
	return pc > 0 && runtime.FuncForPC(pc-1) != nil
}

// state reads a thread's stat and returns what the sweeps know of it, and
// whether it used busyShare of a CPU in the since seconds before; nil
// when the stat cannot be read or more threads are followed than fit.
func (s *sweeper) state(tid int, name []byte, since float64) (st *threadState, busy bool) {
	s.path = append(append(append(s.path[:0], "/proc/self/task/"...), name...), "/stat\x00"...)
	stat := s.readPath()
	// Fields after the command (which may hold spaces) in parentheses:
	// state ppid pgrp session tty tpgid flags minflt cminflt majflt
	// cmajflt utime stime cutime cstime priority nice num_threads
	// itrealvalue starttime.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return nil, false
	}
	fields := stat[i+1:]
	var ticks, start uint64
	for f := 0; f < 20; f++ {
		fields = bytes.TrimLeft(fields, " ")
		end := bytes.IndexByte(fields, ' ')
		if end < 0 {
			return nil, false
		}
		if f == 11 || f == 12 || f == 19 { // utime, stime, starttime
			v, ok := atoi(fields[:end])
			if !ok {
				return nil, false
			}
			if f == 19 {
				start = uint64(v)
			} else {
				ticks += uint64(v)
			}
		}
		fields = fields[end:]
	}
	slot := -1
	for j := range s.threads {
		if s.threads[j].tid == tid {
			slot = j
			break
		}
		// A free slot, or one whose thread no sweep saw for a while.
		if slot < 0 && (s.threads[j].tid == 0 || s.threads[j].seen+4 < s.sweeps) {
			slot = j
		}
	}
	if slot < 0 {
		return nil, false
	}
	st = &s.threads[slot]
	fresh := st.tid != tid || st.start != start
	prev := st.ticks
	if fresh {
		*st = threadState{tid: tid, start: start}
	}
	st.ticks = ticks
	return st, !fresh && since > 0 && float64(ticks-prev)/clockTicks >= busyShare*since
}

// open opens s.path (NUL-terminated) without the string conversion
// unix.Open allocates for.
func (s *sweeper) open(flags int) (int, error) {
	atFDCWD := unix.AT_FDCWD // a variable: the constant is negative
	fd, _, errno := unix.Syscall6(unix.SYS_OPENAT, uintptr(atFDCWD), uintptr(unsafe.Pointer(&s.path[0])),
		uintptr(unix.O_RDONLY|unix.O_CLOEXEC|flags), 0, 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every
// Linux Go runs on.
const clockTicks = 100

// read reads a small file into the sweeper's buffer, trimmed.
func (s *sweeper) read(path string) []byte {
	s.path = append(append(s.path[:0], path...), 0)
	return s.readPath()
}

// readPath reads the small file at s.path into the sweeper's buffer,
// trimmed.
func (s *sweeper) readPath() []byte {
	fd, err := s.open(0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	m, err := unix.Read(fd, s.comm[:])
	if err != nil || m <= 0 {
		return nil
	}
	return bytes.TrimSpace(s.comm[:m])
}

// atoi parses a decimal thread id.
func atoi(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}
