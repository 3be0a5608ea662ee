// Command genmodel writes the walker example's models with renderer/gltf's
// Builder: walker.glb, a textured box humanoid 1.8 m tall standing on the
// origin and facing +Z (glTF's front), skinned to seven joints (hips,
// spine, head, two arms, two legs) and with two looping clips, "idle"
// (animation 0, 2 s: breathing, the arms hanging) and "walk" (animation
// 1, 1 s: two steps, legs and arms swinging, the hips bobbing); and
// ground.glb, a 200 m square of textured grass. Both are made of code, so
// they are reproducible and small.
//
//	go generate ./examples/walker   # runs: go run ./internal/genmodel -o assets
package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer/gltf"
)

func main() {
	out := flag.String("o", "assets", "write the models into `DIR`")
	flag.Parse()
	for name, build := range map[string]func() ([]byte, error){"walker.glb": walker, "ground.glb": ground} {
		data, err := build()
		if err == nil {
			err = os.WriteFile(filepath.Join(*out, name), data, 0o644)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "genmodel: %s: %v\n", name, err)
			os.Exit(1)
		}
	}
}

// The walker's texture is an atlas of bands, each a part's cloth: a box
// takes its faces' texture from one band (the head's front from the face).
type band struct{ v0, v1 float32 }

var (
	shirt    = band{0, 0.25}
	trousers = band{0.25, 0.5}
	skin     = band{0.5, 0.75}
	face     = band{0.75, 0.875}
	dark     = band{0.875, 1} // shoes and hair
)

// atlasSize is the atlas's side in texels: 16 rows a band.
const atlasSize = 64

// The walker's joints, in the skin's order, and where each stands at
// rest in the model's frame (its bind pose: no joint is turned).
const (
	hips = iota
	spine
	head
	armL
	armR
	legL
	legR
	joints
)

var (
	jointAt     = [joints]mgl32.Vec3{{0, 0.8, 0}, {0, 0.8, 0}, {0, 1.42, 0}, {0.31, 1.4, 0}, {-0.31, 1.4, 0}, {0.115, 0.8, 0}, {-0.115, 0.8, 0}}
	jointParent = [joints]int{-1, hips, spine, spine, spine, hips, hips}
)

// walker builds the humanoid: boxes in metres, merged into one primitive
// with one textured material, each box bound wholly to one joint.
func walker() ([]byte, error) {
	var p gltf.Primitive
	for _, b := range []struct {
		min, max     mgl32.Vec3
		cloth, front band
		joint        uint16
	}{
		{mgl32.Vec3{-0.2, 0.08, -0.09}, mgl32.Vec3{-0.03, 0.8, 0.09}, trousers, trousers, legR}, // legs
		{mgl32.Vec3{0.03, 0.08, -0.09}, mgl32.Vec3{0.2, 0.8, 0.09}, trousers, trousers, legL},
		{mgl32.Vec3{-0.21, 0, -0.1}, mgl32.Vec3{-0.02, 0.08, 0.16}, dark, dark, legR}, // shoes
		{mgl32.Vec3{0.02, 0, -0.1}, mgl32.Vec3{0.21, 0.08, 0.16}, dark, dark, legL},
		{mgl32.Vec3{-0.24, 0.78, -0.13}, mgl32.Vec3{0.24, 1.42, 0.13}, shirt, shirt, spine}, // torso
		{mgl32.Vec3{-0.37, 0.84, -0.07}, mgl32.Vec3{-0.25, 1.4, 0.07}, shirt, shirt, armR},  // arms
		{mgl32.Vec3{0.25, 0.84, -0.07}, mgl32.Vec3{0.37, 1.4, 0.07}, shirt, shirt, armL},
		{mgl32.Vec3{-0.36, 0.72, -0.05}, mgl32.Vec3{-0.26, 0.84, 0.05}, skin, skin, armR}, // hands
		{mgl32.Vec3{0.26, 0.72, -0.05}, mgl32.Vec3{0.36, 0.84, 0.05}, skin, skin, armL},
		{mgl32.Vec3{-0.06, 1.42, -0.06}, mgl32.Vec3{0.06, 1.48, 0.06}, skin, skin, head}, // neck
		{mgl32.Vec3{-0.13, 1.48, -0.13}, mgl32.Vec3{0.13, 1.74, 0.13}, skin, face, head}, // head
		{mgl32.Vec3{-0.14, 1.72, -0.14}, mgl32.Vec3{0.14, 1.8, 0.14}, dark, dark, head},  // hair
	} {
		addBox(&p, b.min, b.max, b.cloth, b.front)
		for len(p.Joints) < len(p.Positions) {
			p.Joints = append(p.Joints, [4]uint16{b.joint})
			p.Weights = append(p.Weights, mgl32.Vec4{1})
		}
	}
	var bld gltf.Builder
	m := gltf.DefaultMaterial()
	m.Name, m.Metallic, m.Roughness, m.BaseColorTexture = "walker", 0, 0.8, atlas()
	p.Material = bld.AddMaterial(m)
	var skel gltf.Skeleton
	skel.Name, skel.Root = "walker", -1
	for j, at := range jointAt {
		local := at
		if pa := jointParent[j]; pa >= 0 {
			local = at.Sub(jointAt[pa])
		}
		n := bld.AddNode(gltf.Node{Name: jointNames[j], Mesh: -1, Translation: local})
		if pa := jointParent[j]; pa >= 0 {
			bld.AddChild(skel.Joints[pa], n)
		}
		skel.Joints = append(skel.Joints, n)
		skel.InverseBind = append(skel.InverseBind, mgl32.Translate3D(-at[0], -at[1], -at[2]))
	}
	skel.Root = skel.Joints[hips]
	bld.AddSkin(skel, bld.AddNode(gltf.Node{Name: "walker", Mesh: bld.AddMesh("walker", p)}))
	addClips(&bld, skel.Joints)
	return bld.GLB()
}

