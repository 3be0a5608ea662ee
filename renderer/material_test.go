package renderer_test

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"testing"
	"testing/fstest"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
)

// The material feature tests write their models with gltf.Builder, decode
// them and draw them, so that what is checked is the whole path from a
// file to the pixels. Where a value must be exact they draw with a probe
// shader that shows one field of the Surface as the colour (the built-in
// lighting would mix it with the light); where the lighting itself is what
// is tested, with the built-in one.
var probeFS = fstest.MapFS{
	"unlit.frag":     {Data: []byte("vec3 shade(Surface s) { return s.baseColor.rgb; }\n")},
	"normal.frag":    {Data: []byte("vec3 shade(Surface s) { return s.normal * 0.5 + 0.5; }\n")},
	"emissive.frag":  {Data: []byte("vec3 shade(Surface s) { return s.emissive; }\n")},
	"pbr.frag":       {Data: []byte("vec3 shade(Surface s) { return vec3(s.metallic, s.roughness, s.occlusion); }\n")},
	"alpha.frag":     {Data: []byte("vec3 shade(Surface s) { return vec3(s.baseColor.a); }\n")},
	"twoSided.frag":  {Data: []byte("vec3 shade(Surface s) { return standardShading(s); }\n")},
	"uv.frag":        {Data: []byte("vec3 shade(Surface s) { return vec3(s.uv, 0.0); }\n")},
	"vertexcol.frag": {Data: []byte("vec3 shade(Surface s) { return s.baseColor.rgb; }\n")},
}

// decodeBuilt writes b as a GLB, decodes it and checks that nothing in it
// was ignored.
func decodeBuilt(b *gltf.Builder) (*gltf.Model, error) {
	glb, err := b.GLB()
	if err != nil {
		return nil, err
	}
	m, err := gltf.Decode(glb, "test.glb", nil)
	if err != nil {
		return nil, err
	}
	if len(m.Ignored) > 0 {
		return nil, fmt.Errorf("the decoder ignored %q", m.Ignored)
	}
	return m, nil
}

// addDecoded registers every decoded primitive of m as a part of one mesh
// with its material drawn by the probe shader (the built-in lighting for
// ""), tangents computed where a normal map needs them and the file has
// none, as AddModel does; it returns the mesh.
func addDecoded(r *renderer.Renderer, m *gltf.Model, shader string) (simthread.MeshID, error) {
	ids := make([]simthread.MaterialID, len(m.Materials))
	for i := range m.Materials {
		mat := m.Materials[i]
		if shader != "" {
			mat.Shader, mat.ShaderFS = shader, probeFS
		}
		var err error
		if ids[i], err = r.AddMaterial(mat); err != nil {
			return 0, err
		}
	}
	var parts []renderer.Part
	for _, me := range m.Meshes {
		p := renderer.Part{Positions: me.Positions, Normals: me.Normals, UVs: me.UVs, UVs1: me.UVs1,
			Colors: me.Colors, Tangents: me.Tangents, Indices: me.Indices}
		if me.Material >= 0 {
			p.Material = ids[me.Material]
			if m.Materials[me.Material].NormalTexture != nil && p.Tangents == nil {
				p.Tangents = renderer.Tangents(p.Positions, p.Normals, p.UVs, p.Indices)
			}
		}
		parts = append(parts, p)
	}
	return r.AddMesh(parts...)
}

// quadPrim is quad() as a glTF primitive at depth z, with material mat.
func quadPrim(z float32, mat int) gltf.Primitive {
	q := quad()
	pos := make([]mgl32.Vec3, len(q.Positions))
	for i, p := range q.Positions {
		pos[i] = mgl32.Vec3{p[0], p[1], z}
	}
	return gltf.Primitive{Positions: pos, Normals: q.Normals, UVs: q.UVs, Indices: q.Indices, Material: mat}
}

// quadBody is a body drawing mesh mesh at (0, 5, 0), 2 m to a side of
// quad(), unrotated.
func quadBody(mesh simthread.MeshID) simthread.Body {
	return simthread.Body{Pos: mgl32.Vec3{0, 5, 0}, Scale: simthread.UniformScale(2), Rot: ident, Color: simthread.White, Mesh: mesh}
}

// onQuad returns the world point of quad() coordinates (x, y) on a
// quadBody.
func onQuad(x, y float32) mgl32.Vec3 { return mgl32.Vec3{2 * x, 5 + 2*y, 0} }

