// Package refworld is tickframe's reference world: a deterministic swarm of
// tumbling bodies on orbits around a column, plus one reference body whose
// path is known in closed form, so that what the renderer shows can be
// checked against ground truth.
//
// Body 0 is the reference body. It moves on a uniform circle of radius
// RefRadius at height RefHeight with angular speed RefOmega, and spins about
// a fixed axis at RefSpin: RefPosition(t) and RefRotation(t) give its exact
// pose at simulated time t. A world made with NewWithSpinner has a second
// reference at index SpinBody: the spinner, which stands at SpinPosition
// and spins about SpinAxis at SpinRate, fast enough to turn more than half
// a turn per tick at 30 Hz (SpinRotation(t) is its exact orientation), so
// that an interpolation that takes the shorter arc shows it turning
// backwards. A world made with NewWithBouncer has a third at BounceBody:
// the bouncer, a ball bouncing elastically on a floor (BouncePosition,
// BounceVelocity), whose velocity reverses within a tick at each bounce.
// The other bodies are integrated with a
// semi-implicit Euler step in float64, each pulled towards the column by a
// spring of its own stiffness, which gives stable elliptical orbits, and
// each spinning at its own angular velocity.
//
// The world is deterministic: the same seed, body count and input log give
// bit-identical states, whose Hash is the replay and verification check.
// Step and Snapshot do not allocate unless a Spawn input grows the world.
package refworld

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/simthread"
)

// The reference body's path.
const (
	RefRadius = 13.0            // metres: just outside the swarm, so it stays in sight
	RefHeight = 3.0             // metres
	RefOmega  = 2 * math.Pi / 8 // rad/s: one lap in 8 s
	RefSpin   = 1.5             // rad/s about RefAxis
	RefScale  = 0.9
)

// RefAxis is the reference body's spin axis (unit).
var RefAxis = mgl64.Vec3{1, 2, 0.5}.Normalize()

// The spinner (NewWithSpinner).
const (
	// SpinBody is the spinner's index.
	SpinBody = 1
	// SpinRate is its spin in rad/s: 20 turns a second, 240° per tick at
	// 30 Hz (more than half a turn: slerp turns it 120° backwards), 120°
	// at 60 Hz, 60° at 120 Hz. No simulation rate of verify's matrix
	// makes it a multiple of 180° per tick, where the direction would be
	// ambiguous.
	SpinRate  = 2 * math.Pi * 20
	SpinScale = 0.7
)

// SpinPosition is where the spinner stands: above the swarm, in front of
// the column, in the default camera's view.
var SpinPosition = mgl64.Vec3{0, 7, 4}

// SpinAxis is the spinner's spin axis (unit): tilted, so that the spin is
// no symmetry of the cube.
var SpinAxis = mgl64.Vec3{0.3, 1, -0.2}.Normalize()

// SpinColor is the spinner's colour: a saturated green.
const SpinColor uint32 = 0xFF20E040 // R=40 G=E0 B=20

// SpinRotation returns the spinner's exact orientation at simulated time
// t seconds.
func SpinRotation(t float64) mgl64.Quat {
	// The angle modulo a turn, so that float64 keeps its precision after
	// hours of 126 rad/s.
	return mgl64.QuatRotate(math.Mod(SpinRate*t, 2*math.Pi), SpinAxis)
}

// The bouncer (NewWithBouncer): a ball dropped from BounceDrop above the
// floor at BounceFloor, bouncing off it elastically for ever, standing at
// BounceX, BounceZ. Between bounces it falls freely (a parabola); at each
// bounce its velocity reverses at once, at instants that fall anywhere
// within a tick, so that a pair of snapshots across one carries velocities
// that do not explain its motion: the case interpolation must not draw
// past the floor.
const (
	// BounceBody is the bouncer's index.
	BounceBody = 2
	// BounceFloor is the height of the bouncer's centre at a bounce: its
	// floor, which nothing drawn of it may pass.
	BounceFloor = 0.5
	// BounceDrop is the height of its apex above BounceFloor, in metres.
	BounceDrop = 2.0
	// BounceGravity is its acceleration, m/s².
	BounceGravity = 9.81
	BounceX       = 5.0
	BounceZ       = 5.0
	BounceScale   = 0.5
)

