package renderer_test

import (
	"fmt"
	"image/color"
	"math"
	"testing"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
)

// torusSurface is the outward normal of the torus of tube radius minor
// about the circle of radius 1 − minor in y = 0: from the circle's
// nearest point to p.
func torusSurface(minor float32) func(p mgl32.Vec3) (mgl32.Vec3, bool) {
	return func(p mgl32.Vec3) (mgl32.Vec3, bool) {
		radial := mgl32.Vec3{p[0], 0, p[2]}.Normalize()
		return p.Sub(radial.Mul(1 - minor)).Mul(1 / minor), true
	}
}

// watertight checks that every edge, vertices welded by position, is used
// once in each direction: a closed surface wound consistently.
func watertight(p renderer.Part) error {
	type key [3]int32
	weld := func(v mgl32.Vec3) key {
		return key{int32(math.Round(float64(v[0]) * 1e4)), int32(math.Round(float64(v[1]) * 1e4)), int32(math.Round(float64(v[2]) * 1e4))}
	}
	edges := make(map[[2]key]int)
	for i := 0; i+2 < len(p.Indices); i += 3 {
		a, b, c := weld(p.Positions[p.Indices[i]]), weld(p.Positions[p.Indices[i+1]]), weld(p.Positions[p.Indices[i+2]])
		edges[[2]key{a, b}]++
		edges[[2]key{b, c}]++
		edges[[2]key{c, a}]++
	}
	for e, n := range edges {
		if n != 1 || edges[[2]key{e[1], e[0]}] != 1 {
			return fmt.Errorf("edge %v is used %d times and %d times reversed", e, n, edges[[2]key{e[1], e[0]}])
		}
	}
	return nil
}

// checkTorus runs the primitive checks (normals true to the surface,
// triangles wound with them, UVs, bounds), watertightness, and that every
// triangle faces away from the tube's centre circle.
func checkTorus(p renderer.Part, minor float32) error {
	if err := checkPrimitive(primitive{"torus", p, false, torusSurface(minor)}); err != nil {
		return err
	}
	if err := watertight(p); err != nil {
		return err
	}
	for i := 0; i+2 < len(p.Indices); i += 3 {
		a, b, c := p.Positions[p.Indices[i]], p.Positions[p.Indices[i+1]], p.Positions[p.Indices[i+2]]
		// From the mean of the vertices' own tube centres to their mean.
		centre := func(v mgl32.Vec3) mgl32.Vec3 { return mgl32.Vec3{v[0], 0, v[2]}.Normalize().Mul(1 - minor) }
		out := a.Add(b).Add(c).Sub(centre(a)).Sub(centre(b)).Sub(centre(c))
		if b.Sub(a).Cross(c.Sub(a)).Dot(out) <= 0 {
			return fmt.Errorf("triangle %d faces the tube's centre", i/3)
		}
	}
	return nil
}

// TestTorusMesh checks the torus like every primitive (TestPrimitiveWinding's
// checks), closed and wound outwards from its tube, for a thin and a fat
// tube and the fewest facets; one with its triangles reversed fails.
func TestTorusMesh(t *testing.T) {
	for _, c := range []struct {
		minor          float32
		segments, side int
	}{{0.3, 48, 16}, {0.05, 24, 8}, {0.45, 3, 3}} {
		if err := checkTorus(renderer.TorusMesh(c.minor, c.segments, c.side), c.minor); err != nil {
			t.Errorf("TorusMesh(%v, %d, %d): %v", c.minor, c.segments, c.side, err)
		}
	}
	if err := checkTorus(renderer.TorusMesh(7, 1, 1), 0.25); err != nil { // out of range: 0.25, 3, 3
		t.Errorf("TorusMesh with its arguments out of range: %v", err)
	}
	bad := renderer.TorusMesh(0.3, 16, 8)
	for i := 0; i+2 < len(bad.Indices); i += 3 {
		bad.Indices[i+1], bad.Indices[i+2] = bad.Indices[i+2], bad.Indices[i+1]
	}
	if checkTorus(bad, 0.3) == nil {
		t.Error("a torus wound inside out passed the checks")
	}
}

