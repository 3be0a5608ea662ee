package app

import (
	"bytes"
	"errors"
	"flag"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/platform/internal/outfile"
	"github.com/tickframe/tickframe/platform/internal/record"
	"github.com/tickframe/tickframe/platform/internal/sched"
	"github.com/tickframe/tickframe/platform/internal/window"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// TestSettingsFlags: the template's settings reach the Config and the
// Settings, -near and -far clipping the app's camera without changing
// the rest of it, and bad values are ConfigErrors before any window.
func TestSettingsFlags(t *testing.T) {
	cfg := Config{Camera: func(c *renderer.Camera) { *c = otherCamera() }}
	var set Settings
	args := []string{"-seed", "7", "-focuspause=false", "-clear", "#87ceeb", "-ground=false", "-groundsize", "60", "-near", "0.5", "-far", "900"}
	if err := ParseFlags(args, &cfg, &set, io.Discard); err != nil {
		t.Fatal(err)
	}
	cam := camera(&cfg, &set)
	if cfg.Seed != 7 || !set.Display.KeepRunningUnfocused || cfg.Look.ClearColor != simthread.RGB(0x87, 0xce, 0xeb) ||
		!cfg.Look.Ground.Hidden || cfg.Look.Ground.Size != 60 || cam.Near != 0.5 || cam.Far != 900 {
		t.Errorf("%v gave seed %d, keep running %v, clear %08x, ground %+v, camera near %v far %v",
			args, cfg.Seed, set.Display.KeepRunningUnfocused, cfg.Look.ClearColor, cfg.Look.Ground, cam.Near, cam.Far)
	}
	if want := otherCamera(); cam.FovY != want.FovY || cam.Distance != want.Distance {
		t.Errorf("-near and -far lost the app's camera: fov %v, distance %v; want %v, %v", cam.FovY, cam.Distance, want.FovY, want.Distance)
	}
	var usage strings.Builder
	if err := ParseFlags([]string{"-h"}, &Config{Camera: cfg.Camera}, &Settings{}, &usage); !errors.Is(err, flag.ErrHelp) ||
		!strings.Contains(usage.String(), "near clip plane, metres (default 0.2)") {
		t.Errorf("-h does not show the app's camera's near plane as -near's default: %v\n%s", err, usage.String())
	}
	var def Config
	var defSet Settings
	if err := ParseFlags(nil, &def, &defSet, io.Discard); err != nil || defSet.Display.KeepRunningUnfocused || def.Look.Ground.Hidden || camera(&def, &defSet) != nil {
		t.Errorf("no flags: %v, keep running %v, ground hidden %v, camera %v",
			err, defSet.Display.KeepRunningUnfocused, def.Look.Ground.Hidden, camera(&def, &defSet))
	}
	for _, bad := range [][]string{
		{"-clear", "blue"}, {"-clear", "12345"}, {"-groundsize", "0"}, {"-groundsize", "NaN"},
		{"-near", "-1"}, {"-far", "Inf"}, {"-near", "10", "-far", "5"}, {"-seed", "-1"},
	} {
		c := Config{Width: 320, Height: 240}
		var s Settings
		err := ParseFlags(bad, &c, &s, io.Discard)
		if err == nil {
			err = Validate(c, s)
		}
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%v: %v, want a ConfigError", bad, err)
		}
	}
}

// otherCamera is a camera that is not the default one.
func otherCamera() (c renderer.Camera) {
	c.Near, c.Far, c.FovY, c.Distance = 0.2, 300, 1, 10
	return c
}

