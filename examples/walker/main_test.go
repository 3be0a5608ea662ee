package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// maxLines is the example's promise: the app in at most 200 lines (the
// model generator aside).
const maxLines = 200

func TestMainFitsIn200Lines(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(src, []byte("\n")); n > maxLines {
		t.Errorf("main.go has %d lines, more than the %d the example promises", n, maxLines)
	}
}

// TestInput checks the input mapping: motion is a look, W A S D presses
// and releases are holds (repeats are not), R a respawn, the rest nothing.
func TestInput(t *testing.T) {
	keyEv := func(k platform.Key, a platform.Action) platform.Event {
		return platform.Event{Kind: platform.KeyEvent, Key: k, Action: a}
	}
	for _, tc := range []struct {
		e    platform.Event
		want simthread.Input
		ok   bool
	}{
		{platform.Event{Kind: platform.CursorEvent, DX: 3, DY: -2}, simthread.Input{Kind: look, X: 3, Y: -2}, true},
		{keyEv('W', platform.Press), simthread.Input{Kind: hold, Code: 0, X: 1}, true},
		{keyEv('D', platform.Release), simthread.Input{Kind: hold, Code: 3, X: 0}, true},
		{keyEv('W', platform.Repeat), simthread.Input{}, false},
		{keyEv('R', platform.Press), simthread.Input{Kind: respawn}, true},
		{keyEv('R', platform.Release), simthread.Input{}, false},
		{keyEv('Q', platform.Press), simthread.Input{}, false},
	} {
		if got, ok := input(tc.e); ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("input(%+v) = %+v, %v; want %+v, %v", tc.e, got, ok, tc.want, tc.ok)
		}
	}
}

// TestWalk steps the world directly: W held walks ahead at speed, the
// mouse turns the heading and the camera, the camera stays boom metres
// behind the shoulders, and R cuts back to the start.
func TestWalk(t *testing.T) {
	const dt = 1.0 / 120
	w := newTestWalker(t)
	var snap simthread.Snapshot
	in := func(e platform.Event) []simthread.Input {
		i, ok := input(e)
		if !ok {
			t.Fatalf("no input for %+v", e)
		}
		return []simthread.Input{i}
	}
	press := func(k platform.Key, a platform.Action) []simthread.Input {
		return in(platform.Event{Kind: platform.KeyEvent, Key: k, Action: a})
	}
	w.Step(1, dt, press('W', platform.Press))
	for tick := uint64(2); tick <= 120; tick++ {
		w.Step(tick, dt, nil)
	}
	if math.Abs(w.x) > 1e-9 || math.Abs(w.z+speed) > 1e-9 {
		t.Fatalf("after 1 s of W: at (%v, %v), want (0, %v)", w.x, w.z, -speed)
	}
	// A quarter turn to the right (+X motion), then a second of W and D:
	// diagonally, still at walking speed.
	quarter := math.Pi / 2 / sensitivity
	w.Step(121, dt, append(in(platform.Event{Kind: platform.CursorEvent, DX: quarter, DY: 40}), press('D', platform.Press)...))
	for tick := uint64(122); tick <= 240; tick++ {
		w.Step(tick, dt, nil)
	}
	dx, dz := w.x, w.z+speed
	if math.Abs(math.Hypot(dx, dz)-speed) > 1e-6 || !(dx > 2 && dz > 2) {
		t.Errorf("a second of W+D facing +X moved by (%v, %v), want 3 m towards +X+Z", dx, dz)
	}
	w.Step(241, dt, append(press('W', platform.Release), press('D', platform.Release)...))
	x, z := w.x, w.z
	w.Step(242, dt, nil)
	if w.x != x || w.z != z || math.Abs(w.walked-2*speed) > 1e-9 {
		t.Errorf("released, it still moves, or walked %v m, want %v", w.walked, 2*speed)
	}

	w.Snapshot(&snap)
	cam := snap.Camera
	subject := mgl32.Vec3{float32(w.x), shoulders, float32(w.z)}
	if ahead := cam.Rot.Rotate(mgl32.Vec3{0, 0, -1}); !cam.Valid || cam.Pos.Add(ahead.Mul(boom)).Sub(subject).Len() > 1e-4 || ahead[0] < 0.8 {
		t.Errorf("camera %+v: want %v m behind %v, looking towards +X", cam, boom, subject)
	}
	if cam.Look.X != quarter || cam.Look.Y != 40 || w.pitch != -0.3-40*sensitivity {
		t.Errorf("look sums (%v, %v), pitch %v; want (%v, 40), %v", cam.Look.X, cam.Look.Y, w.pitch, quarter, -0.3-40*sensitivity)
	}
	if len(snap.Bodies) != 26 || snap.Bodies[0].Mesh != 0 || snap.Bodies[1].Mesh != groundMesh {
		t.Errorf("%d bodies, the first two meshes %d and %d", len(snap.Bodies), snap.Bodies[0].Mesh, snap.Bodies[1].Mesh)
	}
	if len(snap.Skins) != 1 || snap.Skins[0].Model != walkerModel || len(snap.Joints) != w.ch.Joints() {
		t.Errorf("%d skins, %d joints; want the walker's, %d", len(snap.Skins), len(snap.Joints), w.ch.Joints())
	}
	if n := len(snap.Lines.Segs); n < 4 || snap.Lines.Segs[n-1].B.OnBody != true {
		t.Errorf("the path has %d segments after 6 m, or does not end on the walker", n)
	}

	epoch := cam.Epoch
	w.Step(243, dt, press('R', platform.Press))
	w.Snapshot(&snap)
	if w.x != 0 || w.z != 0 || snap.Camera.Epoch == epoch || snap.Bodies[0].Epoch != snap.Camera.Epoch || snap.Skins[0].Epoch != epoch+1 {
		t.Errorf("after R: at (%v, %v), camera epoch %d (was %d), lamp's %d, walker's %d: want the start, a cut",
			w.x, w.z, snap.Camera.Epoch, epoch, snap.Bodies[0].Epoch, snap.Skins[0].Epoch)
	}
}