// BouncePeriod is the time between two bounces, in seconds: 1.28 s, which
// no tick rate of verify's matrix divides, so that the bounces fall at
// every fraction of a tick.
var BouncePeriod = 2 * math.Sqrt(2*BounceDrop/BounceGravity)

// BounceSpeed is the bouncer's speed at a bounce, m/s (6.3).
var BounceSpeed = math.Sqrt(2 * BounceGravity * BounceDrop)

// BounceColor is the bouncer's colour: magenta.
const BounceColor uint32 = 0xFFC020E0

// bouncePhase returns the time since the bouncer's last apex, in
// [−BouncePeriod/2, BouncePeriod/2): negative before the apex of its
// arc, positive after (t = 0 is an apex).
func bouncePhase(t float64) float64 {
	p := math.Mod(t+BouncePeriod/2, BouncePeriod)
	if p < 0 {
		p += BouncePeriod
	}
	return p - BouncePeriod/2
}

// BouncePosition returns the bouncer's exact position at simulated time t
// seconds: at its apex at t = 0, bouncing at t = (k + ½)·BouncePeriod.
func BouncePosition(t float64) mgl64.Vec3 {
	p := bouncePhase(t)
	return mgl64.Vec3{BounceX, BounceFloor + BounceDrop - 0.5*BounceGravity*p*p, BounceZ}
}

// BounceVelocity returns the bouncer's exact velocity at simulated time
// t (at a bounce itself, the velocity after it).
func BounceVelocity(t float64) mgl64.Vec3 {
	return mgl64.Vec3{0, -BounceGravity * bouncePhase(t), 0}
}

// LastBounce returns the instant of the last bounce at or before t.
func LastBounce(t float64) float64 {
	return math.Floor((t-BouncePeriod/2)/BouncePeriod)*BouncePeriod + BouncePeriod/2
}

// RefColor is the reference body's colour: a saturated orange that no other
// body has, so tests can find it in a rendered frame.
const RefColor uint32 = 0xFF0080FF // R=FF G=80 B=00

// Input kinds understood by the world.
const (
	// Reset teleports every body back to its starting pose (and bumps its
	// epoch so the renderer does not draw a streak).
	Reset uint32 = 1
	// Kick adds an upward velocity of X m/s to every swarm body.
	Kick uint32 = 2
	// Spawn adds Code more swarm bodies (at most MaxBodies in all).
	Spawn uint32 = 3
)

// MaxBodies bounds the world's size.
const MaxBodies = 1 << 20

// World is the reference world. Create it with New.
type World struct {
	seed  uint64
	rng   *rand.Rand
	tick  uint64
	time  float64 // simulated seconds: the sum of the steps taken
	pos   []mgl64.Vec3
	vel   []mgl64.Vec3
	rot   []mgl64.Quat
	spin  []mgl64.Vec3 // angular velocity, rad/s, world frame
	k     []float64    // spring stiffness towards the column
	start []state      // starting pose, for Reset
	epoch []uint32
	out   []simthread.Body // render state, refreshed by every Step
	scale []float32
	color []uint32
	// mesh and material are what every body is drawn with (SetMesh).
	mesh     simthread.MeshID
	material simthread.MaterialID
	// swarm is the first swarm body: 1, or 2 with the spinner.
	swarm int
}

type state struct {
	pos, vel mgl64.Vec3
	rot      mgl64.Quat
}

