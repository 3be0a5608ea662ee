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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tickframe/tickframe/cmd/tickframe/internal/verify"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the exit, for tests.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "verify":
			return verify.Main(args[1:], stdout, stderr)
		case "stress":
			return stressMain(args[1:], stdout, stderr)
		case "observe":
			return observeMain(args[1:], stdout, stderr)
		case "view":
			return viewMain(args[1:], stdout, stderr)
		case busyCommand:
			return busyProcess()
		case underWestonCommand:
			return underWeston(args[1:], stderr)
		case underMutterCommand:
			return underMutter(args[1:], stderr)
		}
	}
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil {
		err = demo(o, stdout, stderr)
	}
	if err == nil {
		return 0
	}
	var se *renderer.ShaderError
	var pe *simthread.PanicError
	switch {
	case errors.As(err, &se):
		// The driver's log and the numbered source follow the first line.
		fmt.Fprintf(stderr, "tickframe: %v\n", err)
	case errors.As(err, &pe):
		// A bug in the world: the stack after the line, for whoever fixes it.
		fmt.Fprintf(stderr, "tickframe: %s\n%s", oneLine(err.Error()), pe.Stack)
	default:
		fmt.Fprintf(stderr, "tickframe: %s\n", oneLine(err.Error()))
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// oneLine folds a message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
