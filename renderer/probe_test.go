package renderer_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
)

// pose is a body's interpolated pose.
type pose struct {
	pos   mgl32.Vec3
	scale mgl32.Vec3
	rot   mgl32.Quat
}

// cpuPose is what the GPU must draw body i at for plan, by the CPU
// reference: interp.Lerp and interp.Slerp of the bracket's two poses at
// plan.Alpha, or the newer pose as it is (normalised) for a body that is
// new in the newer snapshot or jumped (changed epoch). ok is false when
// the newer snapshot has no body i.
func cpuPose(plan *interp.Plan, i int) (p pose, ok bool, err error) {
	if !plan.Ready || i < 0 || i >= len(plan.Next.Bodies) {
		return pose{}, false, nil
	}
	to := plan.Next.Bodies[i]
	from, alpha := to, float32(1)
	if i < len(plan.Prev.Bodies) && plan.Prev.Bodies[i].Epoch == to.Epoch {
		from, alpha = plan.Prev.Bodies[i], plan.Alpha
	}
	rot, err := interp.Slerp(from.Rot, to.Rot, alpha)
	return pose{interp.Lerp(from.Pos, to.Pos, alpha), to.Scale, rot}, true, err
}

// How close the GPU's pose must be to the CPU reference's. Positions: 1e-5
// of their magnitude (at least 1e-5 m): both sides compute a + (b−a)·t in
// float32, the GPU perhaps with a fused multiply-add, so they differ by an
// ulp or two. Orientations: 1e-4 rad (0.006°), because GLSL leaves the
// precision of acos, sin and cos to the driver; llvmpipe's differ from Go's
// math package by up to about 6e-5 rad in the slerp. The broken paths the
// tests provoke are off by more than 1e-2.
const (
	posTol = 1e-5
	rotTol = 1e-4
)

// poseDiff returns how far got is from want: the position's error relative
// to its magnitude (at least 1), and the angle in radians of the rotation
// from one orientation to the other. Scale must be equal.
func poseDiff(got, want pose) (pos, rot float64, err error) {
	if got.scale != want.scale {
		return 0, 0, fmt.Errorf("scale %v, want %v", got.scale, want.scale)
	}
	mag := math.Max(1, float64(want.pos.Len()))
	for k := range 3 {
		pos = math.Max(pos, math.Abs(float64(got.pos[k]-want.pos[k]))/mag)
	}
	rot = angle(got.rot, want.rot)
	if pos != pos || rot != rot {
		return pos, rot, fmt.Errorf("NaN in %v", got)
	}
	return pos, rot, nil
}

// angle returns the angle of the rotation from a to b (unit quaternions),
// in float64: 2·asin of the vector part of a⁻¹b, which unlike acos of the
// dot product keeps its precision for small angles.
func angle(a, b mgl32.Quat) float64 {
	aw, ax, ay, az := float64(a.W), -float64(a.V[0]), -float64(a.V[1]), -float64(a.V[2]) // conjugate
	bw, bx, by, bz := float64(b.W), float64(b.V[0]), float64(b.V[1]), float64(b.V[2])
	x := aw*bx + ax*bw + ay*bz - az*by
	y := aw*by - ax*bz + ay*bw + az*bx
	z := aw*bz + ax*by - ay*bx + az*bw
	return 2 * math.Asin(math.Min(1, math.Sqrt(x*x+y*y+z*z)))
}

func far(pos, rot float64) bool { return pos > posTol || rot > rotTol }

func probePose(p renderer.Probe) pose { return pose{p.Pos, p.Scale, p.Rot} }

// poseFloats is a pose's size in a buffer read with ReadPoses.
const poseFloats = renderer.PoseStride / 4

// readPose returns pose i of a pose buffer read with ReadPoses.
func readPose(poses []float32, i int) pose {
	v := poses[i*poseFloats:]
	return pose{mgl32.Vec3{v[0], v[1], v[2]}, mgl32.Vec3{v[8], v[9], v[10]}, mgl32.Quat{W: v[4], V: mgl32.Vec3{v[5], v[6], v[7]}}}
}

