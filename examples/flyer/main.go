// Command flyer is a small complete game on tickframe's public API: steer
// a ship through rings that drift from side to side, a point for each ring
// flown through; a mine, the ground or the course's edge teleports the
// ship back to the last ring it passed. A chase camera follows the ship
// (the world's camera, interpolated like a body), the score is drawn with
// the overlay's text, and every run records and replays.
//
//	go run ./examples/flyer                       # arrows or WASD steer
//	go run ./examples/flyer -seed 7 -speed 24 -record run.tfrec
//	go run ./examples/flyer -replay run.tfrec     # the seed and -speed come from the recording
package main

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/app"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

const (
	spacing = 30.0 // metres between rings along the course (−z)
	hole    = 3.0  // a ring's inner radius, metres
	shipR   = 0.5  // the ship's radius, metres
	mineR   = 0.8  // a mine's radius, metres
	drift   = 4.0  // a ring's side-to-side swing, metres
	accel   = 40.0 // steering acceleration, m/s²
	damping = 3.0  // 1/s: the ship's side speed decays without steering
	courseW = 14.0 // |x| beyond which the ship has left the course
	ceiling = 16.0 // metres
	cruise  = 5.0  // the height a ship starts and restarts at
	shown   = 8    // rings and mines drawn ahead of the ship
	steer   = 1    // the one input kind: X, Y is the steering, −1 to 1
)

// flyer is the world. Only Step changes it, so a run depends on its seed,
// speed and inputs alone.
type flyer struct {
	seed               uint64
	speed              float64 // m/s along the course
	tick               uint64
	time               float64
	x, y, z, vx, vy    float64 // the ship
	sx, sy             float64 // the steering held
	next               int     // the next ring to fly through (ring k is at z = −spacing·(k+1))
	score, crashes     int
	ringMesh, mineMesh simthread.MeshID
}

func newFlyer(seed uint64, speed float64) *flyer {
	return &flyer{seed: seed, speed: speed, y: cruise}
}

// rnd returns a number in [−1, 1) that depends only on the seed, k and
// which (splitmix64).
func (w *flyer) rnd(k, which int) float64 {
	z := w.seed ^ uint64(k)*0x9E3779B97F4A7C15 ^ uint64(which)<<56
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	z ^= z >> 31
	return float64(z>>11)/(1<<52) - 1
}

// ring returns ring k's centre at time t: it swings about a place of its
// own.
func (w *flyer) ring(k int, t float64) (x, y, z float64) {
	return 5*w.rnd(k, 0) + drift*math.Sin(0.7*t+3*w.rnd(k, 1)), cruise + 3*w.rnd(k, 2), -spacing * float64(k+1)
}

// mine returns the centre of mine k, halfway between rings k−1 and k.
func (w *flyer) mine(k int) (x, y, z float64) {
	return 8 * w.rnd(k, 3), cruise + 4*w.rnd(k, 4), -spacing * (float64(k) + 0.5)
}

func (w *flyer) Step(tick uint64, dt float64, inputs []simthread.Input) {
	for _, in := range inputs {
		if in.Kind == steer {
			w.sx, w.sy = max(-1, min(1, in.X)), max(-1, min(1, in.Y))
		}
	}
	w.tick, w.time = tick, w.time+dt
	w.vx += (accel*w.sx - damping*w.vx) * dt
	w.vy += (accel*w.sy - damping*w.vy) * dt
	z0 := w.z
	w.x, w.y, w.z = w.x+w.vx*dt, w.y+w.vy*dt, w.z-w.speed*dt
	if rz := -spacing * float64(w.next+1); z0 > rz && w.z <= rz { // through ring next's plane
		rx, ry, _ := w.ring(w.next, w.time)
		if math.Hypot(w.x-rx, w.y-ry) < hole-shipR {
			w.score++
		}
		w.next++
	}
	mx, my, mz := w.mine(w.next)
	hit := math.Sqrt((w.x-mx)*(w.x-mx)+(w.y-my)*(w.y-my)+(w.z-mz)*(w.z-mz)) < shipR+mineR
	if hit || w.y < shipR || w.y > ceiling || math.Abs(w.x) > courseW {
		w.teleport()
	}
}

// teleport puts the ship back where the last ring it passed was, at a
// standstill: a jump the renderer must not slide, so its Epoch (and the
// camera's) is the crash count.
func (w *flyer) teleport() {
	w.crashes++
	w.x, w.y, w.z, w.vx, w.vy = 0, cruise, -spacing*float64(w.next), 0, 0
}

// Hash is the world's whole state, for -record and -replay.
func (w *flyer) Hash() uint64 {
	h := uint64(14695981039346656037) // FNV-1a over the values' bits
	for _, v := range [...]float64{w.time, w.x, w.y, w.z, w.vx, w.vy, w.sx, w.sy} {
		h = (h ^ math.Float64bits(v)) * 1099511628211
	}
	for _, v := range [...]uint64{w.tick, uint64(w.next), uint64(w.score), uint64(w.crashes)} {
		h = (h ^ v) * 1099511628211
	}
	return h
}

