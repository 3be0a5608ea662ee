package renderer_test

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tickframe/tickframe/renderer/gltf"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
)

// quad is a square of half-extent 1 in the plane z = 0, facing +z, with
// UVs that put the image's top-left corner at its top left.
func quad() renderer.Part {
	return renderer.Part{
		Positions: []mgl32.Vec3{{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}},
		Normals:   []mgl32.Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
		UVs:       []mgl32.Vec2{{0, 1}, {1, 1}, {1, 0}, {0, 0}},
		Indices:   []uint32{0, 1, 2, 0, 2, 3},
	}
}

// pyramid is a square pyramid of half-extent 1 with no normals given (the
// renderer computes them).
func pyramid() renderer.Part {
	return renderer.Part{
		Positions: []mgl32.Vec3{{-1, -1, -1}, {1, -1, -1}, {1, -1, 1}, {-1, -1, 1}, {0, 1, 0}},
		Indices:   []uint32{0, 1, 2, 0, 2, 3, 3, 2, 4, 2, 1, 4, 1, 0, 4, 0, 3, 4},
	}
}

// checker is a w×h image of four sRGB colours in its quadrants: top left,
// top right, bottom left, bottom right.
func checker(w, h int, c [4]color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, c[2*(2*y/h)+2*x/w])
		}
	}
	return img
}

// addTestScene registers meshes−1 meshes besides the cube (quads and
// pyramids) and, with more than one mesh, two materials besides the
// default, one textured; it returns every mesh id and material id.
func addTestScene(r *renderer.Renderer, meshes int) (ids []simthread.MeshID, mats []simthread.MaterialID, err error) {
	ids, mats = []simthread.MeshID{0}, []simthread.MaterialID{0}
	for k := 1; k < meshes; k++ {
		p := quad()
		if k%2 == 0 {
			p = pyramid()
		}
		id, err := r.AddMesh(p)
		if err != nil {
			return nil, nil, err
		}
		ids = append(ids, id)
	}
	if meshes > 1 {
		red := renderer.DefaultMaterial()
		red.BaseColor = mgl32.Vec4{0.8, 0.1, 0.05, 1}
		tex := renderer.DefaultMaterial()
		tex.BaseColorTexture = checker(16, 16, [4]color.NRGBA{{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 255, 255, 255}})
		for _, m := range []gltf.Material{red, tex} {
			id, err := r.AddMaterial(m)
			if err != nil {
				return nil, nil, err
			}
			mats = append(mats, id)
		}
	}
	return ids, mats, nil
}

// unlitFS holds material shaders for the tests: unlit.frag shows the base
// colour as it is (factor × texture × tint), so a pixel's colour is known
// exactly; normal.frag shows the normal as a colour.
var unlitFS = fstest.MapFS{
	"unlit.frag":  {Data: []byte("vec3 shade(Surface s) {\n    return s.baseColor.rgb;\n}\n")},
	"normal.frag": {Data: []byte("vec3 shade(Surface s) {\n    return s.normal * 0.5 + 0.5;\n}\n")},
}

// unlit returns an unlit material of the given linear base colour and
// texture.
func unlit(base mgl32.Vec4, tex image.Image) gltf.Material {
	m := renderer.DefaultMaterial()
	m.BaseColor, m.BaseColorTexture = base, tex
	m.Shader, m.ShaderFS = "unlit.frag", unlitFS
	return m
}

// frontCamera looks at (0, 5, 0) along −z from 10 m away, level.
func frontCamera() renderer.Camera {
	c := renderer.DefaultCamera()
	c.Target, c.Yaw, c.Pitch, c.Distance = mgl32.Vec3{0, 5, 0}, 0, 0, 10
	return c
}

// drawBodies draws one frame of bodies alone (no interpolation) and reads
// it back.
func drawBodies(r *renderer.Renderer, s *scene, cam renderer.Camera, bodies []simthread.Body) (*image.RGBA, error) {
	s.publish(uint64(len(s.snaps)+1), bodies)
	return render(r, s.newest(), cam)
}

