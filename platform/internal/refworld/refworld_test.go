package refworld_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/simthread"
)

func run(t testing.TB, n int, seed uint64, ticks int, inputs map[uint64][]simthread.Input) *refworld.World {
	t.Helper()
	w, err := refworld.New(n, seed)
	if err != nil {
		t.Fatal(err)
	}
	for k := uint64(1); k <= uint64(ticks); k++ {
		w.Step(k, 1.0/120, inputs[k])
	}
	return w
}

func TestDeterministic(t *testing.T) {
	a := run(t, 500, 7, 600, nil)
	b := run(t, 500, 7, 600, nil)
	if a.Hash() != b.Hash() {
		t.Fatal("same seed, same steps, different hashes")
	}
	if c := run(t, 500, 8, 600, nil); c.Hash() == a.Hash() {
		t.Fatal("different seeds hash equal")
	}
	if c := run(t, 500, 7, 599, nil); c.Hash() == a.Hash() {
		t.Fatal("different tick counts hash equal")
	}
	kick := map[uint64][]simthread.Input{300: {{Kind: refworld.Kick, X: 3}}}
	if c := run(t, 500, 7, 600, kick); c.Hash() == a.Hash() {
		t.Fatal("an input did not change the hash")
	}
}

func TestNewRejectsBadSizes(t *testing.T) {
	for _, n := range []int{0, -1, refworld.MaxBodies + 1} {
		if _, err := refworld.New(n, 1); err == nil {
			t.Errorf("New(%d) accepted", n)
		}
	}
}

func TestReferenceBodyFollowsItsClosedForm(t *testing.T) {
	w := run(t, 3, 1, 1234, nil)
	var s simthread.Snapshot
	w.Snapshot(&s)
	tm := 1234.0 / 120
	want := refworld.RefPosition(tm)
	got := s.Bodies[0].Pos
	for i := range want {
		if math.Abs(float64(got[i])-want[i]) > 1e-5 {
			t.Fatalf("reference body at %v, want %v", got, want)
		}
	}
	q := refworld.RefRotation(tm)
	if d := math.Abs(float64(s.Bodies[0].Rot.W)*q.W + float64(s.Bodies[0].Rot.V[0])*q.V[0] +
		float64(s.Bodies[0].Rot.V[1])*q.V[1] + float64(s.Bodies[0].Rot.V[2])*q.V[2]); d < 1-1e-6 {
		t.Fatalf("reference orientation off: |dot| = %v", d)
	}
	if s.Bodies[0].Color != refworld.RefColor {
		t.Fatal("reference body lost its colour")
	}
	for _, b := range s.Bodies[1:] {
		if b.Color == refworld.RefColor {
			t.Fatal("a swarm body has the reference colour")
		}
	}
}

func TestSwarmStaysBoundedAndNormalised(t *testing.T) {
	w := run(t, 200, 3, 120*60, nil)
	var s simthread.Snapshot
	w.Snapshot(&s)
	for i, b := range s.Bodies {
		if b.Pos.Len() > 40 || math.IsNaN(float64(b.Pos[0])) {
			t.Fatalf("body %d escaped to %v", i, b.Pos)
		}
		if l := b.Rot.Len(); math.Abs(float64(l)-1) > 1e-4 {
			t.Fatalf("body %d orientation length %v", i, l)
		}
	}
}

func TestResetTeleportsAndBumpsEpoch(t *testing.T) {
	w, _ := refworld.New(10, 5)
	var start, moved, reset simthread.Snapshot
	w.Snapshot(&start)
	for k := uint64(1); k <= 240; k++ {
		w.Step(k, 1.0/120, nil)
	}
	w.Snapshot(&moved)
	w.Step(241, 1.0/120, []simthread.Input{{Kind: refworld.Reset}})
	w.Snapshot(&reset)
	for i := 1; i < 10; i++ {
		if reset.Bodies[i].Epoch != moved.Bodies[i].Epoch+1 {
			t.Fatalf("body %d epoch %d → %d, want +1", i, moved.Bodies[i].Epoch, reset.Bodies[i].Epoch)
		}
		// One step after the reset, the body is one step from its start.
		if d := reset.Bodies[i].Pos.Sub(start.Bodies[i].Pos).Len(); d > 0.2 {
			t.Fatalf("body %d is %v from its start after a reset", i, d)
		}
	}
}

