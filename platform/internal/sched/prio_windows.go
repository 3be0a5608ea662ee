package sched

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Windows' levers: a critical thread is raised with SetThreadPriority
// (THREAD_PRIORITY_HIGHEST for Config.CriticalNice −10 or lower,
// ABOVE_NORMAL above it: within the normal priority class, which needs no
// privilege) and then joins the Multimedia Class Scheduler's "Games" task
// (AvSetMmThreadCharacteristicsW, avrt.dll), which runs it in the
// real-time priority range while it stays within the task's CPU budget.
// Busy background threads go below normal. Windows schedules strictly by
// priority, so one level is enough for a raised thread to preempt a
// lowered one whenever it wakes.
const (
	threadPriorityIdle         = -15
	threadPriorityLowest       = -2
	threadPriorityBelowNormal  = -1
	threadPriorityNormal       = 0
	threadPriorityAboveNormal  = 1
	threadPriorityHighest      = 2
	threadPriorityTimeCritical = 15
	threadPriorityErrorReturn  = 0x7fffffff

	// AVRT_PRIORITY_NORMAL and _HIGH: a thread's priority within its
	// MMCSS task.
	avrtPriorityNormal = 0
	avrtPriorityHigh   = 1

	// ThreadQuerySetWin32StartAddress, NtQueryInformationThread's class
	// for the address a thread was created to run.
	threadQuerySetWin32StartAddress = 9
)

var (
	kernel32                     = windows.NewLazySystemDLL("kernel32.dll")
	procSetThreadPriority        = kernel32.NewProc("SetThreadPriority")
	procGetThreadPriority        = kernel32.NewProc("GetThreadPriority")
	procGetThreadTimes           = kernel32.NewProc("GetThreadTimes")
	avrt                         = windows.NewLazySystemDLL("avrt.dll")
	procAvSetMmThreadChars       = avrt.NewProc("AvSetMmThreadCharacteristicsW")
	procAvSetMmThreadPriority    = avrt.NewProc("AvSetMmThreadPriority")
	ntdll                        = windows.NewLazySystemDLL("ntdll.dll")
	procNtQueryInformationThread = ntdll.NewProc("NtQueryInformationThread")
)

// underWine reports whether the process runs under Wine, whose ntdll
// alone exports wine_get_version. Wine's avrt.dll is a stub: it answers
// AvSetMmThreadCharacteristicsW with a handle and changes nothing, so
// there MMCSS is never reported as granted.
var underWine = ntdll.NewProc("wine_get_version").Find() == nil

// gamesTask is MMCSS's task for games, as registered under
// HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile\Tasks.
var gamesTask, _ = windows.UTF16PtrFromString("Games")

func levelName(l int) string {
	switch l {
	case threadPriorityIdle:
		return "THREAD_PRIORITY_IDLE"
	case threadPriorityLowest:
		return "THREAD_PRIORITY_LOWEST"
	case threadPriorityBelowNormal:
		return "THREAD_PRIORITY_BELOW_NORMAL"
	case threadPriorityNormal:
		return "THREAD_PRIORITY_NORMAL"
	case threadPriorityAboveNormal:
		return "THREAD_PRIORITY_ABOVE_NORMAL"
	case threadPriorityHighest:
		return "THREAD_PRIORITY_HIGHEST"
	case threadPriorityTimeCritical:
		return "THREAD_PRIORITY_TIME_CRITICAL"
	}
	return fmt.Sprintf("thread priority %d", l)
}

// criticalLevel is the Windows priority level for a nice value asked of a
// critical thread.
func criticalLevel(n int) int {
	if n <= -10 {
		return threadPriorityHighest
	}
	return threadPriorityAboveNormal
}

// backgroundLevel is the Windows priority level for Config.BackgroundNice
// n: one level below normal up to the default, two (LOWEST) above it.
func backgroundLevel(n int) int {
	if n <= BackgroundGap {
		return threadPriorityBelowNormal
	}
	return threadPriorityLowest
}

func osBackground(n int) string { return levelName(backgroundLevel(n)) }