// drain collects every record of the frames drawn so far, waiting for the
// GPU (glFinish) first: for tests, never for frames.
func drain(r *renderer.Renderer, into map[uint64]renderer.Probe) {
	gl.Finish()
	for {
		p, ok := r.Probed()
		if !ok {
			return
		}
		into[p.Frame] = p
	}
}

// simRig is the real simulation, its planner and a renderer probing the
// reference body, stepped on a virtual clock.
type simRig struct {
	clock   *simthread.VirtualClock
	sim     *simthread.Sim
	planner *interp.Planner
	r       *renderer.Renderer
	win     *platform.Window
	wake    time.Duration
	now     time.Duration
}

func newSimRig(w *platform.Window, bodies int, opts renderer.Options) (*simRig, error) {
	world, err := refworld.New(bodies, 3)
	if err != nil {
		return nil, err
	}
	g := &simRig{clock: new(simthread.VirtualClock), win: w}
	if g.sim, err = simthread.New(simthread.Config{}, world, g.clock); err != nil {
		return nil, err
	}
	step := g.sim.Step()
	g.planner = interp.NewPlanner(g.sim.Snapshots(), interp.NewFixedDelay(step, step+2*time.Millisecond))
	opts.Samples = -1
	opts.Probe = true
	if g.r, err = renderer.New(g.planner.Depth(), opts); err != nil {
		return nil, err
	}
	g.r.HUD().Visible = false
	g.wake, err = g.sim.Wake()
	return g, err
}

// draw draws plan and presents it, as an app does: the swap is what keeps
// the CPU from queueing frames far ahead of the GPU.
func (g *simRig) draw(plan *interp.Plan) error {
	cam := renderer.DefaultCamera()
	if err := g.r.Draw(plan, &cam, width, height); err != nil {
		return err
	}
	g.win.Swap()
	return nil
}

// plan runs the simulation up to dt after the last plan and plans a frame.
func (g *simRig) plan(dt time.Duration) (interp.Plan, error) {
	g.now += dt
	for g.wake <= g.now {
		g.clock.Set(g.wake)
		var err error
		if g.wake, err = g.sim.Wake(); err != nil {
			return interp.Plan{}, err
		}
	}
	return g.planner.Plan(g.now), nil
}