// srgbRGBA encodes a linear colour as the frame holds it.
func srgbRGBA(c mgl32.Vec3) color.RGBA {
	return color.RGBA{srgb(float64(c[0])), srgb(float64(c[1])), srgb(float64(c[2])), 255}
}

// skyRGBA is the clear colour, which shows where nothing is drawn (the
// tests look above the ground's horizon, level).
var skyRGBA = color.RGBA{14, 15, 19, 255}

// expect checks that the pixel at world point p is want within tol.
func expect(img *image.RGBA, cam renderer.Camera, p mgl32.Vec3, want color.RGBA, tol int, what string) error {
	got, err := pixelAt(img, cam, p)
	if err != nil {
		return err
	}
	if !near(got, want, tol) {
		return fmt.Errorf("%s at %v is %v, want %v within %d%s", what, p, got, want, tol, saveFailure(img))
	}
	return nil
}

// TestVertexColours draws a quad whose four corners have the linear
// colours reddish, greenish, bluish and white (COLOR_0, written as float
// RGBA), unlit: near each corner, and near the centre, the pixel is the
// colour the rasterizer's barycentric interpolation gives there, within 3
// of 255.
func TestVertexColours(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		sc := newScene() // one for the test: a new one would restart the sequence numbers the renderer tags its buffers with
		var b gltf.Builder
		mat := renderer.DefaultMaterial()
		p := quadPrim(0, b.AddMaterial(mat))
		// No channel near 0, where the sRGB curve is steep and a pixel's
		// offset from the point looked at would show.
		p.Colors = []mgl32.Vec4{{1, 0.2, 0.2, 1}, {0.2, 1, 0.2, 1}, {0.2, 0.2, 1, 1}, {1, 1, 1, 1}}
		b.AddNode(gltf.Node{Mesh: b.AddMesh("quad", p)})
		m, err := decodeBuilt(&b)
		if err != nil {
			return err
		}
		mesh, err := addDecoded(r, m, "unlit.frag")
		if err != nil {
			return err
		}
		cam := frontCamera()
		img, err := drawBodies(r, sc, cam, []simthread.Body{quadBody(mesh)})
		if err != nil {
			return err
		}
		corner := [4]mgl32.Vec2{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}
		// Near each corner and the centre, off the diagonal the two
		// triangles share.
		for _, at := range []mgl32.Vec2{{-0.8, -0.9}, {0.9, -0.9}, {0.8, 0.9}, {-0.9, 0.9}, {0.1, -0.1}} {
			tri := [3]int{0, 1, 2} // below the diagonal from corner 0 to 2
			if at[1] > at[0] {
				tri = [3]int{0, 2, 3}
			}
			w := bary(at, corner[tri[0]], corner[tri[1]], corner[tri[2]])
			var want mgl32.Vec3
			for k, i := range tri {
				want = want.Add(p.Colors[i].Vec3().Mul(w[k]))
			}
			if err := expect(img, cam, onQuad(at[0], at[1]), srgbRGBA(want), 3, "the vertex-coloured quad"); err != nil {
				return err
			}
		}
		return nil
	})
}

// bary returns the barycentric coordinates of p in triangle a, b, c.
func bary(p, a, b, c mgl32.Vec2) [3]float32 {
	v0, v1, v2 := b.Sub(a), c.Sub(a), p.Sub(a)
	d := v0[0]*v1[1] - v1[0]*v0[1]
	v := (v2[0]*v1[1] - v1[0]*v2[1]) / d
	w := (v0[0]*v2[1] - v2[0]*v0[1]) / d
	return [3]float32{1 - v - w, v, w}
}

