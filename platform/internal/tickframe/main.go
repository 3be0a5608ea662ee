// Package tickframe is the tickframe command's body: the demo and the
// lab's tools (verify, stress, observe, view, the nested compositors'
// runners), reached from cmd/tickframe through package platform/lab. It
// is internal to platform so that the tools may use the runtime's
// machinery (present, sched, observe, the verifier) while an app's import
// graph holds none of it.
package tickframe

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/tickframe/tickframe/platform/app"
	"github.com/tickframe/tickframe/platform/internal/verify"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// Main is the tickframe command (cmd/tickframe) without the exit: it runs
// the demo or the tool args name and returns the exit status. It must be
// called on the main goroutine (package platform/internal/window pins it
// to the main thread, where the demo's window runs).
func Main(args []string, stdout, stderr io.Writer) int { return run(args, stdout, stderr) }

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
	d, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil {
		err = demo(d, stderr)
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
	return app.ExitCode(err)
}

// oneLine folds a message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