// New returns a world of n bodies (n ≥ 1; body 0 is the reference body)
// laid out from seed.
func New(n int, seed uint64) (*World, error) {
	if n < 1 || n > MaxBodies {
		return nil, fmt.Errorf("refworld: %d bodies out of range [1, %d]", n, MaxBodies)
	}
	w := &World{seed: seed, rng: rand.New(rand.NewPCG(seed, 0x7469636b)), swarm: 1}
	w.grow(n)
	w.refresh()
	return w, nil
}

// NewWithSpinner returns the world New returns, but for body SpinBody,
// which is the spinner (n ≥ 2): the other bodies are those of New's world.
func NewWithSpinner(n int, seed uint64) (*World, error) {
	if n < 2 {
		return nil, fmt.Errorf("refworld: %d bodies, the spinner needs 2", n)
	}
	w, err := New(n, seed)
	if err != nil {
		return nil, err
	}
	i := SpinBody
	w.swarm = SpinBody + 1
	w.pos[i], w.vel[i], w.rot[i] = SpinPosition, mgl64.Vec3{}, SpinRotation(0)
	w.spin[i], w.k[i] = SpinAxis.Mul(SpinRate), 0
	w.start[i] = state{pos: w.pos[i], rot: w.rot[i]}
	w.scale[i], w.color[i] = SpinScale, SpinColor
	w.refresh()
	return w, nil
}

// NewWithBouncer returns the world NewWithSpinner returns, but for body
// BounceBody, which is the bouncer (n ≥ 3).
func NewWithBouncer(n int, seed uint64) (*World, error) {
	if n < BounceBody+1 {
		return nil, fmt.Errorf("refworld: %d bodies, the bouncer needs %d", n, BounceBody+1)
	}
	w, err := NewWithSpinner(n, seed)
	if err != nil {
		return nil, err
	}
	i := BounceBody
	w.swarm = BounceBody + 1
	w.pos[i], w.vel[i], w.rot[i] = BouncePosition(0), BounceVelocity(0), mgl64.QuatIdent()
	w.spin[i], w.k[i] = mgl64.Vec3{}, 0
	w.start[i] = state{pos: w.pos[i], vel: w.vel[i], rot: w.rot[i]}
	w.scale[i], w.color[i] = BounceScale, BounceColor
	w.refresh()
	return w, nil
}

// Len reports how many bodies the world has.
func (w *World) Len() int { return len(w.pos) }

// Tick reports the last tick stepped (0 before the first Step).
func (w *World) Tick() uint64 { return w.tick }

// Time reports the simulated time in seconds: the sum of the steps taken.
func (w *World) Time() float64 { return w.time }

// grow appends bodies until there are n.
func (w *World) grow(n int) {
	for i := len(w.pos); i < n; i++ {
		var s state
		var k float64
		var spin mgl64.Vec3
		scale := float32(0.12 + 0.18*w.rng.Float64())
		color := swarmColor(w.rng)
		if i == 0 {
			s.pos = RefPosition(0)
			s.rot = RefRotation(0)
			scale, color = RefScale, RefColor
		} else {
			// A near-circular orbit of radius r around the column at
			// height h, tilted a little, with angular speed sqrt(k).
			r := 2 + 10*math.Sqrt(w.rng.Float64())
			h := 0.8 + 4*w.rng.Float64()
			phase := 2 * math.Pi * w.rng.Float64()
			k = 0.05 + 0.6*w.rng.Float64()
			om := math.Sqrt(k)
			if w.rng.IntN(2) == 0 {
				om = -om
			}
			s.pos = mgl64.Vec3{r * math.Cos(phase), h, r * math.Sin(phase)}
			tilt := 0.3 * (w.rng.Float64() - 0.5)
			s.vel = mgl64.Vec3{-r * om * math.Sin(phase), r * om * tilt, r * om * math.Cos(phase)}
			axis := mgl64.Vec3{w.rng.NormFloat64(), w.rng.NormFloat64(), w.rng.NormFloat64()}
			if axis.Len() < 1e-9 {
				axis = mgl64.Vec3{0, 1, 0}
			}
			s.rot = mgl64.QuatRotate(2*math.Pi*w.rng.Float64(), axis.Normalize())
			spin = mgl64.Vec3{w.rng.NormFloat64(), w.rng.NormFloat64(), w.rng.NormFloat64()}.Mul(1.5)
		}
		w.pos = append(w.pos, s.pos)
		w.vel = append(w.vel, s.vel)
		w.rot = append(w.rot, s.rot)
		w.spin = append(w.spin, spin)
		w.k = append(w.k, k)
		w.start = append(w.start, s)
		w.epoch = append(w.epoch, 0)
		w.scale = append(w.scale, scale)
		w.color = append(w.color, color)
		w.out = append(w.out, simthread.Body{})
	}
}

