package renderer_test

import (
	"fmt"
	"image"
	"math"
	"os"
	"testing"
	"time"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
)

// skinnedTube builds and decodes a two-bone tube, 2 high and 0.4 wide,
// standing on its origin: the lower bone at the origin, the upper at
// (0, 1, 0), rings below 1 on the lower bone, above it on the upper, the
// middle ring half and half. Animation 0 turns the upper bone about z by
// 90° over a second. It glows orange (emissive), so that it stands out
// whatever the light.
func skinnedTube(t testing.TB) *gltf.Model {
	t.Helper()
	rings := []float32{0, 0.5, 1, 1.5, 2}
	upper := []float32{0, 0, 0.5, 1, 1}
	const sides = 12
	var b gltf.Builder
	mat := gltf.DefaultMaterial()
	mat.BaseColor, mat.Emissive = mgl32.Vec4{1, 0.5, 0, 1}, mgl32.Vec3{1, 0.5, 0}
	p := gltf.Primitive{Material: b.AddMaterial(mat)}
	for r, y := range rings {
		for k := range sides {
			a := 2 * math.Pi * float64(k) / sides
			s, c := math.Sincos(a)
			p.Positions = append(p.Positions, mgl32.Vec3{0.2 * float32(c), y, 0.2 * float32(s)})
			p.Normals = append(p.Normals, mgl32.Vec3{float32(c), 0, float32(s)})
			p.Joints = append(p.Joints, [4]uint16{0, 1, 0, 0})
			p.Weights = append(p.Weights, mgl32.Vec4{1 - upper[r], upper[r], 0, 0})
		}
	}
	for r := range len(rings) - 1 {
		for k := range sides {
			a, c := uint32(sides*r+k), uint32(sides*r+(k+1)%sides)
			p.Indices = append(p.Indices, a, c, a+sides, c, c+sides, a+sides)
		}
	}
	mesh := b.AddMesh("tube", p)
	lower := b.AddNode(gltf.Node{Name: "lower", Mesh: -1})
	up := b.AddNode(gltf.Node{Name: "upper", Mesh: -1, Translation: mgl32.Vec3{0, 1, 0}})
	b.AddChild(lower, up)
	b.AddSkin(gltf.Skeleton{Joints: []int{lower, up}, Root: lower,
		InverseBind: []mgl32.Mat4{mgl32.Ident4(), mgl32.Translate3D(0, -1, 0)}}, b.AddNode(gltf.Node{Name: "tube", Mesh: mesh}))
	q := mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1})
	b.AddAnimation(gltf.Animation{Channels: []gltf.Channel{{Node: up, Path: gltf.Rotation, Times: []float32{0, 1},
		Values: []float32{0, 0, 0, 1, q.V[0], q.V[1], q.V[2], q.W}}}})
	glb, err := b.GLB()
	if err != nil {
		t.Fatal(err)
	}
	m, err := gltf.Decode(glb, "tube.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// skinRef is the CPU reference: the joints of two snapshots interpolated
// as the skin pass must (positions and scales lerped, rotations slerped;
// the newer as it is where the epoch changed), turned into joint
// matrices, the tube's vertices skinned with them and its front-facing
// triangles rasterized into a coverage mask.
func skinRef(m *gltf.Model, prev, next []simthread.Joint, alpha float32, cam renderer.Camera) []bool {
	sk := &m.Skins[0]
	jm := make([]mgl32.Mat4, len(sk.Joints))
	for j := range jm {
		a, b := prev[j], next[j]
		pos := renderer.Lerp(a.Pos, b.Pos, alpha)
		rot, err := renderer.Slerp(a.Rot, b.Rot, alpha)
		if err != nil {
			panic(err)
		}
		s := renderer.Lerp(a.Scale, b.Scale, alpha)
		x := gltf.TRS{T: pos, R: rot, S: s}
		jm[j] = x.Mat4().Mul4(sk.InverseBind[j])
	}
	me := &m.Meshes[0]
	pts := make([][2]float32, len(me.Positions))
	for i := range me.Positions {
		x, y, _ := project(cam, me.SkinPosition(i, jm), width, height)
		pts[i] = [2]float32{x, y}
	}
	mask := make([]bool, width*height)
	for k := 0; k+2 < len(me.Indices); k += 3 {
		a, b, c := pts[me.Indices[k]], pts[me.Indices[k+1]], pts[me.Indices[k+2]]
		x0, x1 := int(min(a[0], b[0], c[0])), int(max(a[0], b[0], c[0]))+1
		y0, y1 := int(min(a[1], b[1], c[1])), int(max(a[1], b[1], c[1]))+1
		edge := func(p, q [2]float32, x, y float32) float32 { return (q[0]-p[0])*(y-p[1]) - (q[1]-p[1])*(x-p[0]) }
		if edge(a, b, c[0], c[1]) >= 0 {
			continue // a back face (y runs down): culled
		}
		for y := max(y0, 0); y <= min(y1, height-1); y++ {
			for x := max(x0, 0); x <= min(x1, width-1); x++ {
				px, py := float32(x)+0.5, float32(y)+0.5
				e0, e1, e2 := edge(a, b, px, py), edge(b, c, px, py), edge(c, a, px, py)
				if e0 >= 0 && e1 >= 0 && e2 >= 0 || e0 <= 0 && e1 <= 0 && e2 <= 0 {
					mask[y*width+x] = true
				}
			}
		}
	}
	return mask
}

// compareMask counts the pixels where the frame's coverage (pixels that
// differ from the empty frame) disagrees with the reference's, leaving
// out those on the reference's outline (a neighbour differs), where
// rasterization rules decide; and the pixels the reference covers.
func compareMask(img, empty *image.RGBA, ref []bool) (bad, covered int) {
	for y := 1; y < height-1; y++ {
		for x := 1; x < width-1; x++ {
			want := ref[y*width+x]
			if want {
				covered++
			}
			a, b := img.RGBAAt(x, y), empty.RGBAAt(x, y)
			got := absDiff(a.R, b.R)+absDiff(a.G, b.G)+absDiff(a.B, b.B) > 24
			if got == want {
				continue
			}
			edge := false
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					edge = edge || ref[(y+dy)*width+x+dx] != want
				}
			}
			if !edge {
				bad++
			}
		}
	}
	return bad, covered
}

