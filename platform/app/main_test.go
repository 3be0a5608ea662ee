package app

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/renderer"
)

// TestMainRejectsBadFlagsWithOneLine: every bad command line exits 2 with
// one line naming the program, before any window opens.
func TestMainRejectsBadFlagsWithOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"-refresh", "NaN"},
		{"-refresh", "-60"},
		{"-duration", "-1s"},
		{"-hz", "0"},
		{"-width", "-5"},
		{"-bogus"},
		{"stray"},
	} {
		world, _ := refworld.New(1, 1)
		var stderr bytes.Buffer
		code := run(append([]string{"/bin/demo"}, args...), &stderr, Config{}, world)
		msg := stderr.String()
		if code != 2 || strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "demo: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line starting with \"demo: \"", args, code, msg)
		}
	}
	world, _ := refworld.New(1, 1)
	var stderr bytes.Buffer
	if code := run([]string{"demo", "-h"}, &stderr, Config{}, world); code != 0 || !strings.Contains(stderr.String(), "-duration") {
		t.Errorf("-h: exit %d, %q", code, stderr.String())
	}
}

// TestFlagsSetTheConfig: the template-level flags reach the Config and
// the Settings Run gets.
func TestFlagsSetTheConfig(t *testing.T) {
	var cfg Config
	var set Settings
	args := []string{"-motion", "hermite", "-latency", "throughput", "-hud=false", "-report", "r.json", "-plot", "p.svg",
		"-cpuprofile", "c.pprof", "-memprofile", "m.pprof", "-trace", "t.out", "-record", "run.tfr", "-hz", "240", "-width", "320"}
	if err := ParseFlags(args, &cfg, &set, io.Discard); err != nil {
		t.Fatal(err)
	}
	want := Settings{Runtime: Runtime{Display: Display{Motion: renderer.MotionHermite, Latency: Throughput}},
		Tools: Tools{Report: "r.json", Plot: "p.svg", CPUProfile: "c.pprof", MemProfile: "m.pprof", Trace: "t.out", Record: "run.tfr"}}
	if set.Display != want.Display || cfg.Look != (Look{HideHUD: true}) || set.Tools.Report != want.Tools.Report ||
		set.Tools.Plot != want.Tools.Plot || set.Tools.CPUProfile != want.Tools.CPUProfile || set.Tools.MemProfile != want.Tools.MemProfile ||
		set.Tools.Trace != want.Tools.Trace || set.Tools.Record != want.Tools.Record || cfg.Rate != 240 || cfg.Width != 320 || cfg.Height != 720 {
		t.Errorf("flags gave %+v and %+v", cfg, set)
	}
	for _, bad := range [][]string{{"-motion", "cubic"}, {"-latency", "none"}, {"-hud=maybe"}, {"-hz", "0"}} {
		var c Config
		var s Settings
		var ce *ConfigError
		if err := ParseFlags(bad, &c, &s, io.Discard); !errors.As(err, &ce) {
			t.Errorf("%v: %v, want a ConfigError", bad, err)
		}
	}
	// A default of the app's own shows through -h.
	var usage strings.Builder
	s := Settings{Runtime: Runtime{Display: Display{Motion: renderer.MotionExtrapolate}}}
	if err := ParseFlags([]string{"-h"}, &Config{}, &s, &usage); !errors.Is(err, flag.ErrHelp) ||
		!strings.Contains(usage.String(), "(default extrapolate)") {
		t.Errorf("-h: %v\n%s", err, usage.String())
	}
}

// TestAppFlagsBesideTheTemplates: an app's own flags (Config.AppFlags)
// are parsed with the template's, listed by -h, and a bad value of theirs
// is a ConfigError (exit 2) like any other.
func TestAppFlagsBesideTheTemplates(t *testing.T) {
	var discrete bool
	var n int
	own := func(fs *flag.FlagSet) {
		fs.BoolVar(&discrete, "discrete", false, "the app's own switch")
		fs.IntVar(&n, "balls", 60, "the app's own count")
	}
	cfg := Config{AppFlags: own}
	if err := ParseFlags([]string{"-discrete", "-balls", "7", "-width", "320"}, &cfg, &Settings{}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !discrete || n != 7 || cfg.Width != 320 {
		t.Errorf("-discrete -balls 7 -width 320 gave discrete %v, balls %d, width %d", discrete, n, cfg.Width)
	}
	var ce *ConfigError
	if err := ParseFlags([]string{"-balls", "many"}, &Config{AppFlags: own}, &Settings{}, io.Discard); !errors.As(err, &ce) || ExitCode(err) != 2 {
		t.Errorf("-balls many: %v (exit %d), want a ConfigError, exit 2", err, ExitCode(err))
	}
	var usage strings.Builder
	if err := ParseFlags([]string{"-h"}, &Config{AppFlags: own}, &Settings{}, &usage); !errors.Is(err, flag.ErrHelp) ||
		!strings.Contains(usage.String(), "the app's own switch") || !strings.Contains(usage.String(), "-duration") {
		t.Errorf("-h lists the app's flags beside the template's: %v\n%s", err, usage.String())
	}
}