func setPriority(h windows.Handle, level int) error {
	if r, _, err := syscall.SyscallN(procSetThreadPriority.Addr(), uintptr(h), uintptr(level)); r == 0 {
		return err
	}
	return nil
}

func getPriority(h windows.Handle) (int, error) {
	r, _, err := syscall.SyscallN(procGetThreadPriority.Addr(), uintptr(h))
	if int32(r) == threadPriorityErrorReturn {
		return 0, err
	}
	return int(int32(r)), nil
}

// currentThread is GetCurrentThread's pseudo-handle, which never fails.
const currentThread = ^windows.Handle(1)

// raise asks for the critical priority on the calling thread and reads it
// back: How is "mmcss" when MMCSS took the thread into its Games task,
// "raised" when only SetThreadPriority did (always under Wine), "denied"
// when neither could.
// Native says what GetThreadPriority read back and MMCSS's answer.
func raise(name string, n int) ThreadPriority {
	tid := int(windows.GetCurrentThreadId())
	tp := ThreadPriority{Name: name, TID: tid}
	if n >= 1 {
		tp.How = "not asked"
		l, _ := getPriority(currentThread)
		setNative(tid, "GetThreadPriority "+levelName(l))
		return tp
	}
	want := criticalLevel(n)
	setErr := setPriority(currentThread, want)
	got, getErr := getPriority(currentThread)
	native := "GetThreadPriority " + levelName(got)
	switch {
	case getErr != nil:
		tp.How, tp.Err = "denied", "GetThreadPriority: "+getErr.Error()
	case setErr != nil || got != want:
		tp.How = "denied"
		if setErr != nil {
			tp.Err = "SetThreadPriority " + levelName(want) + ": " + setErr.Error()
		} else {
			tp.Err = "SetThreadPriority " + levelName(want) + " read back " + levelName(got)
		}
	default:
		tp.How = "raised"
	}
	if err := procAvSetMmThreadChars.Find(); err != nil {
		native += "; MMCSS unavailable: " + err.Error()
	} else {
		var index uint32
		h, _, err := syscall.SyscallN(procAvSetMmThreadChars.Addr(), uintptr(unsafe.Pointer(gamesTask)), uintptr(unsafe.Pointer(&index)))
		switch {
		case h == 0:
			native += "; AvSetMmThreadCharacteristicsW(Games) refused: " + err.Error()
		case underWine:
			native += "; MMCSS not in force: Wine's avrt.dll is a stub"
		default:
			tp.How, tp.Err = "mmcss", ""
			native += fmt.Sprintf("; MMCSS task Games, index %d", index)
			prio, pname := avrtPriorityNormal, "AVRT_PRIORITY_NORMAL"
			if n <= -10 {
				prio, pname = avrtPriorityHigh, "AVRT_PRIORITY_HIGH"
			}
			if r, _, err := syscall.SyscallN(procAvSetMmThreadPriority.Addr(), h, uintptr(prio)); r != 0 {
				native += ", " + pname
			} else {
				native += ", AvSetMmThreadPriority " + pname + " refused: " + err.Error()
			}
		}
	}
	if underWine {
		native += hostNice()
	}
	setNative(tid, native)
	return tp
}

// hostNice reads, under Wine, the Linux scheduler's view of the calling
// thread (a Wine thread is one host thread, and Wine maps / to Z:): what
// the Windows levers changed for the scheduler that runs it.
func hostNice() string {
	b, err := os.ReadFile(`Z:\proc\thread-self\stat`)
	if err != nil {
		return "; host thread unknown: " + err.Error()
	}
	// The fields after the command name's closing parenthesis, from the
	// state (field 3) on: nice is field 19.
	if i := bytes.LastIndexByte(b, ')'); i >= 0 {
		if f := strings.Fields(string(b[i+1:])); len(f) > 16 {
			return "; host thread nice " + f[16]
		}
	}
	return "; host thread unknown: " + strconv.Quote(string(b))
}

