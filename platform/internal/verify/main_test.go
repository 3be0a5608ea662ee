package verify_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/platform/internal/verify"
)

// quick makes a run short: one sim rate, 3 s rows, lerp only, no
// baselines unless the arguments ask for them.
func quick(args ...string) []string {
	return append([]string{"-sim", "60", "-duration", "3s", "-display", "60", "-baselines=false", "-motion", "lerp"}, args...)
}

func TestMainBadFlags(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"-nope"},
		{"extra"},
		{"-sim", ""},
		{"-sim", "0"},
		{"-sim", "-60"},
		{"-sim", "NaN"},
		{"-sim", "Inf"},
		{"-sim", "60.5"},
		{"-sim", "20000"},
		{"-sim", "60,60"},
		{"-sim", "60,,120"},
		{"-display", "foo"},
		{"-display", "0"},
		{"-display", "-144"},
		{"-display", "NaN"},
		{"-display", "inf"},
		{"-display", "20000"},
		{"-display", "144,144"},
		{"-display", ""},
		{"-pattern", ""},
		{"-pattern", "steady"},
		{"-pattern", "steady:abc"},
		{"-pattern", "steady:144:1"},
		{"-pattern", "jitter:144:0"},
		{"-pattern", "jitter:144:2"},
		{"-pattern", "jitter:144:NaN"},
		{"-pattern", "hitch:144:2000:1"},
		{"-pattern", "hitch:144:-5"},
		{"-pattern", "pause:144:0"},
		{"-pattern", "pause:144:1e9"},
		{"-pattern", "vrr:48"},
		{"-pattern", "vrr:165:48"},
		{"-pattern", "overload:60:1"},
		{"-pattern", "overload:60:100"},
		{"-pattern", "intervals:"},
		{"-pattern", "intervals:16,-1"},
		{"-pattern", "intervals:16,0"},
		{"-pattern", "intervals:16,,16"},
		{"-pattern", "warp:9"},
		{"-pattern", "144@"},
		{"-pattern", "144@warp"},
		{"-pattern", "144@stress:15:10"},
		{"-pattern", "144@stress:0"},
		{"-pattern", "144@stress:15:40:100"},
		{"-pattern", "144@heavy:1"},
		{"-pattern", "144@calm:-1"},
		{"-pattern", "144@calm:2:3"},
		{"-pattern", "x@stress"},
		{"-display", "144@stress,144@stress"},
		{"-lateness", ""},
		{"-lateness", "calm,calm"},
		{"-lateness", "stress:NaN"},
		{"-lateness", "warp"},
		{"-break", "nothing"},
		{"-break", ""},
		{"-duration", "0"},
		{"-duration", "-1s"},
		{"-duration", "1s"},
		{"-duration", "1000h"},
		{"-duration", "12"},
		{"-bodies", "0"},
		{"-bodies", "-1"},
		{"-bodies", "1e9"},
		{"-bodies", "10000000"},
		{"-stepcost", "0"},
		{"-stepcost", "-1ms"},
		{"-stepcost", "20ms"},
		{"-seed", "-1"},
		{"-motion", ""},
		{"-motion", "cubic"},
		{"-motion", "lerp,lerp"},
		{"-motion", "hermite,"},
		{"-baselines=maybe"},
		{"-plot", filepath.Join(dir, "out.gif")},
		{"-plot", filepath.Join(dir, "out")},
		{"-plot", filepath.Join(dir, "missing", "out.png")},
		{"-json", filepath.Join(dir, "missing", "out.json")},
		{"-json", dir},
		{"-json", filepath.Join(dir, "same.svg"), "-plot", filepath.Join(dir, "same.svg")},
	} {
		var stdout, stderr bytes.Buffer
		full := quick(args...)
		if code := verify.Main(full, &stdout, &stderr); code != verify.ExitBadUsage {
			t.Errorf("%q: exit status %d, want %d (stderr %q)", args, code, verify.ExitBadUsage, stderr.String())
			continue
		}
		msg := stderr.String()
		if !strings.HasPrefix(msg, "tickframe verify: ") || !strings.HasSuffix(msg, "\n") || strings.Count(msg, "\n") != 1 {
			t.Errorf("%q: want one line of error, got %q", args, msg)
		}
		if stdout.Len() != 0 {
			t.Errorf("%q: wrote %q to stdout", args, stdout.String())
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("bad flags left files behind: %v", ents)
	}
}

func TestMainHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := verify.Main([]string{"-h"}, &stdout, &stderr); code != verify.ExitPass {
		t.Errorf("-h: exit status %d", code)
	}
	if !strings.Contains(stderr.String(), "usage: tickframe verify") || !strings.Contains(stderr.String(), "-pattern") {
		t.Errorf("-h printed %q", stderr.String())
	}
}

// TestMainSmallMatrix runs a small matrix end to end through Main: it
// passes, prints the table, and writes whole JSON and SVG files.
func TestMainSmallMatrix(t *testing.T) {
	dir := t.TempDir()
	js, svg := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.svg")
	var stdout, stderr bytes.Buffer
	args := []string{"-sim", "60,120", "-display", "60,144,jitter", "-pattern", "intervals:8,8,16.7",
		"-duration", "3s", "-json", js, "-plot", svg}
	if code := verify.Main(args, &stdout, &stderr); code != verify.ExitPass {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{"interp", "run", "hermite", "extrap", "noint", "naive", "jitter 144±25%", "intervals×3", "warm-up",
		"motion modes side by side", "\nPASS: "} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if n := len([]rune(line)); n > 120 {
			t.Errorf("table line %d columns wide: %q", n, line)
		}
	}
	f, err := os.Open(js)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := verify.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	// 2 sims × (4 interpolated × 3 motion modes + 144 driven by Sim.Run
	// + 4 × 2 baselines).
	if !res.Pass || len(res.Rows) != 42 {
		t.Errorf("JSON: pass %v, %d rows", res.Pass, len(res.Rows))
	}
	b, err := os.ReadFile(svg)
	if err != nil || !bytes.Contains(b, []byte("<svg")) || !bytes.HasSuffix(bytes.TrimSpace(b), []byte("</svg>")) {
		t.Errorf("plot: %v, %d bytes", err, len(b))
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("want the two outputs alone, found %v", ents)
	}
	if !strings.Contains(stderr.String(), "rows in") {
		t.Errorf("no progress on stderr: %q", stderr.String())
	}
}