// TestAlphaMask draws a quad whose texture's alpha is 0.2 on its left
// half and 0.9 on its right, with MASK at cutoff 0.5: the left half is
// cut (the sky shows), the right half drawn; the same quad OPAQUE is
// drawn all over, alpha ignored.
func TestAlphaMask(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		sc := newScene() // one for the test: a new one would restart the sequence numbers the renderer tags its buffers with
		tex := image.NewNRGBA(image.Rect(0, 0, 8, 8))
		for y := range 8 {
			for x := range 8 {
				a := uint8(51) // 0.2
				if x >= 4 {
					a = 230 // 0.9
				}
				tex.SetNRGBA(x, y, color.NRGBA{200, 150, 40, a})
			}
		}
		want := color.RGBA{200, 150, 40, 255}
		for _, mode := range []gltf.AlphaMode{gltf.Mask, gltf.Opaque} {
			var b gltf.Builder
			mat := gltf.DefaultMaterial()
			mat.BaseColorTexture, mat.AlphaMode, mat.AlphaCutoff = tex, mode, 0.5
			b.AddNode(gltf.Node{Mesh: b.AddMesh("quad", quadPrim(0, b.AddMaterial(mat)))})
			m, err := decodeBuilt(&b)
			if err != nil {
				return err
			}
			if got := m.Materials[0].AlphaMode; got != mode {
				return fmt.Errorf("alpha mode %v decoded as %v", mode, got)
			}
			mesh, err := addDecoded(r, m, "unlit.frag")
			if err != nil {
				return err
			}
			cam := frontCamera()
			img, err := drawBodies(r, sc, cam, []simthread.Body{quadBody(mesh)})
			if err != nil {
				return err
			}
			left := want
			if mode == gltf.Mask {
				left = skyRGBA
			}
			if err := expect(img, cam, onQuad(-0.5, 0.5), left, 2, mode.String()+" quad's left half (alpha 0.2)"); err != nil {
				return err
			}
			if err := expect(img, cam, onQuad(0.5, 0.5), want, 2, mode.String()+" quad's right half (alpha 0.9)"); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestAlphaBlend draws, in one mesh, two blended quads in front of an
// opaque one, registered nearest first and the opaque one last: the
// renderer must draw the opaque part first, then the blended ones back to
// front. Where all three overlap, the pixel is the blend the material
// documents, on the encoded colours, far quad over the background, then
// the near one over that: 8-bit values within 3.
func TestAlphaBlend(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		sc := newScene() // one for the test: a new one would restart the sequence numbers the renderer tags its buffers with
		var b gltf.Builder
		bg := gltf.DefaultMaterial()
		bg.BaseColor = mgl32.Vec4{0.05, 0.6, 0.1, 1}
		near := gltf.DefaultMaterial()
		near.BaseColor, near.AlphaMode = mgl32.Vec4{0.9, 0.1, 0.1, 0.5}, gltf.Blend
		far := gltf.DefaultMaterial()
		far.BaseColor, far.AlphaMode = mgl32.Vec4{0.1, 0.2, 0.9, 0.3}, gltf.Blend
		b.AddNode(gltf.Node{Mesh: b.AddMesh("layers",
			quadPrim(0.5, b.AddMaterial(near)), quadPrim(0, b.AddMaterial(far)), quadPrim(-0.5, b.AddMaterial(bg)))})
		m, err := decodeBuilt(&b)
		if err != nil {
			return err
		}
		mesh, err := addDecoded(r, m, "unlit.frag")
		if err != nil {
			return err
		}
		cam := frontCamera()
		img, err := drawBodies(r, sc, cam, []simthread.Body{quadBody(mesh)})
		if err != nil {
			return err
		}
		over := func(src mgl32.Vec4, dst [3]float64) [3]float64 {
			a := float64(src[3])
			for k := range 3 {
				dst[k] = float64(srgb(float64(src[k])))*a + dst[k]*(1-a)
			}
			return dst
		}
		base := srgbRGBA(bg.BaseColor.Vec3())
		v := over(near.BaseColor, over(far.BaseColor, [3]float64{float64(base.R), float64(base.G), float64(base.B)}))
		want := color.RGBA{uint8(math.Round(v[0])), uint8(math.Round(v[1])), uint8(math.Round(v[2])), 255}
		// The middle of the quads: all three cover it (the farther ones a
		// little larger on screen than the near one's edges). The frame's
		// alpha stays opaque.
		if err := expect(img, cam, onQuad(0, 0), want, 3, "near over far over opaque"); err != nil {
			return err
		}
		if got, _ := pixelAt(img, cam, onQuad(0, 0)); got.A != 255 {
			return fmt.Errorf("blending left the frame's alpha at %d, want 255%s", got.A, saveFailure(img))
		}
		return nil
	})
}

