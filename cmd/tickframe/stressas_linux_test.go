package main

import (
	"encoding/json"
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

// The stress benchmark runs the demo as nobody: without a broker its
// critical threads are denied their raise; beside RealtimeKit
// (.ci/rtkit-env, which authorises nobody) the simulation thread gets
// real time and both their nice values from rtkit, as the demo's report
// reads them back; every row has the display server's CPU wait.
func TestStressAsNobody(t *testing.T) {
	needDisplay(t)
	if os.Geteuid() != 0 {
		t.Fatal("-as needs root (make test runs as root)")
	}
	env, err := filepath.Abs("../../.ci/rtkit-env")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name         string
		wrap         []string
		how, rt      string
		nice, rtPrio int
	}{
		{"alone", nil, "denied", "denied", 0, 0},
		{"rtkit", []string{env, "-u", "nobody"}, "rtkit", "rtkit", -10, 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append(append([]string{}, c.wrap...), binary, "stress", "-as", "nobody", "-duration", "2s",
				"-loads", "none", "-json", filepath.Join(dir, "s.json"))
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %v\n%s", args, err, out)
			}
			data, err := os.ReadFile(filepath.Join(dir, "s.json"))
			if err != nil {
				t.Fatal(err)
			}
			var res StressResult
			if err := json.Unmarshal(data, &res); err != nil {
				t.Fatal(err)
			}
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