// TestMainBreak: a deliberately broken renderer makes verify fail, and
// says so in the table.
func TestMainBreak(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := verify.Main(quick("-display", "144", "-break", "wrong-pair"), &stdout, &stderr)
	if code != verify.ExitFail {
		t.Fatalf("exit status %d with a broken renderer, want %d\n%s", code, verify.ExitFail, stdout.String())
	}
	out := stdout.String()
	for _, want := range []string{"with the broken renderer wrong-pair", "FAIL 60 Hz × 144 interp: pos max:", "\nFAIL: 2 of 2 checked rows failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// TestMainLateness: -lateness runs every display under each lateness, and
// the table marks the rows beyond their budget.
func TestMainLateness(t *testing.T) {
	js := filepath.Join(t.TempDir(), "out.json")
	var stdout, stderr bytes.Buffer
	args := []string{"-sim", "500", "-duration", "3s", "-display", "144", "-lateness", "calm,heavy", "-baselines=false", "-motion", "lerp", "-json", js}
	if code := verify.Main(args, &stdout, &stderr); code != verify.ExitPass {
		t.Fatalf("exit status %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	f, err := os.Open(js)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := verify.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Rows {
		got = append(got, r.Pattern+" "+string(r.Driver))
	}
	want := []string{"steady:144 ", "steady:144 run", "steady:144@stress:15:100:1 "}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	if !res.Rows[0].Within || res.Rows[2].Within || !strings.Contains(stdout.String(), "> ok") {
		t.Errorf("within: calm %v, stress %v; table:\n%s", res.Rows[0].Within, res.Rows[2].Within, stdout.String())
	}
}

func TestMainPNG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.png")
	var stdout, stderr bytes.Buffer
	if code := verify.Main(quick("-plot", path), &stdout, &stderr); code != verify.ExitPass {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("plot: %v, %d bytes", err, len(b))
	}
}

func mustParse(t *testing.T, specs ...string) []verify.Pattern {
	t.Helper()
	var ps []verify.Pattern
	for _, s := range specs {
		p, err := verify.ParsePattern(s)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// TestJSONRoundTrip: what WriteJSON writes, ReadJSON reads back equal.
func TestJSONRoundTrip(t *testing.T) {
	res, err := verify.Run(context.Background(), verify.Options{
		Sims:      []int{64},
		Displays:  mustParse(t, "75", "pause:90:0.5", "overload"),
		Baselines: mustParse(t, "75"),
		Duration:  verify.MinDuration,
	})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := verify.WriteJSON(&buf, res); err != nil {
		t.Fatal(err)
	}
	back, err := verify.ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res, back) {
		t.Errorf("round trip changed the results:\n%+v\n%+v", res, back)
	}
}

// TestDeterministic: the results depend on the options alone, not on the
// number of workers or the order rows finish in.
func TestDeterministic(t *testing.T) {
	opts := verify.Options{
		Sims:      []int{30, 120},
		Displays:  mustParse(t, "vrr", "jitter:90:0.4"),
		Baselines: mustParse(t, "vrr"),
		Duration:  verify.MinDuration,
		Seed:      7,
	}
	opts.Workers = 1
	a, err := verify.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Workers = 3
	b, err := verify.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("1 and 3 workers gave different results")
	}
	opts.Seed = 8
	c, err := verify.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.Rows, c.Rows) {
		t.Error("another seed gave the same results")
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := verify.Run(ctx, verify.Options{Sims: []int{60}, Displays: mustParse(t, "60")})
	if err == nil {
		t.Error("a cancelled run returned no error")
	}
}

func TestParsePattern(t *testing.T) {
	for _, tc := range []struct{ in, canon, label string }{
		{"144", "steady:144", "144"},
		{"59.94", "steady:59.94", "59.94"},
		{"steady:200", "steady:200", "200"},
		{"jitter", "jitter:144:0.25", "jitter 144±25%"},
		{"jitter:120:0.1", "jitter:120:0.1", "jitter 120±10%"},
		{"hitch", "hitch:144:100:1", "hitch 144"},
		{"hitch:60:250:2", "hitch:60:250:2", "hitch 60"},
		{"pause", "pause:144:5", "pause 144"},
		{"vrr", "vrr:48:165", "vrr 48-165"},
		{"overload", "overload:60:1.25", "overload 60"},
		{"overload:75:2", "overload:75:2", "overload 75"},
		{"intervals:16.7,16.7,33.4", "intervals:16.7,16.7,33.4", "intervals×3"},
		{"144@calm", "steady:144", "144"},
		{"144@calm:2", "steady:144", "144"},
		{"144@calm:0", "steady:144@calm:0", "144 @calm 0"},
		{"144@stress", "steady:144@stress:15:40:1", "144 @stress"},
		{"vrr@heavy", "vrr:48:165@stress:15:100:1", "vrr 48-165 @heavy"},
		{"hitch:60@stress:20:60:0", "hitch:60:100:1@stress:20:60:0", "hitch 60 @stress 20/60"},
	} {
		p, err := verify.ParsePattern(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if p.String() != tc.canon || p.Label() != tc.label {
			t.Errorf("%q: %q labelled %q, want %q labelled %q", tc.in, p.String(), p.Label(), tc.canon, tc.label)
		}
		if q, err := verify.ParsePattern(p.String()); err != nil || !reflect.DeepEqual(p, q) {
			t.Errorf("%q does not round-trip: %+v, %v", p.String(), q, err)
		}
	}
	for _, bad := range []string{"", "steady", "steady:", "steady:0", "steady:1e5", "jitter:144:1", "vrr:1:1",
		"intervals:", "intervals:0.01", "hitch:144:100:0.05", "overload:60:0.5", "pause:144:-1", "x:1",
		"144@", "144@x", "144@stress:40:15", "144@calm:2000", "@stress", "144@stress@heavy"} {
		if p, err := verify.ParsePattern(bad); err == nil {
			t.Errorf("%q parsed as %+v", bad, p)
		}
	}
}