// TestDoubleSided draws a quad turned away from the camera: single sided,
// it is culled (the sky shows); double sided, it is drawn with its normal
// turned towards the camera (the normal probe shows +z), and lit by the
// built-in lighting as a front face would be.
func TestDoubleSided(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		sc := newScene() // one for the test: a new one would restart the sequence numbers the renderer tags its buffers with
		away := mgl32.QuatRotate(math.Pi, mgl32.Vec3{0, 1, 0})
		cam := frontCamera()
		for _, c := range []struct {
			double bool
			shader string
			want   func(color.RGBA) error
		}{
			{false, "normal.frag", func(got color.RGBA) error {
				if !near(got, skyRGBA, 2) {
					return fmt.Errorf("a single-sided quad seen from behind is drawn: %v", got)
				}
				return nil
			}},
			{true, "normal.frag", func(got color.RGBA) error {
				if want := srgbRGBA(mgl32.Vec3{0.5, 0.5, 1}); !near(got, want, 2) {
					return fmt.Errorf("a double-sided quad seen from behind shows normal %v, want +z %v", got, want)
				}
				return nil
			}},
			{true, "", func(got color.RGBA) error {
				if got.R < 60 || got.G < 60 {
					return fmt.Errorf("a double-sided quad seen from behind is not lit: %v", got)
				}
				return nil
			}},
		} {
			var b gltf.Builder
			mat := gltf.DefaultMaterial()
			mat.BaseColor, mat.Metallic, mat.DoubleSided = mgl32.Vec4{0.8, 0.8, 0.8, 1}, 0, c.double
			b.AddNode(gltf.Node{Mesh: b.AddMesh("quad", quadPrim(0, b.AddMaterial(mat)))})
			m, err := decodeBuilt(&b)
			if err != nil {
				return err
			}
			mesh, err := addDecoded(r, m, c.shader)
			if err != nil {
				return err
			}
			body := quadBody(mesh)
			body.Rot = away
			img, err := drawBodies(r, sc, cam, []simthread.Body{body})
			if err != nil {
				return err
			}
			got, err := pixelAt(img, cam, onQuad(0.3, 0.3))
			if err != nil {
				return err
			}
			if err := c.want(got); err != nil {
				return fmt.Errorf("double sided %v, shader %q: %w%s", c.double, c.shader, err, saveFailure(img))
			}
		}
		return nil
	})
}

// normalMap is a 2×2 tangent-space normal map: its top left tilts the
// normal 30° towards +u, its top right towards −u, its bottom left up
// the image, its bottom right down.
func normalMap() (*image.NRGBA, [4]mgl32.Vec3) {
	s, c := float32(0.5), float32(math.Sqrt(3)/2)
	ns := [4]mgl32.Vec3{{s, 0, c}, {-s, 0, c}, {0, s, c}, {0, -s, c}}
	img := image.NewNRGBA(image.Rect(0, 0, 2, 2))
	for i, n := range ns {
		enc := func(v float32) uint8 { return uint8(math.Round(float64(v+1) / 2 * 255)) }
		img.SetNRGBA(i%2, i/2, color.NRGBA{enc(n[0]), enc(n[1]), enc(n[2]), 255})
	}
	return img, ns
}