var jointNames = [joints]string{"hips", "spine", "head", "arm.L", "arm.R", "leg.L", "leg.R"}

// addClips adds the two clips, each looping (its last keyframe is its
// first): idle, 2 s of breathing, and walk, 1 s of two steps.
func addClips(b *gltf.Builder, node []int) {
	x, z := mgl32.Vec3{1, 0, 0}, mgl32.Vec3{0, 0, 1}
	turn := func(axis mgl32.Vec3, degs ...float32) []float32 {
		var v []float32
		for _, d := range degs {
			q := mgl32.QuatRotate(mgl32.DegToRad(d), axis)
			v = append(v, q.V[0], q.V[1], q.V[2], q.W)
		}
		return v
	}
	rot := func(j int, times []float32, v []float32) gltf.Channel {
		return gltf.Channel{Node: node[j], Path: gltf.Rotation, Times: times, Values: v}
	}
	idle := []float32{0, 1, 2}
	b.AddAnimation(gltf.Animation{Name: "idle", Channels: []gltf.Channel{
		rot(spine, idle, turn(x, 0, -3, 0)),
		rot(armL, idle, turn(z, 4, 7, 4)),
		rot(armR, idle, turn(z, -4, -7, -4)),
	}})
	walk := []float32{0, 0.25, 0.5, 0.75, 1}
	bob := []float32{0, 0.8, 0, 0, 0.84, 0, 0, 0.8, 0, 0, 0.84, 0, 0, 0.8, 0}
	b.AddAnimation(gltf.Animation{Name: "walk", Channels: []gltf.Channel{
		{Node: node[hips], Path: gltf.Translation, Times: walk, Values: bob},
		rot(legL, walk, turn(x, 0, -30, 0, 30, 0)),
		rot(legR, walk, turn(x, 0, 30, 0, -30, 0)),
		rot(armL, walk, turn(x, 0, 25, 0, -25, 0)),
		rot(armR, walk, turn(x, 0, -25, 0, 25, 0)),
		rot(spine, walk, turn(x, 3, 3, 3, 3, 3)),
	}})
}

