// Command bounce is the lessons' ball under gravity, many times over:
// balls at a fixed 1/120 s step (semi-implicit Euler, restitution 0.7) in
// a closed box and off each other, each a sphere with a material of its own
// registered by the world when it spawns it; every second a bullet at
// 600 m/s at a thin wall, stopped by a swept test (-discrete: it tunnels,
// counted). B drops ten balls, R resets, Space pauses, Esc quits.
//
//	go run ./examples/bounce [-discrete] [-motion hermite]
package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/examples/bounce/internal/collide"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/app"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// The box: x ∈ [−halfX, halfX], y ∈ [0, height], z ∈ [−halfZ, halfZ],
// split by a wall wallHalf thick on either side of x = wallX.
const (
	halfX, height, halfZ = 6.0, 5.0, 3.0
	wallX, wallHalf      = 2.0, 0.05
	radius, balls        = 0.2, 60
	gravity              = 9.81 // m/s²
	restitution          = 0.7  // the lessons' bounce: v = −0.7 v
	bulletSpeed          = 600.0
	fireEvery            = 120  // ticks: a second at 120 Hz
	drop, reset          = 1, 2 // input kinds: B, R
)

type ball struct {
	pos, vel mgl64.Vec3
	p0       mgl64.Vec3 // pos at the start of the step
	epoch    uint32     // new at every jump (a reset, a shot)
	mat      simthread.MaterialID
	colour   mgl32.Vec4
}

// box is the world. Ball 0 is the bullet.
type box struct {
	balls     []ball
	rng       *rand.Rand
	discrete  bool // overlap tests only: a fast ball can cross the thin wall
	bullet    bool // ball 0 is fired at the thin wall every second
	reg       *renderer.Registry
	sphere    simthread.MeshID
	resets    int
	jumps     uint32 // epochs handed out
	tunnelled int    // crossings of the thin wall
	outside   int    // balls published outside the box
}

func newBox(n int, seed uint64, discrete bool) *box {
	w := &box{rng: rand.New(rand.NewPCG(seed, 1)), discrete: discrete, bullet: true, balls: make([]ball, n+1)}
	for i := range w.balls {
		w.place(&w.balls[i])
		w.balls[i].colour = hue(w.rng.Float64())
	}
	w.fire()
	return w
}

// place puts a ball at a random place in the left part of the box.
func (w *box) place(b *ball) {
	r := w.rng.Float64
	b.pos = mgl64.Vec3{-halfX + radius + r()*(wallX-wallHalf-2*radius+halfX), 1 + r()*(height-1-radius), (2*r() - 1) * (halfZ - radius)}
	b.vel = mgl64.Vec3{(2*r() - 1) * 3, 0, (2*r() - 1) * 3}
	w.jumps++
	b.epoch = w.jumps // a jump: drawn at once, not streaked from where it was
}

// fire puts the bullet at the left wall, flying at the thin wall.
func (w *box) fire() {
	b := &w.balls[0]
	b.pos, b.vel, b.colour = mgl64.Vec3{-halfX + radius + 0.3, 1.2, 0}, mgl64.Vec3{bulletSpeed, 0, 0}, mgl32.Vec4{1, 0.35, 0.05, 1}
	w.jumps++
	b.epoch = w.jumps
}