// swarmColor picks a cool pastel: blues, teals and violets, never the
// reference body's orange.
func swarmColor(rng *rand.Rand) uint32 {
	r := 60 + rng.IntN(100)
	g := 110 + rng.IntN(110)
	b := 170 + rng.IntN(86)
	return 0xFF000000 | uint32(b)<<16 | uint32(g)<<8 | uint32(r)
}

// RefPosition returns the reference body's exact position at simulated time
// t seconds.
func RefPosition(t float64) mgl64.Vec3 {
	a := RefOmega * t
	return mgl64.Vec3{RefRadius * math.Cos(a), RefHeight, RefRadius * math.Sin(a)}
}

// RefRotation returns the reference body's exact orientation at simulated
// time t seconds.
func RefRotation(t float64) mgl64.Quat { return mgl64.QuatRotate(RefSpin*t, RefAxis) }

// RefSpeed is the reference body's speed in m/s.
const RefSpeed = RefRadius * RefOmega

// Step advances the world by one step of dt seconds and applies inputs at
// its start.
func (w *World) Step(tick uint64, dt float64, inputs []simthread.Input) {
	for _, in := range inputs {
		w.apply(in)
	}
	w.tick = tick
	w.time += dt
	// The reference body follows its closed form of the simulated time,
	// so its state is exact to the rounding of that sum (about 1e-12 s
	// after a million steps).
	w.pos[0] = RefPosition(w.time)
	w.rot[0] = RefRotation(w.time)
	if w.swarm > SpinBody {
		w.rot[SpinBody] = SpinRotation(w.time)
	}
	if w.swarm > BounceBody {
		w.pos[BounceBody], w.vel[BounceBody] = BouncePosition(w.time), BounceVelocity(w.time)
	}
	// The swarm, in plain float64 arithmetic: mathgl's value-type methods
	// made a step cost 230 ns per body here, this 35 (BenchmarkTick).
	h := 0.5 * dt
	for i := w.swarm; i < len(w.pos); i++ {
		p, v, k := &w.pos[i], &w.vel[i], w.k[i]
		// Spring towards the column's axis (x = z = 0) and towards the
		// starting height, semi-implicit Euler: velocity first.
		v[0] -= k * p[0] * dt
		v[1] -= k * (p[1] - w.start[i].pos[1]) * dt
		v[2] -= k * p[2] * dt
		p[0] += v[0] * dt
		p[1] += v[1] * dt
		p[2] += v[2] * dt
		// dq/dt = ½ (0, ω) ⊗ q, renormalised.
		q, om := &w.rot[i], &w.spin[i]
		qw, qx, qy, qz := q.W, q.V[0], q.V[1], q.V[2]
		a, b, c := om[0], om[1], om[2]
		nw := qw - h*(a*qx+b*qy+c*qz)
		nx := qx + h*(a*qw+b*qz-c*qy)
		ny := qy + h*(b*qw+c*qx-a*qz)
		nz := qz + h*(c*qw+a*qy-b*qx)
		inv := 1 / math.Sqrt(nw*nw+nx*nx+ny*ny+nz*nz)
		q.W, q.V[0], q.V[1], q.V[2] = nw*inv, nx*inv, ny*inv, nz*inv
	}
	w.refresh()
}

