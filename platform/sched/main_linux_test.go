package sched

import "runtime"

// The test binary's main goroutine keeps the main thread, as the app's
// does (GLFW's, locked in init): a test goroutine locked to a thread that
// exits with it then never lands on the main thread, which the runtime
// cannot end and would keep parked, no longer counted among its threads
// (/sched/threads/total:threads), and the sweep's census (every thread
// the runtime's?) would see a thread that is not Go's.
func init() { runtime.LockOSThread() }
