package tickframe

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/tickframe/tickframe/platform/internal/observe"
)

// underWestonCommand is the hidden subcommand that runs a command inside
// a Weston nested in the X display ($DISPLAY, an observer's Xvfb): as a
// Wayland client, or as an X11 client of Weston's XWayland. tickframe
// stress -compositor and the tests run the demo behind a compositor
// through it, under tickframe observe:
//
//	tickframe under-weston [-log FILE] wayland|xwayland COMMAND [ARGS...]
//
// -log FILE copies the compositor's log there when the command ends (the
// tests keep it with a run's files).
const underWestonCommand = "under-weston"

// underWeston runs args[1:] under a Weston of mode args[0] and returns its
// exit status (1 when Weston would not start, 2 on a bad command line).
func underWeston(args []string, stderr io.Writer) int {
	usage := fmt.Sprintf("tickframe %s: usage: tickframe %s [-log FILE] wayland|xwayland COMMAND [ARGS...]", underWestonCommand, underWestonCommand)
	args, logTo, ok := underFlags(underWestonCommand, args, usage, stderr)
	if !ok {
		return 2
	}
	if len(args) < 2 || args[0] != "wayland" && args[0] != "xwayland" {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	x11 := args[0] == "xwayland"
	w, err := observe.StartWeston(observe.WestonConfig{XWayland: x11})
	if err != nil {
		fmt.Fprintf(stderr, "tickframe %s: %v\n", underWestonCommand, err)
		return 1
	}
	defer w.Close()
	defer keepLog(underWestonCommand, w.Log, logTo, stderr)
	return runUnder(underWestonCommand, w.Env(os.Environ(), x11), args[1:], stderr)
}

// underFlags parses an under- command's own flags (-log FILE), which
// come before its arguments, and returns the arguments and the log's
// path; false, having said why on stderr, on a bad flag.
func underFlags(command string, args []string, usage string, stderr io.Writer) ([]string, string, bool) {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	logTo := fs.String("log", "", "copy the compositor's log to this file when the command ends")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "tickframe %s: %v (%s)\n", command, err, strings.TrimPrefix(usage, "tickframe "+command+": "))
		return nil, "", false
	}
	return fs.Args(), *logTo, true
}

// keepLog copies the compositor's log from to to ("": nowhere), before
// the compositor's runtime directory, where it lies, goes.
func keepLog(command, from, to string, stderr io.Writer) {
	if to == "" {
		return
	}
	data, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, data, 0o644)
	}
	if err != nil {
		fmt.Fprintf(stderr, "tickframe %s: keeping the compositor's log: %v\n", command, err)
	}
}

// runUnder runs args with env, its output to ours and stderr, and returns
// its exit status (1 where it could not run), saying why as command.
func runUnder(command string, env, args []string, stderr io.Writer) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = os.Stdout, stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() > 0 {
			return ee.ExitCode()
		}
		fmt.Fprintf(stderr, "tickframe %s: %v\n", command, err)
		return 1
	}
	return 0
}

// underMutterCommand is the hidden subcommand that runs an X11 command
// under the XWayland of a Mutter nested in the X display ($DISPLAY, an
// observer's Xvfb): GNOME's compositor, which sends frame timings to an
// X11 window in frame sync. The tests run the demo behind it through it,
// under tickframe observe:
//
//	tickframe under-mutter [-log FILE] COMMAND [ARGS...]
//
// The command's first window is the one measured: no run goes before it
// (a fullscreen GLFW window minimised itself on the passing focus change
// Mutter makes at its first map, until the window package turned GLFW's
// auto-iconify off).
const underMutterCommand = "under-mutter"

// underMutter runs args under a Mutter and returns the command's exit
// status (1 when Mutter would not start, 2 on a bad command line).
func underMutter(args []string, stderr io.Writer) int {
	usage := fmt.Sprintf("tickframe %s: usage: tickframe %s [-log FILE] COMMAND [ARGS...]", underMutterCommand, underMutterCommand)
	args, logTo, ok := underFlags(underMutterCommand, args, usage, stderr)
	if !ok {
		return 2
	}
	if len(args) < 1 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	m, err := observe.StartMutter(observe.MutterConfig{})
	if err != nil {
		fmt.Fprintf(stderr, "tickframe %s: %v\n", underMutterCommand, err)
		return 1
	}
	defer m.Close()
	defer keepLog(underMutterCommand, m.Log, logTo, stderr)
	return runUnder(underMutterCommand, m.Env(os.Environ()), args, stderr)
}
