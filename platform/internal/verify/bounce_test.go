package verify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

// TestBounceCheckSeesAnUnguardedHermite feeds the bouncer check the
// snapshots of a world with the bouncer at 30 Hz, frames at 8 points of
// each tick across forty bounces: drawn as the renderer draws them, no
// frame is below the floor and between bounces Hermite is followed; drawn
// by Hermite's cubic without its guard, frames across the bounces are
// below the floor, and the check counts them.
func TestBounceCheckSeesAnUnguardedHermite(t *testing.T) {
	unguarded := func(plan *renderer.Plan, i int, c *renderer.Correction) (renderer.Pose, bool, error) {
		p, ok, err := renderer.BodyPose(plan, i, c)
		if a, b := &plan.Prev.Bodies[i], &plan.Next.Bodies[i]; ok && err == nil && plan.Prev != plan.Next {
			p.Pos = hermite(a.Pos, a.Vel, b.Pos, b.Vel, plan.Span, plan.Alpha)
		}
		return p, ok, err
	}
	for _, broken := range []bool{false, true} {
		var b bounceCheck
		if broken {
			b.pose = unguarded
		}
		const rate = 30
		w, err := refworld.NewWithBouncer(8, 1)
		if err != nil {
			t.Fatal(err)
		}
		snap := func(k uint64) *simthread.Snapshot {
			s := &simthread.Snapshot{Tick: k, Time: time.Duration(k) * time.Second / rate}
			w.Snapshot(s)
			return s
		}
		prev := snap(0)
		ticks := uint64(40 * refworld.BouncePeriod * rate)
		for k := uint64(1); k <= ticks; k++ {
			w.Step(k, 1.0/rate, nil)
			next := snap(k)
			for j := range 8 {
				a := float32(j) / 8
				plan := renderer.Plan{Ready: true, Prev: prev, Next: next, PrevSeq: k, NextSeq: k + 1, Alpha: a, Motion: renderer.MotionHermite,
					Span: 1.0 / rate, RenderTime: prev.Time + time.Duration(float64(a)*float64(time.Second)/rate)}
				b.follow(&plan)
				b.frame(&plan, rate)
			}
			prev = next
		}
		s := b.result()
		t.Logf("broken %v: %+v", broken, s)
		switch {
		case !broken && (s.Past != 0 || s.Refused != 0 || s.Err.P99 > HermiteRatio*s.LerpErr.P99):
			t.Errorf("drawn as the renderer draws: %d frames below the floor, %d pairs refused between bounces, p99 %.3g vs lerp %.3g",
				s.Past, s.Refused, s.Err.P99, s.LerpErr.P99)
		case broken && (s.Past < 5 || s.Deepest < 1e-3):
			t.Errorf("the unguarded cubic drew only %d frames below the floor across forty bounces, %.3g m at most", s.Past, s.Deepest)
		}
	}
}

// TestBounceChecksInTheMatrix runs a small matrix and finds the bouncer
// checks in every interpolated row: floor in each mode, arcs in the calm
// hermite rows, all passing.
func TestBounceChecksInTheMatrix(t *testing.T) {
	res, err := Run(context.Background(), Options{Sims: []int{30, 120}, Displays: []Pattern{mustPattern(t, "60"), mustPattern(t, "vrr"), mustPattern(t, "60@stress")}})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range res.Rows {
		if r.Mode != Interpolated {
			continue
		}
		for _, c := range r.Checks {
			if c.Name == "floor" || c.Name == "arcs" {
				seen[c.Name+" "+r.Motion]++
				if !c.OK {
					t.Errorf("%d Hz × %s %s: %s: %s", r.Sim, r.Display, r.Motion, c.Name, c.Detail)
				}
			}
		}
	}
	for _, want := range []string{"floor lerp", "floor hermite", "floor extrapolate", "arcs hermite"} {
		if seen[want] == 0 {
			t.Errorf("no %q check in the matrix (%v)", want, seen)
		}
	}
	if !strings.Contains(bounceNotes, "floor") {
		t.Error("the notes do not explain the floor check")
	}
}

// hermite is the cubic Hermite curve from p0 to p1 with end velocities v0
// and v1 over dt seconds, at t in [0, 1]: the textbook basis functions.
func hermite(p0, v0, p1, v1 mgl32.Vec3, dt, t float32) mgl32.Vec3 {
	t2, t3 := t*t, t*t*t
	h00, h10, h01, h11 := 2*t3-3*t2+1, t3-2*t2+t, -2*t3+3*t2, t3-t2
	return p0.Mul(h00).Add(v0.Mul(h10 * dt)).Add(p1.Mul(h01)).Add(v1.Mul(h11 * dt))
}
