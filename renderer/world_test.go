package renderer

import (
	"math"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/simthread"
)

// testWorld is the renderer tests' own world: every body's pose and
// velocities are a closed form of the simulated time, so that a test can
// step it at any rate and know the truth between ticks.
//
// Body 0, the reference body, moves on a uniform circle of radius
// refRadius at height refHeight (refPosition, refVelocity) and spins about
// refAxis at refSpin; it alone has the colour refColor, which tests find
// on screen. With a spinner, body spinBody stands at spinPosition and
// spins about spinAxis at spinRate: 240° a tick at 30 Hz, so that the
// shorter arc (slerp) turns it backwards. The other bodies orbit the
// column (the y axis) on circles of their own, tumbling about axes of
// their own, laid out from the seed.
type testWorld struct {
	orbits []orbit
	tick   uint64
	time   float64 // simulated seconds: the sum of the steps taken
}

// orbit is one body's closed form: a circle about the y axis, a spin
// about a fixed world axis from rot0.
type orbit struct {
	radius, height, phase, omega float64 // omega in rad/s
	axis                         mgl64.Vec3
	spin                         float64 // rad/s about axis
	rot0                         mgl64.Quat
	scale                        float32
	color                        uint32
}

// The reference body's path.
const (
	refRadius = 13.0            // metres: outside the swarm, so it stays in sight
	refHeight = 3.0             // metres
	refOmega  = 2 * math.Pi / 8 // rad/s: one lap in 8 s
	refSpeed  = refRadius * refOmega
	refSpin   = 1.5 // rad/s about refAxis
	// refColor is the reference body's orange (R=FF G=80 B=00), which no
	// other body has.
	refColor uint32 = 0xFF0080FF
)

// refAxis is the reference body's spin axis (unit).
var refAxis = mgl64.Vec3{1, 2, 0.5}.Normalize()

// The spinner.
const (
	spinBody = 1
	// spinRate is 20 turns a second: 240° a tick at 30 Hz, never a
	// multiple of 180° a tick at the rates the tests use.
	spinRate = 2 * math.Pi * 20
)

var (
	spinPosition = mgl64.Vec3{0, 7, 4}
	// spinAxis is tilted, so that the spin is no symmetry of the cube.
	spinAxis = mgl64.Vec3{0.3, 1, -0.2}.Normalize()
)

// refPosition is the reference body's position at simulated time t.
func refPosition(t float64) mgl64.Vec3 {
	s, c := math.Sincos(refOmega * t)
	return mgl64.Vec3{refRadius * c, refHeight, refRadius * s}
}

// refVelocity is refPosition's derivative.
func refVelocity(t float64) mgl64.Vec3 {
	s, c := math.Sincos(refOmega * t)
	return mgl64.Vec3{-refSpeed * s, 0, refSpeed * c}
}

// spinRotation is the spinner's orientation at simulated time t (the
// angle modulo a turn, which keeps float64's precision).
func spinRotation(t float64) mgl64.Quat {
	return mgl64.QuatRotate(math.Mod(spinRate*t, 2*math.Pi), spinAxis)
}

// newTestWorld returns a world of n bodies (at least 1, at least 2 with
// the spinner) laid out from seed.
func newTestWorld(n int, seed uint64, spinner bool) *testWorld {
	rng := rand.New(rand.NewPCG(seed, 0x7465737477))
	w := &testWorld{orbits: make([]orbit, max(n, 1))}
	for i := range w.orbits {
		o := &w.orbits[i]
		switch {
		case i == 0:
			*o = orbit{radius: refRadius, height: refHeight, omega: refOmega, axis: refAxis, spin: refSpin,
				rot0: mgl64.QuatIdent(), scale: 0.9, color: refColor}
		case i == spinBody && spinner:
			*o = orbit{height: spinPosition[1], axis: spinAxis, spin: spinRate, rot0: mgl64.QuatIdent(),
				scale: 0.7, color: 0xFF20E040}
		default:
			axis := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			if axis.Len() < 1e-9 {
				axis = mgl64.Vec3{0, 1, 0}
			}
			om := 0.2 + 0.6*rng.Float64()
			if rng.IntN(2) == 0 {
				om = -om
			}
			*o = orbit{
				radius: 2 + 10*math.Sqrt(rng.Float64()), height: 0.8 + 4*rng.Float64(),
				phase: 2 * math.Pi * rng.Float64(), omega: om,
				axis: axis.Normalize(), spin: 1.5 * rng.NormFloat64(),
				rot0:  mgl64.QuatRotate(2*math.Pi*rng.Float64(), mgl64.Vec3{rng.NormFloat64(), 1, rng.NormFloat64()}.Normalize()),
				scale: float32(0.12 + 0.18*rng.Float64()),
				// Cool pastels, never the reference body's orange.
				color: 0xFF000000 | uint32(170+rng.IntN(86))<<16 | uint32(110+rng.IntN(110))<<8 | uint32(60+rng.IntN(100)),
			}
		}
	}
	return w
}

// Step advances the world by dt seconds (simthread.World).
func (w *testWorld) Step(tick uint64, dt float64, _ []simthread.Input) {
	w.tick = tick
	w.time += dt
}

// Snapshot writes every body's pose and velocities at the world's time
// into dst (simthread.World).
func (w *testWorld) Snapshot(dst *simthread.Snapshot) {
	dst.Bodies = dst.Bodies[:0]
	t := w.time
	f32 := func(v mgl64.Vec3) mgl32.Vec3 { return mgl32.Vec3{float32(v[0]), float32(v[1]), float32(v[2])} }
	for i := range w.orbits {
		o := &w.orbits[i]
		a := o.phase + o.omega*t
		s, c := math.Sincos(a)
		pos := mgl64.Vec3{o.radius * c, o.height, o.radius * s}
		vel := mgl64.Vec3{-o.radius * o.omega * s, 0, o.radius * o.omega * c}
		if o.radius == 0 {
			pos, vel = spinPosition, mgl64.Vec3{}
		}
		rot := mgl64.QuatRotate(math.Mod(o.spin*t, 2*math.Pi), o.axis).Mul(o.rot0)
		dst.Bodies = append(dst.Bodies, simthread.Body{
			Pos: f32(pos), Vel: f32(vel),
			Rot:    mgl32.Quat{W: float32(rot.W), V: f32(rot.V)},
			AngVel: f32(o.axis.Mul(o.spin)),
			Scale:  simthread.UniformScale(o.scale), Color: o.color,
		})
	}
}