// pixelAt returns the colour where world point p lands.
func pixelAt(img *image.RGBA, cam renderer.Camera, p mgl32.Vec3) (color.RGBA, error) {
	x, y, ok := project(cam, p, width, height)
	if !ok || x < 0 || y < 0 || x >= width || y >= height {
		return color.RGBA{}, fmt.Errorf("%v is off screen", p)
	}
	return img.RGBAAt(int(x), int(y)), nil
}

// near reports whether two sRGB colours are within tol per channel.
func near(a, b color.RGBA, tol int) bool {
	return absDiff(a.R, b.R) <= tol && absDiff(a.G, b.G) <= tol && absDiff(a.B, b.B) <= tol
}

// srgb encodes a linear value as an 8-bit sRGB value.
func srgb(v float64) uint8 {
	v = math.Max(0, math.Min(1, v))
	if v <= 0.0031308 {
		v *= 12.92
	} else {
		v = 1.055*math.Pow(v, 1/2.4) - 0.055
	}
	return uint8(math.Round(v * 255))
}

func newTestRenderer() (*renderer.Renderer, error) {
	r, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1})
	if err != nil {
		return nil, err
	}
	r.HUD().Visible = false
	return r, nil
}

var ident = mgl32.QuatIdent()

// TestMeshesAndTexturedMaterial draws two meshes in one frame, bodies of
// each interleaved in the snapshot (so the renderer must group them): a
// cube in one flat unlit colour and a quad with an unlit textured material
// whose texture has four sRGB colours in its quadrants. Each quadrant's
// centre, a texel centre, must show its colour within 2 of 255 per
// channel (the texture is decoded from sRGB when sampled and the shader
// encodes the result again), the right way up; each cube its colour. The
// built-in lighting then draws the same texture with the red quadrant
// still red.
func TestMeshesAndTexturedMaterial(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		colours := [4]color.NRGBA{{200, 60, 30, 255}, {40, 180, 90, 255}, {30, 70, 220, 255}, {240, 230, 120, 255}}
		tex := checker(8, 8, colours)
		quadMesh, err := r.AddMesh(quad())
		if err != nil {
			return err
		}
		textured, err := r.AddMaterial(unlit(mgl32.Vec4{1, 1, 1, 1}, tex))
		if err != nil {
			return err
		}
		flat, err := r.AddMaterial(unlit(mgl32.Vec4{0.2, 0.6, 0.9, 1}, nil))
		if err != nil {
			return err
		}
		lit := renderer.DefaultMaterial()
		lit.BaseColorTexture = tex // the same image: uploaded once
		litID, err := r.AddMaterial(lit)
		if err != nil {
			return err
		}
		cam := frontCamera()
		white := simthread.RGB(255, 255, 255)
		cubeAt := func(x float32) simthread.Body {
			return simthread.Body{Pos: mgl32.Vec3{x, 5, 0}, Scale: simthread.UniformScale(0.4), Rot: ident, Color: white, Material: flat}
		}
		quadBody := simthread.Body{Pos: mgl32.Vec3{0, 5, 0}, Scale: mgl32.Vec3{2, 2, 1}, Rot: ident, Color: white, Mesh: quadMesh, Material: textured}
		bodies := []simthread.Body{cubeAt(-3.5), quadBody, cubeAt(3.5), cubeAt(-3.5), cubeAt(3.5)}
		bodies[3].Pos[1], bodies[4].Pos[1] = 2.5, 2.5
		s := newScene()
		img, err := drawBodies(r, s, cam, bodies)
		if err != nil {
			return err
		}
		if r.DrawCalls() != 2 {
			return fmt.Errorf("%d draw calls for two meshes", r.DrawCalls())
		}
		for i, c := range colours {
			at := mgl32.Vec3{-1 + 2*float32(i%2), 1 - 2*float32(i/2), 0}.Add(quadBody.Pos)
			got, err := pixelAt(img, cam, at)
			if err != nil {
				return err
			}
			if want := (color.RGBA{c.R, c.G, c.B, 255}); !near(got, want, 2) {
				return fmt.Errorf("quadrant %d of the textured quad is %v, want %v%s", i, got, want, saveFailure(img))
			}
		}
		wantCube := color.RGBA{srgb(0.2), srgb(0.6), srgb(0.9), 255}
		for _, b := range []int{0, 2, 3, 4} {
			got, err := pixelAt(img, cam, bodies[b].Pos.Add(mgl32.Vec3{0, 0, 0.4}))
			if err != nil {
				return err
			}
			if !near(got, wantCube, 2) {
				return fmt.Errorf("cube %d is %v, want %v%s", b, got, wantCube, saveFailure(img))
			}
		}

		quadBody.Material = litID
		img, err = drawBodies(r, s, cam, []simthread.Body{quadBody})
		if err != nil {
			return err
		}
		got, err := pixelAt(img, cam, quadBody.Pos.Add(mgl32.Vec3{-1, 1, 0}))
		if err != nil {
			return err
		}
		if !(int(got.R) > int(got.G)+40 && int(got.R) > int(got.B)+40) {
			return fmt.Errorf("the lit red quadrant is %v%s", got, saveFailure(img))
		}
		return gl2err(gl.GetError())
	})
}