// addBox appends an axis-aligned box to p: four vertices a face, counter-
// clockwise seen from outside, textured across the band's full width (the
// front, +Z, face from front).
func addBox(p *gltf.Primitive, lo, hi mgl32.Vec3, cloth, front band) {
	c, h := lo.Add(hi).Mul(0.5), hi.Sub(lo).Mul(0.5)
	x, y, z := mgl32.Vec3{h[0], 0, 0}, mgl32.Vec3{0, h[1], 0}, mgl32.Vec3{0, 0, h[2]}
	// Each face: its normal's half-extent, and its u and v axes, u × v
	// along the normal, so that the winding below faces out.
	for i, f := range [6][3]mgl32.Vec3{
		{z, x, y}, {z.Mul(-1), x.Mul(-1), y}, {x, z.Mul(-1), y},
		{x.Mul(-1), z, y}, {y, x, z.Mul(-1)}, {y.Mul(-1), x, z},
	} {
		b := cloth
		if i == 0 {
			b = front
		}
		n, u, v := f[0], f[1], f[2]
		base := uint32(len(p.Positions))
		for _, corner := range [4][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			p.Positions = append(p.Positions, c.Add(n).Add(u.Mul(corner[0])).Add(v.Mul(corner[1])))
			p.Normals = append(p.Normals, n.Normalize())
			// The image's top row is v = 0: the face's top edge takes v0.
			// Half a texel in from the band's edges, so that no texel of
			// the next band is sampled.
			const inset = 0.5 / atlasSize
			v0, v1 := b.v0+inset, b.v1-inset
			p.UVs = append(p.UVs, mgl32.Vec2{(corner[0] + 1) / 2, v1 - (corner[1]+1)/2*(v1-v0)})
		}
		p.Indices = append(p.Indices, base, base+1, base+2, base, base+2, base+3)
	}
}

// atlas paints the walker's texture: an orange shirt with stripes, blue
// trousers with a seam, skin, a face, dark shoes and hair.
func atlas() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, atlasSize, atlasSize))
	for y := range atlasSize {
		for x := range atlasSize {
			var c color.RGBA
			switch v := (float32(y) + 0.5) / atlasSize; {
			case v < shirt.v1:
				c = color.RGBA{235, 110, 25, 255}
				if y%8 < 2 {
					c = color.RGBA{200, 70, 15, 255}
				}
			case v < trousers.v1:
				c = color.RGBA{40, 70, 165, 255}
				if x%32 == 0 || x%32 == 31 {
					c = color.RGBA{25, 45, 110, 255}
				}
			case v < skin.v1:
				c = color.RGBA{230, 185, 150, 255}
			case v < face.v1:
				c = color.RGBA{230, 185, 150, 255}
				row := y - int(face.v0*atlasSize)
				eye := row >= 2 && row <= 4 && (x >= 16 && x <= 22 || x >= 42 && x <= 48)
				mouth := row == 6 && x >= 24 && x <= 40
				if eye || mouth {
					c = color.RGBA{50, 30, 25, 255}
				}
			default:
				c = color.RGBA{60, 42, 30, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

// ground builds a 200 m square at y = 0 facing up, its texture (a checker
// of muted greens, 2 m a repeat) repeated 100 times across.
func ground() ([]byte, error) {
	const half, repeats = 100, 100
	p := gltf.Primitive{
		Positions: []mgl32.Vec3{{-half, 0, -half}, {-half, 0, half}, {half, 0, half}, {half, 0, -half}},
		Normals:   []mgl32.Vec3{{0, 1, 0}, {0, 1, 0}, {0, 1, 0}, {0, 1, 0}},
		UVs:       []mgl32.Vec2{{0, 0}, {0, repeats}, {repeats, repeats}, {repeats, 0}},
		Indices:   []uint32{0, 1, 2, 0, 2, 3},
	}
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for y := range 64 {
		for x := range 64 {
			c := color.RGBA{98, 112, 86, 255}
			if (x/32+y/32)%2 == 1 {
				c = color.RGBA{86, 100, 76, 255}
			}
			if x%32 == 0 || y%32 == 0 {
				c = color.RGBA{74, 84, 66, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	var bld gltf.Builder
	m := gltf.DefaultMaterial()
	m.Name, m.Metallic, m.Roughness, m.BaseColorTexture = "grass", 0, 0.95, img
	p.Material = bld.AddMaterial(m)
	bld.AddNode(gltf.Node{Name: "ground", Mesh: bld.AddMesh("ground", p)})
	return bld.GLB()
}
