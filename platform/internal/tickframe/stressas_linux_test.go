package tickframe

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// -as takes an ordinary user that exists; anything else is a flag error.
func TestStressAsBadUser(t *testing.T) {
	for _, c := range []struct{ user, want string }{
		{"no-such-user-tickframe", "unknown user"},
		{"root", "is root"},
	} {
		var out, errOut strings.Builder
		if rc := stressMain([]string{"-as", c.user, "-duration", "1s"}, &out, &errOut); rc != 2 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("-as %s: exit %d, %q; want 2 and %q", c.user, rc, errOut.String(), c.want)
		}
	}
}

// The stress benchmark runs the demo as nobody: without a broker (both
// buses pointed at sockets that do not exist, so that a system rtkit the
// machine may run, with a rule of its own for nobody, is not asked) its
// critical threads are denied their raise; beside RealtimeKit
// (.ci/rtkit-env, which authorises nobody) the simulation thread gets
// real time and both their nice values from rtkit, as the demo's report
// reads them back; every row has the display server's CPU wait.
func TestStressAsNobody(t *testing.T) {
	t.Parallel() // a functional run: beside another (main_test.go)
	needDisplay(t)
	if os.Geteuid() != 0 {
		t.Fatal("-as needs root (make test runs as root)")
	}
	env, err := filepath.Abs("../../../.ci/rtkit-env")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name         string
		wrap         []string
		noBus        bool
		how, rt      string
		nice, rtPrio int
	}{
		{"alone", nil, true, "denied", "denied", 0, 0},
		{"rtkit", []string{env, "-u", "nobody"}, false, "rtkit", "rtkit", -10, 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append(append([]string{}, c.wrap...), binary, "stress", "-as", "nobody", "-duration", "2s",
				"-loads", "none", "-json", filepath.Join(dir, "s.json"))
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Dir = dir
			if c.noBus {
				none := "unix:path=" + filepath.Join(dir, "no-bus")
				cmd.Env = append(os.Environ(), "DBUS_SYSTEM_BUS_ADDRESS="+none, "DBUS_SESSION_BUS_ADDRESS="+none)
			}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %v\n%s", args, err, out)
			}
			res := readStressResult(t, filepath.Join(dir, "s.json"))
			if res.As != "nobody" || len(res.Rows) != 1 {
				t.Fatalf("as %q, %d rows", res.As, len(res.Rows))
			}
			r := res.Rows[0]
			t.Logf("%s: sim %s nice %d rt %s %d, render %s nice %d; display server %+v", c.name, r.SimHow, r.SimNice, r.SimRT, r.SimRTPrio, r.RenderHow, r.RenderNice, r.DisplayServer)
			if r.SimHow != c.how || r.SimNice != c.nice || r.SimRT != c.rt || r.SimRTPrio != c.rtPrio || r.RenderHow != c.how {
				t.Errorf("%+v: want sim %s at nice %d, real time %s %d, render %s", r, c.how, c.nice, c.rt, c.rtPrio, c.how)
			}
			if d := r.DisplayServer; d == nil || d.Server.PID <= 0 || d.SpanMs < 2000 {
				t.Errorf("display server %+v: want its CPU times over the 2 s run", d)
			}
		})
	}
}

// Beside RealtimeKit an ordinary user's render thread is raised by the
// broker, which sets SCHED_RESET_ON_FORK on it: the driver threads it
// starts (llvmpipe's workers, which do the drawing here) would begin at
// nice 0 instead of inheriting its raise as they do from the kernel's.
// The app gives them the render thread's priority through the broker,
// and the report says so, read back from the kernel.
func TestBrokeredRenderThreadsDriversKeepItsPriority(t *testing.T) {
	needDisplay(t)
	if os.Geteuid() != 0 {
		t.Fatal("the test runs the demo as nobody and needs root to do so (make test runs as root)")
	}
	env, err := filepath.Abs("../../../.ci/rtkit-env")
	if err != nil {
		t.Fatal(err)
	}
	// A directory nobody can read and write, the binary and the display's
	// cookie in it.
	dir, err := os.MkdirTemp("", "tickframe-drivers-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	copyFile := func(src, dst string, mode os.FileMode) {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, mode); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "tickframe")
	copyFile(binary, bin, 0o755)
	envVars := []string{"HOME=" + dir}
	if xa := os.Getenv("XAUTHORITY"); xa != "" {
		copyFile(xa, filepath.Join(dir, "xauth"), 0o644)
		envVars = append(envVars, "XAUTHORITY="+filepath.Join(dir, "xauth"))
	}
	report := filepath.Join(dir, "r.json")
	args := append([]string{env, "-u", "nobody", "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "env"}, envVars...)
	args = append(args, bin, "-duration", "2s", "-refresh", "144", "-width", "320", "-height", "240", "-bodies", "64", "-report", report)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	rep, _ := readReport(t, report)
	tp := rep.ThreadPriority
	if tp.Render.How != "rtkit" || tp.Render.Nice != -5 {
		t.Fatalf("render thread %+v: want raised to -5 by rtkit", tp.Render)
	}
	if len(tp.Drivers) == 0 {
		t.Fatalf("no driver thread given the render thread's priority (%+v)", tp)
	}
	for _, d := range tp.Drivers {
		if d.How != "rtkit" || d.Nice != -5 {
			t.Errorf("driver thread %+v: want raised to -5 by rtkit, as the render thread", d)
		}
	}
	t.Logf("%d driver threads raised with the render thread: %+v", len(tp.Drivers), tp.Drivers)
}