// TestTransformPartNormals: a unit sphere scaled by (2, 1, 1) is the
// ellipsoid x²/4 + y² + z² = 1, whose normal at (x, y, z) is along
// (x/4, y, z): every placed vertex's normal must be that (the inverse
// transpose), which transforming the normals by the matrix itself is
// not; a rotation and translation move normals by the rotation alone.
func TestTransformPartNormals(t *testing.T) {
	sphere := renderer.SphereMesh(16, 8)
	m := mgl32.Translate3D(0, 3, 0).Mul4(mgl32.Scale3D(2, 1, 1))
	got := renderer.TransformPart(sphere, m)
	naiveOff := false
	for i, p := range got.Positions {
		q := p.Sub(mgl32.Vec3{0, 3, 0})
		want := mgl32.Vec3{q[0] / 4, q[1], q[2]}.Normalize()
		if got.Normals[i].Sub(want).Len() > 1e-5 {
			t.Fatalf("vertex %d at %v: normal %v, want %v", i, p, got.Normals[i], want)
		}
		if naive := m.Mat3().Mul3x1(sphere.Normals[i]).Normalize(); naive.Sub(want).Len() > 0.1 {
			naiveOff = true
		}
	}
	if !naiveOff {
		t.Error("normals transformed by the matrix itself matched the ellipsoid's too: the case cannot fail")
	}
	if err := watertight(got); err != nil {
		t.Error(err)
	}
	rot := mgl32.HomogRotate3D(0.7, mgl32.Vec3{1, 2, 3}.Normalize())
	r := renderer.TransformPart(renderer.BoxMesh(), mgl32.Translate3D(5, 0, 0).Mul4(rot))
	box := renderer.BoxMesh()
	for i := range r.Normals {
		if want := rot.Mat3().Mul3x1(box.Normals[i]); r.Normals[i].Sub(want).Len() > 1e-5 {
			t.Fatalf("rotated box normal %d: %v, want %v", i, r.Normals[i], want)
		}
	}
}

// TestTransformPartMirror: a box mirrored in x (and one mirrored in all
// three axes) keeps its triangles counter-clockwise from outside and its
// normals outward, closed (the checks of every primitive); the same
// mirror with the triangles left as they were fails those checks. A
// tangent's handedness follows the mirror: the placed bitangent
// w'·(n' × t') is the mirrored bitangent.
func TestTransformPartMirror(t *testing.T) {
	for _, s := range []mgl32.Vec3{{-1, 1, 1}, {-1, -1, -1}, {1, -0.5, 1}} {
		m := mgl32.Scale3D(s[0], s[1], s[2])
		got := renderer.TransformPart(renderer.BoxMesh(), m)
		if err := checkPrimitive(primitive{"mirrored box", got, true, func(mgl32.Vec3) (mgl32.Vec3, bool) { return mgl32.Vec3{}, false }}); err != nil {
			t.Errorf("box scaled by %v: %v", s, err)
		}
		naive := renderer.BoxMesh()
		for i, p := range naive.Positions {
			naive.Positions[i] = mgl32.Vec3{p[0] * s[0], p[1] * s[1], p[2] * s[2]}
			naive.Normals[i] = got.Normals[i]
		}
		if checkPrimitive(primitive{"naive", naive, true, func(mgl32.Vec3) (mgl32.Vec3, bool) { return mgl32.Vec3{}, false }}) == nil {
			t.Errorf("box scaled by %v with its triangles as they were passed the checks", s)
		}
	}
	plane := renderer.PlaneMesh()
	for range plane.Positions {
		plane.Tangents = append(plane.Tangents, mgl32.Vec4{1, 0, 0, 1})
	}
	m := mgl32.Scale3D(-1, 1, 1)
	got := renderer.TransformPart(plane, m)
	for i, tg := range got.Tangents {
		n, t3, w := plane.Normals[i], plane.Tangents[i].Vec3(), plane.Tangents[i][3]
		wantBit := m.Mat3().Mul3x1(n.Cross(t3).Mul(w))
		if gotBit := got.Normals[i].Cross(tg.Vec3()).Mul(tg[3]); gotBit.Sub(wantBit).Len() > 1e-6 || tg.Vec3() != (mgl32.Vec3{-1, 0, 0}) {
			t.Fatalf("mirrored tangent %v: bitangent %v, want %v", tg, gotBit, wantBit)
		}
	}
}

