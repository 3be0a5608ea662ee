package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/simthread"
)

// TestRunRefusesBadConfigsBeforeAnyWindow: every setting that cannot run
// is a *ConfigError (exit 2) from Run, found before a window is opened:
// the test runs with no display at all, where opening one would fail
// with a different error, and checks that no file was left.
func TestRunRefusesBadConfigsBeforeAnyWindow(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such")
	existing := filepath.Join(dir, "r.json")
	if err := os.WriteFile(existing, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  Config
		set  Settings
		want string
	}{
		{"width 0", Config{Width: 0, Height: 720}, Settings{}, "window size 0x720"},
		{"height 0", Config{Width: 1280}, Settings{}, "window size 1280x0"},
		{"too wide", Config{Width: 20000, Height: 720}, Settings{}, "window size"},
		{"screenshot dir", Config{}, Settings{Tools: Tools{Screenshot: filepath.Join(missing, "x.png")}}, "-screenshot"},
		{"screenshot kind", Config{}, Settings{Tools: Tools{Screenshot: filepath.Join(dir, "x.jpg")}}, "want a .png file"},
		{"report dir", Config{}, Settings{Tools: Tools{Report: filepath.Join(missing, "r.json")}}, "does not exist"},
		{"report is a dir", Config{}, Settings{Tools: Tools{Report: dir}}, "is a directory"},
		{"plot kind", Config{}, Settings{Tools: Tools{Plot: filepath.Join(dir, "p.pdf")}}, "want a .png or .svg"},
		{"truth without a speed", Config{}, Settings{Tools: Tools{Truth: func(float64) mgl64.Vec3 { return mgl64.Vec3{} }}}, "needs Tools.TruthSpeed"},
		{"two on one file", Config{}, Settings{Tools: Tools{Report: existing, Trace: dir + "/./r.json"}}, "-report and -trace both write"},
		{"profile dir", Config{}, Settings{Tools: Tools{CPUProfile: filepath.Join(missing, "c")}}, "-cpuprofile"},
		{"shots dir", Config{}, Settings{Runtime: Runtime{ScreenshotDir: missing}}, "screenshot directory"},
		{"record and replay", Config{}, Settings{Tools: Tools{Record: filepath.Join(dir, "a.tfr"), Replay: filepath.Join(dir, "b.tfr")}}, "cannot be used together"},
		{"replay an output", Config{}, Settings{Tools: Tools{Report: existing, Replay: existing}}, "is also an output"},
		{"replay missing", Config{}, Settings{Tools: Tools{Replay: filepath.Join(missing, "r.tfr")}}, "-replay"},
		{"duration", Config{}, Settings{Runtime: Runtime{Duration: -1}}, "negative duration"},
		{"refresh", Config{}, Settings{Runtime: Runtime{Display: Display{Refresh: -60}}}, "refresh rate"},
		{"near beyond far", Config{}, Settings{Near: 10, Far: 5}, "clip planes"},
		{"bare with a report", Config{}, Settings{Tools: Tools{Report: filepath.Join(dir, "bare.json")}}, "needs the instruments"},
	} {
		world, _ := refworld.New(1, 1)
		var opts []Option
		if tc.name == "bare with a report" {
			opts = append(opts, Bare())
		}
		err := Run(context.Background(), tc.cfg, world, append(opts, WithSettings(&tc.set))...)
		var ce *ConfigError
		if !errors.As(err, &ce) || ExitCode(err) != 2 || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Run = %v (exit %d); want a ConfigError mentioning %q", tc.name, err, ExitCode(err), tc.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files left behind: %v", ents)
	}
}

// noHash is a world that cannot be recorded.
type noHash struct{}

func (noHash) Step(uint64, float64, []simthread.Input) {}
func (noHash) Snapshot(*simthread.Snapshot)            {}

func TestRecordNeedsAHasher(t *testing.T) {
	t.Setenv("DISPLAY", "")
	set := Settings{Tools: Tools{Record: filepath.Join(t.TempDir(), "r.tfr")}}
	err := Run(context.Background(), Config{}, noHash{}, WithSettings(&set))
	if ExitCode(err) != 2 || !strings.Contains(fmt.Sprint(err), "simthread.Hasher") {
		t.Errorf("-record of a world without Hash: %v (exit %d)", err, ExitCode(err))
	}
}

func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("window: no display"), 1},
		{&ConfigError{errors.New("bad")}, 2},
		{fmt.Errorf("wrapped: %w", &ConfigError{errors.New("bad")}), 2},
		{errors.Join(errors.New("gl"), &ConfigError{errors.New("bad")}), 2},
	} {
		if got := ExitCode(tc.err); got != tc.want {
			t.Errorf("ExitCode(%v) = %d, want %d", tc.err, got, tc.want)
		}
	}
}
