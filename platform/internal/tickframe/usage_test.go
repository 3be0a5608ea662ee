package tickframe

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/app"
	"github.com/tickframe/tickframe/platform/internal/record"
	"github.com/tickframe/tickframe/platform/internal/sim"
)

// worldName names the demo's world in its recordings: the template names
// a world by its app's title.
const worldName = "tickframe"

// testLog is a valid recording of the reference world at 120 Hz, 256
// bodies, seed 1: enough to get past the reading of -replay.
func testLog() *record.Log {
	return &record.Log{
		Header: record.Header{
			World: worldName, Build: record.CurrentBuild(),
			Seed: 1, Rate: 120, CheckpointEvery: 120, Params: []byte(`{"flags":{"bodies":"256"}}`),
		},
		Checkpoints: []sim.Checkpoint{{Tick: 120, Hash: 0x1111}, {Tick: 240, Hash: 0x2222}},
		FinalTick:   240,
		FinalHash:   0x2222,
	}
}

func encode(t *testing.T, l *record.Log) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := record.Write(&b, l); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestBadInput runs the command with every kind of bad flag, flag value,
// combination, output path and recording. Each must exit with status 2
// and one line on stderr, before anything is written: the working
// directory must hold only what the test put there. None needs a display:
// all are refused before the window opens.
func TestBadInput(t *testing.T) {
	good := encode(t, testLog())
	n := len(good)
	// The recording ends with FinalHash (8 bytes) and the CRC (4 bytes).
	corrupt := slices.Clone(good)
	corrupt[n-11] ^= 0x40 // a bit of FinalHash: the checksum catches it
	otherWorld := testLog()
	otherWorld.World = "cubes"

	for _, c := range []struct {
		name  string
		args  []string
		files map[string][]byte // made in the working directory first
		dirs  []string          // likewise
		want  []string          // in the message
	}{
		{name: "hz=0", args: []string{"-hz", "0"}, want: []string{`invalid value "0" for flag -hz`}},
		{name: "hz=20000", args: []string{"-hz", "20000"}, want: []string{`invalid value "20000" for flag -hz`}},
		{name: "hz=x", args: []string{"-hz", "x"}, want: []string{"invalid value", "-hz"}},
		{name: "bodies=0", args: []string{"-bodies", "0"}, want: []string{"-bodies 0: out of range"}},
		{name: "refresh=NaN", args: []string{"-refresh", "NaN"}, want: []string{"refresh rate NaN Hz out of range"}},
		{name: "refresh=-1", args: []string{"-refresh", "-1"}, want: []string{"refresh rate -1 Hz out of range"}},
		{name: "refresh=inf", args: []string{"-refresh", "inf"}, want: []string{"refresh rate +Inf Hz out of range"}},
		{name: "duration=-1s", args: []string{"-duration", "-1s"}, want: []string{"negative duration -1s"}},
		{name: "width=0", args: []string{"-width", "0"}, want: []string{"window size 0x720 out of range"}},
		{name: "height=0", args: []string{"-height", "0"}, want: []string{"window size 1280x0 out of range"}},
		{name: "maxsteps=0", args: []string{"-maxsteps", "0"}, want: []string{`invalid value "0" for flag -maxsteps`}},
		{name: "maxdelta=1ms", args: []string{"-maxdelta", "1ms"}, want: []string{"max delta 1ms shorter than one step"}},
		{name: "delay=-1ms", args: []string{"-delay", "-1ms"}, want: []string{`invalid value "-1ms" for flag -delay`}},
		{name: "overload=drop", args: []string{"-overload", "drop"}, want: []string{`invalid value "drop" for flag -overload`}},
		{name: "stress=-1", args: []string{"-stress", "-1"}, want: []string{"-stress -1: out of range"}},
		{name: "gcpressure=NaN", args: []string{"-gcpressure", "NaN"}, want: []string{"-gcpressure NaN: out of range"}},
		{name: "gcpressure=inf", args: []string{"-gcpressure", "inf"}, want: []string{"-gcpressure +Inf: out of range"}},
		{name: "gcpressure=-1", args: []string{"-gcpressure", "-1"}, want: []string{"-gcpressure -1: out of range"}},
		{name: "stepcost=2s", args: []string{"-stepcost", "2s"}, want: []string{"-stepcost 2s: out of range"}},
		{name: "msaa=99", args: []string{"-msaa", "99"}, want: []string{`invalid value "99" for flag -msaa`}},
		{name: "spin=1s", args: []string{"-spin", "1s"}, want: []string{`invalid value "1s" for flag -spin`}},
		{name: "critslice=50us", args: []string{"-critslice", "50us"}, want: []string{`invalid value "50us" for flag -critslice`}},
		{name: "critslice=1s", args: []string{"-critslice", "1s"}, want: []string{`invalid value "1s" for flag -critslice`}},
		{name: "bgnice=20", args: []string{"-bgnice", "20"}, want: []string{`invalid value "20" for flag -bgnice`}},
		{name: "bgnice=-2", args: []string{"-bgnice", "-2"}, want: []string{`invalid value "-2" for flag -bgnice`}},
		{name: "critnice=5", args: []string{"-critnice", "5"}, want: []string{`invalid value "5" for flag -critnice`}},
		{name: "critrt=100", args: []string{"-critrt", "100"}, want: []string{`invalid value "100" for flag -critrt`}},
		{name: "brokerrt=-2", args: []string{"-brokerrt", "-2"}, want: []string{`invalid value "-2" for flag -brokerrt`}},
		{name: "unknown flag", args: []string{"-nope"}, want: []string{"-nope", "tickframe -h"}},
		{name: "stray argument", args: []string{"-duration", "1s", "stray"}, want: []string{`unexpected argument "stray"`}},
		{name: "record and replay", args: []string{"-record", "a.tfr", "-replay", "b.tfr"}, want: []string{"-record and -replay"}},
		{name: "plot.txt", args: []string{"-plot", "x.txt"}, want: []string{"-plot x.txt", ".png or .svg"}},
		{name: "screenshot.jpg", args: []string{"-screenshot", "x.jpg"}, want: []string{"-screenshot x.jpg", ".png"}},
		{name: "report in missing dir", args: []string{"-report", "missing/r.json"}, want: []string{"-report missing/r.json", "does not exist"}},
		{name: "plot in missing dir", args: []string{"-plot", "missing/p.png"}, want: []string{"-plot missing/p.png", "does not exist"}},
		{name: "screenshot in missing dir", args: []string{"-screenshot", "missing/s.png"}, want: []string{"-screenshot missing/s.png", "does not exist"}},
		{name: "cpuprofile in missing dir", args: []string{"-cpuprofile", "missing/cpu.pprof"}, want: []string{"-cpuprofile missing/cpu.pprof", "does not exist"}},
		{name: "memprofile in missing dir", args: []string{"-memprofile", "missing/mem.pprof"}, want: []string{"-memprofile missing/mem.pprof", "does not exist"}},
		{name: "trace in missing dir", args: []string{"-trace", "missing/trace.out"}, want: []string{"-trace missing/trace.out", "does not exist"}},
		{name: "record in missing dir", args: []string{"-record", "missing/run.tfr"}, want: []string{"-record missing/run.tfr", "does not exist"}},
		{name: "report is a directory", args: []string{"-report", "out"}, dirs: []string{"out"}, want: []string{"-report out: is a directory"}},
		{name: "screenshot is a directory", args: []string{"-screenshot", "out.png"}, dirs: []string{"out.png"}, want: []string{"-screenshot out.png: is a directory"}},
		{name: "two outputs on one path", args: []string{"-cpuprofile", "x.out", "-trace", "x.out"}, want: []string{"-cpuprofile and -trace both write x.out"}},
		{name: "two outputs on one path spelt apart", args: []string{"-report", "r.json", "-memprofile", "./r.json"}, want: []string{"-report and -memprofile both write"}},
		{name: "replay is an output", args: []string{"-replay", "run.tfr", "-report", "run.tfr"}, files: map[string][]byte{"run.tfr": good}, want: []string{"-replay run.tfr is also an output (-report)"}},
		{name: "pprof not loopback", args: []string{"-pprof", "0.0.0.0:6060"}, want: []string{"-pprof 0.0.0.0:6060", "-pprof-remote"}},
		{name: "pprof without port", args: []string{"-pprof", "localhost"}, want: []string{"-pprof localhost", "HOST:PORT"}},
		{name: "replay missing", args: []string{"-replay", "missing.tfr"}, want: []string{"-replay", "missing.tfr", "no such file"}},
		{name: "replay empty", args: []string{"-replay", "empty.tfr"}, files: map[string][]byte{"empty.tfr": {}},
			want: []string{"-replay", "empty.tfr", "offset 0"}},
		{name: "replay corrupt", args: []string{"-replay", "corrupt.tfr"}, files: map[string][]byte{"corrupt.tfr": corrupt},
			want: []string{"-replay", "corrupt.tfr", fmt.Sprintf("offset %d: checksum mismatch", n-4)}},
		{name: "replay truncated", args: []string{"-replay", "truncated.tfr"}, files: map[string][]byte{"truncated.tfr": good[:n-10]},
			want: []string{"-replay", "truncated.tfr", fmt.Sprintf("offset %d: truncated", n-12)}},
		{name: "replay other world", args: []string{"-replay", "cubes.tfr"}, files: map[string][]byte{"cubes.tfr": encode(t, otherWorld)},
			want: []string{`world "cubes"`}},
		{name: "replay hz conflict", args: []string{"-replay", "run.tfr", "-hz", "60"}, files: map[string][]byte{"run.tfr": good},
			want: []string{"-hz 60 (recorded 120)"}},
		{name: "replay seed conflict", args: []string{"-replay", "run.tfr", "-seed", "7"}, files: map[string][]byte{"run.tfr": good},
			want: []string{"-seed 7 (recorded 1)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for _, d := range c.dirs {
				if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for name, data := range c.files {
				if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			before := listFiles(t, dir)
			// A bad input taken for a good one would open a window and
			// run until closed: kill it well before the suite's limit.
			r := tickframe(t, opts{dir: dir, limit: 20 * time.Second}, c.args...)
			line := wantOneLine(t, r, 2)
			for _, w := range c.want {
				if !strings.Contains(line, w) {
					t.Errorf("message %q lacks %q", line, w)
				}
			}
			if after := listFiles(t, dir); !slices.Equal(after, before) {
				t.Errorf("files after the run %q, before %q: want no change", after, before)
			}
		})
	}
}

// TestHelp checks that -h prints the usage, once, and exits 0.
func TestHelp(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help"} {
		t.Run(arg, func(t *testing.T) {
			dir := t.TempDir()
			r := tickframe(t, opts{dir: dir, limit: 20 * time.Second}, arg)
			if r.code != 0 {
				t.Errorf("exit status %d, want 0", r.code)
			}
			out := r.stdout + r.stderr
			if n := strings.Count(out, "usage: tickframe"); n != 1 {
				t.Errorf("the usage is printed %d times, want once:\n%s", n, out)
			}
			for _, flag := range []string{"-refresh HZ", "-report FILE", "-replay FILE", "-pprof ADDR"} {
				if !strings.Contains(out, flag) {
					t.Errorf("usage lacks %s:\n%s", flag, out)
				}
			}
			if files := listFiles(t, dir); len(files) > 0 {
				t.Errorf("-h left files: %q", files)
			}
		})
	}
}

