package renderer_test

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/renderer/interp"
	"github.com/tickframe/tickframe/simthread"
)

// morphedTube builds and decodes a tube 2 high and 0.4 wide on one joint,
// glowing orange, with two morph targets: target 0 leans it, moving each
// ring 0.6·y along +x; target 1 widens it by half (positions and normals).
// Animation 0 takes the weights from (0, 0) to (1, 1) over a second.
func morphedTube(t testing.TB) *gltf.Model {
	t.Helper()
	const sides = 12
	var b gltf.Builder
	mat := gltf.DefaultMaterial()
	mat.BaseColor, mat.Emissive = mgl32.Vec4{1, 0.5, 0, 1}, mgl32.Vec3{1, 0.5, 0}
	p := gltf.Primitive{Material: b.AddMaterial(mat), Targets: make([]gltf.Target, 2)}
	for _, y := range []float32{0, 0.5, 1, 1.5, 2} {
		for k := range sides {
			s, c := math.Sincos(2 * math.Pi * float64(k) / sides)
			ring := mgl32.Vec3{0.2 * float32(c), 0, 0.2 * float32(s)}
			p.Positions = append(p.Positions, ring.Add(mgl32.Vec3{0, y, 0}))
			p.Normals = append(p.Normals, ring.Normalize())
			p.Joints = append(p.Joints, [4]uint16{})
			p.Weights = append(p.Weights, mgl32.Vec4{1})
			p.Targets[0].Positions = append(p.Targets[0].Positions, mgl32.Vec3{0.6 * y, 0, 0})
			p.Targets[0].Normals = append(p.Targets[0].Normals, mgl32.Vec3{})
			p.Targets[1].Positions = append(p.Targets[1].Positions, ring.Mul(0.5))
		}
	}
	for r := range 4 {
		for k := range sides {
			a, c := uint32(sides*r+k), uint32(sides*r+(k+1)%sides)
			p.Indices = append(p.Indices, a, c, a+sides, c, c+sides, a+sides)
		}
	}
	mesh := b.AddMesh("tube", p)
	root := b.AddNode(gltf.Node{Name: "root", Mesh: -1})
	tube := b.AddNode(gltf.Node{Name: "tube", Mesh: mesh})
	b.AddSkin(gltf.Skeleton{Joints: []int{root}, Root: -1}, tube)
	b.AddAnimation(gltf.Animation{Channels: []gltf.Channel{{Node: tube, Path: gltf.Weights, Times: []float32{0, 1},
		Values: []float32{0, 0, 1, 1}}}})
	glb, err := b.GLB()
	if err != nil {
		t.Fatal(err)
	}
	m, err := gltf.Decode(glb, "morph.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// morphRef is the CPU reference: the weights of two snapshots lerped (the
// newer alone where the epoch changed), the tube morphed with them
// (gltf.Mesh.Morph), then skinned and rasterized as skinRef does.
func morphRef(m *gltf.Model, prev, next *simthread.Snapshot, alpha float32, cam renderer.Camera) []bool {
	w := make([]float32, len(next.MorphWeights))
	for i := range w {
		a := prev.MorphWeights[i]
		if prev.Skins[0].Epoch != next.Skins[0].Epoch {
			a = next.MorphWeights[i]
		}
		w[i] = a + (next.MorphWeights[i]-a)*alpha
	}
	mm := *m
	mm.Meshes = append([]gltf.Mesh(nil), m.Meshes...)
	me := &mm.Meshes[0]
	pos := make([]mgl32.Vec3, len(me.Positions))
	me.Morph(w, pos, nil, nil)
	me.Positions = pos
	return skinRef(&mm, next.Joints, next.Joints, alpha, cam)
}

// TestMorphMatchesCPU draws the morphed tube between two ticks of its
// weights animation ((0.2, 0.2) and (0.9, 0.9): leaning and widening) and
// compares the frame's silhouette with the CPU morph of the same weights:
// at the ticks (alpha 0 and 1), between them (the weights lerped on the
// GPU), and with the epoch changed (drawn at the newer weights). A
// renderer that draws the newer weights between ticks (SetSkinDrawNewer)
// must fail the comparison.
func TestMorphMatchesCPU(t *testing.T) {
	onMain(t, func(*platform.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		m := morphedTube(t)
		id, err := r.AddSkinned(m)
		if err != nil {
			return err
		}
		ch, err := renderer.NewCharacter(m)
		if err != nil {
			return err
		}
		if ch.Weights() != 2 {
			return fmt.Errorf("the character has %d weights, want 2", ch.Weights())
		}
		cam := frontCamera()
		cam.Distance = 5
		place := mgl32.Translate3D(-0.5, 4, 0)
		snap := func(tick uint64, at float32, epoch uint32) *simthread.Snapshot {
			ch.Pose(0, at)
			d := time.Duration(tick) * 10 * time.Millisecond
			return &simthread.Snapshot{Tick: tick, Time: d, Published: d,
				Skins:        []simthread.Skin{{Model: id, Color: simthread.White, Epoch: epoch}},
				Joints:       ch.Append(nil, place),
				MorphWeights: ch.AppendWeights(nil)}
		}
		empty := &simthread.Snapshot{Tick: 1}
		prev, next, jumped := snap(2, 0.2, 1), snap(3, 0.9, 1), snap(4, 0.2, 2)
		if w := next.MorphWeights; len(w) != 2 || math.Abs(float64(w[0])-0.9) > 1e-6 {
			return fmt.Errorf("weights at 0.9 s: %v", w)
		}
		seq := uint64(0)
		frame := func(a, b *simthread.Snapshot, alpha float32) (*image.RGBA, error) {
			seq += 2
			plan := interp.Plan{Prev: a, Next: b, PrevSeq: seq - 1, NextSeq: seq, Alpha: alpha, Ready: true}
			return render(r, plan, cam)
		}
		bg, err := frame(empty, empty, 1)
		if err != nil {
			return err
		}
		bg = cloneRGBA(bg)
		check := func(name string, a, b *simthread.Snapshot, alpha float32) (int, error) {
			img, err := frame(a, b, alpha)
			if err != nil {
				return 0, err
			}
			bad, covered := compareMask(img, bg, morphRef(m, a, b, alpha, cam))
			if covered < 500 {
				return 0, fmt.Errorf("%s: the tube covers %d pixels: too small to judge", name, covered)
			}
			if bad > covered/100 {
				return bad, fmt.Errorf("%s: %d of %d pixels off the CPU morph's silhouette%s", name, bad, covered, saveFailure(img))
			}
			t.Logf("%s: %d of %d pixels off the CPU morph's silhouette", name, bad, covered)
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
			{"jumped", next, jumped, 0.5},
		} {
			if _, err := check(c.name, c.a, c.b, c.alpha); err != nil {
				return err
			}
		}
		r.SetSkinDrawNewer(true)
		bad, err := check("between, drawn at the newer weights", prev, next, 0.5)
		r.SetSkinDrawNewer(false)
		if err == nil {
			return fmt.Errorf("drawing the newer weights between ticks passed (%d pixels off): the test cannot tell", bad)
		}
		t.Logf("the broken variant is caught: %v", err)
		return nil
	})
}

// TestMorphTurnsNormalsAndTangents draws a skinned, normal-mapped quad
// facing the camera in the normals view (renderer.ViewNormals: the
// normal after normal mapping, as a colour) under two morph targets: one
// turns its tangent from +x to +y (TANGENT displacements), the other
// tilts its normal towards +y (NORMAL displacements). The normal map
// tilts the normal 30° towards +u, so both show: the colour at the
// quad's centre must be the CPU's (the weights lerped, then the vertex
// normal and tangent displaced, Gram-Schmidt and the map as the shader
// applies them) within 3 of 255, at the ticks and between them; drawing
// the newer weights between ticks must not be.
func TestMorphTurnsNormalsAndTangents(t *testing.T) {
	onMain(t, func(*platform.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		var b gltf.Builder
		tilt := color.NRGBA{191, 128, 221, 255} // (0.5, 0, 0.87) encoded
		img := image.NewNRGBA(image.Rect(0, 0, 1, 1))
		img.SetNRGBA(0, 0, tilt)
		mat := gltf.DefaultMaterial()
		mat.Metallic, mat.Roughness, mat.NormalTexture = 0, 0.9, img
		mat.Sampling[gltf.NormalSlot].Sampler = gltf.Sampler{MagFilter: gltf.Nearest, MinFilter: gltf.Nearest}
		p := quadPrim(0, b.AddMaterial(mat))
		n := len(p.Positions)
		p.Joints, p.Weights = make([][4]uint16, n), make([]mgl32.Vec4, n)
		p.Tangents = make([]mgl32.Vec4, n)
		p.Targets = make([]gltf.Target, 2)
		for v := range n {
			p.Weights[v], p.Tangents[v] = mgl32.Vec4{1}, mgl32.Vec4{1, 0, 0, 1}
			p.Targets[0].Tangents = append(p.Targets[0].Tangents, mgl32.Vec3{-1, 1, 0})
			p.Targets[1].Normals = append(p.Targets[1].Normals, mgl32.Vec3{0, 1, 0})
		}
		root := b.AddNode(gltf.Node{Mesh: -1})
		b.AddSkin(gltf.Skeleton{Joints: []int{root}, Root: -1}, b.AddNode(gltf.Node{Mesh: b.AddMesh("quad", p)}))
		m, err := decodeBuilt(&b)
		if err != nil {
			return err
		}
		id, err := r.AddSkinned(m)
		if err != nil {
			return err
		}
		ch, err := renderer.NewCharacter(m)
		if err != nil {
			return err
		}
		r.SetView(renderer.ViewNormals)
		cam := frontCamera()
		place := mgl32.Translate3D(0, 5, 0).Mul4(mgl32.Scale3D(2, 2, 2)) // as quadBody: onQuad(0, 0) is its centre
		snap := func(tick uint64, w0, w1 float32) *simthread.Snapshot {
			d := time.Duration(tick) * 10 * time.Millisecond
			return &simthread.Snapshot{Tick: tick, Time: d, Published: d,
				Skins:        []simthread.Skin{{Model: id, Color: simthread.White, Epoch: 1}},
				Joints:       ch.Append(nil, place),
				MorphWeights: []float32{w0, w1}}
		}
		prev, next := snap(2, 0, 0), snap(3, 1, 1)
		// want is the shader's normal at weights w, as a colour.
		want := func(w float32) color.RGBA {
			nrm := mgl32.Vec3{0, w, 1}.Normalize()
			tan := mgl32.Vec3{1 - w, w, 0}
			tan = tan.Sub(nrm.Mul(nrm.Dot(tan))).Normalize()
			dec := func(c uint8) float32 { return float32(c)/255*2 - 1 }
			out := tan.Mul(dec(tilt.R)).Add(nrm.Cross(tan).Mul(dec(tilt.G))).Add(nrm.Mul(dec(tilt.B))).Normalize()
			return srgbRGBA(out.Mul(0.5).Add(mgl32.Vec3{0.5, 0.5, 0.5}))
		}
		seq := uint64(0)
		check := func(name string, alpha, at float32) error {
			seq += 2
			plan := interp.Plan{Prev: prev, Next: next, PrevSeq: seq - 1, NextSeq: seq, Alpha: alpha, Ready: true}
			frame, err := render(r, plan, cam)
			if err != nil {
				return err
			}
			return expect(frame, cam, onQuad(0, 0), want(at), 3, name+": the mapped normal")
		}
		for _, c := range []struct {
			name  string
			alpha float32
		}{{"older tick", 0}, {"newer tick", 1}, {"between", 0.5}, {"a quarter", 0.25}} {
			if err := check(c.name, c.alpha, c.alpha); err != nil {
				return err
			}
		}
		if want(0.5) == want(1) || want(0) == want(1) {
			return fmt.Errorf("the reference cannot tell the weights apart: %v, %v, %v", want(0), want(0.5), want(1))
		}
		r.SetSkinDrawNewer(true)
		err = check("between, drawn at the newer weights", 0.5, 0.5)
		r.SetSkinDrawNewer(false)
		if err == nil {
			return errors.New("drawing the newer weights between ticks passed: the test cannot tell")
		}
		t.Logf("the broken variant is caught: %v", err)
		return nil
	})
}
