//go:build linux && cgo

package sched

/*
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

// The kernel's struct sched_attr, its first version (48 bytes).
struct tf_sched_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
};

// A demotion the handler made, written whole to the pipe (16 bytes, far
// below PIPE_BUF).
typedef struct {
	int32_t tid, err;
	int64_t at_ns; // CLOCK_MONOTONIC
} tf_demotion;

enum { tf_slots = 64 };
static int tf_watched[tf_slots]; // thread ids, 0 free; atomics
static int tf_pipe = -1;         // the write end, non-blocking
static int tf_soft_div = 8;
static struct sigaction tf_prev; // Go's handler, chained

static int64_t tf_now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

// tf_xcpu runs on the thread the signal was sent to. The kernel sends the
// SIGXCPU of RLIMIT_RTTIME to the real-time thread that ran past the soft
// limit, from the kernel (SI_KERNEL): a watched thread is made ordinary
// there and then, keeping its nice value and SCHED_RESET_ON_FORK (an
// ordinary user may not clear it), and the soft limit, which the kernel
// raised by a second, is put back. Every SIGXCPU then goes on to Go's
// handler, so that os/signal still sees it.
static void tf_xcpu(int sig, siginfo_t *info, void *ctx) {
	int saved = errno;
	int tid = (int)syscall(SYS_gettid);
	int watched = 0;
	for (int i = 0; i < tf_slots && !watched; i++)
		watched = __atomic_load_n(&tf_watched[i], __ATOMIC_ACQUIRE) == tid;
	struct tf_sched_attr a;
	memset(&a, 0, sizeof a);
	if (watched && info != NULL && info->si_code == SI_KERNEL &&
	    syscall(SYS_sched_getattr, 0, &a, sizeof a, 0) == 0 &&
	    (a.policy == SCHED_RR || a.policy == SCHED_FIFO)) {
		struct tf_sched_attr n;
		memset(&n, 0, sizeof n);
		n.size = sizeof n;
		n.policy = SCHED_OTHER;
		n.flags = a.flags & 1; // SCHED_FLAG_RESET_ON_FORK
		n.nice = a.nice;
		tf_demotion d = {tid, 0, 0};
		if (syscall(SYS_sched_setattr, 0, &n, 0) != 0)
			d.err = errno;
		d.at_ns = tf_now();
		struct rlimit r;
		if (getrlimit(RLIMIT_RTTIME, &r) == 0 && r.rlim_max != RLIM_INFINITY) {
			r.rlim_cur = r.rlim_max / tf_soft_div;
			setrlimit(RLIMIT_RTTIME, &r);
		}
		if (tf_pipe >= 0)
			(void)!write(tf_pipe, &d, sizeof d);
	}
	errno = saved;
	if (tf_prev.sa_flags & SA_SIGINFO) {
		if (tf_prev.sa_sigaction != NULL)
			tf_prev.sa_sigaction(sig, info, ctx);
	} else if (tf_prev.sa_handler != SIG_DFL && tf_prev.sa_handler != SIG_IGN) {
		tf_prev.sa_handler(sig);
	}
}

// tf_install makes tf_xcpu SIGXCPU's handler, writing its demotions to
// fd, and keeps the handler it replaces to chain to.
static int tf_install(int fd, int soft_div) {
	tf_pipe = fd;
	tf_soft_div = soft_div;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = tf_xcpu;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGXCPU, NULL, &tf_prev) != 0)
		return errno;
	if (sigaction(SIGXCPU, &sa, NULL) != 0)
		return errno;
	return 0;
}

static int tf_watch(int tid) {
	for (int i = 0; i < tf_slots; i++) {
		int free = 0;
		if (__atomic_compare_exchange_n(&tf_watched[i], &free, tid, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return 1;
	}
	return 0;
}

static void tf_unwatch(int tid) {
	for (int i = 0; i < tf_slots; i++) {
		int want = tid;
		__atomic_compare_exchange_n(&tf_watched[i], &want, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	}
}
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// xcpu guards the threads a broker made real-time. RLIMIT_RTTIME (which
// brokerRT lowers to the broker's RTTimeUSecMax) gets a real-time thread
// that runs its soft limit without blocking SIGXCPU, and the process
// killed at the hard limit. The kernel sends that SIGXCPU to the thread
// itself, and a C handler installed on the first guarded thread demotes
// it there, on the thread that ran away, which is running and holds a
// CPU: no goroutine has to be scheduled first, so a loaded machine (on
// which an os/signal watcher took 170 ms to run) cannot delay it past the
// kill. The handler writes what it did to a pipe; a goroutine reads it
// and says so in the thread's record (ThreadPriority.RT "demoted", in
// Criticals). The handler stays installed for the process's life and
// chains to Go's, so os/signal still sees every SIGXCPU.
var xcpu struct {
	sync.Mutex
	installed bool
	err       error
	demotedAt time.Time // the last demotion (tests)
}

// guardRT guards the brokered real-time thread tp (watchXCPU). A thread
// that cannot be guarded is made ordinary again at the nice value it has
// (a runaway would get the process killed), says why, and guardRT
// reports false.
func guardRT(tp *ThreadPriority) bool {
	err := watchXCPU(tp.TID)
	if err == nil {
		return true
	}
	unguarded(tp, err)
	return false
}

// watchXCPU guards thread tid, installing the handler first if it is
// not.
func watchXCPU(tid int) error {
	xcpu.Lock()
	defer xcpu.Unlock()
	if !xcpu.installed {
		xcpu.installed = true
		xcpu.err = installXCPU()
	}
	if xcpu.err != nil {
		return xcpu.err
	}
	if C.tf_watch(C.int(tid)) == 0 {
		return fmt.Errorf("every one of the %d guarded real-time threads is taken", C.tf_slots)
	}
	return nil
}

// unwatchXCPU stops guarding thread tid.
func unwatchXCPU(tid int) { C.tf_unwatch(C.int(tid)) }

func installXCPU() error {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return fmt.Errorf("SIGXCPU guard: pipe: %w", err)
	}
	if errno := C.tf_install(C.int(p[1]), C.int(rttimeSoft)); errno != 0 {
		unix.Close(p[0])
		unix.Close(p[1])
		return fmt.Errorf("SIGXCPU guard: sigaction: %w", unix.Errno(errno))
	}
	r := os.NewFile(uintptr(p[0]), "sigxcpu")
	go readDemotions(r)
	return nil
}

// readDemotions records each demotion the handler made.
func readDemotions(r *os.File) {
	var rec [16]byte
	for {
		if _, err := r.Read(rec[:]); err != nil {
			return
		}
		tid := int(int32(binary.NativeEndian.Uint32(rec[0:])))
		errno := unix.Errno(binary.NativeEndian.Uint32(rec[4:]))
		at := int64(binary.NativeEndian.Uint64(rec[8:]))
		var now unix.Timespec
		_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &now)
		when := time.Now().Add(-time.Duration(now.Nano() - at))
		xcpu.Lock()
		xcpu.demotedAt = when
		xcpu.Unlock()
		global.Lock()
		if tp, ok := global.critical[tid]; ok {
			if errno == 0 {
				tp.RT, tp.RTPriority = "demoted", 0
				tp.RTErr = "SIGXCPU: a real-time thread ran past the soft RLIMIT_RTTIME without blocking"
			} else {
				tp.RTErr = "SIGXCPU, and demoting failed: " + errno.Error()
			}
			global.critical[tid] = tp
		}
		global.Unlock()
	}
}