// TestSkinnedPoseMatchesCPU draws the skinned tube between two ticks of
// its bend (18° and 72°) and compares the frame's silhouette with the
// CPU skinning of the same pose: at the ticks themselves (alpha 0 and 1),
// between them (the joints interpolated), with the tube also moved and
// grown by a quarter between the ticks (the joints' positions and scales
// lerped), and with the epoch changed (drawn at the newer tick). A
// renderer that draws the newer pose between ticks (SetSkinDrawNewer)
// must fail the comparison.
func TestSkinnedPoseMatchesCPU(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		m := skinnedTube(t)
		id, err := r.AddSkinned(m)
		if err != nil {
			return err
		}
		ch, err := renderer.NewCharacter(m)
		if err != nil {
			return err
		}
		cam := frontCamera()
		cam.Distance = 5
		place := mgl32.Translate3D(0.5, 4, 0)
		snapAt := func(tick uint64, bend float32, epoch uint32, place mgl32.Mat4) *simthread.Snapshot {
			ch.Pose(0, bend)
			d := time.Duration(tick) * 10 * time.Millisecond
			return &simthread.Snapshot{Tick: tick, Time: d, Published: d,
				Skins:  []simthread.Skin{{Model: id, Color: simthread.White, Epoch: epoch}},
				Joints: ch.Append(nil, place)}
		}
		snap := func(tick uint64, bend float32, epoch uint32) *simthread.Snapshot {
			return snapAt(tick, bend, epoch, place)
		}
		empty := &simthread.Snapshot{Tick: 1}
		prev, next, jumped := snap(2, 0.2, 1), snap(3, 0.8, 1), snap(4, 0.2, 2)
		grown := snapAt(3, 0.8, 1, mgl32.Translate3D(-0.3, 3.6, 0.4).Mul4(mgl32.Scale3D(1.25, 1.25, 1.25)))
		if d := grown.Joints[1].Pos.Sub(prev.Joints[1].Pos).Len(); d < 0.5 || math.Abs(float64(grown.Joints[1].Scale[0])-1.25) > 1e-5 {
			return fmt.Errorf("the grown tube's upper joint moved %v m, its scale %v: the case tests nothing", d, grown.Joints[1].Scale)
		}
		seq := uint64(0)
		frame := func(a, b *simthread.Snapshot, alpha float32) (*image.RGBA, error) {
			seq += 2 // fresh sequence numbers: every frame uploads its pair
			plan := renderer.Plan{Prev: a, Next: b, PrevSeq: seq - 1, NextSeq: seq, Alpha: alpha, Ready: true}
			return render(r, plan, cam)
		}
		bg, err := frame(empty, empty, 1)
		if err != nil {
			return err
		}
		bg = cloneRGBA(bg)
		check := func(name string, a, b *simthread.Snapshot, alpha, refAlpha float32) (int, error) {
			img, err := frame(a, b, alpha)
			if err != nil {
				return 0, err
			}
			refPrev := a.Joints
			if a.Skins[0].Epoch != b.Skins[0].Epoch {
				refPrev = b.Joints
			}
			bad, covered := compareMask(img, bg, skinRef(m, refPrev, b.Joints, refAlpha, cam))
			if covered < 500 {
				return 0, fmt.Errorf("%s: the tube covers %d pixels: too small to judge", name, covered)
			}
			if bad > covered/100 {
				return bad, fmt.Errorf("%s: %d of %d pixels off the CPU skinning's silhouette%s", name, bad, covered, saveFailure(img))
			}
			return bad, nil
		}
		for _, c := range []struct {
			name  string
			a, b  *simthread.Snapshot
			alpha float32
		}{
			{"older tick", prev, next, 0},
			{"newer tick", prev, next, 1},
			{"between", prev, next, 0.5},
			{"a quarter", prev, next, 0.25},
			{"moved and grown, between", prev, grown, 0.5},
			{"moved and grown, a quarter", prev, grown, 0.25},
			{"jumped", next, jumped, 0.5},
		} {
			bad, err := check(c.name, c.a, c.b, c.alpha, c.alpha)
			if err != nil {
				return err
			}
			t.Logf("%s: %d pixels off the CPU skinning's silhouette", c.name, bad)
		}
		// The broken variant: the newer pose between ticks.
		r.SetSkinDrawNewer(true)
		defer r.SetSkinDrawNewer(false)
		for _, b := range []*simthread.Snapshot{next, grown} {
			bad, err := check("between, drawn at the newer tick", prev, b, 0.5, 0.5)
			if err == nil {
				return fmt.Errorf("drawing the newer pose between ticks passed (%d pixels off): the test cannot tell", bad)
			}
			t.Logf("the broken variant is caught: %v", err)
		}
		return nil
	})
}