func (w *box) Step(tick uint64, dt float64, inputs []simthread.Input) {
	for _, in := range inputs {
		switch in.Kind {
		case drop:
			for range 10 {
				w.balls = append(w.balls, ball{colour: hue(w.rng.Float64())})
				w.place(&w.balls[len(w.balls)-1])
			}
		case reset: // the first balls, each with its material, at new places
			w.balls, w.resets = w.balls[:min(len(w.balls), balls+1)], w.resets+1
			for i := range w.balls {
				w.place(&w.balls[i])
			}
			w.fire()
		}
	}
	if w.bullet && tick%fireEvery == 0 {
		w.fire()
	}
	for i := range w.balls {
		b := &w.balls[i]
		b.p0, b.vel[1] = b.pos, b.vel[1]-gravity*dt // semi-implicit Euler: the velocity first
		b.pos = b.pos.Add(b.vel.Mul(dt))
	}
	w.collide()
	// The thin wall meets the box's walls and floor: swept as a slab, as nothing passes its ends.
	thin := collide.Box{Min: mgl64.Vec3{wallX - wallHalf, -1e3, -1e3}, Max: mgl64.Vec3{wallX + wallHalf, 1e3, 1e3}}
	for i := range w.balls {
		b, x0, left, right := &w.balls[i], w.balls[i].p0[0], wallX-wallHalf-radius, wallX+wallHalf+radius
		if x := b.pos[0]; w.discrete && x > left && x < right { // overlapping: pushed back out
			b.pos[0], b.vel[0] = left, -restitution*math.Abs(b.vel[0])
			if x0 > wallX {
				b.pos[0], b.vel[0] = right, -b.vel[0]
			}
		} else if !w.discrete { // swept: did it reach the wall within the step?
			if hit, ok := collide.SweepSphereBox(collide.Sphere{C: b.p0, R: radius}, b.pos.Sub(b.p0), thin); ok {
				bounce(b, hit.Normal, b.p0.Add(b.pos.Sub(b.p0).Mul(hit.T))) // about the centre at contact
			}
		}
		walls(b)
		if (x0 < wallX) != (b.pos[0] < wallX) {
			w.tunnelled++
		}
		// A material each, registered from here (the simulation goroutine)
		// through the renderer's queue, drawn from the snapshot that has it.
		if b.mat == 0 && w.reg != nil {
			m := renderer.DefaultMaterial()
			m.BaseColor, m.Roughness, m.Metallic = b.colour, 0.25+0.25*float32(i%3), float32(i%2)*0.6
			b.mat, _ = w.reg.AddMaterial(m) // 0 (the default) once every id is taken
		}
	}
}

// bounce bounces a ball that passed the plane through at with unit normal
// n (facing it) as a bounce within the step would: velocity and overshoot
// along n reflected, times the restitution. (The lessons put it on the
// face: the snapshots then read as a hard deceleration, which Hermite
// would follow past the face.)
func bounce(b *ball, n, at mgl64.Vec3) {
	b.pos = b.pos.Sub(n.Mul((1 + restitution) * b.pos.Sub(at).Dot(n)))
	b.vel = collide.Reflect(b.vel, n, restitution)
}

// walls keeps a ball in the box, bouncing it off each face it passed.
func walls(b *ball) {
	lo := mgl64.Vec3{-halfX + radius, radius, -halfZ + radius}
	hi := mgl64.Vec3{halfX - radius, height - radius, halfZ - radius}
	for k := range 3 {
		var n mgl64.Vec3 // the face's normal, into the box
		if n[k] = 1; b.pos[k] < lo[k] && b.vel[k] < 0 {
			bounce(b, n, lo)
		} else if b.pos[k] > hi[k] && b.vel[k] > 0 {
			bounce(b, n.Mul(-1), hi)
		}
		b.pos[k] = max(lo[k], min(hi[k], b.pos[k])) // pushed there by a neighbour
	}
}

// collide resolves overlapping pairs: equal masses, an impulse along the
// line of centres with the restitution, each pushed out by half the
// overlap.
func (w *box) collide() {
	for i := range w.balls {
		for j := i + 1; j < len(w.balls); j++ {
			a, b := &w.balls[i], &w.balls[j]
			d := b.pos.Sub(a.pos)
			dist := d.Len()
			if dist >= 2*radius || dist == 0 {
				continue // apart (or one upon the other: no normal)
			}
			n := d.Mul(1 / dist)
			if vn := b.vel.Sub(a.vel).Dot(n); vn < 0 {
				imp := n.Mul(-(1 + restitution) * vn / 2)
				a.vel, b.vel = a.vel.Sub(imp), b.vel.Add(imp)
			}
			push := n.Mul((2*radius - dist) / 2)
			a.pos, b.pos = a.pos.Sub(push), b.pos.Add(push)
		}
	}
}

