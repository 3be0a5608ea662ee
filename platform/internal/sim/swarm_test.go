package sim_test

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/simthread"
)

// The swarm's inputs.
const (
	reset uint32 = 1 // every body back to its starting place and speed
	kick  uint32 = 2 // every body gains X m/s upward
)

// swarm is the tests' world: n bodies on seeded straight paths, bounced
// inside a 20 m box, kicked and reset by input. Its whole state is the
// bodies' places and speeds and the tick; Step and Snapshot allocate
// nothing.
type swarm struct {
	tick          uint64
	pos, vel      []mgl32.Vec3
	start, startV []mgl32.Vec3
}

// newSwarm returns a swarm of n bodies placed by seed.
func newSwarm(n int, seed uint64) *swarm {
	w := &swarm{pos: make([]mgl32.Vec3, n), vel: make([]mgl32.Vec3, n)}
	x := seed*0x9E3779B97F4A7C15 + 1
	rnd := func() float32 { // xorshift64*, in [-1, 1)
		x ^= x >> 12
		x ^= x << 25
		x ^= x >> 27
		return float32((x*0x2545F4914F6CDD1D)>>40)/(1<<23) - 1
	}
	for i := range w.pos {
		w.pos[i] = mgl32.Vec3{10 * rnd(), 10 * rnd(), 10 * rnd()}
		w.vel[i] = mgl32.Vec3{rnd(), rnd(), rnd()}
	}
	w.start, w.startV = append([]mgl32.Vec3(nil), w.pos...), append([]mgl32.Vec3(nil), w.vel...)
	return w
}

func (w *swarm) Step(tick uint64, dt float64, inputs []simthread.Input) {
	w.tick = tick
	for _, in := range inputs {
		switch in.Kind {
		case reset:
			copy(w.pos, w.start)
			copy(w.vel, w.startV)
		case kick:
			for i := range w.vel {
				w.vel[i][1] += float32(in.X)
			}
		}
	}
	for i := range w.pos {
		p := w.pos[i].Add(w.vel[i].Mul(float32(dt)))
		for k := range 3 {
			if p[k] < -10 || p[k] > 10 {
				w.vel[i][k] = -w.vel[i][k]
				p[k] = max(-10, min(10, p[k]))
			}
		}
		w.pos[i] = p
	}
}

func (w *swarm) Snapshot(dst *simthread.Snapshot) {
	dst.Bodies = dst.Bodies[:0]
	for i, p := range w.pos {
		b := simthread.NewBody(p)
		b.Vel = w.vel[i]
		dst.Bodies = append(dst.Bodies, b)
	}
}

// Tick is the last tick stepped.
func (w *swarm) Tick() uint64 { return w.tick }

// Hash is FNV-1a over the tick and every body's place and speed.
func (w *swarm) Hash() uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) { h = (h ^ v) * 1099511628211 }
	mix(w.tick)
	for i := range w.pos {
		for k := range 3 {
			mix(uint64(math.Float32bits(w.pos[i][k])))
			mix(uint64(math.Float32bits(w.vel[i][k])))
		}
	}
	return h
}