// TestProbeMatchesCPUReference draws the real simulation for a second of
// 144 Hz frames with the reference body probed, and checks that the pose
// read back for every frame equals the CPU reference for the plan drawn
// (interp.Lerp and interp.Slerp at plan.Alpha) within 1e-5, that records
// come in frame order with none missing, and how many frames later they
// come. Then it biases the shader's alpha by 0.25 and checks that the
// read-back disagrees: the check can fail.
func TestProbeMatchesCPUReference(t *testing.T) {
	onMain(t, func(w *platform.Window) error {
		g, err := newSimRig(w, 200, renderer.Options{})
		if err != nil {
			return err
		}
		defer g.r.Delete()
		for _, bias := range []float32{0, 0.25} {
			g.r.SetAlphaBias(bias)
			want := map[uint64]pose{}
			got := map[uint64]renderer.Probe{}
			lastFrame := g.r.Frames()
			maxLatency, sumLatency, received := uint64(0), uint64(0), 0
			for range 144 {
				plan, err := g.plan(time.Second / 144)
				if err != nil {
					return err
				}
				if err := g.draw(&plan); err != nil {
					return err
				}
				if p, ok, err := cpuPose(&plan, 0); err != nil || !ok {
					return fmt.Errorf("frame %d: reference body: %v %v", g.r.Frames(), ok, err)
				} else if plan.Prev != plan.Next {
					want[g.r.Frames()] = p
				}
				for {
					p, ok := g.r.Probed()
					if !ok {
						break
					}
					if p.Frame != lastFrame+1 {
						return fmt.Errorf("record of frame %d follows frame %d's", p.Frame, lastFrame)
					}
					lastFrame = p.Frame
					got[p.Frame] = p
					lat := g.r.Frames() - p.Frame
					maxLatency = max(maxLatency, lat)
					sumLatency += lat
					received++
				}
			}
			drain(g.r, got)
			if len(want) < 100 {
				return fmt.Errorf("only %d of 144 frames interpolate between two snapshots", len(want))
			}
			var worstPos, worstRot float64
			disagree := 0
			for f, w := range want {
				p, ok := got[f]
				if !ok || !p.Valid {
					return fmt.Errorf("bias %v: frame %d: no valid record (%v, %+v)", bias, f, ok, p)
				}
				pos, rot, err := poseDiff(probePose(p), w)
				if err != nil {
					return fmt.Errorf("bias %v: frame %d: %v", bias, f, err)
				}
				worstPos, worstRot = math.Max(worstPos, pos), math.Max(worstRot, rot)
				if far(pos, rot) {
					disagree++
				}
			}
			t.Logf("alpha bias %v: %d frames, worst position error %.2g (relative), worst rotation error %.2g rad, %d disagree; "+
				"%d records polled after drawing, %.2f frames late on average, %d at most",
				bias, len(want), worstPos, worstRot, disagree, received, float64(sumLatency)/float64(max(received, 1)), maxLatency)
			switch {
			case bias == 0 && disagree > 0:
				return fmt.Errorf("the GPU drew %d of %d frames away from the CPU reference (worst %.2g, %.2g)", disagree, len(want), worstPos, worstRot)
			case bias != 0 && disagree < len(want)*9/10:
				return fmt.Errorf("alpha biased by %v: only %d of %d frames disagree with the CPU reference: the check is blind", bias, disagree, len(want))
			}
		}
		return nil
	})
}

// TestSkippedFramesNeverDrawStaleSlot plans a frame every 1/144 s but
// draws only some of the plans, skipping runs of up to twice the history
// depth, so that the sequence numbers of the plans drawn jump, often past
// the whole history.
// Every frame drawn must show the reference body where the CPU reference
// puts it for the plan actually drawn. With a renderer that tags a buffer
// with a snapshot it never uploaded, the same check must fail.
func TestSkippedFramesNeverDrawStaleSlot(t *testing.T) {
	onMain(t, func(w *platform.Window) error {
		for _, stale := range []bool{false, true} {
			if err := skippedFrames(t, w, stale); err != nil {
				return fmt.Errorf("stale-on-miss %v: %w", stale, err)
			}
		}
		return nil
	})
}

func skippedFrames(t *testing.T, w *platform.Window, stale bool) error {
	g, err := newSimRig(w, 50, renderer.Options{})
	if err != nil {
		return err
	}
	defer g.r.Delete()
	g.r.SetStaleOnMiss(stale)
	rng := rand.New(rand.NewPCG(1, 2))
	want := map[uint64]pose{}
	got := map[uint64]renderer.Probe{}
	var lastSeq uint64
	jumps, bigJumps, skip := 0, 0, 0
	// Runs of skipped plans up to twice the history, so that many jump
	// past it whatever its depth.
	maxSkip := 2 * g.planner.Depth()
	for range 50 * (maxSkip + 2) {
		plan, err := g.plan(time.Second / 144)
		if err != nil {
			return err
		}
		if skip > 0 || !plan.Ready {
			skip--
			continue
		}
		skip = rng.IntN(maxSkip + 1)
		if lastSeq > 0 && plan.NextSeq > lastSeq+1 {
			jumps++
			if plan.NextSeq > lastSeq+uint64(g.planner.Depth()) {
				bigJumps++
			}
		}
		lastSeq = plan.NextSeq
		if err := g.draw(&plan); err != nil {
			return err
		}
		p, _, err := cpuPose(&plan, 0)
		if err != nil {
			return err
		}
		if plan.Prev != plan.Next {
			want[g.r.Frames()] = p
		}
		for {
			p, ok := g.r.Probed()
			if !ok {
				break
			}
			got[p.Frame] = p
		}
	}
	drain(g.r, got)
	if len(want) < 40 || bigJumps < 10 {
		return fmt.Errorf("only %d frames drawn between two snapshots, %d jumps past the history", len(want), bigJumps)
	}
	disagree := 0
	for f, w := range want {
		p, ok := got[f]
		if !ok || !p.Valid {
			return fmt.Errorf("frame %d: no valid record", f)
		}
		pos, rot, err := poseDiff(probePose(p), w)
		if err != nil {
			return fmt.Errorf("frame %d: %v", f, err)
		}
		if far(pos, rot) {
			disagree++
			if !stale {
				return fmt.Errorf("frame %d drew the reference body at %v %v, the CPU reference for its plan says %v %v",
					f, p.Pos, p.Rot, w.pos, w.rot)
			}
		}
	}
	t.Logf("stale-on-miss %v: %d frames drawn, %d after skipped plans (%d past the %d-snapshot history), %d disagree with the CPU reference",
		stale, len(want), jumps, bigJumps, g.planner.Depth(), disagree)
	if stale && disagree < len(want)/2 {
		return fmt.Errorf("only %d of %d frames disagree: the check does not see stale buffers", disagree, len(want))
	}
	return nil
}

