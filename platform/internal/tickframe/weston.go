package tickframe

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/tickframe/tickframe/platform/internal/observe"
	"github.com/tickframe/tickframe/platform/internal/present"
)

// underWestonCommand is the hidden subcommand that runs a command inside
// a Weston nested in the X display ($DISPLAY, an observer's Xvfb): as a
// Wayland client, or as an X11 client of Weston's XWayland. tickframe
// stress -compositor and the tests run the demo behind a compositor
// through it, under tickframe observe:
//
//	tickframe under-weston wayland|xwayland COMMAND [ARGS...]
const underWestonCommand = "under-weston"

// underWeston runs args[1:] under a Weston of mode args[0] and returns its
// exit status (1 when Weston would not start, 2 on a bad command line).
func underWeston(args []string, stderr io.Writer) int {
	if len(args) < 2 || args[0] != "wayland" && args[0] != "xwayland" {
		fmt.Fprintf(stderr, "tickframe %s: usage: tickframe %s wayland|xwayland COMMAND [ARGS...]\n", underWestonCommand, underWestonCommand)
		return 2
	}
	x11 := args[0] == "xwayland"
	w, err := observe.StartWeston(observe.WestonConfig{XWayland: x11})
	if err != nil {
		fmt.Fprintf(stderr, "tickframe %s: %v\n", underWestonCommand, err)
		return 1
	}
	defer w.Close()
	return runUnder(underWestonCommand, w.Env(os.Environ(), x11), args[1:], stderr)
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
//	tickframe under-mutter COMMAND [ARGS...]
//
// COMMAND is a tickframe demo: before it runs, a warm-up run of COMMAND
// alone (fullscreen, 300 ms) goes first, since the first fullscreen GLFW
// window of a fresh nested Mutter is never shown (its frame timings say
// so: 1 of 89 frames presented; the observer saw none).
const underMutterCommand = "under-mutter"

// underMutter runs args under a Mutter and returns the command's exit
// status (1 when Mutter would not start, 2 on a bad command line).
func underMutter(args []string, stderr io.Writer) int {
	if len(args) < 1 {
		fmt.Fprintf(stderr, "tickframe %s: usage: tickframe %s COMMAND [ARGS...]\n", underMutterCommand, underMutterCommand)
		return 2
	}
	m, err := observe.StartMutter(observe.MutterConfig{})
	if err != nil {
		fmt.Fprintf(stderr, "tickframe %s: %v\n", underMutterCommand, err)
		return 1
	}
	defer m.Close()
	if err := warmUpMutter(args[0], m.Env(os.Environ())); err != nil {
		fmt.Fprintf(stderr, "tickframe %s: %v\n", underMutterCommand, err)
		return 1
	}
	return runUnder(underMutterCommand, m.Env(os.Environ()), args, stderr)
}

// mutterWarmUps is how many warm-up runs warmUpMutter makes at most.
const mutterWarmUps = 5

// warmUpMutter runs the demo demo fullscreen for 300 ms under a fresh
// Mutter (env) until Mutter has shown one of its windows: its own frame
// timings, in the run's report, count a frame presented. The first
// fullscreen GLFW window of a fresh nested Mutter is never shown (its
// frame timings say so: 1 of 89 frames presented; the observer saw
// none), and one 300 ms run before did not always cure it (one row in
// each of two stress tables of six read a window never shown).
func warmUpMutter(demo string, env []string) error {
	dir, err := os.MkdirTemp("", "tickframe-warmup-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	rep := filepath.Join(dir, "report.json")
	for try := 1; try <= mutterWarmUps; try++ {
		warm := exec.Command(demo, "-fullscreen", "-duration", "300ms", "-bodies", "1", "-focuspause=false", "-report", rep)
		warm.Env = env
		if out, err := warm.CombinedOutput(); err != nil {
			return fmt.Errorf("the warm-up run: %v: %s", err, oneLine(string(out)))
		}
		var r struct {
			Source string `json:"present_time_source"`
			Clock  *struct {
				Presented uint64 `json:"presented_frames"`
			} `json:"present_clock"`
		}
		data, err := os.ReadFile(rep)
		if err == nil {
			err = json.Unmarshal(data, &r)
		}
		if err != nil {
			return fmt.Errorf("the warm-up run's report: %v", err)
		}
		if !strings.HasPrefix(r.Source, present.SourceFrameTimings) {
			// No frame timings (TICKFRAME_NO_FRAME_SYNC): nothing
			// says whether Mutter showed it; one run, as before.
			return nil
		}
		if r.Clock != nil && r.Clock.Presented > 0 {
			return nil
		}
	}
	return fmt.Errorf("Mutter showed none of %d warm-up runs' windows (its frame timings presented none)", mutterWarmUps)
}