// TestNormalMap draws a quad facing the camera with normalMap, nearest
// filtered. With tangents computed (none in the file), the normal probe
// shows each quadrant's normal in the world, +u being +x and up the image
// +y: within 3 of 255 per channel. With tangents in the file that say the
// opposite (−x, handedness −1), the u tilts swap and the v tilts stay, so
// the file's are used. With the built-in lighting (through AddModel), the
// quadrant tilted towards the sun (which is to the left, −x) is brighter
// than the one tilted away.
func TestNormalMap(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		sc := newScene() // one for the test: a new one would restart the sequence numbers the renderer tags its buffers with
		img, ns := normalMap()
		build := func(tangents []mgl32.Vec4) (*gltf.Model, error) {
			var b gltf.Builder
			mat := gltf.DefaultMaterial()
			mat.Metallic, mat.Roughness, mat.NormalTexture = 0, 0.9, img
			mat.Sampling[gltf.NormalSlot].Sampler = gltf.Sampler{MagFilter: gltf.Nearest, MinFilter: gltf.Nearest}
			p := quadPrim(0, b.AddMaterial(mat))
			p.Tangents = tangents
			b.AddNode(gltf.Node{Mesh: b.AddMesh("quad", p)})
			return decodeBuilt(&b)
		}
		cam := frontCamera()
		quadrant := [4]mgl32.Vec2{{-0.5, 0.5}, {0.5, 0.5}, {-0.5, -0.5}, {0.5, -0.5}}
		flipped := []mgl32.Vec4{{-1, 0, 0, -1}, {-1, 0, 0, -1}, {-1, 0, 0, -1}, {-1, 0, 0, -1}}
		for _, c := range []struct {
			name     string
			tangents []mgl32.Vec4
			flipU    float32
		}{{"computed tangents", nil, 1}, {"the file's tangents", flipped, -1}} {
			m, err := build(c.tangents)
			if err != nil {
				return err
			}
			mesh, err := addDecoded(r, m, "normal.frag")
			if err != nil {
				return err
			}
			frame, err := drawBodies(r, sc, cam, []simthread.Body{quadBody(mesh)})
			if err != nil {
				return err
			}
			for i, q := range quadrant {
				n := mgl32.Vec3{c.flipU * ns[i][0], ns[i][1], ns[i][2]}
				if err := expect(frame, cam, onQuad(q[0], q[1]), srgbRGBA(n.Mul(0.5).Add(mgl32.Vec3{0.5, 0.5, 0.5})), 3,
					fmt.Sprintf("with %s, quadrant %d's normal", c.name, i)); err != nil {
					return err
				}
			}
		}
		m, err := build(nil)
		if err != nil {
			return err
		}
		mesh, err := r.AddModel(m, mgl32.Ident4())
		if err != nil {
			return err
		}
		frame, err := drawBodies(r, sc, cam, []simthread.Body{quadBody(mesh)})
		if err != nil {
			return err
		}
		towards, err := pixelAt(frame, cam, onQuad(quadrant[1][0], quadrant[1][1])) // tilted to −x
		if err != nil {
			return err
		}
		awayFrom, err := pixelAt(frame, cam, onQuad(quadrant[0][0], quadrant[0][1]))
		if err != nil {
			return err
		}
		if int(towards.G) < int(awayFrom.G)+15 {
			return fmt.Errorf("lit: the quadrant tilted towards the sun is %v, the one tilted away %v: want it brighter%s", towards, awayFrom, saveFailure(frame))
		}
		return nil
	})
}

