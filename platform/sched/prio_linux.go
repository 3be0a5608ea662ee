//go:build linux

package sched

import (
	"bytes"
	"os"
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
	tid := unix.Gettid()
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

// shorten asks for an EEVDF time slice on the calling thread (slice < 0:
// nothing asked), keeping its nice value, and reads back what it got.
// Kernels before 6.12 take the request and ignore it; they read back 0.
func shorten(tp *ThreadPriority, slice time.Duration) {
	if slice < 0 {
		tp.Slice = "not asked"
	} else {
		attr := unix.SchedAttr{Policy: unix.SCHED_NORMAL, Nice: int32(tp.Nice), Runtime: uint64(slice)}
		if err := unix.SchedSetAttr(0, &attr, 0); err != nil {
			tp.Slice, tp.SliceErr = "refused", err.Error()
		}
	}
	got, err := unix.SchedGetAttr(0, 0)
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

// realtime asks for SCHED_RR at priority prio on the calling thread
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
	if err := unix.SchedSetAttr(0, &attr, 0); err != nil {
		tp.RT, tp.RTErr = "denied", err.Error()
	} else {
		tp.RT = "set"
	}
	if got, err := unix.SchedGetAttr(0, 0); err == nil && got.Policy == unix.SCHED_RR {
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
	// cpu is each thread's CPU time at the last sweep, in clock ticks.
	cpu [maxThreads]threadCPU
	// all moves every thread, busy or not (tests).
	all bool
	// attr is the sweep's sched_attr buffer: the unix wrappers allocate.
	attr unix.SchedAttr
}

// ordinary makes a real-time thread (one started by a critical thread
// that asked for SCHED_RR, and busy now) an ordinary one at nice n, and
// reports whether it was real-time. A thread can always lower another of
// its process's threads' policy.
func (s *sweeper) ordinary(tid, n int) bool {
	s.attr = unix.SchedAttr{Size: unix.SizeofSchedAttr}
	_, _, errno := unix.Syscall6(unix.SYS_SCHED_GETATTR, uintptr(tid), uintptr(unsafe.Pointer(&s.attr)), unix.SizeofSchedAttr, 0, 0, 0)
	if errno != 0 || s.attr.Policy != unix.SCHED_RR && s.attr.Policy != unix.SCHED_FIFO {
		return false
	}
	s.attr = unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_NORMAL, Nice: int32(n)}
	_, _, errno = unix.Syscall(unix.SYS_SCHED_SETATTR, uintptr(tid), uintptr(unsafe.Pointer(&s.attr)), 0)
	return errno == 0
}

// maxThreads bounds the threads whose CPU time is followed; a process
// with more has its surplus judged busy at once.
const maxThreads = 512

type threadCPU struct {
	tid   int
	ticks uint64
}

// busyShare is how much of one CPU a thread must have used since the last
// sweep to be moved: 3 %, so that a dozen busy threads crowding two cores
// behind the critical ones are (at 10 %, some of eight were not), and the
// runtime's own mostly idle threads (sysmon, which preempts goroutines and
// retakes Ps, the timer and network poller) are not: moved to background
// priority, they would delay the critical threads that depend on them
// when other processes load the CPUs.
const busyShare = 0.03

// renice moves every thread of the process that carries the process's
// own name, is not critical and is busy (used busyShare of a CPU since the
// last sweep) to nice n, if it is below, and counts the threads moved and
// those that could not be.
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
	}
	s.path = append(s.path[:0], "/proc/self/task\x00"...)
	fd, err := s.open(unix.O_DIRECTORY)
	if err != nil {
		return 0, 0
	}
	defer unix.Close(fd)
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
			if !isNum || tid == sysmonTID || critical(tid) {
				continue
			}
			if cur, err := nice(tid); err != nil || cur >= n {
				continue
			}
			// Threads that named themselves (a driver's workers) keep
			// their priority: they work for whoever called them.
			s.path = append(append(append(s.path[:0], "/proc/self/task/"...), name...), "/comm\x00"...)
			if !bytes.Equal(s.readPath(), s.self) {
				continue
			}
			if !s.all && !s.busy(tid, name, since) {
				continue
			}
			if s.ordinary(tid, n) {
				ok++
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

// busy reads a thread's CPU time and reports whether it used busyShare
// of a CPU in the since seconds before.
func (s *sweeper) busy(tid int, name []byte, since float64) bool {
	s.path = append(append(append(s.path[:0], "/proc/self/task/"...), name...), "/stat\x00"...)
	stat := s.readPath()
	// Fields after the command (which may hold spaces) in parentheses:
	// state ppid pgrp session tty tpgid flags minflt cminflt majflt
	// cmajflt utime stime.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return false
	}
	fields := stat[i+1:]
	var ticks uint64
	for f := 0; f < 13; f++ {
		fields = bytes.TrimLeft(fields, " ")
		end := bytes.IndexByte(fields, ' ')
		if end < 0 {
			return false
		}
		if f >= 11 { // utime, stime
			v, ok := atoi(fields[:end])
			if !ok {
				return false
			}
			ticks += uint64(v)
		}
		fields = fields[end:]
	}
	slot := -1
	for j := range s.cpu {
		if s.cpu[j].tid == tid {
			slot = j
			break
		}
		if slot < 0 && s.cpu[j].tid == 0 {
			slot = j
		}
	}
	if slot < 0 {
		return true // more threads than followed: move it
	}
	prev := s.cpu[slot]
	s.cpu[slot] = threadCPU{tid, ticks}
	if prev.tid != tid || since <= 0 {
		return false // first seen: judged at the next sweep
	}
	return float64(ticks-prev.ticks)/clockTicks >= busyShare*since
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