// writeRecording writes a recording of world "rec" at 60 Hz with seed
// and params, for the replay tests.
func writeRecording(t *testing.T, seed uint64, params string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.tfrec")
	l := &record.Log{Header: record.Header{World: "rec", Rate: 60, Seed: seed, Params: []byte(params)}, FinalTick: 10}
	if err := outfile.Write(path, func(w io.Writer) error { return record.Write(w, l) }); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReplayRestoresSettings: -replay alone sets the recording's seed,
// rate and the app's own flags; a flag given with another value is
// refused, every one named on one line; a flag the app lacks is refused.
func TestReplayRestoresSettings(t *testing.T) {
	path := writeRecording(t, 7, `{"flags":{"rings":"9","ghost":"true"}}`)
	var rings int
	var ghost, other bool
	own := func(fs *flag.FlagSet) {
		fs.IntVar(&rings, "rings", 3, "rings")
		fs.BoolVar(&ghost, "ghost", false, "ghost")
		fs.BoolVar(&other, "other", false, "a setting the recording leaves at its default")
	}
	cfg := Config{Title: "rec", AppFlags: own}
	if err := ParseFlags([]string{"-replay", path}, &cfg, &Settings{}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if cfg.Seed != 7 || cfg.Rate != 60 || rings != 9 || !ghost {
		t.Errorf("-replay alone: seed %d, rate %d, rings %d, ghost %v; want 7, 60, 9, true", cfg.Seed, cfg.Rate, rings, ghost)
	}
	// The same values given again are no conflict.
	cfg = Config{Title: "rec", AppFlags: own}
	if err := ParseFlags([]string{"-replay", path, "-seed", "7", "-rings", "9", "-ghost=1", "-other=false"}, &cfg, &Settings{}, io.Discard); err != nil {
		t.Errorf("the recorded values given again: %v", err)
	}
	cfg = Config{Title: "rec", AppFlags: own}
	err := ParseFlags([]string{"-replay", path, "-seed", "8", "-rings", "5", "-hz", "120", "-other", "-ghost"}, &cfg, &Settings{}, io.Discard)
	var ce *ConfigError
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if !errors.As(err, &ce) || strings.Contains(msg, "\n") {
		t.Fatalf("conflicting flags: %v, want a one-line ConfigError", err)
	}
	for _, want := range []string{"-seed 8 (recorded 7)", "-rings 5 (recorded 9)", "-hz 120 (recorded 60)", "-other true (recorded: the default false)"} {
		if !strings.Contains(msg, want) {
			t.Errorf("conflicting flags: %q does not name %q", msg, want)
		}
	}
	if strings.Contains(msg, "ghost") {
		t.Errorf("conflicting flags: %q names -ghost, given as recorded", msg)
	}
	cfg = Config{Title: "rec"} // no -rings, no -ghost
	if err := ParseFlags([]string{"-replay", path}, &cfg, &Settings{}, io.Discard); !errors.As(err, &ce) || !strings.Contains(err.Error(), `"ghost"`) {
		t.Errorf("a recording of flags this app lacks: %v", err)
	}
	cfg = Config{Title: "another", AppFlags: own}
	if err := ParseFlags([]string{"-replay", path}, &cfg, &Settings{}, io.Discard); !errors.As(err, &ce) || !strings.Contains(err.Error(), `world "rec"`) {
		t.Errorf("a recording of another world: %v", err)
	}
}

// seeded is a world whose run depends on its seed and an app flag.
type seeded struct {
	seed  uint64
	rings int
	x     float64
	tick  uint64
}

func (w *seeded) Step(tick uint64, dt float64, _ []simthread.Input) {
	w.tick = tick
	w.x = math.Mod(w.x+dt*float64(w.seed)+float64(w.rings)*1e-3, 1000)
}
func (w *seeded) Snapshot(dst *simthread.Snapshot) {
	dst.Bodies = append(dst.Bodies[:0], simthread.NewBody(mgl32.Vec3{float32(w.x), 1, 0}))
}
func (w *seeded) Hash() uint64 { return math.Float64bits(w.x) ^ w.tick<<1 ^ w.seed<<40 }

// TestRecordingReplaysByItself: a run recorded with -seed 7 and an app
// flag, built by WorldFunc's constructor, replays with -replay alone to
// the same hashes; a replay given another seed exits 2 with a line that
// names it.
func TestRecordingReplaysByItself(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("needs a display: run make test, which starts Xvfb, or set DISPLAY")
	}
	path := filepath.Join(t.TempDir(), "run.tfrec")
	var built []seeded
	main := func(args ...string) (int, string) {
		rings := 0
		cfg := Config{Title: "seeded", Width: 160, Height: 120,
			AppFlags: func(fs *flag.FlagSet) { fs.IntVar(&rings, "rings", 3, "rings") }, Look: Look{HideHUD: true}}
		var stderr bytes.Buffer
		code := 0
		window.Call(func() {
			code = run(append([]string{"/bin/seeded"}, args...), &stderr, cfg, nil, WorldFunc(func(c Config) (simthread.World, error) {
				built = append(built, seeded{seed: c.Seed, rings: rings})
				return &seeded{seed: c.Seed, rings: rings}, nil
			}))
		})
		return code, stderr.String()
	}
	if code, msg := main("-record", path, "-seed", "7", "-rings", "9", "-hz", "60", "-focuspause=false", "-duration", "1s"); code != 0 {
		t.Fatalf("record: exit %d: %s", code, msg)
	}
	rec, err := record.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Seed != 7 || !strings.Contains(string(rec.Params), `"rings":"9"`) || rec.FinalTick == 0 {
		t.Fatalf("the recording's header: seed %d, params %s, final tick %d", rec.Seed, rec.Params, rec.FinalTick)
	}
	// Long enough to reach the recording's end on a busy machine: the
	// replay stops there by itself.
	if code, msg := main("-replay", path, "-duration", "60s"); code != 0 {
		t.Fatalf("replay with no other flag: exit %d: %s", code, msg)
	}
	if got := built[len(built)-1]; got.seed != 7 || got.rings != 9 {
		t.Errorf("the replay's world was built with seed %d, rings %d; want 7, 9", got.seed, got.rings)
	}
	code, msg := main("-replay", path, "-seed", "8")
	if code != 2 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "-seed 8 (recorded 7)") {
		t.Errorf("replay with -seed 8: exit %d, %q; want 2 and one line naming -seed", code, msg)
	}
	if len(built) != 2 {
		t.Errorf("%d worlds built; the refused replay must build none", len(built))
	}
}