// TestTextureKinds checks each texture slot's value and colour space
// through the probe shaders, with a texture of 8-bit value 128 (sRGB
// 0.216 linear, or 0.502 as linear data): the base colour and emissive
// textures are decoded from sRGB (the frame shows 128 again), the
// metallic-roughness (blue, green) and occlusion (red) textures are read
// as linear data, scaled by their factors and strength; emissive strength
// multiplies the factor.
func TestTextureKinds(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		sc := newScene() // one for the test: a new one would restart the sequence numbers the renderer tags its buffers with
		grey := solid(4, 4, color.NRGBA{128, 128, 128, 255})
		const lin = 128.0 / 255
		for _, c := range []struct {
			name   string
			shader string
			set    func(*gltf.Material)
			want   mgl32.Vec3
		}{
			{"base colour", "unlit.frag", func(m *gltf.Material) { m.BaseColorTexture = grey }, mgl32.Vec3{0.2158605, 0.2158605, 0.2158605}},
			{"emissive", "emissive.frag", func(m *gltf.Material) {
				m.EmissiveTexture, m.Emissive = grey, mgl32.Vec3{1, 0.5, 2} // 2: KHR_materials_emissive_strength
			}, mgl32.Vec3{0.2158605, 0.2158605 * 0.5, min(1, 0.2158605*2)}},
			{"metallic-roughness and occlusion", "pbr.frag", func(m *gltf.Material) {
				m.Metallic, m.Roughness = 1, 0.5
				m.MetallicRoughnessTexture, m.OcclusionTexture, m.OcclusionStrength = grey, grey, 0.5
			}, mgl32.Vec3{lin, 0.5 * lin, 1 + 0.5*(lin-1)}},
		} {
			var b gltf.Builder
			mat := gltf.DefaultMaterial()
			c.set(&mat)
			b.AddNode(gltf.Node{Mesh: b.AddMesh("quad", quadPrim(0, b.AddMaterial(mat)))})
			m, err := decodeBuilt(&b)
			if err != nil {
				return err
			}
			mesh, err := addDecoded(r, m, c.shader)
			if err != nil {
				return err
			}
			cam := frontCamera()
			img, err := drawBodies(r, sc, cam, []simthread.Body{quadBody(mesh)})
			if err != nil {
				return err
			}
			if err := expect(img, cam, onQuad(0.2, 0.3), srgbRGBA(c.want), 2, c.name); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestSamplersAndTransforms draws a quad whose UVs run from 0 to 2 across
// it, with a texture red on its left half and blue on its right, nearest
// filtered, and looks at u = 1.25 (the quad's right half, a quarter in):
// REPEAT samples the texture's u 0.25 (red), CLAMP_TO_EDGE its right edge
// (blue), MIRRORED_REPEAT its u 0.75 (blue); a KHR_texture_transform
// offset of 0.5 on REPEAT moves it to 0.75 (blue), and the same texture
// read through TEXCOORD_1, whose UVs are u + 0.5, also (blue).
func TestSamplersAndTransforms(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		sc := newScene() // one for the test: a new one would restart the sequence numbers the renderer tags its buffers with
		tex := image.NewNRGBA(image.Rect(0, 0, 4, 4))
		for y := range 4 {
			for x := range 4 {
				c := color.NRGBA{230, 20, 20, 255}
				if x >= 2 {
					c = color.NRGBA{20, 20, 230, 255}
				}
				tex.SetNRGBA(x, y, c)
			}
		}
		red, blue := color.RGBA{230, 20, 20, 255}, color.RGBA{20, 20, 230, 255}
		for _, c := range []struct {
			name string
			info gltf.TextureInfo
			want color.RGBA
		}{
			{"REPEAT", gltf.TextureInfo{Sampler: gltf.Sampler{MagFilter: gltf.Nearest, WrapS: gltf.Repeat}}, red},
			{"CLAMP_TO_EDGE", gltf.TextureInfo{Sampler: gltf.Sampler{MagFilter: gltf.Nearest, WrapS: gltf.ClampToEdge}}, blue},
			{"MIRRORED_REPEAT", gltf.TextureInfo{Sampler: gltf.Sampler{MagFilter: gltf.Nearest, WrapS: gltf.MirroredRepeat}}, blue},
			{"offset 0.5", gltf.TextureInfo{Sampler: gltf.Sampler{MagFilter: gltf.Nearest},
				Transform: &gltf.TextureTransform{Offset: mgl32.Vec2{0.5, 0}, Scale: mgl32.Vec2{1, 1}}}, blue},
			{"TEXCOORD_1", gltf.TextureInfo{Sampler: gltf.Sampler{MagFilter: gltf.Nearest}, TexCoord: 1}, blue},
		} {
			var b gltf.Builder
			mat := gltf.DefaultMaterial()
			mat.BaseColorTexture = tex
			mat.Sampling[gltf.BaseColorSlot] = c.info
			p := quadPrim(0, b.AddMaterial(mat))
			for i := range p.UVs {
				p.UVs[i][0] *= 2
				p.UVs1 = append(p.UVs1, mgl32.Vec2{p.UVs[i][0] + 0.5, p.UVs[i][1]})
			}
			b.AddNode(gltf.Node{Mesh: b.AddMesh("quad", p)})
			m, err := decodeBuilt(&b)
			if err != nil {
				return err
			}
			if got := m.Materials[0].Sampling[gltf.BaseColorSlot]; got.Sampler != c.info.Sampler || got.TexCoord != c.info.TexCoord ||
				(got.Transform == nil) != (c.info.Transform == nil) {
				return fmt.Errorf("%s: sampling %+v decoded as %+v", c.name, c.info, got)
			}
			mesh, err := addDecoded(r, m, "unlit.frag")
			if err != nil {
				return err
			}
			cam := frontCamera()
			img, err := drawBodies(r, sc, cam, []simthread.Body{quadBody(mesh)})
			if err != nil {
				return err
			}
			// u = 1.25 is a quarter of the way in from the quad's centre.
			if err := expect(img, cam, onQuad(0.25, 0.3), c.want, 2, c.name+" at u 1.25"); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestAnimatedNode plays a glTF animation as an app does: the node's
// pose at a tick (RestPose, Sample, WorldPose, Decompose) becomes the
// body of the node's mesh (AddNodeMeshes). The animated quad, a child of
// a translated root, moves LINEAR along x from −2 to 2 m over 0 to 2 s;
// at each tick looked at, the centre of its red pixels is where the
// sampler puts it, projected, within a pixel; STEP holds the first
// value until the second key; CUBICSPLINE with zero tangents eases in
// and out (−2 + 4·(3u² − 2u³) at u = t/2).
func TestAnimatedNode(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		sc := newScene()
		cam := frontCamera()
		for _, interp := range []gltf.Interpolation{gltf.InterpLinear, gltf.InterpStep, gltf.InterpCubicSpline} {
			var b gltf.Builder
			mat := gltf.DefaultMaterial()
			mat.BaseColor = mgl32.Vec4{0.9, 0.05, 0.05, 1}
			q := quadPrim(0, b.AddMaterial(mat))
			for i := range q.Positions {
				q.Positions[i] = q.Positions[i].Mul(0.25) // half a metre wide
			}
			quadNode := b.AddNode(gltf.Node{Name: "quad", Mesh: b.AddMesh("quad", q)})
			b.AddNode(gltf.Node{Name: "root", Mesh: -1, Translation: mgl32.Vec3{0, 5, 0}, Children: []int{quadNode}})
			values := []float32{-2, 0, 0, 2, 0, 0}
			if interp == gltf.InterpCubicSpline { // zero tangents: an ease in and out
				values = []float32{0, 0, 0, -2, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0}
			}
			b.AddAnimation(gltf.Animation{Channels: []gltf.Channel{{Node: quadNode, Path: gltf.Translation, Interp: interp,
				Times: []float32{0, 2}, Values: values}}})
			m, err := decodeBuilt(&b)
			if err != nil {
				return err
			}
			nodes, err := r.AddNodeMeshes(m)
			if err != nil {
				return err
			}
			if len(nodes) != 1 || nodes[0].Node != quadNode || nodes[0].Mirror {
				return fmt.Errorf("node meshes %+v, want the quad's alone", nodes)
			}
			pose := make([]gltf.TRS, len(m.Nodes))
			world := make([]mgl32.Mat4, len(m.Nodes))
			const dt = 1.0 / 120
			for _, tick := range []uint64{0, 30, 120, 200, 400} {
				m.RestPose(pose)
				m.Animations[0].Sample(float32(float64(tick)*dt), pose)
				m.WorldPose(pose, world)
				x := gltf.Decompose(world[quadNode])
				body := simthread.Body{Pos: x.T, Rot: x.R, Scale: x.S, Color: simthread.White, Mesh: nodes[0].Mesh}
				img, err := drawBodies(r, sc, cam, []simthread.Body{body})
				if err != nil {
					return err
				}
				tt := float64(tick) * dt
				wantX := float32(-2 + 2*min(tt, 2))
				switch u := min(tt/2, 1); interp {
				case gltf.InterpStep:
					wantX = -2
					if tt >= 2 {
						wantX = 2
					}
				case gltf.InterpCubicSpline:
					wantX = float32(-2 + 4*(3*u*u-2*u*u*u))
				}
				px, py, _ := project(cam, mgl32.Vec3{wantX, 5, 0}, width, height)
				cx, cy, n := redCentroid(img)
				if n == 0 || math.Abs(cx-float64(px)) > 1 || math.Abs(cy-float64(py)) > 1 {
					return fmt.Errorf("%v, tick %d (%.3f s): the quad's %d pixels are centred at (%.1f, %.1f), the sampler puts it at x %v m, (%.1f, %.1f)%s",
						interp, tick, tt, n, cx, cy, wantX, px, py, saveFailure(img))
				}
			}
		}
		return nil
	})
}

// redCentroid returns the centre of img's clearly red pixels and their
// number.
func redCentroid(img *image.RGBA) (x, y float64, n int) {
	b := img.Bounds()
	for py := b.Min.Y; py < b.Max.Y; py++ {
		for px := b.Min.X; px < b.Max.X; px++ {
			c := img.RGBAAt(px, py)
			if int(c.R) > int(c.G)+60 && int(c.R) > int(c.B)+60 {
				x, y, n = x+float64(px)+0.5, y+float64(py)+0.5, n+1
			}
		}
	}
	if n > 0 {
		x, y = x/float64(n), y/float64(n)
	}
	return x, y, n
}

// TestBlendPerBody draws two bodies of one blended quad (one group, one
// part), the nearer first in the snapshot, over an opaque quad: the
// blended parts are sorted per body, so the farther is drawn first and
// the pixel where both cover the opaque one is near over far over it.
func TestBlendPerBody(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		glass := renderer.DefaultMaterial()
		glass.BaseColor, glass.AlphaMode = mgl32.Vec4{0.9, 0.1, 0.1, 0.5}, gltf.Blend
		glass.Shader, glass.ShaderFS = "unlit.frag", probeFS
		back := renderer.DefaultMaterial()
		back.BaseColor, back.Shader, back.ShaderFS = mgl32.Vec4{0.05, 0.6, 0.1, 1}, "unlit.frag", probeFS
		var ids [2]simthread.MeshID
		for k, m := range []gltf.Material{glass, back} {
			mat, err := r.AddMaterial(m)
			if err != nil {
				return err
			}
			p := quad()
			p.Material = mat
			if ids[k], err = r.AddMesh(p); err != nil {
				return err
			}
		}
		tint := func(c color.RGBA) uint32 { return simthread.RGB(c.R, c.G, c.B) }
		bodies := []simthread.Body{
			{Pos: mgl32.Vec3{0, 5, 1}, Scale: simthread.UniformScale(1), Rot: ident, Color: simthread.White, Mesh: ids[0]},
			{Pos: mgl32.Vec3{0, 5, 0}, Scale: simthread.UniformScale(1.5), Rot: ident, Color: tint(color.RGBA{40, 80, 255, 255}), Mesh: ids[0]},
			{Pos: mgl32.Vec3{0, 5, -1}, Scale: simthread.UniformScale(2), Rot: ident, Color: simthread.White, Mesh: ids[1]},
		}
		cam := frontCamera()
		img, err := drawBodies(r, newScene(), cam, bodies)
		if err != nil {
			return err
		}
		// The far glass is tinted: its linear colour is factor × tint.
		farTint := mgl32.Vec3{float32(srgbToLinear(40)), float32(srgbToLinear(80)), 1}
		far := mgl32.Vec4{0.9 * farTint[0], 0.1 * farTint[1], 0.1 * farTint[2], 0.5}
		over := func(src mgl32.Vec4, dst [3]float64) [3]float64 {
			a := float64(src[3])
			for k := range 3 {
				dst[k] = float64(srgb(float64(src[k])))*a + dst[k]*(1-a)
			}
			return dst
		}
		base := srgbRGBA(back.BaseColor.Vec3())
		v := over(glass.BaseColor, over(far, [3]float64{float64(base.R), float64(base.G), float64(base.B)}))
		want := color.RGBA{uint8(math.Round(v[0])), uint8(math.Round(v[1])), uint8(math.Round(v[2])), 255}
		return expect(img, cam, mgl32.Vec3{0, 5, 0}, want, 3, "near glass over far glass over opaque")
	})
}