func (w *flyer) Snapshot(dst *simthread.Snapshot) {
	ship := mgl32.Vec3{float32(w.x), float32(w.y), float32(w.z)}
	bank := mgl32.QuatRotate(float32(-0.06*w.vx), mgl32.Vec3{0, 0, 1}).Mul(mgl32.QuatRotate(float32(0.04*w.vy), mgl32.Vec3{1, 0, 0}))
	// The ship, then each ring and mine shown in a slot of its own
	// (k mod n) with its number as its Epoch, so that a slot taken over
	// by a new ring is not slid there from the old one.
	n := shown + 1
	dst.Bodies = slices.Grow(dst.Bodies[:0], 1+2*n)[:1+2*n]
	dst.Bodies[0] = simthread.Body{Pos: ship, Rot: bank, Scale: mgl32.Vec3{0.6, 0.2, 1},
		Color: simthread.RGB(240, 200, 60), Epoch: uint32(w.crashes)}
	upright := mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{1, 0, 0})
	for k := max(0, w.next-1); k < max(0, w.next-1)+n; k++ {
		x, y, z := w.ring(k, w.time)
		c := simthread.RGB(80, 200, 255)
		if k < w.next {
			c = simthread.RGB(90, 110, 130) // passed
		}
		dst.Bodies[1+k%n] = simthread.Body{Mesh: w.ringMesh, Pos: mgl32.Vec3{float32(x), float32(y), float32(z)},
			Rot: upright, Scale: simthread.UniformScale(hole + 0.4), Color: c, Epoch: uint32(k)}
	}
	for k := w.next; k < w.next+n; k++ {
		x, y, z := w.mine(k)
		dst.Bodies[1+n+k%n] = simthread.Body{Mesh: w.mineMesh, Pos: mgl32.Vec3{float32(x), float32(y), float32(z)},
			Scale: simthread.UniformScale(mineR), Color: simthread.RGB(230, 60, 50), Epoch: uint32(k)}
	}
	// The chase camera: behind and above the ship, looking at it (its
	// subject, Boom metres ahead), cut (not swung) on a teleport.
	chase := mgl32.Vec3{0, 1.8, 7}
	dst.Camera = simthread.CameraPose{Boom: chase.Len(), Epoch: uint32(w.crashes)}
	dst.Camera.LookAt(ship.Add(chase), ship, mgl32.Vec3{0, 1, 0})
	o := &dst.Overlay
	o.Reset()
	t := o.Text(simthread.TopLeft, 24, 16, 48, simthread.White, "score ")
	t.Text = strconv.AppendInt(t.Text, int64(w.score), 10)
	c := o.Text(simthread.TopRight, -24, 16, 26, simthread.RGB(255, 140, 120), "crashes ")
	c.Text = strconv.AppendInt(c.Text, int64(w.crashes), 10)
}

// steering turns the arrow keys and WASD held into steer inputs, sent
// whenever the steering changes. It runs on the main thread.
type steering struct{ left, right, up, down bool }

func (s *steering) input(e platform.Event) (simthread.Input, bool) {
	if e.Kind != platform.KeyEvent || e.Action == platform.Repeat {
		return simthread.Input{}, false
	}
	held := e.Action == platform.Press
	switch e.Key {
	case platform.KeyLeft, 'A':
		s.left = held
	case platform.KeyRight, 'D':
		s.right = held
	case platform.KeyUp, 'W':
		s.up = held
	case platform.KeyDown, 'S':
		s.down = held
	default:
		return simthread.Input{}, false
	}
	return simthread.Input{Kind: steer, X: axis(s.right, s.left), Y: axis(s.up, s.down)}, true
}

func axis(plus, minus bool) float64 {
	switch {
	case plus && !minus:
		return 1
	case minus && !plus:
		return -1
	}
	return 0
}

// config is the app's configuration; speed is bound to -speed.
func config(speed *float64, w **flyer) app.Config {
	var keys steering
	return app.Config{
		Title: "flyer",
		Look: app.Look{
			HideHUD:    true,
			ClearColor: simthread.RGB(120, 170, 220),
			Ground:     app.Ground{Size: 40000}, // 20 km of course each way
		},
		Input: keys.input,
		AppFlags: func(fs *flag.FlagSet) {
			fs.Float64Var(speed, "speed", 20, "the ship's `speed` along the course, m/s (1 to 100)")
		},
		Scene: func(r *renderer.Renderer) (err error) {
			if (*w).ringMesh, err = r.Registry().AddMesh(renderer.TorusMesh(0.12, 48, 12)); err != nil {
				return err
			}
			(*w).mineMesh, err = r.Registry().AddMesh(renderer.SphereMesh(16, 12))
			return err
		},
		Finish: func(a *app.App, r *app.Report, runErr error) error {
			fmt.Printf("flyer: score %d, crashes %d, %d rings flown\n", (*w).score, (*w).crashes, (*w).next)
			return nil
		},
	}
}

// main builds the world from the parsed flags (-seed, -speed, or the
// recording's on -replay), runs until the window closes, Esc or Ctrl-C,
// and exits 0, 1 or 2.
func main() {
	var speed float64
	var w *flyer
	app.Main(config(&speed, &w), nil, app.WorldFunc(func(cfg app.Config) (simthread.World, error) {
		if !(speed >= 1 && speed <= 100) {
			return nil, &app.ConfigError{Err: fmt.Errorf("-speed %v: want 1 to 100 m/s", speed)}
		}
		w = newFlyer(cfg.Seed, speed)
		return w, nil
	}))
}