// TestSpawnPastHeadroom draws 100 bodies, then a snapshot of 3000 (the
// 100 moved, 2900 spawned), far past the buffers' headroom, interpolating
// from the 100. Every snapshot buffer and the pose buffer must have grown
// to hold 3000 bodies, so that the interpolation pass, which fetches the
// older snapshot's attributes for all 3000, never reads past a buffer; the
// old bodies must interpolate from their pose in the older snapshot (whose
// buffer grew by a GPU copy), the new ones stand at their pose in the
// newer. Then the count drops to 50 and everything still matches. Once
// with cubes alone, once with a third of the bodies of a second mesh,
// interleaved, so that the pass reads them grouped through an order
// buffer (which grows too) and the probe finds its body in that order.
func TestSpawnPastHeadroom(t *testing.T) {
	onMain(t, func(*platform.Window) error {
		for _, meshes := range []int{1, 2} {
			if err := spawnPastHeadroom(t, meshes); err != nil {
				return fmt.Errorf("%d meshes: %w", meshes, err)
			}
		}
		return nil
	})
}

func spawnPastHeadroom(t *testing.T, meshes int) error {
	{
		r, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1, Probe: true, ProbeBody: 2500})
		if err != nil {
			return err
		}
		defer r.Delete()
		r.HUD().Visible = false
		ids, _, err := addTestScene(r, meshes)
		if err != nil {
			return err
		}
		cam := renderer.DefaultCamera()
		rng := rand.New(rand.NewPCG(5, 5))
		body := func() simthread.Body {
			axis := mgl32.Vec3{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(rng.NormFloat64())}.Normalize()
			return simthread.Body{
				Pos:   mgl32.Vec3{float32(rng.NormFloat64() * 5), float32(rng.NormFloat64() * 5), float32(rng.NormFloat64() * 5)},
				Scale: simthread.UniformScale(0.1), Rot: mgl32.QuatRotate(float32(rng.Float64()*6), axis), Color: 0xff8080ff,
				Mesh: ids[rng.IntN(3)%len(ids)],
			}
		}
		move := func(old []simthread.Body, n int) []simthread.Body {
			out := make([]simthread.Body, n)
			for i := range out {
				out[i] = body()
				if i < len(old) {
					out[i].Pos = old[i].Pos.Add(mgl32.Vec3{0.3, -0.2, 0.1})
					out[i].Rot = mgl32.QuatSlerp(old[i].Rot, out[i].Rot, 0.2)
				}
			}
			return out
		}
		s := newScene()
		s.publish(1, move(nil, 100))
		s.publish(2, move(s.snaps[0].Bodies, 100))
		for _, step := range []struct {
			n     int // bodies in the newest snapshot
			alpha float32
		}{{0, 0.5}, {3000, 0.4}, {3000, 0.7}, {50, 0.3}} {
			if step.n > 0 {
				s.publish(uint64(len(s.snaps)+1), move(s.snaps[len(s.snaps)-1].Bodies, step.n))
			}
			plan := s.pair(step.alpha)
			if err := r.Draw(&plan, &cam, width, height); err != nil {
				return err
			}
			n := len(plan.Next.Bodies)
			slots, poses, counts := r.Storage()
			most := 0
			for _, c := range counts {
				most = max(most, c)
			}
			for i, size := range slots {
				if size < most*renderer.BodyStride {
					return fmt.Errorf("%d bodies: snapshot buffer %d has %d bytes, fewer than the %d bodies of the largest (%v)", n, i, size, most, counts)
				}
			}
			if poses < most*renderer.PoseStride {
				return fmt.Errorf("%d bodies: pose buffer has %d bytes, fewer than %d poses", n, poses, most)
			}
			got := make([]float32, n*poseFloats)
			if err := r.ReadPoses(got); err != nil {
				return err
			}
			for i := range n {
				w, _, err := cpuPose(&plan, i)
				if err != nil {
					return err
				}
				pos, rot, err := poseDiff(readPose(got, i), w)
				if err == nil && (far(pos, rot)) {
					err = fmt.Errorf("%v, want %v (errors %.2g, %.2g)", readPose(got, i), w, pos, rot)
				}
				if err != nil {
					return fmt.Errorf("%d bodies from %d at alpha %v: body %d: %v", n, len(plan.Prev.Bodies), plan.Alpha, i, err)
				}
			}
			t.Logf("%d bodies from %d: snapshot buffers %v bytes, pose buffer %d bytes, all poses match", n, len(plan.Prev.Bodies), slots, poses)
		}
		// The probe read back the spawned body 2500 while it existed.
		got := map[uint64]renderer.Probe{}
		drain(r, got)
		for f := uint64(1); f <= r.Frames(); f++ {
			p := got[f]
			if wantValid := f == 2 || f == 3; p.Valid != wantValid {
				return fmt.Errorf("frame %d: probe of body 2500 valid %v, want %v", f, p.Valid, wantValid)
			}
		}
		if p, w := got[2], s.snaps[2].Bodies[2500]; p.Pos != w.Pos || p.Scale != w.Scale {
			return fmt.Errorf("spawned body 2500 read back at %v, scale %v; its pose in the newer snapshot is %v, %v", p.Pos, p.Scale, w.Pos, w.Scale)
		}
		return nil
	}
}

