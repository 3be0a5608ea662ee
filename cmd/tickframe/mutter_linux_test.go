package main

import (
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/platform/observe"
)

// The X11 build behind GNOME's compositor: inside a Mutter nested in
// tickframe observe's Xvfb, as an X11 client of Mutter's XWayland, quiet
// and under -stress 2×NumCPU. The app takes part in frame sync, and its
// display times must come from Mutter's frame timings
// (x11-frame-timings), paced to the output, and its figures must agree
// with what the observer saw Mutter put into the Xvfb's framebuffer,
// within issue 22's bounds as behind Weston (disagreementsBehind: the
// compositor stamps its presentation from its clock when it runs, and the
// frame reaches the framebuffer when the X server runs). Broken on
// purpose (TICKFRAME_NO_FRAME_SYNC: the X server's own feedback, which
// under XWayland ends where XWayland hands the window over), the same
// comparison fails.
func TestUnderMutter(t *testing.T) {
	needDisplay(t)
	for _, tool := range []string{"mutter", "dbus-run-session", "Xwayland"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not installed: make deps installs it", tool)
		}
	}
	b := behind{under: []string{binary, underMutterCommand}, window: observe.MutterTitle, compositor: "mutter"}
	n := runtime.NumCPU()
	for _, tc := range []struct {
		name   string
		args   []string
		broken bool
	}{
		{name: "quiet"},
		{name: "stress " + strconv.Itoa(2*n), args: []string{"-stress", strconv.Itoa(2 * n)}},
		{name: "without frame sync", broken: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var env []string
			if tc.broken {
				env = []string{"TICKFRAME_NO_FRAME_SYNC=1"}
			}
			ob := observeBehind(t, b, binary, tc.args, env)
			r, o := ob.report, ob.obs
			late := swapWaitMs(r) + float64(ob.compositorWait)/1e6
			ds := disagreementsBehind(o.Frames, o.FloorMs, late, float64(ob.displayWait)/1e6)
			if tc.broken {
				if !strings.Contains(r.PresentTimeSource, "XWayland: the hand-over") {
					t.Errorf("present_time_source %q without frame sync: want the X server's, labelled the hand-over", r.PresentTimeSource)
				}
				if len(ds) == 0 {
					t.Errorf("without frame sync the app's figures agree with the observer's: the comparison cannot tell the sources apart")
				}
				t.Logf("without frame sync (expected to disagree): %q", ds)
				return
			}
			if !strings.HasPrefix(r.PresentTimeSource, "x11-frame-timings") {
				t.Fatalf("present_time_source %q: not the compositor's frame timings", r.PresentTimeSource)
			}
			if c := r.PresentClock; c == nil || c.Clock != "CLOCK_MONOTONIC" || c.Presented == 0 {
				t.Errorf("present_clock %+v: want the compositor's presentations on CLOCK_MONOTONIC", c)
			}
			if vb := r.PresentVblankHz; vb <= 0 || r.FPS > 1.03*vb {
				t.Errorf("%.1f fps on a display of %.2f Hz: not paced to it", r.FPS, vb)
			}
			for _, d := range ds {
				t.Errorf("on the app's vblanks: %s", d)
			}
			if o.OwnFrames == nil {
				t.Logf("the observer has no vblanks of its own: only the app's are compared")
				return
			}
			// Mutter's frame timings carry no vsync flag and its nested
			// output repaints on a timer: the repeats are not compared on
			// the observer's own grid (as behind Weston), and under a load
			// that grid is logged.
			own := slices.DeleteFunc(ownDisagreements(o.OwnFrames, o.FloorMs, late, false), func(d string) bool { return strings.HasPrefix(d, "repeated ") })
			for _, d := range own {
				if len(tc.args) > 0 || scattered(o.OwnFit) {
					t.Logf("on the observer's own vblanks, under load: %s", d)
					continue
				}
				t.Errorf("on the observer's own vblanks: %s", d)
			}
		})
	}
}