// TestNonUniformScale draws a cube scaled (3, 0.25, 0.25) into a bar,
// level and then turned 90° about z, and finds it covering the points its
// scale puts inside and not those it puts outside: the scale applies along
// the mesh's own axes, before the rotation. Then it checks the normal of a
// tilted quad under the scale (1, 2, 1): the inverse transpose's, not the
// scaled normal.
func TestNonUniformScale(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		red, err := r.AddMaterial(unlit(mgl32.Vec4{1, 0, 0, 1}, nil))
		if err != nil {
			return err
		}
		cam := frontCamera()
		s := newScene()
		c := mgl32.Vec3{0, 5, 0}
		isRed := func(c color.RGBA) bool { return c.R > 200 && c.G < 40 && c.B < 40 }
		for _, turn := range []bool{false, true} {
			bar := simthread.Body{Pos: c, Scale: mgl32.Vec3{3, 0.25, 0.25}, Rot: ident, Color: simthread.RGB(255, 255, 255), Material: red}
			long, short := mgl32.Vec3{2.7, 0, 0.25}, mgl32.Vec3{0, 0.6, 0.25}
			if turn {
				bar.Rot = mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 0, 1})
				long, short = mgl32.Vec3{0, 2.7, 0.25}, mgl32.Vec3{0.6, 0, 0.25}
			}
			img, err := drawBodies(r, s, cam, []simthread.Body{bar})
			if err != nil {
				return err
			}
			for _, p := range []struct {
				at   mgl32.Vec3
				want bool
			}{{c.Add(long), true}, {c.Sub(long), true}, {c.Add(short), false}, {c.Sub(short), false}} {
				got, err := pixelAt(img, cam, p.at)
				if err != nil {
					return err
				}
				if isRed(got) != p.want {
					return fmt.Errorf("turned %v: at %v the pixel is %v, want covered %v%s", turn, p.at, got, p.want, saveFailure(img))
				}
			}
		}

		// A quad tilted 45° back, scaled twice as tall: its surface's
		// normal is ∝ (0, 1, 2); scaling the normal itself would give
		// (0, 2, 1).
		normal, err := r.AddMaterial(gltf.Material{BaseColor: mgl32.Vec4{1, 1, 1, 1}, Shader: "normal.frag", ShaderFS: unlitFS})
		if err != nil {
			return err
		}
		q := quad()
		w := mgl32.Vec3{0, 1, -1}.Normalize()
		for i, p := range q.Positions {
			q.Positions[i] = mgl32.Vec3{p[0], 0, 0}.Add(w.Mul(p[1]))
			q.Normals[i] = mgl32.Vec3{0, 1, 1}.Normalize()
		}
		tilted, err := r.AddMesh(q)
		if err != nil {
			return err
		}
		body := simthread.Body{Pos: c, Scale: mgl32.Vec3{1, 2, 1}, Rot: ident, Color: simthread.RGB(255, 255, 255), Mesh: tilted, Material: normal}
		img, err := drawBodies(r, s, cam, []simthread.Body{body})
		if err != nil {
			return err
		}
		got, err := pixelAt(img, cam, c)
		if err != nil {
			return err
		}
		n := mgl32.Vec3{0, 1, 2}.Normalize()
		want := color.RGBA{srgb(0.5 + 0.5*float64(n[0])), srgb(0.5 + 0.5*float64(n[1])), srgb(0.5 + 0.5*float64(n[2])), 255}
		if !near(got, want, 3) {
			return fmt.Errorf("normal of the scaled tilted quad drawn as %v, want %v (normal %v)%s", got, want, n, saveFailure(img))
		}
		return nil
	})
}