// TestHelpHasEveryAppFlag: the demo is an app on the template, so its -h
// lists every flag every app has (app.Flags, -hud among them), beside its own.
func TestHelpHasEveryAppFlag(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"-h"}, io.Discard, &out); code != 0 {
		t.Fatalf("-h: exit status %d", code)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z-]+)`).FindAllStringSubmatch(out.String(), -1) {
		listed[m[1]] = true
	}
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	var cfg app.Config
	var set app.Settings
	app.Flags(fs, &cfg, &set)
	fs.VisitAll(func(f *flag.Flag) {
		if !listed[f.Name] {
			t.Errorf("tickframe -h lacks the template's -%s", f.Name)
		}
	})
	if len(listed) < 40 {
		t.Errorf("tickframe -h lists %d flags:\n%s", len(listed), out.String())
	}
}

// The hidden commands that run the demo behind a compositor refuse a bad
// command line before they start one: exit status 2 and one line saying
// what was wrong, with their usage.
func TestUnderCommandsBadFlags(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func([]string, io.Writer) int
		args []string
		want string
	}{
		{"mutter unknown flag", underMutter, []string{"-nope", "tickframe"}, "flag provided but not defined: -nope"},
		{"mutter -log without a file", underMutter, []string{"-log"}, "flag needs an argument: -log"},
		{"mutter no command", underMutter, []string{"-log", "m.log"}, "usage: tickframe under-mutter [-log FILE] COMMAND"},
		{"weston unknown flag", underWeston, []string{"-nope", "wayland", "tickframe"}, "flag provided but not defined: -nope"},
		{"weston bad mode", underWeston, []string{"-log", "w.log", "x11", "tickframe"}, "usage: tickframe under-weston [-log FILE] wayland|xwayland"},
		{"weston no command", underWeston, []string{"wayland"}, "usage: tickframe under-weston"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var stderr strings.Builder
			if code := c.run(c.args, &stderr); code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
			msg := stderr.String()
			if !strings.Contains(msg, c.want) || strings.Count(msg, "\n") != 1 {
				t.Errorf("stderr %q: want one line with %q", msg, c.want)
			}
		})
	}
}