// TestBadQuaternionsDrawIdentity feeds the shader quaternions that cannot
// be normalised (zero, NaN, infinite) and extreme ones that can, and reads
// back what it drew: never NaN, always unit length; the identity for an
// unusable newer pose the body stands at, a slerp from or to the identity
// for one unusable end, the CPU reference's normalisation for the extreme
// ones. interp.Slerp refuses the unusable ones with ErrBadQuat.
func TestBadQuaternionsDrawIdentity(t *testing.T) {
	onMain(t, func(*platform.Window) error {
		r, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1, Probe: true, ProbeBody: 0})
		if err != nil {
			return err
		}
		defer r.Delete()
		r.HUD().Visible = false
		nan, inf := float32(math.NaN()), float32(math.Inf(1))
		ident := mgl32.QuatIdent()
		good := mgl32.QuatRotate(1.2, mgl32.Vec3{0, 0, 1})
		cases := []struct {
			name       string
			prev, next mgl32.Quat
			epoch      uint32 // the newer snapshot's; the older's is 0
			want       mgl32.Quat
		}{
			{"zero, new pose", good, mgl32.Quat{}, 1, ident},
			{"zero at both ends", mgl32.Quat{}, mgl32.Quat{}, 0, ident},
			{"NaN at both ends", mgl32.Quat{W: nan}, mgl32.Quat{V: mgl32.Vec3{nan, 1, 0}}, 0, ident},
			{"infinite, new pose", good, mgl32.Quat{W: inf, V: mgl32.Vec3{1, 0, 0}}, 1, ident},
			{"NaN older end", mgl32.Quat{W: nan, V: mgl32.Vec3{nan, nan, nan}}, good, 0, mgl32.QuatSlerp(ident, good, 0.5)},
			{"infinite newer end", good, mgl32.Quat{W: -inf}, 0, mgl32.QuatSlerp(good, ident, 0.5)},
			{"huge", mgl32.Quat{W: 3e37, V: mgl32.Vec3{-3e37, 2e37, 1e37}}, mgl32.Quat{W: 3e37, V: mgl32.Vec3{-3e37, 2e37, 1e37}}, 0, mgl32.Quat{}},
			{"tiny", mgl32.Quat{W: 3e-30, V: mgl32.Vec3{1e-30, 0, -2e-30}}, mgl32.Quat{W: 3e-30, V: mgl32.Vec3{1e-30, 0, -2e-30}}, 0, mgl32.Quat{}},
		}
		prev := make([]simthread.Body, len(cases))
		next := make([]simthread.Body, len(cases))
		for i, c := range cases {
			prev[i] = simthread.Body{Scale: simthread.UniformScale(1), Rot: c.prev}
			next[i] = simthread.Body{Scale: simthread.UniformScale(1), Rot: c.next, Epoch: c.epoch}
			_, err := interp.Slerp(c.prev, c.next, 0.5)
			if usable := c.want == (mgl32.Quat{}); usable != (err == nil) {
				return fmt.Errorf("%s: interp.Slerp gave error %v", c.name, err)
			}
			if c.want == (mgl32.Quat{}) {
				cases[i].want, _ = interp.Slerp(c.prev, c.next, 0.5)
			}
		}
		s := newScene()
		s.publish(1, prev)
		s.publish(2, next)
		cam := renderer.DefaultCamera()
		plan := s.pair(0.5)
		if err := r.Draw(&plan, &cam, width, height); err != nil {
			return err
		}
		got := make([]float32, len(cases)*poseFloats)
		if err := r.ReadPoses(got); err != nil {
			return err
		}
		for i, c := range cases {
			p := readPose(got, i)
			_, rot, err := poseDiff(p, pose{p.pos, p.scale, c.want})
			if err != nil || rot > rotTol || math.Abs(float64(p.rot.Len())-1) > 1e-5 {
				return fmt.Errorf("%s: drawn with rotation %v, want %v (%v)", c.name, p.rot, c.want, err)
			}
		}
		// The same through the probe, which reads what the draw pass read.
		recs := map[uint64]renderer.Probe{}
		drain(r, recs)
		if p := recs[1]; !p.Valid || p.Rot != ident {
			return fmt.Errorf("probe of a body with a zero quaternion: %+v, want rotation %v", p, ident)
		}
		return nil
	})
}

