package renderer_test

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
)

// boxAt is an axis-aligned box from lo to hi with outward normals, UVs
// spanning each face and a vertex colour per corner (x, y, z in [0, 1]
// across the box), as a glTF primitive of material mat.
func boxAt(lo, hi mgl32.Vec3, mat int, coloured bool) gltf.Primitive {
	p := gltf.Primitive{Material: mat}
	for axis := range 3 {
		for _, sign := range []float32{1, -1} {
			var n, u, v mgl32.Vec3
			n[axis], u[(axis+1)%3], v[(axis+2)%3] = sign, 1, 1
			if sign < 0 {
				u, v = v, u
			}
			base := uint32(len(p.Positions))
			for _, c := range [][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
				q := n.Add(u.Mul(c[0])).Add(v.Mul(c[1]))
				corner := q.Add(mgl32.Vec3{1, 1, 1}).Mul(0.5)
				for k := range 3 {
					q[k] = lo[k] + corner[k]*(hi[k]-lo[k])
				}
				p.Positions = append(p.Positions, q)
				p.Normals = append(p.Normals, n)
				p.UVs = append(p.UVs, mgl32.Vec2{(c[0] + 1) / 2, (1 - c[1]) / 2})
				if coloured {
					p.Colors = append(p.Colors, corner.Vec4(1))
				}
			}
			p.Indices = append(p.Indices, base, base+1, base+2, base, base+2, base+3)
		}
	}
	return p
}

// materialsModel is a scene of every material feature, lit by the
// built-in lighting: a vertex-coloured box, a normal-mapped and
// occlusion-mapped box, a masked double-sided checker plate, a blended
// plate in front, an emissive box, a metallic-roughness textured box.
func materialsModel(tb testing.TB) *gltf.Model {
	var b gltf.Builder
	plain := gltf.DefaultMaterial()
	plain.Metallic, plain.Roughness = 0, 0.6
	bumps := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	ao := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	checker := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	mr := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	for y := range 64 {
		for x := range 64 {
			s := math.Sin(float64(x) / 64 * 4 * math.Pi)
			bumps.SetNRGBA(x, y, color.NRGBA{uint8(128 + 90*s), 128, 230, 255})
			ao.SetNRGBA(x, y, color.NRGBA{uint8(255 * float64(y) / 63), 0, 0, 255})
			mr.SetNRGBA(x, y, color.NRGBA{0, uint8(40 + 200*x/63), uint8(255 * (y / 32)), 255})
		}
	}
	for y := range 8 {
		for x := range 8 {
			a := uint8(255)
			if (x+y)%2 == 0 {
				a = 0
			}
			checker.SetNRGBA(x, y, color.NRGBA{240, 200, 40, a})
		}
	}
	mapped := plain
	mapped.BaseColor = mgl32.Vec4{0.7, 0.7, 0.75, 1}
	mapped.NormalTexture, mapped.OcclusionTexture = bumps, ao
	mask := plain
	mask.BaseColorTexture, mask.AlphaMode, mask.DoubleSided = checker, gltf.Mask, true
	mask.Sampling[gltf.BaseColorSlot].Sampler = gltf.Sampler{MagFilter: gltf.Nearest}
	glass := plain
	glass.BaseColor, glass.Roughness, glass.AlphaMode = mgl32.Vec4{0.3, 0.6, 1, 0.35}, 0.2, gltf.Blend
	glow := plain
	glow.BaseColor, glow.Emissive = mgl32.Vec4{0.05, 0.05, 0.05, 1}, mgl32.Vec3{3, 0.6, 0.15}
	metal := gltf.DefaultMaterial()
	metal.BaseColor, metal.MetallicRoughnessTexture = mgl32.Vec4{0.9, 0.75, 0.4, 1}, mr
	mesh := b.AddMesh("things",
		boxAt(mgl32.Vec3{-3, 0, -1}, mgl32.Vec3{-1.4, 1.6, 0.6}, b.AddMaterial(plain), true),
		boxAt(mgl32.Vec3{-0.8, 0, -1}, mgl32.Vec3{0.8, 1.6, 0.6}, b.AddMaterial(mapped), false),
		boxAt(mgl32.Vec3{1.4, 0, -1}, mgl32.Vec3{3, 1.6, 0.6}, b.AddMaterial(metal), false),
		boxAt(mgl32.Vec3{-3, 1.9, -0.4}, mgl32.Vec3{3, 2.9, -0.35}, b.AddMaterial(mask), false),
		boxAt(mgl32.Vec3{-0.4, 1.9, 0.4}, mgl32.Vec3{0.4, 2.5, 1}, b.AddMaterial(glow), false),
		boxAt(mgl32.Vec3{-3.2, 0.2, 1.2}, mgl32.Vec3{3.2, 1.4, 1.3}, b.AddMaterial(glass), false),
	)
	b.AddNode(gltf.Node{Mesh: mesh})
	glb, err := b.GLB()
	if err != nil {
		tb.Fatal(err)
	}
	m, err := gltf.Decode(glb, "materials.glb", nil)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// TestGoldenMaterials draws materialsModel through AddModel and compares
// the frame with testdata/materials.png within TestGoldenFrame's
// tolerance (go test -update rewrites it): the look of every feature
// together, where the other tests check each one's values.
func TestGoldenMaterials(t *testing.T) {
	m := materialsModel(t)
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		mesh, err := r.AddModel(m, mgl32.Ident4())
		if err != nil {
			return err
		}
		cam := renderer.DefaultCamera()
		cam.Target, cam.Yaw, cam.Pitch, cam.Distance = mgl32.Vec3{0, 1.4, 0}, 0.35, 0.3, 8.5
		body := simthread.Body{Pos: mgl32.Vec3{}, Scale: simthread.UniformScale(1), Rot: ident, Color: simthread.White, Mesh: mesh}
		img, err := drawBodies(r, newScene(), cam, []simthread.Body{body})
		if err != nil {
			return err
		}
		return compareGolden(img, filepath.Join("testdata", "materials.png"))
	})
}

// compareGolden compares img with the PNG at path as TestGoldenFrame
// does: a mean channel difference of at most 2 and at most 1 % of the
// pixels off by more than 48; with -update it writes img there instead.
func compareGolden(img *image.RGBA, path string) error {
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return writePNG(path, img)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%v (run go test -update to create it)", err)
	}
	defer f.Close()
	want, err := png.Decode(f)
	if err != nil {
		return err
	}
	if want.Bounds() != img.Bounds() {
		return fmt.Errorf("golden is %v, frame is %v", want.Bounds(), img.Bounds())
	}
	var sum float64
	bad := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			a := img.RGBAAt(x, y)
			br, bg, bb, _ := want.At(x, y).RGBA()
			d := max(absDiff(a.R, uint8(br>>8)), absDiff(a.G, uint8(bg>>8)), absDiff(a.B, uint8(bb>>8)))
			sum += float64(d)
			if d > 48 {
				bad++
			}
		}
	}
	n := b.Dx() * b.Dy()
	if mean := sum / float64(n); mean > 2 || bad > n/100 {
		return fmt.Errorf("frame differs from %s: mean channel difference %.2f, %d pixels off by more than 48%s", path, mean, bad, saveFailure(img))
	}
	return nil
}

// writePNG writes a golden image for -update (the one place the tests
// write a file: the apps write theirs through package outfile).
func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