// shorten: Windows has no per-thread time slice to ask for.
func shorten(tp *ThreadPriority, _ time.Duration) { tp.Slice = "unsupported" }

// realtime: REALTIME_PRIORITY_CLASS is the whole process's, and needs
// SeIncreaseBasePriorityPrivilege; MMCSS (raise) is Windows' way to run
// one thread in the real-time range.
func realtime(tp *ThreadPriority, prio int) {
	if prio > 0 {
		tp.RT, tp.RTErr = "unsupported", "Windows has no per-thread real-time policy: MMCSS is used instead"
	}
}

// lower moves the calling thread to the background level for nice n.
func lower(n int) {
	setPriority(currentThread, backgroundLevel(n))
}

// maxThreads bounds the threads whose CPU time a sweep remembers.
const maxThreads = 1024

type threadCPU struct {
	tid uint32
	cpu int64 // 100 ns units of kernel and user time
}

// sweeper lowers the process's busy threads. Its buffers are reused, so a
// sweep allocates nothing.
type sweeper struct {
	entry windows.ThreadEntry32
	cpu   [maxThreads]threadCPU
	next  [maxThreads]threadCPU
	n     int
	// all moves every thread, busy or not (tests).
	all bool
	// goStarts are the start addresses of threads known to carry Go
	// code: the Go runtime's own thread start routine (runtime's
	// tstart_stdcall, or cgo's threadentry in a cgo build: both in the
	// executable, started by CreateThread) and the process's entry, where
	// the main thread starts. A thread that starts anywhere else is not
	// the runtime's: a driver's workers start in its DLL, or in the C
	// runtime's thread start (msvcrt, ucrtbase) when it is built against
	// the shared CRT, and keep their priority. image is the executable's
	// module, the rule where the start addresses could not be read.
	goStarts [4]uintptr
	nStarts  int
	image    windows.Handle
	ready    bool
}

// startAddress reads the address thread h was created to run (0: unknown).
func startAddress(h windows.Handle) uintptr {
	var start uintptr
	r, _, _ := syscall.SyscallN(procNtQueryInformationThread.Addr(), uintptr(h), threadQuerySetWin32StartAddress,
		uintptr(unsafe.Pointer(&start)), unsafe.Sizeof(start), 0)
	if r != 0 {
		return 0
	}
	return start
}

// init learns the Go runtime's start addresses: the executable's entry
// point, where the main thread starts (read from the image's PE header:
// which thread a goroutine runs on is chance, and a sweep that learned
// only from the threads below, none of them the main thread, took the
// main thread for a foreign one and left it as it was), and the start of
// threads that run Go code: the calling thread and two goroutines locked
// to their threads at once (at most one of the three is the main thread,
// so at least one is a thread the runtime started).
func (s *sweeper) init() {
	s.ready = true
	windows.GetModuleHandleEx(windows.GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT, nil, &s.image)
	s.learn(entryPoint(s.image))
	s.learn(startAddress(windows.CurrentThread()))
	starts := make(chan uintptr, 2)
	release := make(chan struct{})
	for range 2 {
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			starts <- startAddress(windows.CurrentThread())
			<-release
		}()
	}
	s.learn(<-starts)
	s.learn(<-starts)
	close(release)
}

// entryPoint reads the entry point of the module loaded at base from its
// PE header (0: unknown): the DOS header's e_lfanew (at 0x3c) points at
// "PE\0\0", a 20-byte file header, then the optional header, whose
// AddressOfEntryPoint (at 16) is relative to the base.
func entryPoint(base windows.Handle) uintptr {
	if base == 0 {
		return 0
	}
	// The module handle is the address the image is mapped at.
	img := *(*unsafe.Pointer)(unsafe.Pointer(&base))
	if *(*uint16)(img) != 0x5a4d { // "MZ"
		return 0
	}
	nt := unsafe.Add(img, *(*uint32)(unsafe.Add(img, 0x3c)))
	if *(*uint32)(nt) != 0x00004550 { // "PE\0\0"
		return 0
	}
	rva := *(*uint32)(unsafe.Add(nt, 4+20+16))
	if rva == 0 {
		return 0
	}
	return uintptr(base) + uintptr(rva)
}