// TestProbeTimestamps checks that every record carries the time the GPU
// finished its frame, on the app's clock: after Frame began drawing it and
// before Probed returned it (within a 2 ms calibration allowance), never
// earlier than the previous frame's. Then it moves the app's clock 10 s
// ahead, as a clock that was paused would, and checks that recalibration
// follows it. Without timer queries, records still come, without times.
func TestProbeTimestamps(t *testing.T) {
	onMain(t, func(w *platform.Window) error {
		start := time.Now()
		var shift time.Duration
		now := func() time.Duration { return time.Since(start) + shift }
		r, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1, Probe: true, Now: now})
		if err != nil {
			return err
		}
		defer r.Delete()
		if !r.GPUTimestamps() {
			t.Log("this driver has no timer queries: checking only that records come without times")
		}
		s := newScene()
		s.publish(1, []simthread.Body{{Scale: simthread.UniformScale(1), Rot: mgl32.QuatIdent(), Color: refworld.RefColor}})
		cam := renderer.DefaultCamera()
		began := map[uint64]time.Duration{}
		var last time.Duration
		// The least time from Frame's start to the GPU's done, and from
		// done to the poll that returned the record: both should be > 0.
		minDraw, minPoll := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
		check := func(p renderer.Probe, polled time.Duration) error {
			if p.HasGPUTime != r.GPUTimestamps() {
				return fmt.Errorf("frame %d: HasGPUTime %v, GPUTimestamps %v", p.Frame, p.HasGPUTime, r.GPUTimestamps())
			}
			if !p.HasGPUTime {
				return nil
			}
			const allowance = 2 * time.Millisecond
			b := began[p.Frame]
			if p.GPUDone < b-allowance || p.GPUDone > polled+allowance || p.GPUDone < last {
				return fmt.Errorf("frame %d: GPU done at %v; drawing began at %v, the record was polled at %v, the previous frame was done at %v",
					p.Frame, p.GPUDone, b, polled, last)
			}
			minDraw = min(minDraw, p.GPUDone-b)
			minPoll = min(minPoll, polled-p.GPUDone)
			last = p.GPUDone
			return nil
		}
		n := 0
		for i := range 60 {
			if i == 30 {
				// Draining first: a frame drawn before the jump and read
				// after it would have been drawn "in the future".
				gl.Finish()
				for p, ok := r.Probed(); ok; p, ok = r.Probed() {
					if err := check(p, now()); err != nil {
						return err
					}
					n++
				}
				// More than recalibrateEvery: the next Frame recalibrates.
				shift = 10 * time.Second
				last = 0
			}
			began[r.Frames()+1] = now()
			if err := r.Draw(ptr(s.newest()), &cam, width, height); err != nil {
				return err
			}
			w.Swap()
			for p, ok := r.Probed(); ok; p, ok = r.Probed() {
				if err := check(p, now()); err != nil {
					return err
				}
				n++
			}
		}
		gl.Finish()
		for p, ok := r.Probed(); ok; p, ok = r.Probed() {
			if err := check(p, now()); err != nil {
				return err
			}
			n++
		}
		if n != 60 {
			return fmt.Errorf("%d records for 60 frames", n)
		}
		if r.GPUTimestamps() {
			t.Logf("GPU done at least %v after Frame began, at least %v before Probed returned the record (negative: calibration error)", minDraw, minPoll)
		}

		renderer.SetNoTimerQueries(true)
		defer renderer.SetNoTimerQueries(false)
		r2, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1, Probe: true})
		if err != nil {
			return err
		}
		defer r2.Delete()
		if r2.GPUTimestamps() {
			return errors.New("GPUTimestamps without timer queries")
		}
		if err := r2.Draw(ptr(s.newest()), &cam, width, height); err != nil {
			return err
		}
		gl.Finish()
		if p, ok := r2.Probed(); !ok || !p.Valid || p.HasGPUTime || p.Frame != 1 {
			return fmt.Errorf("without timer queries: %+v, %v; want a valid record without a time", p, ok)
		}
		return nil
	})
}

