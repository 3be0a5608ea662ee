// Command walker is a third-person tickframe app: a skinned glTF character
// walks a field, its idle and walk clips blended at each tick and its
// joints interpolated between ticks, while the mouse turns the camera
// behind it (published by the world, late-latched by the app). It carries a
// lamp, a label floats above it and its path trails behind it.
//
//	go run ./examples/walker   # W A S D walk, the mouse looks, R restarts, H the HUD
package main

//go:generate go run ./internal/genmodel -o assets

import (
	"embed"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/app"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/simthread"
)

// The walker and its camera; its clips (genmodel's); the ids main registers;
// the input kinds: a movement key (Code indexes moveKeys, X is 1 pressed, 0
// released), mouse motion (X, Y: the cursor's DX, DY), back to the start.
const (
	speed                   = 3.0     // m/s
	sensitivity             = 0.0025  // rad per unit of mouse motion
	minPitch, maxPitch      = -1.2, 0 // rad: from looking down steeply to level: the camera never sinks below the shoulders
	boom                    = 4.5     // m from the camera back to the walker's shoulders
	shoulders               = 1.5     // m
	fov                     = 1.0     // rad, vertical
	blendTime               = 0.25    // s from standing to walking, and back
	trailStep               = 0.5     // m between the path's points
	idle, walk              = 0, 1
	walkerModel, groundMesh = 1, 1
	hold, look, respawn     = 1, 2, 3
)

var (
	moveKeys = [...]platform.Key{'W', 'A', 'S', 'D'}
	up       = mgl32.Vec3{0, 1, 0}
	white    = simthread.RGB(255, 255, 255)
	b2f      = map[bool]float64{true: 1}
)

// walker is the world: its state, which only Step changes, and its character.
type walker struct {
	state
	ch *renderer.Character
}

// state is where the walker stands and looks, the keys held, the mouse
// motion it has turned by, its clips' times and blend, and its path.
type state struct {
	x, z         float64 // m
	yaw, pitch   float64 // rad: the heading (0 looks along −Z), and the camera's elevation
	held         [len(moveKeys)]bool
	lookX, lookY float64        // the look motion consumed, for the app's late latch
	idleT, walkT float64        // s into each clip
	blend        float64        // 0 idle, 1 walking
	walked       float64        // m
	epoch        uint32         // changes at each respawn
	trail        [32]mgl32.Vec3 // the path's last points, trail[k%32] the k-th
	trails       int64          // points laid
}

func (w *walker) Step(tick uint64, dt float64, inputs []simthread.Input) {
	for _, in := range inputs {
		switch in.Kind {
		case hold:
			w.held[uint32(in.Code)%uint32(len(w.held))] = in.X != 0
		case look:
			w.lookX, w.lookY = w.lookX+in.X, w.lookY+in.Y
			w.yaw = math.Remainder(w.yaw-in.X*sensitivity, 2*math.Pi)
			w.pitch = min(max(w.pitch-in.Y*sensitivity, minPitch), maxPitch)
		case respawn:
			w.x, w.z, w.epoch, w.trails = 0, 0, w.epoch+1, 0
		}
	}
	ahead, right := b2f[w.held[0]]-b2f[w.held[2]], b2f[w.held[3]]-b2f[w.held[1]]
	moving := ahead != 0 || right != 0
	// The clips loop (idle 2 s, walk 1 s); the blend follows the keys.
	w.idleT = math.Mod(w.idleT+dt, 2)
	if w.blend = min(max(w.blend+(2*b2f[moving]-1)*dt/blendTime, 0), 1); w.blend > 0 {
		w.walkT = math.Mod(w.walkT+dt, 1)
	}
	if moving { // ahead is −Z turned by the heading, (−sin, −cos); right is (cos, −sin)
		n := speed * dt / math.Hypot(ahead, right)
		s, c := math.Sincos(w.yaw)
		w.x, w.z, w.walked = w.x+n*(-ahead*s+right*c), w.z+n*(-ahead*c-right*s), w.walked+speed*dt
	}
	if p := (mgl32.Vec3{float32(w.x), 0.02, float32(w.z)}); w.trails == 0 || p.Sub(w.trail[(w.trails-1)%32]).Len() >= trailStep {
		w.trail[w.trails%32], w.trails = p, w.trails+1
	}
}