// TestUnknownIDsFallBack draws a body naming a mesh and a material that
// were never registered, and a body naming the defaults, and finds the
// two frames identical; registering more changes nothing for ids below.
func TestUnknownIDsFallBack(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		if _, _, err := addTestScene(r, 3); err != nil {
			return err
		}
		if r.Meshes() != 3 || r.Materials() != 3 {
			return fmt.Errorf("%d meshes and %d materials registered, want 3 and 3", r.Meshes(), r.Materials())
		}
		cam := frontCamera()
		body := simthread.Body{Pos: mgl32.Vec3{0, 5, 0}, Scale: simthread.UniformScale(1.5), Rot: mgl32.QuatRotate(0.5, mgl32.Vec3{1, 1, 0}.Normalize()),
			Color: simthread.RGB(200, 150, 90)}
		s := newScene()
		want, err := drawBodies(r, s, cam, []simthread.Body{body})
		if err != nil {
			return err
		}
		want = copyImage(want)
		for _, ids := range []struct {
			mesh simthread.MeshID
			mat  simthread.MaterialID
		}{{3, 3}, {999, 0}, {0, 999}, {65535, 65535}} {
			b := body
			b.Mesh, b.Material = ids.mesh, ids.mat
			got, err := drawBodies(r, s, cam, []simthread.Body{b})
			if err != nil {
				return err
			}
			if d := diffPixels(got, want); d != 0 {
				return fmt.Errorf("mesh %d, material %d: %d pixels differ from the default cube%s", ids.mesh, ids.mat, d, saveFailure(got))
			}
		}
		return nil
	})
}

func copyImage(img *image.RGBA) *image.RGBA {
	c := *img
	c.Pix = append([]uint8(nil), img.Pix...)
	return &c
}

func diffPixels(a, b *image.RGBA) int {
	n := 0
	for i := 0; i < len(a.Pix); i += 4 {
		if a.Pix[i] != b.Pix[i] || a.Pix[i+1] != b.Pix[i+1] || a.Pix[i+2] != b.Pix[i+2] {
			n++
		}
	}
	return n
}