// TestProbeOffAndAbsent: without Options.Probe there are no records and no
// timestamps; with a probe body the frame does not have (an index past the
// end, a negative one, a plan not Ready) the records say so.
func TestProbeOffAndAbsent(t *testing.T) {
	onMain(t, func(*platform.Window) error {
		s := newScene()
		s.publish(1, []simthread.Body{{Scale: simthread.UniformScale(1), Rot: mgl32.QuatIdent()}, {Scale: simthread.UniformScale(1), Rot: mgl32.QuatIdent()}})
		cam := renderer.DefaultCamera()
		for _, c := range []struct {
			opts      renderer.Options
			ready     bool
			wantRecs  bool
			wantValid bool
		}{
			{renderer.Options{}, true, false, false},
			{renderer.Options{Probe: true, ProbeBody: 1}, true, true, true},
			{renderer.Options{Probe: true, ProbeBody: 2}, true, true, false},
			{renderer.Options{Probe: true, ProbeBody: -1}, true, true, false},
			{renderer.Options{Probe: true}, false, true, false},
		} {
			c.opts.Samples = -1
			r, err := renderer.New(simthread.DefaultHistory, c.opts)
			if err != nil {
				return err
			}
			plan := s.newest()
			plan.Ready = c.ready
			for range 3 {
				if err := r.Draw(&plan, &cam, width, height); err != nil {
					r.Delete()
					return err
				}
			}
			gl.Finish()
			recs := 0
			for p, ok := r.Probed(); ok; p, ok = r.Probed() {
				recs++
				if p.Valid != c.wantValid || p.Frame != uint64(recs) {
					r.Delete()
					return fmt.Errorf("%+v, ready %v: record %+v", c.opts, c.ready, p)
				}
			}
			if (recs == 3) != c.wantRecs || (recs != 0 && recs != 3) || r.Frames() != 3 {
				r.Delete()
				return fmt.Errorf("%+v: %d records, %d frames", c.opts, recs, r.Frames())
			}
			if !c.opts.Probe && r.GPUTimestamps() {
				r.Delete()
				return errors.New("GPUTimestamps without a probe")
			}
			r.Delete()
		}
		return gl2err(gl.GetError())
	})
}

