// Command walker is a third-person tickframe app: a glTF character walks a
// textured field while the mouse turns the camera behind it. The world
// publishes the camera with each snapshot; the app interpolates it like a
// body and, just before each frame, turns it by the mouse motion the world
// has not simulated yet (late latching), so the view follows the hand.
//
//	go run ./examples/walker
//
// W A S D walk (held), the mouse looks, R returns to the start (a camera
// cut), H shows the timing HUD; Space pauses, Esc quits. -duration and
// -screenshot end the run and save its last frame; on exit it says how far
// the walker went.
package main

//go:generate go run ./internal/genmodel -o assets

import (
	"embed"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/app"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/simthread"
)

// The input kinds this world understands.
const (
	hold    = iota + 1 // a movement key: Code indexes moveKeys, X is 1 pressed, 0 released
	look               // mouse motion: X, Y are the cursor's DX, DY
	respawn            // back to the start
)

// The walker and its camera.
const (
	speed              = 3.0     // m/s
	sensitivity        = 0.0025  // rad per unit of mouse motion
	minPitch, maxPitch = -1.2, 0 // rad: from looking down steeply to level: the camera never sinks below the shoulders
	boom               = 4.5     // m from the camera back to the walker's shoulders
	shoulders          = 1.5     // m
	fov                = 1.0     // rad, vertical
)

// Mesh ids, given in the order scene registers the models.
const (
	walkerMesh = 1
	groundMesh = 2
)

var moveKeys = [...]platform.Key{platform.KeyW, platform.KeyA, platform.KeyS, platform.KeyD}

var (
	up    = mgl32.Vec3{0, 1, 0}
	white = simthread.RGB(255, 255, 255)
	one   = simthread.UniformScale(1)
)

// walker is the world: where the walker stands and looks, the movement
// keys held, and the mouse motion it has turned by. Only Step changes it.
type walker struct {
	x, z         float64 // m
	yaw, pitch   float64 // rad: the heading (0 looks along −Z), and the camera's elevation
	held         [len(moveKeys)]bool
	lookX, lookY float64 // the look motion consumed, for the app's late latch
	stride       float64 // rad: the phase of the walk's bob
	walked       float64 // m
	epoch        uint32  // changes at each respawn
}

func (w *walker) Step(tick uint64, dt float64, inputs []simthread.Input) {
	for _, in := range inputs {
		switch in.Kind {
		case hold:
			if int(in.Code) < len(w.held) {
				w.held[in.Code] = in.X != 0
			}
		case look:
			w.lookX, w.lookY = w.lookX+in.X, w.lookY+in.Y
			w.yaw = math.Remainder(w.yaw-in.X*sensitivity, 2*math.Pi)
			w.pitch = min(max(w.pitch-in.Y*sensitivity, minPitch), maxPitch)
		case respawn:
			w.x, w.z, w.epoch = 0, 0, w.epoch+1
		}
	}
	ahead, right := b2f(w.held[0])-b2f(w.held[2]), b2f(w.held[3])-b2f(w.held[1])
	if ahead == 0 && right == 0 {
		w.stride = 0
		return
	}
	// Ahead is −Z turned by the heading, (−sin, −cos); right is (cos, −sin).
	n := speed * dt / math.Hypot(ahead, right)
	s, c := math.Sincos(w.yaw)
	w.x += n * (-ahead*s + right*c)
	w.z += n * (-ahead*c - right*s)
	w.walked += speed * dt
	w.stride = math.Mod(w.stride+2*math.Pi*dt*2, 2*math.Pi) // two steps a second
}