func newTestWalker(t *testing.T) *walker {
	t.Helper()
	m, err := load("walker.glb")
	if err != nil {
		t.Fatal(err)
	}
	ch, err := renderer.NewCharacter(m)
	if err != nil {
		t.Fatal(err)
	}
	return &walker{state: state{pitch: -0.3}, ch: ch}
}

// TestClipBlend steps the world: standing, the walker is the idle clip
// alone; W blends the walk in over blendTime, released it blends back
// out, and the published joints are the two clips blended as Character
// blends them. The joints' hash moves with the clips' times: Hash covers
// them.
func TestClipBlend(t *testing.T) {
	const dt = 1.0 / 120
	w := newTestWalker(t)
	ref := newTestWalker(t).ch
	var snap simthread.Snapshot
	check := func(when string, blend float64) {
		t.Helper()
		if math.Abs(w.blend-blend) > 1e-9 {
			t.Fatalf("%s: blend %v, want %v", when, w.blend, blend)
		}
		w.Snapshot(&snap)
		ref.Pose(idle, float32(w.idleT))
		ref.Blend(walk, float32(w.walkT), float32(blend))
		heading := mgl32.QuatRotate(float32(w.yaw), up).Mul(mgl32.QuatRotate(math.Pi, up))
		want := ref.Append(nil, mgl32.Translate3D(float32(w.x), 0, float32(w.z)).Mul4(heading.Mat4()))
		for j := range want {
			if d := snap.Joints[j].Pos.Sub(want[j].Pos).Len(); d > 1e-5 {
				t.Fatalf("%s: joint %d at %v, want %v", when, j, snap.Joints[j].Pos, want[j].Pos)
			}
		}
	}
	for tick := uint64(1); tick <= 60; tick++ {
		w.Step(tick, dt, nil)
	}
	check("standing", 0)
	if w.walkT != 0 || math.Abs(w.idleT-0.5) > 1e-9 {
		t.Errorf("standing 0.5 s: walk at %v s, idle at %v s", w.walkT, w.idleT)
	}
	h := w.Hash()
	w.Step(61, dt, []simthread.Input{{Kind: hold, Code: 0, X: 1}})
	if w.Hash() == h {
		t.Error("a tick changed the state, not the hash")
	}
	check("a tick into W", dt/blendTime)
	for tick := uint64(62); tick <= 120; tick++ {
		w.Step(tick, dt, nil)
	}
	check("0.5 s into W", 1)
	w.Step(121, dt, []simthread.Input{{Kind: hold, Code: 0, X: 0}})
	for tick := uint64(122); tick <= 135; tick++ {
		w.Step(tick, dt, nil)
	}
	check("15 ticks after W", 1-15*dt/blendTime)
	x := w.x
	for tick := uint64(136); tick <= 240; tick++ {
		w.Step(tick, dt, nil)
	}
	check("released", 0)
	if w.x != x {
		t.Error("it walks on after the key is released")
	}
}

