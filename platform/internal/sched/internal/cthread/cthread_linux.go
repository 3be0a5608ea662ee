//go:build linux && cgo

package cthread

/*
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

typedef struct {
	long work_ns, period_ns;
	int policy, prio;
	volatile int stop;
	volatile int tid;
	int err;
	pthread_t thread;
} worker;

static long now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void *run(void *arg) {
	worker *w = arg;
	w->tid = (int)syscall(SYS_gettid);
	long next = now_ns();
	while (!w->stop) {
		long t0 = now_ns();
		while (now_ns() - t0 < w->work_ns)
			;
		next += w->period_ns;
		struct timespec ts = {next / 1000000000L, next % 1000000000L};
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return NULL;
}

static int start(worker *w) {
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	if (w->policy != SCHED_OTHER) {
		struct sched_param p;
		memset(&p, 0, sizeof p);
		p.sched_priority = w->prio;
		pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		pthread_attr_setschedpolicy(&attr, w->policy);
		pthread_attr_setschedparam(&attr, &p);
	}
	int err = pthread_create(&w->thread, &attr, run, w);
	pthread_attr_destroy(&attr);
	if (err)
		return err;
	while (!w->tid)
		usleep(100);
	return 0;
}

static void spin(long ns) {
	long t0 = now_ns();
	while (now_ns() - t0 < ns)
		;
}

static void stop(worker *w) {
	w->stop = 1;
	pthread_join(w->thread, NULL);
}
*/
import "C"

import (
	"fmt"
	"syscall"
	"time"
	"unsafe"
)

// Thread is a running C thread.
type Thread struct {
	w *C.worker
	// TID is its Linux thread id.
	TID int
}

// The policies Start takes.
const (
	Other = int(C.SCHED_OTHER)
	FIFO  = int(C.SCHED_FIFO)
)

// Start starts a C thread with policy (Other or FIFO at prio) that
// spins for work every period, sleeping in between.
func Start(policy, prio int, work, period time.Duration) (*Thread, error) {
	w := (*C.worker)(C.calloc(1, C.size_t(unsafe.Sizeof(C.worker{}))))
	w.work_ns, w.period_ns = C.long(work), C.long(period)
	w.policy, w.prio = C.int(policy), C.int(prio)
	if err := C.start(w); err != 0 {
		C.free(unsafe.Pointer(w))
		return nil, fmt.Errorf("cthread: pthread_create: %w", syscall.Errno(err))
	}
	return &Thread{w: w, TID: int(w.tid)}, nil
}

// Spin keeps the calling thread busy in C for d, without a blocking
// system call and out of reach of Go's preemption, as a runaway driver
// call would.
func Spin(d time.Duration) { C.spin(C.long(d)) }

// Stop stops the thread and waits for it.
func (t *Thread) Stop() {
	C.stop(t.w)
	C.free(unsafe.Pointer(t.w))
}
