// Command tickframe is the demo and the timing bench of tickframe: a few
// thousand lit bodies tumbling and orbiting, simulated at a fixed rate on
// their own goroutine and drawn interpolated at the display's refresh.
//
//	tickframe [flags]           run the demo (tickframe -h lists the flags)
//	tickframe verify [flags]    prove on a virtual clock that motion and
//	                            results do not depend on the display
//	tickframe stress [flags]    run the demo under each kind of CPU load
//	                            and print one table of its timing
//	tickframe view FILE.glb     show a glTF model alone, framed, turning
//
// Every run can measure itself (-report, -plot), be profiled (-cpuprofile,
// -memprofile, -trace, -pprof) under load (-stress, -stepcost, -gcpressure),
// and be recorded and replayed (-record, -replay). Files are written on
// every exit path once the window is open: closing it, Esc, -duration,
// SIGINT, SIGTERM or an error. A bad flag exits with status 2 and a
// one-line message, a failure at run time with status 1; neither a bad
// flag nor a window that cannot open leaves any file.
package main

import (
	"os"

	"github.com/tickframe/tickframe/platform/lab"
)

func main() {
	os.Exit(lab.Main(os.Args[1:], os.Stdout, os.Stderr))
}