func cloneRGBA(img *image.RGBA) *image.RGBA {
	out := *img
	out.Pix = append([]uint8(nil), img.Pix...)
	return &out
}

// skinFrames returns a function that draws one frame of n skinned tubes
// in a grid, each posed anew (Character.Pose and Append, the world's
// work at every tick) into a fresh pair of snapshots, as a frame that
// meets a new tick does.
func skinFrames(t testing.TB, r *renderer.Renderer, n, w, h int) (func() error, error) {
	return characterFrames(r, skinnedTube(t), n, w, h)
}

// characterFrames is skinFrames for model m, publishing its morph
// weights too where it has any.
func characterFrames(r *renderer.Renderer, m *gltf.Model, n, w, h int) (func() error, error) {
	id, err := r.AddSkinned(m)
	if err != nil {
		return nil, err
	}
	ch, err := renderer.NewCharacter(m)
	if err != nil {
		return nil, err
	}
	cam := frontCamera()
	cam.Distance = 30
	var snaps [3]simthread.Snapshot
	for i := range snaps {
		snaps[i].Skins = make([]simthread.Skin, 0, n)
		snaps[i].Joints = make([]simthread.Joint, 0, n*ch.Joints())
		snaps[i].MorphWeights = make([]float32, 0, n*ch.Weights())
	}
	var seq uint64
	side := int(math.Ceil(math.Sqrt(float64(n))))
	return func() error {
		a, s := &snaps[seq%3], &snaps[(seq+1)%3]
		s.Skins, s.Joints, s.MorphWeights = s.Skins[:0], s.Joints[:0], s.MorphWeights[:0]
		for i := range n {
			ch.Pose(0, float32((int(seq)+i)%10)/10)
			place := mgl32.Translate3D(float32(i%side-side/2), 5+float32(i/side-side/2), 0)
			s.Skins = append(s.Skins, simthread.Skin{Model: id, Color: simthread.White, First: uint32(len(s.Joints)),
				FirstWeight: uint32(len(s.MorphWeights))})
			s.Joints = ch.Append(s.Joints, place)
			s.MorphWeights = ch.AppendWeights(s.MorphWeights)
		}
		seq += 2
		plan := renderer.Plan{Prev: a, Next: s, PrevSeq: seq - 1, NextSeq: seq, Alpha: 0.5, Ready: true, Span: 0.01}
		return r.Draw(&plan, &cam, w, h)
	}, nil
}