// srgbToLinear decodes an 8-bit sRGB value.
func srgbToLinear(v uint8) float64 {
	c := float64(v) / 255
	if c <= 0.04045 {
		return c / 12.92
	}
	return math.Pow((c+0.055)/1.055, 2.4)
}

// TestViews draws a lit quad facing the camera in each view: shaded it
// is its colour, in the normals view (0.5, 0.5, 1) encoded (+z), in
// wireframe its middle shows the sky, and shaded again its colour.
func TestViews(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		mat := gltf.DefaultMaterial()
		mat.BaseColor = mgl32.Vec4{0.9, 0.1, 0.1, 1}
		id, err := r.AddMaterial(mat)
		if err != nil {
			return err
		}
		p := quad()
		p.Material = id
		mesh, err := r.AddMesh(p)
		if err != nil {
			return err
		}
		sc, cam := newScene(), frontCamera()
		for _, c := range []struct {
			view renderer.View
			ok   func(color.RGBA) bool
		}{
			{renderer.ViewShaded, func(c color.RGBA) bool { return int(c.R) > int(c.G)+80 }},
			{renderer.ViewNormals, func(c color.RGBA) bool { return near(c, srgbRGBA(mgl32.Vec3{0.5, 0.5, 1}), 2) }},
			{renderer.ViewWireframe, func(c color.RGBA) bool { return near(c, skyRGBA, 2) }},
			{renderer.ViewShaded, func(c color.RGBA) bool { return int(c.R) > int(c.G)+80 }},
		} {
			r.SetView(c.view)
			img, err := drawBodies(r, sc, cam, []simthread.Body{quadBody(mesh)})
			if err != nil {
				return err
			}
			got, err := pixelAt(img, cam, onQuad(0.3, 0.1))
			if err != nil {
				return err
			}
			if !c.ok(got) {
				return fmt.Errorf("view %d: the quad's middle is %v%s", c.view, got, saveFailure(img))
			}
		}
		return nil
	})
}
