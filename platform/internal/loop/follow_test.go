package loop

import (
	"context"
	"fmt"
	"image"
	"math"
	"os"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/internal/sim"
	"github.com/tickframe/tickframe/platform/internal/window"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// stillWorld is a world that publishes nothing; the follow test hands
// the loop its own plans.
type stillWorld struct{}

func (stillWorld) Step(uint64, float64, []simthread.Input) {}
func (stillWorld) Snapshot(*simthread.Snapshot)            {}

// centroid returns the mean position of the pixels that is holds, and
// how many there are.
func centroid(img *image.RGBA, is func(r, g, b uint8) bool) (x, y float64, n int) {
	for py := 0; py < img.Rect.Dy(); py++ {
		for px := 0; px < img.Rect.Dx(); px++ {
			c := img.RGBAAt(px, py)
			if is(c.R, c.G, c.B) {
				x += float64(px) + 0.5
				y += float64(py) + 0.5
				n++
			}
		}
	}
	if n > 0 {
		x, y = x/float64(n), y/float64(n)
	}
	return x, y, n
}

func reddish(r, g, b uint8) bool           { return int(r) > int(g)+60 && int(r) > int(b)+60 }
func greenish(r, g, b uint8) bool          { return int(g) > int(r)+60 && int(g) > int(b)+60 }
func near2(x, y, wx, wy, tol float64) bool { return math.Hypot(x-wx, y-wy) <= tol }

// TestFollowCamera draws, in a real window, a red body moving fast
// across a green one that stands still, with the orbit camera following
// the red body (Camera.Follow), from plans at several alphas between two
// snapshots, lerped and hermite: the red body is drawn at the window's
// centre every frame, and the green one where the frame's Projection puts
// it. Then Space pauses the simulation, and a drag still turns the view
// about the followed body: the green body moves on the screen, the red
// one stays at the centre. SetCamera switches the body followed. The
// renderer's Projection is the app's every frame.
func TestFollowCamera(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("needs a display: run make test, which starts Xvfb, or set DISPLAY")
	}
	const w, h = 320, 240
	cam := renderer.DefaultCamera()
	cam.Follow, cam.FollowBody = true, 1
	cam.Distance = 12
	cfg := Config{Title: "follow", Width: w, Height: h, Camera: &cam, Settings: Settings{Display: Display{KeepRunningUnfocused: true}}}
	var err error
	window.Call(func() {
		var a *App
		if a, err = New(cfg, stillWorld{}); err != nil {
			return
		}
		defer a.Close()
		err = followFrames(a, w, h)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func followFrames(a *App, w, h int) error {
	green := simthread.Body{Pos: mgl32.Vec3{0, 1, -4}, Scale: simthread.UniformScale(0.5), Color: simthread.RGB(0, 255, 0)}
	red := func(x float32, vx float32) simthread.Body {
		return simthread.Body{Pos: mgl32.Vec3{x, 1.5, 0}, Scale: simthread.UniformScale(0.4), Color: simthread.RGB(255, 0, 0),
			Vel: mgl32.Vec3{vx, 0, 0}}
	}
	// 6 m in a tick of 10 ms, slowing from 700 to 500 m/s: hermite draws
	// the cubic, 0.25 m ahead of the lerp half-way (5 pixels).
	prev := &simthread.Snapshot{Tick: 1, Bodies: []simthread.Body{green, red(-3, 700)}}
	next := &simthread.Snapshot{Tick: 2, Bodies: []simthread.Body{green, red(3, 500)}}
	seq := uint64(0)
	frame := func(alpha float32, motion renderer.MotionMode) (*image.RGBA, renderer.Plan, error) {
		seq += 2
		plan := renderer.Plan{Prev: prev, Next: next, PrevSeq: seq - 1, NextSeq: seq, Alpha: alpha, Ready: true, Span: 0.01, Motion: motion}
		a.latchCamera(&plan)
		if _, err := a.drawPlan(context.Background(), &plan); err != nil {
			return nil, plan, err
		}
		img, err := renderer.ReadFrame(nil, w, h)
		return img, plan, err
	}
	check := func(name string, img *image.RGBA, plan *renderer.Plan) error {
		pose, _, _ := renderer.BodyPose(plan, 1, nil)
		x, y, n := centroid(img, reddish)
		if n < 30 || !near2(x, y, float64(w)/2, float64(h)/2, 1.5) {
			return fmt.Errorf("%s: the followed body's %d pixels centred at (%.1f, %.1f), want the window's centre (%d, %d)", name, n, x, y, w/2, h/2)
		}
		p := a.Projection()
		if rp := a.Renderer().Projection(); rp != p {
			return fmt.Errorf("%s: the renderer's projection %+v is not the app's %+v", name, rp, p)
		}
		if px, py, _, ok := p.Project(pose.Pos); !ok || !near2(float64(px), float64(py), float64(w)/2, float64(h)/2, 0.01) {
			return fmt.Errorf("%s: the frame's projection puts the followed body at (%v, %v) ok %v", name, px, py, ok)
		}
		gx, gy, gn := centroid(img, greenish)
		px, py, _, ok := p.Project(green.Pos)
		if gn < 30 || !ok || !near2(gx, gy, float64(px), float64(py), 2) {
			return fmt.Errorf("%s: the still body's %d pixels centred at (%.1f, %.1f), projected at (%v, %v)", name, gn, gx, gy, px, py)
		}
		return nil
	}
	for _, motion := range []renderer.MotionMode{renderer.MotionLerp, renderer.MotionHermite} {
		for _, alpha := range []float32{0, 0.25, 0.5, 0.75, 1} {
			img, plan, err := frame(alpha, motion)
			if err != nil {
				return err
			}
			if err := check(fmt.Sprintf("motion %v alpha %v", motion, alpha), img, &plan); err != nil {
				return err
			}
		}
	}
	// SetCamera follows another body from the next frame: the green one.
	c := a.Camera()
	c.FollowBody = 0
	a.SetCamera(c)
	img, _, err := frame(0.5, renderer.MotionLerp)
	if err != nil {
		return err
	}
	if x, y, n := centroid(img, greenish); n < 30 || !near2(x, y, float64(w)/2, float64(h)/2, 1.5) {
		return fmt.Errorf("following body 0: its %d pixels centred at (%.1f, %.1f)", n, x, y)
	}
	c.FollowBody = 1
	a.SetCamera(c)
	// Paused, the view still follows the drag, about the followed body.
	img, _, err = frame(0.5, renderer.MotionLerp)
	if err != nil {
		return err
	}
	gx0, gy0, _ := centroid(img, greenish)
	a.Handle([]platform.Event{{Kind: platform.KeyEvent, Key: platform.KeySpace, Action: platform.Press}})
	if !a.Paused() {
		return fmt.Errorf("space did not pause the simulation")
	}
	a.Handle([]platform.Event{
		{Kind: platform.ButtonEvent, Button: platform.ButtonLeft, Action: platform.Press, X: 100, Y: 100},
		{Kind: platform.CursorEvent, X: 160, Y: 100},
		{Kind: platform.ButtonEvent, Button: platform.ButtonLeft, Action: platform.Release, X: 160, Y: 100},
	})
	img, plan, err := frame(0.5, renderer.MotionLerp)
	if err != nil {
		return err
	}
	if err := check("paused, after a drag", img, &plan); err != nil {
		return err
	}
	if gx, gy, _ := centroid(img, greenish); near2(gx, gy, gx0, gy0, 5) {
		return fmt.Errorf("paused: a drag left the still body at (%.1f, %.1f), where it was", gx, gy)
	}
	return nil
}

// TestLatePoll: a frame drawn by the orbit camera polls the window once
// more just before it is drawn, so that its drag and wheel are the
// newest, as a mouse-look frame does; the world's own camera without
// mouse look, or an orbit the mouse does not move, does not.
func TestLatePoll(t *testing.T) {
	posed := &simthread.Snapshot{Camera: simthread.CameraPose{Valid: true, Rot: mgl32.QuatIdent()}}
	orbit := &simthread.Snapshot{}
	for _, c := range []struct {
		mouse Mouse
		snap  *simthread.Snapshot
		want  bool
	}{
		{Mouse{}, orbit, true},
		{Mouse{}, nil, true}, // before the first snapshot
		{Mouse{NoMouseCamera: true}, orbit, false},
		{Mouse{}, posed, false},
		{Mouse{MouseLook: true, NoMouseCamera: true}, posed, true},
	} {
		a, err := NewHeadless(Config{Mouse: c.mouse}, stillWorld{}, new(sim.VirtualClock))
		if err != nil {
			t.Fatal(err)
		}
		plan := renderer.Plan{Prev: c.snap, Next: c.snap, Ready: c.snap != nil}
		if got := a.latePoll(&plan); got != c.want {
			t.Errorf("%+v, world camera %v: late poll %v, want %v", c.mouse, c.snap != nil && c.snap.Camera.Valid, got, c.want)
		}
	}
}