// TestShaderHook compiles a material's own shader, and checks that a
// broken one gives a *ShaderError naming its file, with the driver's log
// citing the file's own line and the file's numbered source; a shader
// without a shade function fails to link the same way; the renderer goes
// on drawing after either.
func TestShaderHook(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		files := fstest.MapFS{
			"toon.frag": {Data: []byte(`// Toon: three bands of sunlight.
vec3 shade(Surface s) {
    float d = max(dot(s.normal, s.lightDir), 0.0);
    d = floor(d * 3.0 + 0.5) / 3.0;
    return s.baseColor.rgb * (hemisphere(s.normal) + d * s.lightColor);
}
`)},
			"broken.frag": {Data: []byte(`// A typo on line 3.
vec3 shade(Surface s) {
    return s.baseColour.rgb;
}
`)},
			"noshade.frag": {Data: []byte("vec3 shadow(Surface s) {\n    return vec3(1.0);\n}\n")},
		}
		toon, err := r.AddMaterial(gltf.Material{BaseColor: mgl32.Vec4{1, 0.5, 0.2, 1}, Roughness: 1, Shader: "toon.frag", ShaderFS: files})
		if err != nil {
			return fmt.Errorf("a valid material shader: %v", err)
		}
		_, err = r.AddMaterial(gltf.Material{BaseColor: mgl32.Vec4{1, 1, 1, 1}, Shader: "broken.frag", ShaderFS: files})
		var se *renderer.ShaderError
		if !errors.As(err, &se) {
			return fmt.Errorf("a broken material shader gave %v, want a *ShaderError", err)
		}
		msg := err.Error()
		for _, want := range []string{"renderer: compile material shader broken.frag (fragment):", "0:3", "baseColour", "   3      return s.baseColour.rgb;"} {
			if !strings.Contains(msg, want) {
				t.Errorf("error does not contain %q:\n%s", want, msg)
			}
		}
		_, err = r.AddMaterial(gltf.Material{Shader: "noshade.frag", ShaderFS: files})
		if !errors.As(err, &se) || se.Stage != "link" || !strings.Contains(err.Error(), "shadow(Surface s)") {
			return fmt.Errorf("a material shader without shade gave %v, want a link *ShaderError with the numbered source", err)
		}
		if _, err := r.AddMaterial(gltf.Material{Shader: "missing.frag", ShaderFS: files}); err == nil || !strings.Contains(err.Error(), "missing.frag") {
			return fmt.Errorf("a missing material shader gave %v", err)
		}
		if r.Materials() != 2 {
			return fmt.Errorf("%d materials after one good and three failed, want 2", r.Materials())
		}
		if e := gl.GetError(); e != gl.NO_ERROR {
			return fmt.Errorf("failed materials left GL error 0x%x", e)
		}
		cam := frontCamera()
		img, err := drawBodies(r, newScene(), cam, []simthread.Body{{Pos: mgl32.Vec3{0, 5, 0}, Scale: simthread.UniformScale(1), Rot: ident,
			Color: simthread.RGB(255, 255, 255), Material: toon}})
		if err != nil {
			return err
		}
		got, err := pixelAt(img, cam, mgl32.Vec3{0, 5, 1})
		if err != nil {
			return err
		}
		if !(got.R > got.G && got.G > got.B && got.R > 60) {
			return fmt.Errorf("the toon-shaded cube's front is %v, want orange%s", got, saveFailure(img))
		}
		return nil
	})
}

// TestBadMeshesAndMaterials: registration refuses what it cannot draw,
// with an error, and leaves the registries as they were.
func TestBadMeshesAndMaterials(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		nan := float32(math.NaN())
		bad := func(f func(*renderer.Part)) renderer.Part {
			p := quad()
			f(&p)
			return p
		}
		for name, p := range map[string]renderer.Part{
			"no positions":       {},
			"index past the end": bad(func(p *renderer.Part) { p.Indices[2] = 4 }),
			"two indices":        bad(func(p *renderer.Part) { p.Indices = p.Indices[:2] }),
			"short normals":      bad(func(p *renderer.Part) { p.Normals = p.Normals[:3] }),
			"short UVs":          bad(func(p *renderer.Part) { p.UVs = p.UVs[:1] }),
			"NaN position":       bad(func(p *renderer.Part) { p.Positions[1][2] = nan }),
			"unknown material":   bad(func(p *renderer.Part) { p.Material = 9 }),
		} {
			if _, err := r.AddMesh(p); err == nil {
				return fmt.Errorf("AddMesh accepted a part with %s", name)
			}
		}
		if _, err := r.AddMesh(); err == nil {
			return errors.New("AddMesh accepted no parts")
		}
		for name, m := range map[string]gltf.Material{
			"NaN colour":       {BaseColor: mgl32.Vec4{nan, 0, 0, 1}},
			"negative colour":  {BaseColor: mgl32.Vec4{-1, 0, 0, 1}},
			"metallic 2":       {BaseColor: mgl32.Vec4{1, 1, 1, 1}, Metallic: 2},
			"roughness NaN":    {BaseColor: mgl32.Vec4{1, 1, 1, 1}, Roughness: nan},
			"empty texture":    {BaseColor: mgl32.Vec4{1, 1, 1, 1}, BaseColorTexture: image.NewNRGBA(image.Rect(0, 0, 0, 0))},
			"shader, no files": {Shader: "x.frag"},
		} {
			if _, err := r.AddMaterial(m); err == nil {
				return fmt.Errorf("AddMaterial accepted a material with %s", name)
			}
		}
		if r.Meshes() != 1 || r.Materials() != 1 {
			return fmt.Errorf("%d meshes and %d materials after failures, want the defaults alone", r.Meshes(), r.Materials())
		}
		return gl2err(gl.GetError())
	})
}