// TestSkinFrameDoesNotAllocate: posing, uploading, interpolating and
// drawing 64 skinned characters a frame allocates nothing, with their
// morph targets too.
func TestSkinFrameDoesNotAllocate(t *testing.T) {
	for _, c := range []struct {
		name  string
		model func(testing.TB) *gltf.Model
	}{{"skinned", skinnedTube}, {"morphed", morphedTube}} {
		t.Run(c.name, func(t *testing.T) { frameDoesNotAllocate(t, c.model(t)) })
	}
}

func frameDoesNotAllocate(t *testing.T, m *gltf.Model) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		frame, err := characterFrames(r, m, 64, width, height)
		if err != nil {
			return err
		}
		for range 5 {
			if err := frame(); err != nil {
				return err
			}
		}
		var ferr error
		allocs := testing.AllocsPerRun(20, func() {
			if err := frame(); err != nil {
				ferr = err
			}
		})
		if ferr != nil {
			return ferr
		}
		if allocs != 0 {
			return fmt.Errorf("%v allocations a frame of 64 skinned characters, want 0", allocs)
		}
		return nil
	})
}

// BenchmarkSkinning draws frames of N skinned characters (two joints
// each), every frame a new tick: the world's posing of each, the
// upload, the joint pass and the instanced draw, waited for (glFinish).
func BenchmarkSkinning(b *testing.B) { benchmarkCharacters(b, skinnedTube) }

// BenchmarkMorph is BenchmarkSkinning with the morphed tube: one joint
// and two morph targets a character (60 vertices), the weights published
// and interpolated on the GPU (the weight pass) and applied per vertex.
func BenchmarkMorph(b *testing.B) { benchmarkCharacters(b, morphedTube) }

func benchmarkCharacters(b *testing.B, model func(testing.TB) *gltf.Model) {
	if os.Getenv("DISPLAY") == "" {
		b.Skip("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	for _, n := range []int{1, 64, 1024} {
		b.Run(fmt.Sprintf("characters=%d", n), func(b *testing.B) {
			var err error
			gltest.Call(func() {
				var w *gltest.Window
				if w, err = gltest.Open(b.Name(), 320, 240, false); err != nil {
					return
				}
				defer w.Close()
				var r *renderer.Renderer
				if r, err = newTestRenderer(); err != nil {
					return
				}
				defer r.Delete()
				var frame func() error
				if frame, err = characterFrames(r, model(b), n, 320, 240); err != nil {
					return
				}
				for range 5 {
					if err = frame(); err != nil {
						return
					}
				}
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if err = frame(); err != nil {
						return
					}
					gl.Finish()
				}
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}
