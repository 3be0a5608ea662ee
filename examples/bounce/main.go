// Command bounce is the lessons' ball under gravity, many times over:
// balls bouncing in a closed box at a fixed 1/120 s step (semi-implicit
// Euler, restitution 0.7), colliding with each other, each a sphere with a
// material of its own that the world registers when it spawns it. Every
// second a bullet is fired at 600 m/s at a thin wall that splits the box;
// a swept test stops it, and -discrete shows it tunnelling, counted.
//
//	go run ./examples/bounce [-discrete] [-motion hermite] [-balls 60]
//
// B drops ten more balls, R resets (new epochs: no streaks), Space pauses,
// Esc quits. At the end it prints how many balls left the box (none) and
// how many times one went through the thin wall.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/app"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
)

// The box: x ∈ [−halfX, halfX], y ∈ [0, height], z ∈ [−halfZ, halfZ],
// split by a wall wallHalf thick on either side of x = wallX.
const (
	halfX, height, halfZ = 6.0, 5.0, 3.0
	wallX, wallHalf      = 2.0, 0.05
	radius               = 0.2
	gravity              = 9.81 // m/s²
	restitution          = 0.7  // the lessons' bounce: v = −0.7 v
	bulletSpeed          = 600.0
	fireEvery            = 120 // ticks: a second at 120 Hz
)

// Input kinds.
const (
	drop  = 1 // B: ten more balls
	reset = 2 // R: back to the start
)

type ball struct {
	pos, vel mgl64.Vec3
	epoch    uint32 // the resets before it spawned (the bullet: its shots)
	mat      renderer.MaterialID
	colour   mgl32.Vec4
}

// box is the world. Ball 0 is the bullet.
type box struct {
	balls     []ball
	start     int // balls at the start, bullet included
	rng       *rand.Rand
	discrete  bool // overlap tests only: a fast ball can cross the thin wall
	bullet    bool // ball 0 is fired at the thin wall every second
	reg       *renderer.Registry
	sphere    renderer.MeshID
	tick      uint64
	resets    uint32
	was       []float64 // the x each ball started the step at
	tunnelled int       // crossings of the thin wall
	outside   int       // balls published outside the box
}

func newBox(n int, seed uint64, discrete bool) *box {
	w := &box{rng: rand.New(rand.NewPCG(seed, 1)), discrete: discrete, bullet: true, start: n + 1}
	w.balls = append(w.balls, ball{})
	w.spawn(n)
	w.fire()
	return w
}

// spawn adds n balls at random places near the top of the left part.
func (w *box) spawn(n int) {
	for range n {
		r := w.rng.Float64
		w.balls = append(w.balls, ball{
			pos:    mgl64.Vec3{-halfX + radius + r()*(wallX-wallHalf-2*radius+halfX), 1 + r()*(height-1-radius), (2*r() - 1) * (halfZ - radius)},
			vel:    mgl64.Vec3{(2*r() - 1) * 3, 0, (2*r() - 1) * 3},
			colour: hue(r()),
			epoch:  w.resets,
		})
	}
}

// fire puts the bullet at the left wall, flying at the thin wall.
func (w *box) fire() {
	b := &w.balls[0]
	b.pos, b.vel = mgl64.Vec3{-halfX + radius + 0.3, 1.2, 0}, mgl64.Vec3{bulletSpeed, 0, 0}
	b.epoch++ // a jump: drawn at once, not streaked
	b.colour = mgl32.Vec4{1, 0.35, 0.05, 1}
}

