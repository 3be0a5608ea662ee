package sched_test

import (
	"fmt"

	"github.com/tickframe/tickframe/platform/internal/sched"
)

// A C library's audio thread (its id from gettid, given by the library)
// raised like a critical thread, and its decoder thread moved to the
// background when busy; the sweep leaves the library's other threads
// alone.
func ExampleCriticalThread() {
	var audioTID, decoderTID int // from the C library
	tp, unregister := sched.CriticalThread("audio", audioTID, sched.Config{})
	defer unregister()
	fmt.Println("audio thread:", tp.How, "nice", tp.Nice)
	defer sched.BackgroundThread(decoderTID)()
}

// The display server's wait for a CPU over a run, for a report.
func ExampleWatchDisplayServer() {
	w, err := sched.WatchDisplayServer("") // $DISPLAY
	if err != nil {
		fmt.Println("no local X server:", err)
		return
	}
	// ... the run ...
	if sum, err := w.Summary(); err == nil {
		fmt.Printf("%s waited %.0f ms for a CPU in %.0f ms\n", sum.Server.Name, sum.WaitMs, sum.SpanMs)
	}
}