// TestWalkerRun builds the example and runs it under the display while
// xdotool holds W, recording the run, then checks that it exited cleanly,
// that the walker walked, and that its last frame shows the walker in the
// middle of the screen; then it replays the recording on displays of 60
// and 144 Hz, each of which must match it hash for hash. Hash covers the
// clips' times and blend (and TestClipBlend that the joints published are
// a function of them), so matching hashes mean the same poses at the same
// ticks whatever the display's rate.
func TestWalkerRun(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Skip("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	if testing.Short() {
		t.Skip("builds and runs the example: skipped in -short mode")
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command in PATH to build the example with")
	}
	xdotool, err := exec.LookPath("xdotool")
	if err != nil {
		t.Fatal("needs xdotool to hold W in the window: make test installs it (.ci/deps.sh), or apt-get install xdotool")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "walker")
	if out, err := exec.Command(gotool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	shot, rec := filepath.Join(dir, "last.png"), filepath.Join(dir, "walk.tfr")
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "-duration", "4s", "-screenshot", shot, "-width", "480", "-height", "320", "-record", rec)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	xdo := func(args ...string) string {
		out, err := exec.CommandContext(ctx, xdotool, args...).Output()
		if err != nil {
			t.Errorf("xdotool %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	// W goes down once the window is up and stays down until the app
	// exits: a release sent while a loaded machine is still compiling the
	// app's shaders would reach it in the same poll as the press, and it
	// would never walk. (TestWalk checks that a release stops it.)
	if win := strings.Fields(xdo("search", "--sync", "--pid", fmt.Sprint(cmd.Process.Pid))); len(win) > 0 {
		time.Sleep(300 * time.Millisecond)
		// Focused, xdotool sends the key through XTEST as a keyboard
		// would; to a window without the focus it would send it as a
		// synthetic event, which can be lost while the focus moves. The
		// key is let go after the run, so that no later test finds it
		// held in the X server.
		xdo("windowfocus", "--sync", win[0])
		xdo("keydown", "--window", win[0], "w")
		defer exec.Command(xdotool, "keyup", "w").Run()
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("walker -duration 4s: %v\n%s%s", err, stdout.String(), stderr.String())
	}

	m := regexp.MustCompile(`walker: walked ([0-9.]+) m`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("stdout %q does not say how far the walker went", stdout.String())
	}
	// W held through a 4 s run at 3 m/s: 12 m, less the start-up the
	// simulation spends before the press arrives.
	if walked, _ := strconv.ParseFloat(m[1], 64); walked < 1 || walked > 5*speed {
		t.Errorf("the walker walked %v m with W held through a 4 s run, want up to %v", walked, 4*speed)
	} else {
		t.Logf("walked %v m", walked)
	}

	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if n := warmPixels(img); n < 300 {
		t.Errorf("screenshot %v shows %d of the walker's warm pixels near its centre, want hundreds", img.Bounds(), n)
	}

	for _, hz := range []string{"60", "144"} {
		out, err := exec.CommandContext(ctx, bin, "-replay", rec, "-refresh", hz, "-width", "480", "-height", "320").CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("replay matches the recording")) {
			t.Errorf("walker -replay at %s Hz: %v\n%s", hz, err, out)
		} else {
			t.Logf("%s Hz: %s", hz, bytes.TrimSpace(out))
		}
	}
}

// warmPixels counts the pixels in the middle of img that have the
// walker's warm colours (the orange shirt, skin): the ground is green
// grey and the pillars blue grey, both cool.
func warmPixels(img image.Image) int {
	b := img.Bounds()
	n := 0
	for y := b.Min.Y + b.Dy()/4; y < b.Max.Y-b.Dy()/4; y++ {
		for x := b.Min.X + b.Dx()/3; x < b.Max.X-b.Dx()/3; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 > g>>8+25 && r>>8 > bl>>8+50 {
				n++
			}
		}
	}
	return n
}