// shoot runs a real App with cfg for d, calling each every frame, and
// returns its last frame.
func shoot(t *testing.T, cfg Config, d time.Duration, each func(a *loop.App, frame int)) image.Image {
	t.Helper()
	var set Settings
	set.Tools.Screenshot = filepath.Join(t.TempDir(), "last.png")
	if each == nil {
		each = func(*loop.App, int) {}
	}
	runApp(t, cfg, set, d, func(a *loop.App, _ *loop.View, n int) { each(a, n) })
	f, err := os.Open(set.Tools.Screenshot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// count returns how many pixels of img within r satisfy is.
func count(img image.Image, r image.Rectangle, is func(r, g, b uint8) bool) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if is(c.R, c.G, c.B) {
				n++
			}
		}
	}
	return n
}

// TestLookSettingsReachTheScreen: the clear colour, the ground (shown,
// hidden, sized), the far clip plane and the paused notice, read back
// from the frames drawn (the runs are 320×240, the HUD hidden).
func TestLookSettingsReachTheScreen(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("needs a display: run make test, which starts Xvfb, or set DISPLAY")
	}
	sky := func(r, g, b uint8) bool { // RGB(200, 30, 150), within rounding
		near := func(v, want uint8) bool { return v+2 >= want && v <= want+2 }
		return near(r, 200) && near(g, 30) && near(b, 150)
	}
	notSky := func(r, g, b uint8) bool { return !sky(r, g, b) }
	white := func(r, g, b uint8) bool { return r > 230 && g > 230 && b > 230 }
	all, bottom, top := image.Rect(0, 0, 320, 240), image.Rect(0, 215, 50, 240), image.Rect(100, 0, 220, 40)
	base := Config{Look: Look{ClearColor: simthread.RGB(200, 30, 150), Ground: Ground{Hidden: true}}}
	clipped := base
	clipped.Camera = func(c *renderer.Camera) {
		c.Far = 5 // the default camera is 26 m from what it looks at: nothing within 5 m
	}
	if n := count(shoot(t, clipped, time.Second, nil), all, notSky); n != 0 {
		t.Errorf("clear colour RGB(200, 30, 150), no ground, far plane 5 m: %d pixels are not the sky", n)
	}
	if n := count(shoot(t, base, time.Second, nil), all, notSky); n < 200 {
		t.Errorf("no ground, the default far plane: %d pixels show the bodies, want 200 or more", n)
	}
	ground := base
	ground.Look.Ground.Hidden = false
	if n := count(shoot(t, ground, time.Second, nil), bottom, notSky); n < bottom.Dx()*bottom.Dy()*9/10 {
		t.Errorf("the default ground: %d of the bottom's %d pixels are not the sky", n, bottom.Dx()*bottom.Dy())
	}
	ground.Look.Ground.Size = 1 // a 1 m square about the origin: the bottom of the view is beyond it
	img := shoot(t, ground, time.Second, nil)
	if n := count(img, bottom, notSky); n != 0 {
		t.Errorf("a 1 m ground: %d of the bottom's pixels are not the sky", n)
	}
	pause := func(a *loop.App, frame int) {
		if frame == 5 {
			a.Handle([]platform.Event{{Kind: platform.KeyEvent, Key: platform.KeySpace, Action: platform.Press}})
		}
	}
	img = shoot(t, clipped, 1500*time.Millisecond, pause)
	if n, dark := count(img, top, white), count(img, top, func(r, g, b uint8) bool { return r < 120 && g < 40 && b < 100 }); n < 30 || dark < 300 {
		t.Errorf("paused with the HUD hidden: %d white pixels of text and %d of the dark band at the top, want 30 and 300 or more", n, dark)
	}
	if n := count(img, image.Rect(0, 60, 320, 240), notSky); n != 0 {
		t.Errorf("paused: %d pixels below the notice are not the sky", n)
	}
}

