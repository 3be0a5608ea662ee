package sched

import (
	"os"
	"runtime"
)

// The test binary's main goroutine keeps the main thread, as the app's
// does (GLFW's, locked in init): a test goroutine locked to a thread that
// exits with it then never lands on the main thread, which the runtime
// cannot end and would keep parked, no longer counted among its threads
// (/sched/threads/total:threads), and the sweep's census (every thread
// the runtime's?) would see a thread that is not Go's.
//
// The tests reach no broker but the ones they start (.ci/rtkit-env): a
// machine's own RealtimeKit would grant the raises that the tests of the
// denied path expect refused.
func init() {
	runtime.LockOSThread()
	if os.Getenv("TICKFRAME_SCHED_BROKER_CHILD") == "" {
		os.Setenv("DBUS_SYSTEM_BUS_ADDRESS", "unix:path=/nonexistent/tickframe-test/system_bus_socket")
		os.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
		os.Setenv("XDG_RUNTIME_DIR", "")
	}
}