func gl2err(code uint32) error {
	if code != gl.NO_ERROR {
		return fmt.Errorf("GL error 0x%x left behind", code)
	}
	return nil
}

// TestFrameDoesNotAllocate draws frames that each upload a new snapshot
// and read back a probe record, and counts heap allocations: none. Once
// with every body a cube, once with bodies of eight meshes and three
// materials interleaved, which each upload groups with a counting sort.
func TestFrameDoesNotAllocate(t *testing.T) {
	onMain(t, func(*platform.Window) error {
		for _, meshes := range []int{1, 8} {
			if err := frameAllocs(meshes); err != nil {
				return fmt.Errorf("%d meshes: %w", meshes, err)
			}
		}
		return nil
	})
}

func frameAllocs(meshes int) error {
	r, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1, Probe: true})
	if err != nil {
		return err
	}
	defer r.Delete()
	r.HUD().Visible = false
	ids, mats, err := addTestScene(r, meshes)
	if err != nil {
		return err
	}
	s := newScene()
	bodies := make([]simthread.Body, 500)
	for i := range bodies {
		bodies[i] = simthread.Body{Pos: mgl32.Vec3{float32(i % 20), 0, float32(i / 20)}, Scale: simthread.UniformScale(0.1), Rot: mgl32.QuatIdent(),
			Mesh: ids[i%len(ids)], Material: mats[i/7%len(mats)]}
	}
	for k := range 8 {
		bodies[0].Pos[1] = float32(k)
		s.publish(uint64(k+1), bodies)
	}
	cam := renderer.DefaultCamera()
	plans := make([]interp.Plan, 7)
	for i := range plans {
		plans[i] = interp.Plan{Prev: s.snaps[i], Next: s.snaps[i+1], PrevSeq: uint64(i + 1), NextSeq: uint64(i + 2), Alpha: 0.5, Ready: true}
	}
	var ferr error
	i, records := 0, 0
	frame := func() {
		p := &plans[i%len(plans)]
		i++
		// A new pair of sequence numbers each frame: both snapshots
		// are uploaded again, as after a long stall.
		p.PrevSeq += 100
		p.NextSeq += 100
		if err := r.Draw(p, &cam, width, height); err != nil && ferr == nil {
			ferr = err
		}
		gl.Finish() // the swap's stand-in: no frames queued far ahead
		for _, ok := r.Probed(); ok; _, ok = r.Probed() {
			records++
		}
	}
	for range 20 { // warm up: buffers grown, slots in use
		frame()
	}
	if allocs := testing.AllocsPerRun(100, frame); allocs != 0 {
		return fmt.Errorf("Frame and Probed allocate %v times per frame", allocs)
	}
	if ferr != nil {
		return ferr
	}
	if records < i-1 {
		return fmt.Errorf("only %d records in %d frames", records, i)
	}
	if want := len(ids) * len(mats); r.DrawCalls() != want {
		return fmt.Errorf("%d draw calls for %d meshes × %d materials", r.DrawCalls(), len(ids), len(mats))
	}
	return nil
}