func (w *World) apply(in simthread.Input) {
	switch in.Kind {
	case Reset:
		// The reference bodies never jump: they keep their closed-form
		// paths and their epochs.
		for i := w.swarm; i < len(w.pos); i++ {
			w.pos[i], w.vel[i], w.rot[i] = w.start[i].pos, w.start[i].vel, w.start[i].rot
			w.epoch[i]++
		}
	case Kick:
		if math.IsNaN(in.X) || math.IsInf(in.X, 0) {
			return
		}
		dv := math.Max(-50, math.Min(50, in.X))
		for i := w.swarm; i < len(w.vel); i++ {
			w.vel[i][1] += dv
		}
	case Spawn:
		n := len(w.pos) + int(max(0, min(in.Code, MaxBodies)))
		w.grow(min(n, MaxBodies))
	}
}

// SetMesh makes every body, spawned ones too, be drawn with the renderer's
// mesh and material of those ids (see simthread.Body) from the next
// Snapshot on; the default, 0 and 0, is the default cube. It does not
// change the state: Hash ignores it. Call it before the world is handed
// to the simulation.
func (w *World) SetMesh(mesh simthread.MeshID, material simthread.MaterialID) {
	w.mesh, w.material = mesh, material
	w.refresh()
}

// RefVelocity returns the reference body's exact velocity at simulated time
// t seconds: the derivative of RefPosition.
func RefVelocity(t float64) mgl64.Vec3 {
	s, c := math.Sincos(RefOmega * t)
	return mgl64.Vec3{-RefSpeed * s, 0, RefSpeed * c}
}

// refresh converts the float64 state into the render state, with each
// body's true velocities: the reference body's from its closed form (it
// spins at RefSpin about the fixed RefAxis), the swarm's from the state the
// integrator keeps (the velocity it moved by in the last step, and the
// world-frame angular velocity it rotates by).
func (w *World) refresh() {
	f32 := func(v mgl64.Vec3) mgl32.Vec3 { return mgl32.Vec3{float32(v[0]), float32(v[1]), float32(v[2])} }
	for i := range w.out {
		p, q := w.pos[i], w.rot[i]
		vel, spin := w.vel[i], w.spin[i]
		if i == 0 {
			vel, spin = RefVelocity(w.time), RefAxis.Mul(RefSpin)
		}
		w.out[i] = simthread.Body{
			Pos:      f32(p),
			Rot:      mgl32.Quat{W: float32(q.W), V: f32(q.V)},
			Scale:    simthread.UniformScale(w.scale[i]),
			Color:    w.color[i],
			Epoch:    w.epoch[i],
			Mesh:     w.mesh,
			Material: w.material,
			Vel:      f32(vel),
			AngVel:   f32(spin),
		}
	}
}

// Snapshot copies the render state into dst.
func (w *World) Snapshot(dst *simthread.Snapshot) {
	dst.Bodies = append(dst.Bodies[:0], w.out...)
}

// Hash returns an FNV-1a hash of the whole state: tick, and every body's
// position, velocity, orientation and epoch, bit for bit.
func (w *World) Hash() uint64 {
	h := fnv.New64a()
	var b [8]byte
	put := func(f float64) {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(f))
		h.Write(b[:])
	}
	binary.LittleEndian.PutUint64(b[:], w.tick)
	h.Write(b[:])
	put(w.time)
	for i := range w.pos {
		for _, f := range w.pos[i] {
			put(f)
		}
		for _, f := range w.vel[i] {
			put(f)
		}
		put(w.rot[i].W)
		for _, f := range w.rot[i].V {
			put(f)
		}
		binary.LittleEndian.PutUint64(b[:], uint64(w.epoch[i]))
		h.Write(b[:])
	}
	return h.Sum64()
}