func (w *box) Snapshot(dst *simthread.Snapshot) {
	f32 := func(v mgl64.Vec3) mgl32.Vec3 { return mgl32.Vec3{float32(v[0]), float32(v[1]), float32(v[2])} }
	dst.Bodies = dst.Bodies[:0]
	for _, b := range w.balls {
		if p := b.pos; p[0] < -halfX || p[0] > halfX || p[1] < 0 || p[1] > height || p[2] < -halfZ || p[2] > halfZ {
			w.outside++
		}
		dst.Bodies = append(dst.Bodies, simthread.Body{Pos: f32(b.pos), Vel: f32(b.vel), Scale: simthread.UniformScale(radius),
			Color: simthread.White, Epoch: b.epoch, Mesh: w.sphere, Material: b.mat})
	}
}

// hue returns a saturated linear colour at h (0 to 1) round the wheel.
func hue(h float64) mgl32.Vec4 {
	ch := func(k float64) float32 { return float32(math.Pow(0.5+0.5*math.Cos(2*math.Pi*(h-k/3)), 2)) }
	return mgl32.Vec4{ch(0), ch(1), ch(2), 1}
}

// scene registers the sphere, the walls (static bodies: never
// republished) and the floor, and hands the registry to the world before
// its simulation starts.
func (w *box) scene(r *renderer.Renderer) error {
	reg := r.Registry()
	var err error
	if w.sphere, err = reg.AddMesh(renderer.SphereMesh(24, 12)); err != nil {
		return err
	}
	wall := renderer.DefaultMaterial()
	wall.BaseColor, wall.Roughness = mgl32.Vec4{0.35, 0.4, 0.5, 1}, 0.9
	wm, err := reg.AddMaterial(wall)
	slab := func(x, z, hx, hz float32) simthread.Body {
		return simthread.Body{Pos: mgl32.Vec3{x, height / 2, z}, Scale: mgl32.Vec3{hx, height / 2, hz}, Color: simthread.White, Material: wm}
	}
	reg.AddStatic(slab(0, -halfZ-0.05, halfX, 0.05), slab(-halfX-0.05, 0, 0.05, halfZ), slab(halfX+0.05, 0, 0.05, halfZ),
		slab(wallX, 0, wallHalf, halfZ)) // back, left, right, the thin wall
	w.reg = reg
	return errors.Join(err, r.SetGroundRect(mgl32.Vec2{-halfX, -halfZ}, mgl32.Vec2{halfX, halfZ}))
}

// input turns B and R presses into the world's inputs.
func input(e platform.Event) (simthread.Input, bool) {
	if e.Pressed('B') {
		return simthread.Input{Kind: drop}, true
	}
	return simthread.Input{Kind: reset}, e.Pressed('R')
}

func main() {
	cam := func(c *renderer.Camera) { c.Target, c.Yaw, c.Pitch, c.Distance = mgl32.Vec3{0, 1.8, 0}, 0, 0.3, 12 }
	w := newBox(balls, 1, false)
	app.Main(app.Config{Title: "tickframe: bounce", Input: input, Camera: cam, Scene: w.scene, Look: app.Look{HideHUD: true},
		AppFlags: func(fs *flag.FlagSet) { // parsed before Run starts the world
			fs.BoolVar(&w.discrete, "discrete", false, "overlap tests only: fast balls tunnel through the thin wall")
		},
		Finish: func(*app.App, *app.Report, error) error { // the simulation has stopped: the world is ours again
			fmt.Printf("bounce: %d balls after %d resets, %d published outside the box, %d went through the thin wall\n",
				len(w.balls), w.resets, w.outside, w.tunnelled)
			return nil
		}}, w)
}