func (w *box) Step(tick uint64, dt float64, inputs []simthread.Input) {
	w.tick = tick
	for _, in := range inputs {
		switch in.Kind {
		case drop:
			w.spawn(10)
		case reset: // new balls, new epochs; each index keeps its material
			old := append([]ball(nil), w.balls...)
			w.rng, w.balls = rand.New(rand.NewPCG(tick, 1)), w.balls[:1]
			w.resets++
			w.spawn(w.start - len(w.balls))
			for i := 1; i < len(w.balls) && i < len(old); i++ {
				w.balls[i].mat, w.balls[i].colour = old[i].mat, old[i].colour
			}
			w.fire()
		}
	}
	if w.bullet && tick%fireEvery == 0 {
		w.fire()
	}
	w.was = slices.Grow(w.was[:0], len(w.balls))[:len(w.balls)]
	was := w.was
	for i := range w.balls {
		b := &w.balls[i]
		was[i] = b.pos[0]
		b.vel[1] -= gravity * dt // semi-implicit Euler: the velocity first
		b.pos = b.pos.Add(b.vel.Mul(dt))
	}
	w.collide()
	for i := range w.balls {
		b := &w.balls[i]
		w.thinWall(b, was[i])
		w.walls(b)
		if (was[i] < wallX) != (b.pos[0] < wallX) {
			w.tunnelled++
		}
	}
	// Materials of balls new since the last step: one each, registered
	// from here (the simulation goroutine) through the renderer's queue.
	for i := range w.balls {
		if b := &w.balls[i]; b.mat == 0 && w.reg != nil {
			m := renderer.DefaultMaterial()
			m.BaseColor, m.Roughness, m.Metallic = b.colour, 0.25+0.5*float32(i%3)/2, float32(i%2)*0.6
			b.mat, _ = w.reg.AddMaterial(m) // 0 (the default) once every id is taken
		}
	}
}

// thinWall stops a ball at the thin wall. Swept: if the ball's path
// from x0 over the step reached the wall's face, it bounces there (see
// bounceOff). Discrete (-discrete): only a ball that ends the step
// overlapping the wall is pushed back onto its face, so one that crossed
// it within one step goes through.
func (w *box) thinWall(b *ball, x0 float64) {
	left, right := wallX-wallHalf-radius, wallX+wallHalf+radius
	x := b.pos[0]
	switch {
	case w.discrete && x > left && x < right:
		if x0 < wallX {
			b.pos[0], b.vel[0] = left, -restitution*math.Abs(b.vel[0])
		} else {
			b.pos[0], b.vel[0] = right, restitution*math.Abs(b.vel[0])
		}
	case !w.discrete && x0 <= left && x > left:
		bounceOff(b, 0, left)
	case !w.discrete && x0 >= right && x < right:
		bounceOff(b, 0, right)
	}
}

// bounceOff bounces a ball that passed the face at c along axis k: its
// velocity along k reversed times the restitution, and its position
// reflected back by what it travelled past the face, times the
// restitution, where a bounce within the step leaves it. (The lessons put
// it on the face: that loses the rest of the step, and the snapshots then
// read as a hard deceleration, which Hermite would follow past the face.)
func bounceOff(b *ball, k int, c float64) {
	b.pos[k] = c - (b.pos[k]-c)*restitution
	b.vel[k] = -restitution * b.vel[k]
}

// walls keeps a ball in the box, bouncing it off each face it passed.
func (w *box) walls(b *ball) {
	lo := mgl64.Vec3{-halfX + radius, radius, -halfZ + radius}
	hi := mgl64.Vec3{halfX - radius, height - radius, halfZ - radius}
	for k := range 3 {
		if b.pos[k] < lo[k] && b.vel[k] < 0 {
			bounceOff(b, k, lo[k])
		} else if b.pos[k] > hi[k] && b.vel[k] > 0 {
			bounceOff(b, k, hi[k])
		}
		b.pos[k] = max(lo[k], min(hi[k], b.pos[k])) // pushed there by a neighbour
	}
}