func (s *sweeper) learn(start uintptr) {
	if start == 0 {
		return
	}
	for _, a := range s.goStarts[:s.nStarts] {
		if a == start {
			return
		}
	}
	if s.nStarts < len(s.goStarts) {
		s.goStarts[s.nStarts] = start
		s.nStarts++
	}
}

// ours reports whether thread h was started by the Go runtime: it starts
// where the threads known to run Go code start. Unknown counts as ours.
func (s *sweeper) ours(h windows.Handle) bool {
	start := startAddress(h)
	if start == 0 {
		return true
	}
	if s.nStarts > 0 {
		for _, a := range s.goStarts[:s.nStarts] {
			if a == start {
				return true
			}
		}
		return false
	}
	var mod windows.Handle
	if err := windows.GetModuleHandleEx(windows.GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS|windows.GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
		*(**uint16)(unsafe.Pointer(&start)), &mod); err != nil {
		return true
	}
	return mod == s.image
}

func ticks(f windows.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }

func (s *sweeper) lastCPU(tid uint32) (int64, bool) {
	for _, c := range s.cpu[:s.n] {
		if c.tid == tid {
			return c.cpu, true
		}
	}
	return 0, false
}

func (s *sweeper) renice(n int, critical func(tid int) bool) (ok, failed int) {
	s.all = true
	defer func() { s.all = false }()
	return s.reniceBusy(n, critical, 0)
}

// reniceBusy moves to the background level for nice n every thread of the
// process that the Go runtime started, that is not critical and that used
// at least 3 % of a CPU in the since seconds before (every thread when
// s.all is set), and reads each move back.
func (s *sweeper) reniceBusy(n int, critical func(tid int) bool, since float64) (ok, failed int) {
	if !s.ready {
		s.init()
	}
	level := backgroundLevel(n)
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return 0, 0
	}
	defer windows.CloseHandle(snap)
	pid := windows.GetCurrentProcessId()
	self := windows.GetCurrentThreadId()
	next := 0
	s.entry.Size = uint32(unsafe.Sizeof(s.entry))
	for err = windows.Thread32First(snap, &s.entry); err == nil; err = windows.Thread32Next(snap, &s.entry) {
		tid := s.entry.ThreadID
		if s.entry.OwnerProcessID != pid || tid == self || critical(int(tid)) {
			continue
		}
		// THREAD_SET_INFORMATION, not the _LIMITED right Windows takes
		// for SetThreadPriority since Vista: Wine takes only the former.
		h, err := windows.OpenThread(windows.THREAD_QUERY_INFORMATION|windows.THREAD_SET_INFORMATION, false, tid)
		if err != nil {
			continue // it exited
		}
		var c, e, k, u windows.Filetime
		var cpu int64
		if r, _, _ := syscall.SyscallN(procGetThreadTimes.Addr(), uintptr(h), uintptr(unsafe.Pointer(&c)), uintptr(unsafe.Pointer(&e)),
			uintptr(unsafe.Pointer(&k)), uintptr(unsafe.Pointer(&u))); r != 0 {
			cpu = ticks(k) + ticks(u)
		}
		if next < maxThreads {
			s.next[next] = threadCPU{tid, cpu}
			next++
		}
		last, seen := s.lastCPU(tid)
		// 3 % of a CPU, as on Linux; 100 ns units.
		busy := s.all || (seen && since > 0 && float64(cpu-last) >= 0.03*since*1e7)
		// A thread already at the level or below it (sched.Go's, one moved
		// before) is left as it is: its priority read back is the state.
		if cur, err := getPriority(h); busy && err == nil && cur > level && s.ours(h) {
			if setPriority(h, level) == nil {
				if l, err := getPriority(h); err == nil && l == level {
					ok++
				} else {
					failed++
				}
			} else {
				failed++
			}
		}
		windows.CloseHandle(h)
	}
	s.cpu, s.n = s.next, next
	return ok, failed
}
