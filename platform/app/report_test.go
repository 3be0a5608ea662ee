package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/window"
)

// nullWhen reads docs/report.md's table: each key's "null when" column.
func nullWhen(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("../../docs/report.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `([a-z0-9_]+)[^`]*` \\|[^|]+\\|[^|]+\\| ([^|]+) \\|$")
	when := map[string]string{}
	for line := range strings.Lines(string(data)) {
		if m := row.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			when[m[1]] = strings.TrimSpace(m[2])
		}
	}
	if len(when) < 50 {
		t.Fatalf("docs/report.md: %d keys in its table", len(when))
	}
	return when
}

// TestReportWithoutTruth runs an app with no truth (Settings.Tools.Truth)
// for less than the 2 s warm-up, and checks its report as JSON against
// docs/report.md: what the table says is null without a truth or a
// steady state is null or absent, never a zero that reads as measured;
// what it says is always written is there and not null. The plot says
// what its lower panel would have plotted, and that it was not measured.
func TestReportWithoutTruth(t *testing.T) {
	var cfg Config
	var set Settings
	world := smallApp(t, &cfg, &set, t.Name())
	set.Tools.Truth, set.Tools.TruthSpeed = nil, 0
	set.Duration = time.Second // within the warm-up: no steady state
	dir := t.TempDir()
	plot := filepath.Join(dir, "p.svg")
	set.Tools.Plot = plot
	var rep *Report
	cfg.Finish = func(_ *App, r *Report, _ error) error { rep = r; return nil }
	var err error
	window.Call(func() { err = Run(context.Background(), cfg, world, WithSettings(&set)) })
	if err != nil {
		t.Fatal(err)
	}
	if rep == nil {
		t.Fatal("Finish was given no report")
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if f, _ := raw["frames"].(float64); f == 0 {
		t.Fatalf("no frame drawn: %s", data)
	}
	for key, when := range nullWhen(t) {
		v, ok := raw[key]
		switch {
		case strings.Contains(when, "no truth") || strings.Contains(when, "no steady state"):
			if v != nil {
				t.Errorf("%s is %v in a run without a truth or a steady state (docs/report.md: null when %s)", key, v, when)
			}
		case strings.HasPrefix(when, "never"):
			if !ok || v == nil {
				t.Errorf("%s is %v (written %v): docs/report.md says it always is", key, v, ok)
			}
		}
	}

	svg, err := os.ReadFile(plot)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"planned animation error, signed (ms", "planned animation error not measured"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("the plot does not say %q", want)
		}
	}
}