// TestMeshBuilder joins a sphere and a box placed apart into one part
// (same material and attributes): every triangle keeps its part's
// vertices (the indices offset), the whole is watertight, and each part's
// vertices lie where their transform puts them; a part with another
// material stays a part of its own.
func TestMeshBuilder(t *testing.T) {
	var b renderer.MeshBuilder
	sphere, box := renderer.SphereMesh(12, 6), renderer.BoxMesh()
	b.Add(sphere, mgl32.Scale3D(0.5, 0.5, 0.5))
	b.Add(box, mgl32.Translate3D(3, 0, 0).Mul4(mgl32.Scale3D(-0.25, 0.25, 0.25)))
	parts := b.Parts()
	if len(parts) != 1 {
		t.Fatalf("%d parts, want 1", len(parts))
	}
	p := parts[0]
	if len(p.Positions) != len(sphere.Positions)+len(box.Positions) || len(p.Indices) != len(sphere.Indices)+len(box.Indices) || len(p.UVs) != len(p.Positions) {
		t.Fatalf("%d positions, %d indices, %d UVs", len(p.Positions), len(p.Indices), len(p.UVs))
	}
	if err := watertight(p); err != nil {
		t.Fatal(err)
	}
	// The box at x = 3 leaves [−1, 1]³, which checkPrimitive asks of a
	// primitive: the winding is checked against the normals here.
	for i := 0; i+2 < len(p.Indices); i += 3 {
		ix := p.Indices[i : i+3]
		a, bb, c := p.Positions[ix[0]], p.Positions[ix[1]], p.Positions[ix[2]]
		ns := p.Normals[ix[0]].Add(p.Normals[ix[1]]).Add(p.Normals[ix[2]])
		if bb.Sub(a).Cross(c.Sub(a)).Dot(ns) <= 0 {
			t.Fatalf("joined triangle %d is wound against its normals", i/3)
		}
		boxTri := i >= len(sphere.Indices)
		for _, k := range ix {
			if onBox := int(k) >= len(sphere.Positions); onBox != boxTri {
				t.Fatalf("triangle %d uses vertex %d of the other part", i/3, k)
			}
			v := p.Positions[k]
			if boxTri && (math.Abs(float64(v[0]-3)) > 0.25+1e-6 || math.Abs(float64(v[1])) > 0.25+1e-6) || !boxTri && v.Len() > 0.5+1e-6 {
				t.Fatalf("vertex %d at %v is not where its part was placed", k, v)
			}
		}
	}
	red := renderer.BoxMesh()
	red.Material = 3
	b.Add(red, mgl32.Ident4())
	if n := len(b.Parts()); n != 2 {
		t.Errorf("after a part with another material: %d parts, want 2", n)
	}
	noUV := renderer.BoxMesh()
	noUV.UVs = nil
	b.Add(noUV, mgl32.Ident4())
	if n := len(b.Parts()); n != 3 || b.Parts()[2].UVs != nil {
		t.Errorf("after a part without UVs: %d parts, want 3, the last without UVs", n)
	}
}

// TestTorusDrawsOutsideIn draws the torus, stood up to face the camera
// (its axis along z), with the normal-as-colour material, and reads the
// frame back: at the tube's front, at 45° round the tube on its outer
// side, and on its inner side, the frame shows the outward normal; the
// hole shows the sky. A torus with its triangles reversed must fail.
func TestTorusDrawsOutsideIn(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		r.SetGroundVisible(false)
		nm := unlit(mgl32.Vec4{1, 1, 1, 1}, nil)
		nm.Shader = "normal.frag"
		normals, err := r.AddMaterial(nm)
		if err != nil {
			return err
		}
		const minor = 0.3
		reversed := renderer.TorusMesh(minor, 64, 24)
		for i := 0; i+2 < len(reversed.Indices); i += 3 {
			reversed.Indices[i+1], reversed.Indices[i+2] = reversed.Indices[i+2], reversed.Indices[i+1]
		}
		cam := frontCamera()
		centre := mgl32.Vec3{0, 5, 0}
		stand := mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{1, 0, 0}) // y → z: the ring faces +z
		s := newScene()
		sky := color.RGBA{}
		for _, c := range []struct {
			name string
			part renderer.Part
			bad  bool
		}{{"torus", renderer.TorusMesh(minor, 64, 24), false}, {"reversed torus", reversed, true}} {
			id, err := r.AddMesh(c.part)
			if err != nil {
				return err
			}
			img, err := drawBodies(r, s, cam, []simthread.Body{{Pos: centre, Rot: stand, Scale: simthread.UniformScale(2), Mesh: id, Material: normals, Color: simthread.White}})
			if err != nil {
				return err
			}
			if sky == (color.RGBA{}) {
				sky = img.RGBAAt(2, 2)
			}
			const major = 1 - minor
			var bad error
			// Points of the tube about its centre at (major, 0, 0) in the
			// ring's frame (scaled by 2): the normal n, stood up.
			for _, n := range []mgl32.Vec3{{0, 1, 0}, {0.7071, 0.7071, 0}, {-0.7071, 0.7071, 0}} {
				local := mgl32.Vec3{major, 0, 0}.Add(n.Mul(minor)).Mul(2)
				world := centre.Add(stand.Rotate(local))
				got, err := pixelAt(img, cam, world)
				if err != nil {
					return err
				}
				if want := normalColour(stand.Rotate(n)); !near(got, want, 14) {
					bad = fmt.Errorf("%s: at normal %v the frame shows %v, want %v%s", c.name, stand.Rotate(n), got, want, saveFailure(img))
					break
				}
			}
			if got, _ := pixelAt(img, cam, centre); bad == nil && !near(got, sky, 2) {
				bad = fmt.Errorf("%s: the hole shows %v, not the sky %v%s", c.name, got, sky, saveFailure(img))
			}
			if c.bad != (bad != nil) {
				if bad == nil {
					bad = fmt.Errorf("%s: drawn as if it were the right way out", c.name)
				}
				return bad
			}
		}
		return gl2err(gl.GetError())
	})
}