// Hash is the world's whole state, for -record and -replay: with the clips'
// times and blend, so that matching hashes mean the same poses.
func (w *walker) Hash() uint64 {
	b, _ := binary.Append(nil, binary.LittleEndian, &w.state) // every field: all are fixed-size
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

func (w *walker) Snapshot(dst *simthread.Snapshot) {
	heading := mgl32.QuatRotate(float32(w.yaw), up)
	pos := mgl32.Vec3{float32(w.x), 0, float32(w.z)}
	dst.Bodies = append(dst.Bodies[:0], // body 0: the lamp carried above the walker, a point light
		simthread.Body{Pos: pos.Add(mgl32.Vec3{0, 2.3, 0}), Rot: heading, Scale: simthread.UniformScale(0.08),
			Color: simthread.RGB(255, 240, 160), Epoch: w.epoch},
		simthread.Body{Pos: mgl32.Vec3{0, 0.01, 0}, Rot: mgl32.QuatIdent(), Color: white, Mesh: groundMesh})
	for i := range 25 { // pillars on a 12 m grid, to see the walking by
		if i != 12 {
			dst.Bodies = append(dst.Bodies, simthread.Body{Pos: mgl32.Vec3{float32(i%5-2) * 12, 1.5, float32(i/5-2) * 12},
				Rot: mgl32.QuatIdent(), Scale: mgl32.Vec3{0.4, 1.5, 0.4}, Color: simthread.RGB(130, 140, uint8(150+4*i))})
		}
	}
	dst.Lights = simthread.Lights{Points: append(dst.Lights.Points[:0], simthread.PointLight{OnBody: true, Body: 0,
		Color: mgl32.Vec3{0.5, 0.8, 1}, Intensity: 8, Range: 10})}
	// The character, idle blended into walking, turned from +Z (glTF's front) to the heading.
	w.ch.Pose(idle, float32(w.idleT))
	w.ch.Blend(walk, float32(w.walkT), float32(w.blend))
	place := mgl32.Translate3D(pos[0], 0, pos[2]).Mul4(heading.Mul(mgl32.QuatRotate(math.Pi, up)).Mat4())
	dst.Skins, dst.Joints, dst.MorphWeights = dst.Skins[:0], dst.Joints[:0], dst.MorphWeights[:0]
	w.ch.AppendSkin(dst, simthread.Skin{Model: walkerModel, Color: white, Epoch: w.epoch}, place)
	dst.Lines.Reset() // its path, ending under it as drawn, and its label
	for k := max(w.trails-32, 0); k < w.trails; k++ {
		b := simthread.LineEnd{OnBody: true, Pos: mgl32.Vec3{0, -2.28, 0}}
		if k+1 < w.trails {
			b = simthread.LineEnd{Pos: w.trail[(k+1)%32]}
		}
		dst.Lines.Segment(simthread.LineEnd{Pos: w.trail[k%32]}, b, 3, simthread.RGB(80, 220, 255))
	}
	dst.Overlay.Reset()
	dst.Overlay.Label(0, 0, -4, 18, white, "walker").Anchor = simthread.AboveBody
	rot := heading.Mul(mgl32.QuatRotate(float32(w.pitch), mgl32.Vec3{1, 0, 0}))
	subject := mgl32.Vec3{float32(w.x), shoulders, float32(w.z)} // the camera, boom metres behind, looks at it
	dst.Camera = simthread.CameraPose{Valid: true, Rot: rot, Pos: subject.Sub(rot.Rotate(mgl32.Vec3{0, 0, -1}).Mul(boom)),
		FOV: fov, Boom: boom, Epoch: w.epoch,
		Look: simthread.MouseLook{X: w.lookX, Y: w.lookY, Scale: sensitivity, MinPitch: minPitch, MaxPitch: maxPitch}}
}

// input turns mouse motion into looks, WASD presses and releases (not
// repeats) into holds, and R into a respawn.
func input(e platform.Event) (simthread.Input, bool) {
	switch {
	case e.Kind == platform.CursorEvent:
		return simthread.Input{Kind: look, X: e.DX, Y: e.DY}, true
	case e.Pressed('R'):
		return simthread.Input{Kind: respawn}, true
	case e.Kind == platform.KeyEvent && e.Action != platform.Repeat:
		if i := slices.Index(moveKeys[:], e.Key); i >= 0 {
			return simthread.Input{Kind: hold, Code: int32(i), X: b2f[e.Action == platform.Press]}, true
		}
	}
	return simthread.Input{}, false
}

//go:embed assets/walker.glb assets/ground.glb
var assets embed.FS

// load decodes an embedded model (go generate writes them).
func load(name string) (*gltf.Model, error) {
	data, err := assets.ReadFile("assets/" + name)
	m, derr := gltf.Decode(data, name, nil)
	return m, errors.Join(err, derr)
}

func main() {
	m, err := load("walker.glb")
	ground, gerr := load("ground.glb")
	w := &walker{state: state{pitch: -0.3}}
	if err = errors.Join(err, gerr); err == nil {
		w.ch, err = renderer.NewCharacter(m) // the world's; it and the renderer only read m
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "walker:", err)
		os.Exit(1)
	}
	scene := func(r *renderer.Renderer) error { // registers the models, in the order of their ids
		_, err := r.AddSkinned(m)
		_, gerr := r.AddModel(ground, mgl32.Ident4())
		return errors.Join(err, gerr)
	}
	app.Main(app.Config{Title: "tickframe: walker", Input: input, Scene: scene, Look: app.Look{HideHUD: true},
		Mouse: app.Mouse{MouseLook: true, CaptureCursor: true, NoMouseCamera: true},
		Finish: func(*app.App, *app.Report, error) error { // the simulation has stopped: w is ours again
			fmt.Printf("walker: walked %.2f m, to (%.2f, %.2f)\n", w.walked, w.x, w.z)
			return nil
		}}, w)
}
