// Command minimal is a complete tickframe app: twelve cubes orbiting in a
// ring, each spinning, simulated at a fixed 120 Hz and drawn interpolated at
// the display's rate.
//
//	go run ./examples/minimal
//
// R reverses the spin; Space pauses, Esc quits, a drag orbits the camera.
// -duration and -screenshot end the run and save its last frame, for tests;
// -report writes the timing report, -record and -replay record a run and
// check a replay of it; -h lists the other flags.
package main

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/app"
	"github.com/tickframe/tickframe/simthread"
)

const (
	cubes   = 12
	radius  = 6.0             // metres: the default camera frames a ring this wide
	orbit   = 2 * math.Pi / 8 // rad/s: one lap in 8 s
	spin    = 3.0             // rad/s
	reverse = 1               // the one input kind this world understands
)

// ring is the world. Its whole state is two angles and the spin's
// direction; only Step changes them, so a run depends on its inputs alone.
type ring struct{ orbit, spin, dir float64 }

func (w *ring) Step(tick uint64, dt float64, inputs []simthread.Input) {
	for _, in := range inputs {
		if in.Kind == reverse {
			w.dir = -w.dir
		}
	}
	w.orbit += orbit * dt
	// Folded at 4π, a quaternion's period, so float32(w.spin) stays precise.
	w.spin = math.Mod(w.spin+w.dir*spin*dt, 4*math.Pi)
}

// Hash is the world's whole state, for -record and -replay.
func (w *ring) Hash() uint64 {
	h := uint64(14695981039346656037) // FNV-1a over the three values' bits
	for _, v := range [...]float64{w.orbit, w.spin, w.dir} {
		h = (h ^ math.Float64bits(v)) * 1099511628211
	}
	return h
}

func (w *ring) Snapshot(dst *simthread.Snapshot) {
	dst.Bodies = dst.Bodies[:0] // reuse the slot's memory: no allocation per tick
	for i := range cubes {
		a := w.orbit + 2*math.Pi*float64(i)/cubes
		s, c := math.Sincos(a)
		dst.Bodies = append(dst.Bodies, simthread.Body{
			Pos:   mgl32.Vec3{float32(radius * c), 1.5 + 0.5*float32(math.Sin(3*a)), float32(radius * s)},
			Scale: simthread.UniformScale(0.7),
			Rot:   mgl32.QuatRotate(float32(w.spin), mgl32.Vec3{float32(c), 2, float32(s)}.Normalize()),
			Color: hue(float64(i) / cubes),
		})
	}
}

// hue returns the colour at h (0 to 1) on a cosine colour wheel.
func hue(h float64) uint32 {
	ch := func(k float64) uint8 { return uint8(140 + 100*math.Cos(2*math.Pi*(h-k/3))) }
	return simthread.RGB(ch(0), ch(1), ch(2))
}

// input turns a press of R (not its repeats) into the reverse input.
func input(e platform.Event) (simthread.Input, bool) {
	return simthread.Input{Kind: reverse}, e.Pressed('R')
}

// main parses -duration, -screenshot, -refresh, -hz and friends (app.Flags),
// runs until the window closes, Esc or Ctrl-C, and exits 0, 1 or 2.
func main() {
	app.Main(app.Config{Title: "tickframe: minimal", Input: input}, &ring{dir: 1})
}