func TestSpawnGrows(t *testing.T) {
	w, _ := refworld.New(10, 5)
	w.Step(1, 1.0/120, []simthread.Input{{Kind: refworld.Spawn, Code: 5}})
	if w.Len() != 15 {
		t.Fatalf("Len %d after spawning 5 onto 10", w.Len())
	}
	w.Step(2, 1.0/120, []simthread.Input{{Kind: refworld.Spawn, Code: -5}, {Kind: refworld.Kick, X: math.NaN()}})
	if w.Len() != 15 {
		t.Fatalf("bad inputs changed the world: Len %d", w.Len())
	}
}

func TestStepAndSnapshotDoNotAllocate(t *testing.T) {
	w, _ := refworld.New(1000, 1)
	var s simthread.Snapshot
	w.Snapshot(&s)
	k := uint64(0)
	if a := testing.AllocsPerRun(100, func() {
		k++
		w.Step(k, 1.0/120, nil)
		w.Snapshot(&s)
	}); a != 0 {
		t.Fatalf("Step+Snapshot allocates %.1f times", a)
	}
}

// TestVelocitiesAreTrue checks the snapshot's optional velocities against
// the motion itself: the reference body's against the derivative of its
// closed form, the swarm's against what the integrator did between two
// snapshots (semi-implicit Euler moves each body by exactly its new
// velocity times the step; its orientation turns by its angular velocity
// times the step, about a world axis).
func TestVelocitiesAreTrue(t *testing.T) {
	const dt = 1.0 / 120
	w := run(t, 64, 9, 500, nil)
	var a, b simthread.Snapshot
	w.Snapshot(&a)
	w.Step(501, dt, nil)
	w.Snapshot(&b)

	tm := 501 * dt
	ref := b.Bodies[0]
	const h = 1e-4 // a central difference of the closed form
	p0, p1 := refworld.RefPosition(tm-h), refworld.RefPosition(tm+h)
	for i := range 3 {
		want := (p1[i] - p0[i]) / (2 * h)
		if math.Abs(float64(ref.Vel[i])-want) > 1e-4*refworld.RefSpeed {
			t.Fatalf("reference velocity %v, closed form %v", ref.Vel, p1.Sub(p0).Mul(1/(2*h)))
		}
	}
	if got := float64(ref.Vel.Len()); math.Abs(got-refworld.RefSpeed) > 1e-5 {
		t.Errorf("reference speed %v, want RefSpeed %v", got, refworld.RefSpeed)
	}
	spin := refworld.RefAxis.Mul(refworld.RefSpin)
	for i := range 3 {
		if math.Abs(float64(ref.AngVel[i])-spin[i]) > 1e-6 {
			t.Fatalf("reference angular velocity %v, want RefSpin × RefAxis %v", ref.AngVel, spin)
		}
	}

	moving := 0
	for i := 1; i < len(b.Bodies); i++ {
		p, q := a.Bodies[i], b.Bodies[i]
		for k := range 3 {
			want := (float64(q.Pos[k]) - float64(p.Pos[k])) / dt
			// float32 positions: their rounding over one step of dt.
			tol := 2e-6 * math.Max(1, float64(q.Pos.Len())) / dt
			if math.Abs(float64(q.Vel[k])-want) > tol {
				t.Fatalf("body %d velocity %v, moved by %v in a step", i, q.Vel, q.Pos.Sub(p.Pos).Mul(1/dt))
			}
		}
		// The rotation from p to q, in the world frame, is q p⁻¹ ≈
		// (1, ω dt / 2).
		d := q.Rot.Mul(p.Rot.Conjugate())
		if d.W < 0 {
			d = d.Scale(-1)
		}
		for k := range 3 {
			want := 2 * float64(d.V[k]) / dt
			if math.Abs(float64(q.AngVel[k])-want) > 0.01*math.Max(1, float64(q.AngVel.Len())) {
				t.Fatalf("body %d angular velocity %v, turned by %v rad/s in a step", i, q.AngVel, d.V.Mul(2/dt))
			}
		}
		if q.Vel.Len() > 0.1 && q.AngVel.Len() > 0.1 {
			moving++
		}
	}
	if moving < len(b.Bodies)/2 {
		t.Errorf("only %d of %d swarm bodies have a velocity", moving, len(b.Bodies)-1)
	}
}