// TestDisplayFlags: the flags of how frames are made, of the catch-up
// and of the scheduling reach Settings.Display and Settings.Sim.Timing, a
// 0 that means off where the field's 0 is a default reaching it as off;
// no flag leaves every field as the app set it; a bad value is a
// ConfigError.
func TestDisplayFlags(t *testing.T) {
	var cfg Config
	var set Settings
	args := []string{"-vsync=false", "-msaa", "8", "-delay", "20ms", "-spin", "1ms", "-maxsteps", "3", "-maxdelta", "100ms",
		"-overload", "keep", "-headroom", "4", "-bgnice", "7", "-critnice", "-5", "-critslice", "500us", "-critrt", "9", "-brokerrt", "-1"}
	if err := ParseFlags(args, &cfg, &set, io.Discard); err != nil {
		t.Fatal(err)
	}
	d, tm, sc := set.Display, set.Sim.Timing, set.Display.Sched
	if !d.NoVSync || d.Samples != 8 || d.Delay != 20*time.Millisecond || d.Spin != time.Millisecond ||
		tm.MaxSteps != 3 || tm.MaxDelta != 100*time.Millisecond || tm.Overload != simthread.Keep ||
		sc.Headroom != 4 || sc.BackgroundNice != 7 || sc.CriticalNice != -5 || sc.CriticalSlice != 500*time.Microsecond ||
		sc.CriticalRT != 9 || sc.BrokerRT != -1 {
		t.Errorf("%v gave display %+v, timing %+v", args, d, tm)
	}
	var off Settings
	if err := ParseFlags([]string{"-msaa", "0", "-spin", "0", "-headroom", "0", "-critnice", "0", "-critslice", "0"}, &Config{}, &off, io.Discard); err != nil {
		t.Fatal(err)
	}
	if d, sc := off.Display, off.Display.Sched; d.Samples != -1 || d.Spin != -1 || sc.Headroom != -1 || sc.CriticalNice <= 0 || sc.CriticalSlice != -1 {
		t.Errorf("0 for off gave samples %d, spin %v, headroom %d, critical nice %d, slice %v: want each off",
			d.Samples, d.Spin, sc.Headroom, sc.CriticalNice, sc.CriticalSlice)
	}
	app := Config{Rate: 60}
	given := Settings{Runtime: Runtime{Display: Display{Samples: 2, Sched: sched.Config{BrokerRT: 10}}}}
	given.Sim.Timing.MaxSteps = 8
	want := given
	if err := ParseFlags(nil, &app, &given, io.Discard); err != nil {
		t.Fatal(err)
	}
	if given.Display != want.Display || given.Sim.Timing != want.Sim.Timing || app.Rate != 60 {
		t.Errorf("no flags changed display %+v to %+v, timing %+v to %+v, rate 60 to %d",
			want.Display, given.Display, want.Sim.Timing, given.Sim.Timing, app.Rate)
	}
	for _, bad := range [][]string{
		{"-msaa", "17"}, {"-msaa", "-1"}, {"-delay", "-1ms"}, {"-delay", "11s"}, {"-spin", "6ms"}, {"-maxsteps", "0"},
		{"-maxsteps", "1001"}, {"-maxdelta", "2m"}, {"-maxdelta", "1ms"}, {"-hz", "2", "-maxdelta", "400ms"}, {"-overload", "drop"},
		{"-headroom", "-2"}, {"-bgnice", "20"}, {"-critnice", "1"}, {"-critslice", "50us"}, {"-critrt", "100"}, {"-brokerrt", "-2"},
	} {
		c := Config{Width: 320, Height: 240}
		var s Settings
		err := ParseFlags(bad, &c, &s, io.Discard)
		if err == nil {
			err = Validate(c, s)
		}
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%v: %v, want a ConfigError", bad, err)
		}
	}
}