func (w *walker) Snapshot(dst *simthread.Snapshot) {
	heading := mgl32.QuatRotate(float32(w.yaw), up)
	bob := float32(0.05 * math.Abs(math.Sin(w.stride)))
	dst.Bodies = append(dst.Bodies[:0],
		// The model faces +Z, glTF's front: turned to face the heading.
		simthread.Body{Pos: mgl32.Vec3{float32(w.x), bob, float32(w.z)}, Rot: heading.Mul(mgl32.QuatRotate(math.Pi, up)),
			Scale: one, Color: white, Mesh: walkerMesh, Epoch: w.epoch},
		simthread.Body{Pos: mgl32.Vec3{0, 0.01, 0}, Rot: mgl32.QuatIdent(), Scale: one, Color: white, Mesh: groundMesh})
	for i := range 25 { // pillars on a 12 m grid, to see the walking by
		if i != 12 {
			dst.Bodies = append(dst.Bodies, simthread.Body{Pos: mgl32.Vec3{float32(i%5-2) * 12, 1.5, float32(i/5-2) * 12},
				Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{0.4, 1.5, 0.4}, Color: simthread.RGB(130, 140, uint8(150+4*i))})
		}
	}
	// A ring at its feet (lines, interpolated point by point as the walker is).
	dst.Lines.Reset()
	dst.Lines.Circle(mgl32.Vec3{float32(w.x), 0.02, float32(w.z)}, up, 0.7, 3, simthread.RGB(80, 220, 255))
	// A lamp carried above the walker (body 0), lighting the pillars it passes.
	dst.Lights.Reset()
	dst.Lights.Points = append(dst.Lights.Points, simthread.PointLight{OnBody: true, Body: 0, Pos: mgl32.Vec3{0, 2.5, 0},
		Color: mgl32.Vec3{0.5, 0.8, 1}, Intensity: 8, Range: 10})
	// The camera: boom metres behind the shoulders, looking at them.
	rot := heading.Mul(mgl32.QuatRotate(float32(w.pitch), mgl32.Vec3{1, 0, 0}))
	subject := mgl32.Vec3{float32(w.x), shoulders, float32(w.z)}
	dst.Camera = simthread.CameraPose{Valid: true, Rot: rot, Pos: subject.Sub(rot.Rotate(mgl32.Vec3{0, 0, -1}).Mul(boom)),
		FOV: fov, Boom: boom, Epoch: w.epoch,
		Look: simthread.Look{X: w.lookX, Y: w.lookY, Scale: sensitivity, MinPitch: minPitch, MaxPitch: maxPitch}}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// input turns mouse motion into looks, WASD presses and releases (not
// repeats) into holds, and R into a respawn.
func input(e platform.Event) (simthread.Input, bool) {
	switch {
	case e.Kind == platform.CursorEvent:
		return simthread.Input{Kind: look, X: e.DX, Y: e.DY}, true
	case e.Pressed(platform.KeyR):
		return simthread.Input{Kind: respawn}, true
	case e.Kind == platform.KeyEvent && e.Action != platform.Repeat:
		if i := slices.Index(moveKeys[:], e.Key); i >= 0 {
			return simthread.Input{Kind: hold, Code: int32(i), X: b2f(e.Action == platform.Press)}, true
		}
	}
	return simthread.Input{}, false
}

//go:embed assets/walker.glb assets/ground.glb
var assets embed.FS

// scene registers the models, in the order of their mesh ids.
func scene(r *renderer.Renderer) error {
	for _, name := range []string{"assets/walker.glb", "assets/ground.glb"} {
		data, err := assets.ReadFile(name)
		if err != nil {
			return err
		}
		m, err := gltf.Decode(data, name, nil)
		if err != nil {
			return err
		}
		if _, err := r.AddModel(m, mgl32.Ident4()); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	w := &walker{pitch: -0.3}
	app.Main(app.Config{Title: "tickframe: walker", Input: input, Scene: scene, Look: app.Look{HideHUD: true},
		Mouse: app.Mouse{MouseLook: true, CaptureCursor: true, NoMouseCamera: true},
		Finish: func(*app.App, *app.Report, error) error {
			// Run has stopped the simulation: the world is ours to read again.
			fmt.Printf("walker: walked %.2f m, to (%.2f, %.2f)\n", w.walked, w.x, w.z)
			return nil
		}}, w)
}