// collide resolves overlapping pairs: equal masses, an impulse along the
// line of centres with the restitution, and each pushed out by half the
// overlap.
func (w *box) collide() {
	for i := range w.balls {
		for j := i + 1; j < len(w.balls); j++ {
			a, b := &w.balls[i], &w.balls[j]
			d := b.pos.Sub(a.pos)
			dist := d.Len()
			if dist >= 2*radius || dist == 0 {
				continue
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
	dst.Bodies = dst.Bodies[:0]
	for i := range w.balls {
		b := &w.balls[i]
		if p := b.pos; p[0] < -halfX || p[0] > halfX || p[1] < 0 || p[1] > height || p[2] < -halfZ || p[2] > halfZ {
			w.outside++
		}
		dst.Bodies = append(dst.Bodies, simthread.Body{
			Pos: f32(b.pos), Vel: f32(b.vel), Scale: simthread.UniformScale(radius), Color: simthread.White,
			Epoch: b.epoch, Mesh: uint16(w.sphere), Material: uint16(b.mat),
		})
	}
}

// hue returns a saturated linear colour at h (0 to 1) round the colour
// wheel.
func hue(h float64) mgl32.Vec4 {
	ch := func(k float64) float32 { return float32(math.Pow(0.5+0.5*math.Cos(2*math.Pi*(h-k/3)), 2)) }
	return mgl32.Vec4{ch(0), ch(1), ch(2), 1}
}

func f32(v mgl64.Vec3) mgl32.Vec3 { return mgl32.Vec3{float32(v[0]), float32(v[1]), float32(v[2])} }

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
	if err != nil {
		return err
	}
	slab := func(centre, half mgl32.Vec3) simthread.Body {
		return simthread.Body{Pos: centre, Scale: half, Color: simthread.White, Material: uint16(wm)}
	}
	reg.AddStatic(
		slab(mgl32.Vec3{0, height / 2, -halfZ - 0.05}, mgl32.Vec3{halfX, height / 2, 0.05}), // back
		slab(mgl32.Vec3{-halfX - 0.05, height / 2, 0}, mgl32.Vec3{0.05, height / 2, halfZ}), // left
		slab(mgl32.Vec3{halfX + 0.05, height / 2, 0}, mgl32.Vec3{0.05, height / 2, halfZ}),  // right
		slab(mgl32.Vec3{wallX, height / 2, 0}, mgl32.Vec3{wallHalf, height / 2, halfZ}),     // the thin wall
	)
	w.reg = reg
	return r.SetGroundRect(mgl32.Vec2{-halfX, -halfZ}, mgl32.Vec2{halfX, halfZ})
}

// input turns B and R presses into the world's inputs.
func input(e platform.Event) (simthread.Input, bool) {
	switch {
	case e.Pressed(platform.KeyB):
		return simthread.Input{Kind: drop}, true
	case e.Pressed(platform.KeyR):
		return simthread.Input{Kind: reset}, true
	}
	return simthread.Input{}, false
}

// summary is what the run prints at its end.
func (w *box) summary() string {
	return fmt.Sprintf("bounce: %d balls after %d ticks and %d resets, %d published outside the box, %d went through the thin wall",
		len(w.balls), w.tick, w.resets, w.outside, w.tunnelled)
}

func main() {
	cam := renderer.DefaultCamera()
	cam.Target, cam.Yaw, cam.Pitch, cam.Distance = mgl32.Vec3{0, 1.8, 0}, 0, 0.3, 12
	cfg := app.Config{Title: "tickframe: bounce", Input: input, Camera: &cam, HideHUD: true}
	fs := flag.NewFlagSet("bounce", flag.ContinueOnError)
	app.Flags(fs, &cfg)
	discrete := fs.Bool("discrete", false, "overlap tests only: fast balls tunnel through the thin wall")
	balls := fs.Int("balls", 60, "balls at the start, besides the bullet (0 to 2000)")
	if fs.Lookup("motion") == nil {
		fs.Func("motion", "how balls move between ticks: lerp, hermite or extrapolate", func(s string) (err error) {
			cfg.Motion, err = interp.ParseMotion(s)
			return err
		})
	}
	err := fs.Parse(os.Args[1:])
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case err == nil && (*balls < 0 || *balls > 2000):
		err = fmt.Errorf("-balls %d: want 0 to 2000", *balls)
	case err == nil && fs.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case err == nil:
		err = cfg.Validate()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bounce:", err)
		os.Exit(2)
	}
	w := newBox(*balls, 1, *discrete)
	cfg.Scene = w.scene
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a, err := app.New(cfg, w)
	if err == nil {
		err = a.Run(ctx)
		a.Close()
	}
	fmt.Println(w.summary()) // the simulation has stopped: the world is the main goroutine's again
	if err != nil {
		fmt.Fprintln(os.Stderr, "bounce:", err)
		os.Exit(1)
	}
}