// TestDisplayFlagDefaults: -h shows each flag's default as the flag
// says it (the field's off as 0), taken from the Settings.
func TestDisplayFlagDefaults(t *testing.T) {
	var b strings.Builder
	set := Settings{Runtime: Runtime{Display: Display{Samples: -1, Spin: -1, Sched: sched.Config{BrokerRT: 10, CriticalNice: 1}}}}
	if err := ParseFlags([]string{"-h"}, &Config{}, &set, &b); !errors.Is(err, flag.ErrHelp) {
		t.Fatal(err)
	}
	for _, want := range []string{"-msaa samples\n", "off on a software rasterizer) (default 0)", "sleep only) (default 0s)",
		"-brokerrt N", "none) (default 10)", "0: do not ask) (default 0)", "(default 8, or 50ms of steps above 160 Hz)",
		"(default 0: 250ms, or two steps below -hz 8)", "(default 300µs)", "(default discard)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("-h lacks %q:\n%s", want, b.String())
		}
	}
}

// TestRecordAndReplay: -record with -replay is refused as such, before
// the recording is read (a missing one would say only that).
func TestRecordAndReplay(t *testing.T) {
	var cfg Config
	err := ParseFlags([]string{"-record", "a.tfrec", "-replay", filepath.Join(t.TempDir(), "missing.tfrec")}, &cfg, &Settings{}, io.Discard)
	if ExitCode(err) != 2 || err == nil || !strings.Contains(err.Error(), "-record and -replay cannot be used together") {
		t.Errorf("-record with -replay of a missing file: %v", err)
	}
}

// TestParamsAsTheRunEnds: the recording holds the app's own flags given,
// as given, and those not given whose value the app changed from the
// default (as the demo settles its size once the window is open).
func TestParamsAsTheRunEnds(t *testing.T) {
	var rings, size int
	cfg := Config{Title: "rec", AppFlags: func(fs *flag.FlagSet) {
		fs.IntVar(&rings, "rings", 3, "rings")
		fs.IntVar(&size, "size", 4096, "size")
	}}
	if err := ParseFlags([]string{"-rings", "0x9"}, &cfg, &Settings{}, io.Discard); err != nil {
		t.Fatal(err)
	}
	size = 256
	if b, err := cfg.params(&Settings{}); err != nil || string(b) != `{"flags":{"rings":"0x9","size":"256"}}` {
		t.Errorf("params %s, %v; want -rings as given, -size as the run left it", b, err)
	}
}