// TestSetMesh checks that SetMesh reaches every body, those spawned later
// too, and leaves the state's hash alone.
func TestSetMesh(t *testing.T) {
	w := run(t, 10, 3, 5, nil)
	h := w.Hash()
	w.SetMesh(2, 7)
	if w.Hash() != h {
		t.Fatal("SetMesh changed the hash")
	}
	w.Step(6, 1.0/120, []simthread.Input{{Kind: refworld.Spawn, Code: 4}})
	var s simthread.Snapshot
	w.Snapshot(&s)
	for i, b := range s.Bodies {
		if b.Mesh != 2 || b.Material != 7 {
			t.Fatalf("body %d of %d: mesh %d material %d, want 2 and 7", i, len(s.Bodies), b.Mesh, b.Material)
		}
		if b.Scale[0] != b.Scale[1] || b.Scale[1] != b.Scale[2] || !(b.Scale[0] > 0) {
			t.Fatalf("body %d: scale %v, want uniform", i, b.Scale)
		}
	}
}

// TestSpinner checks NewWithSpinner's world: body SpinBody stands at
// SpinPosition and turns as SpinRotation says, with its angular velocity
// published; kicks and resets leave it alone; every other body is the body
// New's world has, step for step.
func TestSpinner(t *testing.T) {
	const dt = 1.0 / 30
	if _, err := refworld.NewWithSpinner(1, 1); err == nil {
		t.Fatal("NewWithSpinner(1) accepted: the spinner is body 1")
	}
	plain, _ := refworld.New(20, 4)
	w, err := refworld.NewWithSpinner(20, 4)
	if err != nil {
		t.Fatal(err)
	}
	var s, p simthread.Snapshot
	for k := uint64(1); k <= 300; k++ {
		var in []simthread.Input
		switch k {
		case 100:
			in = []simthread.Input{{Kind: refworld.Kick, X: 5}}
		case 200:
			in = []simthread.Input{{Kind: refworld.Reset}}
		}
		w.Step(k, dt, in)
		plain.Step(k, dt, in)
		w.Snapshot(&s)
		plain.Snapshot(&p)
		sp := s.Bodies[refworld.SpinBody]
		tm := float64(k) * dt
		q := refworld.SpinRotation(tm)
		dot := math.Abs(float64(sp.Rot.W)*q.W + float64(sp.Rot.V[0])*q.V[0] + float64(sp.Rot.V[1])*q.V[1] + float64(sp.Rot.V[2])*q.V[2])
		if dot < 1-1e-6 || sp.Epoch != 0 || sp.Vel != (mgl32.Vec3{}) {
			t.Fatalf("tick %d: spinner at %v %v epoch %d vel %v; want %v, |dot| %v", k, sp.Pos, sp.Rot, sp.Epoch, sp.Vel, q, dot)
		}
		for i := range 3 {
			if math.Abs(float64(sp.Pos[i])-refworld.SpinPosition[i]) > 1e-6 ||
				math.Abs(float64(sp.AngVel[i])-refworld.SpinAxis[i]*refworld.SpinRate) > 1e-4 {
				t.Fatalf("tick %d: spinner at %v with angular velocity %v", k, sp.Pos, sp.AngVel)
			}
		}
		for i := range s.Bodies {
			if i != refworld.SpinBody && s.Bodies[i] != p.Bodies[i] {
				t.Fatalf("tick %d: body %d %+v, New's world has %+v", k, i, s.Bodies[i], p.Bodies[i])
			}
		}
	}
	// More than half a turn per tick at 30 Hz, which slerp would take
	// backwards.
	if turn := refworld.SpinRate * dt; turn <= math.Pi || turn >= 2*math.Pi {
		t.Fatalf("the spinner turns %v rad a tick at 30 Hz", turn)
	}
}