// TestTexturedGround draws the ground with a material whose texture has a
// colour per quadrant, repeating every 4 m, looking down at it: each
// quadrant's colour shows where the texture puts it; material 0 gives the
// plain grey ground back; bad arguments are refused.
func TestTexturedGround(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		tiles := renderer.DefaultMaterial()
		tiles.BaseColorTexture = checker(8, 8, [4]color.NRGBA{{230, 20, 20, 255}, {20, 230, 20, 255}, {20, 20, 230, 255}, {230, 230, 230, 255}})
		mat, err := r.AddMaterial(tiles)
		if err != nil {
			return err
		}
		if err := r.SetGround(mat, 4); err != nil {
			return err
		}
		cam := renderer.DefaultCamera()
		cam.Target, cam.Pitch, cam.Yaw, cam.Distance = mgl32.Vec3{2, 0, 2}, 1.45, 0, 8
		s := newScene()
		img, err := drawBodies(r, s, cam, nil)
		if err != nil {
			return err
		}
		dominant := func(c color.RGBA) int {
			switch {
			case int(c.R) > int(c.G)+60 && int(c.R) > int(c.B)+60:
				return 0
			case int(c.G) > int(c.R)+60 && int(c.G) > int(c.B)+60:
				return 1
			case int(c.B) > int(c.R)+60 && int(c.B) > int(c.G)+60:
				return 2
			}
			return 3
		}
		for q, at := range []mgl32.Vec3{{1.5, 0, 1.5}, {2.5, 0, 1.5}, {1.5, 0, 2.5}, {2.5, 0, 2.5}} {
			got, err := pixelAt(img, cam, at)
			if err != nil {
				return err
			}
			if dominant(got) != q || (q == 3 && got.R < 150) {
				return fmt.Errorf("ground at %v is %v, want the texture's quadrant %d%s", at, got, q, saveFailure(img))
			}
		}
		if err := r.SetGround(0, 1); err != nil {
			return err
		}
		img, err = drawBodies(r, s, cam, nil)
		if err != nil {
			return err
		}
		got, err := pixelAt(img, cam, mgl32.Vec3{1.5, 0, 1.5})
		if err != nil {
			return err
		}
		if absDiff(got.R, got.B) > 20 || got.R > 150 {
			return fmt.Errorf("the plain ground is %v, want dark grey%s", got, saveFailure(img))
		}
		for _, bad := range []struct {
			mat  simthread.MaterialID
			tile float32
		}{{9, 1}, {mat, 0}, {mat, float32(math.NaN())}, {mat, -1}} {
			if err := r.SetGround(bad.mat, bad.tile); err == nil {
				return fmt.Errorf("SetGround(%d, %v) accepted", bad.mat, bad.tile)
			}
		}
		return nil
	})
}
