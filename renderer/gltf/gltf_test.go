package gltf_test

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/tickframe/tickframe/renderer/gltf"
)

func TestBox(t *testing.T) {
	var b gltf.Builder
	src := boxPrimitive(-1)
	b.AddNode(gltf.Node{Name: "n", Mesh: b.AddMesh("box", src)})
	m, err := gltf.Decode(mustGLB(t, &b), "box.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, m)
	if len(m.Meshes) != 1 || len(m.Materials) != 0 || len(m.Images) != 0 {
		t.Fatalf("got %d meshes, %d materials, %d images; want 1, 0, 0", len(m.Meshes), len(m.Materials), len(m.Images))
	}
	me := m.Meshes[0]
	if me.Name != "box" || me.Node != "n" || me.Material != -1 || me.Transform != mgl32.Ident4() {
		t.Errorf("mesh %q node %q material %d transform %v", me.Name, me.Node, me.Material, me.Transform)
	}
	if !slices.Equal(me.Positions, src.Positions) || !slices.Equal(me.Normals, src.Normals) ||
		!slices.Equal(me.UVs, src.UVs) || !slices.Equal(me.Indices, src.Indices) {
		t.Error("vertex data differs from what was written")
	}
	// Every triangle is counter-clockwise seen from outside.
	for k := 0; k < len(me.Indices); k += 3 {
		a, b, c := me.Positions[me.Indices[k]], me.Positions[me.Indices[k+1]], me.Positions[me.Indices[k+2]]
		if b.Sub(a).Cross(c.Sub(a)).Dot(me.Normals[me.Indices[k]]) <= 0 {
			t.Fatalf("triangle %d is clockwise", k/3)
		}
	}
	want := gltf.Box{Min: mgl32.Vec3{-1, -1, -1}, Max: mgl32.Vec3{1, 1, 1}}
	if m.Bounds != want {
		t.Errorf("bounds %v, want %v", m.Bounds, want)
	}
	if m.Bounds.Center() != (mgl32.Vec3{}) || m.Bounds.Size() != (mgl32.Vec3{2, 2, 2}) {
		t.Errorf("center %v size %v", m.Bounds.Center(), m.Bounds.Size())
	}
}

func TestTexturedQuad(t *testing.T) {
	var b gltf.Builder
	mat := gltf.Material{Name: "paint", BaseColor: mgl32.Vec4{1, 0.5, 0.25, 1}, Metallic: 0, Roughness: 0.75, BaseColorTexture: checker()}
	mi := b.AddMaterial(mat)
	b.AddMaterial(mat) // the same texture again: written once
	quad := gltf.Primitive{
		Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}},
		Normals:   []mgl32.Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
		UVs:       []mgl32.Vec2{{0, 1}, {1, 1}, {1, 0}, {0, 0}},
		Indices:   []uint32{0, 1, 2, 0, 2, 3},
		Material:  mi,
	}
	b.AddNode(gltf.Node{Mesh: b.AddMesh("quad", quad)})
	m, err := gltf.Decode(mustGLB(t, &b), "quad.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, m)
	if len(m.Materials) != 2 || len(m.Images) != 1 {
		t.Fatalf("%d materials and %d images, want 2 and 1", len(m.Materials), len(m.Images))
	}
	got := m.Materials[m.Meshes[0].Material]
	if got.Name != "paint" || got.BaseColor != mat.BaseColor || got.Metallic != 0 || got.Roughness != 0.75 {
		t.Errorf("material %+v", got)
	}
	if got.BaseColorTexture != m.Images[0] || m.Materials[1].BaseColorTexture != m.Images[0] {
		t.Error("materials do not share Model.Images[0]")
	}
	img := got.BaseColorTexture
	if img.Bounds().Dx() != 4 || img.Bounds().Dy() != 4 {
		t.Fatalf("texture bounds %v", img.Bounds())
	}
	for _, p := range [][2]int{{0, 0}, {3, 1}, {2, 3}} {
		r, g, bl, a := img.At(p[0], p[1]).RGBA()
		w := pixelColor(p[0], p[1])
		if r>>8 != uint32(w.R) || g>>8 != uint32(w.G) || bl>>8 != uint32(w.B) || a>>8 != uint32(w.A) {
			t.Errorf("pixel %v = %d %d %d %d, want %v", p, r>>8, g>>8, bl>>8, a>>8, w)
		}
	}
}

func TestDefaults(t *testing.T) {
	glb := editGLB(t, mustGLB(t, texturedBox()), func(doc map[string]any, bin []byte) []byte {
		set(doc, "materials", []any{map[string]any{"name": "plain"}})
		set(doc, "textures", nil)
		set(doc, "images", nil)
		return bin
	})
	m, err := gltf.Decode(glb, "defaults.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := gltf.DefaultMaterial()
	want.Name = "plain"
	if m.Materials[0] != want {
		t.Errorf("material %+v, want %+v", m.Materials[0], want)
	}
	if want.BaseColor != (mgl32.Vec4{1, 1, 1, 1}) || want.Metallic != 1 || want.Roughness != 1 {
		t.Errorf("DefaultMaterial() = %+v", want)
	}
}

func TestNodeTransforms(t *testing.T) {
	tri := gltf.Primitive{
		Positions: []mgl32.Vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
		Normals:   []mgl32.Vec3{{1, 0, 0}, {1, 0, 0}, {1, 0, 0}},
		Material:  -1,
	}
	// child: scale 2, then up 1; parent: a quarter turn about +y, then 10
	// along +x. (1, 0, 0) → (2, 1, 0) → (0, 1, -2) → (10, 1, -2).
	rot := mgl32.QuatRotate(math.Pi/2, mgl32.Vec3{0, 1, 0})
	for _, tc := range []struct {
		name          string
		parent, child gltf.Node
	}{
		{"trs",
			gltf.Node{Mesh: -1, Translation: mgl32.Vec3{10, 0, 0}, Rotation: rot},
			gltf.Node{Translation: mgl32.Vec3{0, 1, 0}, Scale: mgl32.Vec3{2, 2, 2}}},
		{"matrix",
			gltf.Node{Mesh: -1, Matrix: mgl32.Translate3D(10, 0, 0).Mul4(rot.Mat4())},
			gltf.Node{Matrix: mgl32.Translate3D(0, 1, 0).Mul4(mgl32.Scale3D(2, 2, 2))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b gltf.Builder
			tc.child.Name, tc.child.Mesh = "child", b.AddMesh("tri", tri)
			tc.parent.Name = "parent"
			b.AddNode(tc.parent)
			b.AddChild(0, b.AddNode(tc.child))
			// A sibling root without transform also places the mesh.
			b.AddNode(gltf.Node{Name: "plain", Mesh: 0})
			m, err := gltf.Decode(mustGLB(t, &b), "nodes.glb", nil)
			if err != nil {
				t.Fatal(err)
			}
			checkModel(t, m)
			if len(m.Meshes) != 2 || m.Meshes[0].Node != "child" || m.Meshes[1].Node != "plain" {
				t.Fatalf("meshes %+v", m.Meshes)
			}
			if &m.Meshes[0].Positions[0] != &m.Meshes[1].Positions[0] {
				t.Error("instances of one mesh do not share their positions")
			}
			me := m.Meshes[0]
			if p := apply(me.Transform, me.Positions[0]); !near(p, mgl32.Vec3{10, 1, -2}) {
				t.Errorf("vertex 0 at %v, want (10, 1, -2)", p)
			}
			want := gltf.Box{Min: mgl32.Vec3{0, 0, -2}, Max: mgl32.Vec3{12, 3, 1}}
			if !near(m.Bounds.Min, want.Min) || !near(m.Bounds.Max, want.Max) {
				t.Errorf("bounds %v, want %v", m.Bounds, want)
			}

			m.Bake()
			checkModel(t, m)
			if m.Meshes[0].Transform != mgl32.Ident4() {
				t.Errorf("baked transform %v", m.Meshes[0].Transform)
			}
			baked := m.Meshes[0]
			wantPos := []mgl32.Vec3{{10, 1, -2}, {10, 3, 0}, {12, 1, 0}}
			for k, w := range wantPos {
				if !near(baked.Positions[k], w) {
					t.Errorf("baked vertex %d at %v, want %v", k, baked.Positions[k], w)
				}
			}
			if n := baked.Normals[0]; !near(n, mgl32.Vec3{0, 0, -1}) {
				t.Errorf("baked normal %v, want (0, 0, -1)", n)
			}
			if m.Meshes[1].Positions[0] != tri.Positions[0] {
				t.Error("Bake changed a shared slice")
			}
		})
	}
}

// TestBake checks that baked normals stay perpendicular to the faces and
// outward, and triangles counter-clockwise, under mirroring and under the
// shear that a non-uniform scale below a rotation makes.
func TestBake(t *testing.T) {
	for _, tc := range []struct {
		name          string
		parent, child gltf.Node
	}{
		{"mirror", gltf.Node{Mesh: -1}, gltf.Node{Scale: mgl32.Vec3{-1, 2, 1}}},
		{"shear",
			gltf.Node{Mesh: -1, Rotation: mgl32.QuatRotate(0.7, mgl32.Vec3{1, 2, 3}.Normalize()), Scale: mgl32.Vec3{1, 3, 0.5}},
			gltf.Node{Rotation: mgl32.QuatRotate(0.4, mgl32.Vec3{0, 0, 1}), Scale: mgl32.Vec3{2, 1, 1}}},
		{"mirror shear",
			gltf.Node{Mesh: -1, Rotation: mgl32.QuatRotate(0.7, mgl32.Vec3{1, 2, 3}.Normalize()), Scale: mgl32.Vec3{1, -3, 0.5}},
			gltf.Node{Rotation: mgl32.QuatRotate(0.4, mgl32.Vec3{0, 0, 1}), Scale: mgl32.Vec3{2, 1, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b gltf.Builder
			tc.child.Mesh = b.AddMesh("box", boxPrimitive(-1))
			b.AddNode(tc.parent)
			b.AddChild(0, b.AddNode(tc.child))
			m, err := gltf.Decode(mustGLB(t, &b), "bake.glb", nil)
			if err != nil {
				t.Fatal(err)
			}
			m.Bake()
			checkModel(t, m)
			me := m.Meshes[0]
			for k := 0; k < len(me.Indices); k += 3 {
				a, b, c := me.Positions[me.Indices[k]], me.Positions[me.Indices[k+1]], me.Positions[me.Indices[k+2]]
				face := b.Sub(a).Cross(c.Sub(a)).Normalize()
				if n := me.Normals[me.Indices[k]]; face.Sub(n).Len() > 1e-4 {
					t.Fatalf("triangle %d faces %v, its normal is %v", k/3, face, n)
				}
				if center := a.Add(b).Add(c); center.Dot(face) <= 0 {
					t.Fatalf("triangle %d faces inwards", k/3)
				}
			}
		})
	}
}

func TestJPEG(t *testing.T) {
	js, _, err := texturedBox().GLTF("")
	if err != nil {
		t.Fatal(err)
	}
	doc := decodeJSON(t, js)
	img := image.NewRGBA(image.Rect(0, 0, 16, 8))
	for y := range 8 {
		for x := range 16 {
			img.Set(x, y, color.RGBA{200, 100, 50, 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	set(doc, "images", []any{map[string]any{"uri": "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())}})
	m, err := gltf.Decode(encodeJSON(t, doc), "jpeg.gltf", nil)
	if err != nil {
		t.Fatal(err)
	}
	tex := m.Materials[0].BaseColorTexture
	if tex.Bounds().Dx() != 16 || tex.Bounds().Dy() != 8 {
		t.Fatalf("texture bounds %v", tex.Bounds())
	}
	r, g, bl, _ := tex.At(5, 5).RGBA()
	d := func(a uint32, b int) int { return max(int(a>>8)-b, b-int(a>>8)) }
	if d(r, 200) > 4 || d(g, 100) > 4 || d(bl, 50) > 4 {
		t.Errorf("pixel (5, 5) = %d %d %d, want about 200 100 50", r>>8, g>>8, bl>>8)
	}
}

func TestFlatNormals(t *testing.T) {
	var b gltf.Builder
	box := boxPrimitive(-1)
	box.Normals = nil
	b.AddNode(gltf.Node{Mesh: b.AddMesh("box", box)})
	m, err := gltf.Decode(mustGLB(t, &b), "flat.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, m)
	me := m.Meshes[0]
	if len(me.Positions) != len(box.Indices) {
		t.Fatalf("%d vertices, want one per index (%d)", len(me.Positions), len(box.Indices))
	}
	for k, i := range me.Indices {
		src := box.Indices[k]
		if me.Positions[i] != box.Positions[src] || me.UVs[i] != box.UVs[src] {
			t.Fatalf("vertex %d differs from the source", k)
		}
		if want := boxPrimitive(-1).Normals[src]; me.Normals[i] != want {
			t.Fatalf("vertex %d: normal %v, want %v", k, me.Normals[i], want)
		}
	}
}

func TestNonIndexed(t *testing.T) {
	var b gltf.Builder
	p := gltf.Primitive{
		Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 0}, {0, 1, 0}, {-1, 0, 0}},
		Normals:   make([]mgl32.Vec3, 6),
		Material:  -1,
	}
	b.AddNode(gltf.Node{Mesh: b.AddMesh("two", p)})
	m, err := gltf.Decode(mustGLB(t, &b), "plain.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Meshes[0].Indices; !slices.Equal(got, []uint32{0, 1, 2, 3, 4, 5}) {
		t.Errorf("indices %v", got)
	}
}

func TestIndexWidths(t *testing.T) {
	// A strip of quads, long enough that some indices need each width.
	strip := func(quads int) gltf.Primitive {
		p := gltf.Primitive{Material: -1}
		for i := range quads + 1 {
			p.Positions = append(p.Positions, mgl32.Vec3{float32(i), 0, 0}, mgl32.Vec3{float32(i), 1, 0})
			p.Normals = append(p.Normals, mgl32.Vec3{0, 0, 1}, mgl32.Vec3{0, 0, 1})
		}
		for i := range uint32(quads) {
			p.Indices = append(p.Indices, 2*i, 2*i+2, 2*i+3, 2*i, 2*i+3, 2*i+1)
		}
		return p
	}
	for _, tc := range []struct {
		name  string
		quads int
		bytes int
		want  int // componentType in the file
	}{
		{"ubyte", 100, 0, 5121},
		{"ushort", 1000, 0, 5123},
		{"uint", 40000, 0, 5125},
		{"uint-forced", 100, 4, 5125},
		{"ushort-forced", 100, 2, 5123},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b gltf.Builder
			p := strip(tc.quads)
			p.IndexBytes = tc.bytes
			b.AddNode(gltf.Node{Mesh: b.AddMesh("strip", p)})
			glb := mustGLB(t, &b)
			doc, _ := splitGLB(t, glb)
			if ct := getInt(doc, "accessors.2.componentType"); ct != tc.want {
				t.Fatalf("indices written as %d, want %d", ct, tc.want)
			}
			m, err := gltf.Decode(glb, tc.name+".glb", nil)
			if err != nil {
				t.Fatal(err)
			}
			checkModel(t, m)
			if !slices.Equal(m.Meshes[0].Indices, p.Indices) {
				t.Error("indices differ")
			}
		})
	}
}

func TestInterleaved(t *testing.T) {
	plain := texturedBox()
	inter := texturedBox()
	inter.Interleave = true
	// texturedBox adds its mesh before Interleave is set, so add another.
	inter.AddNode(gltf.Node{Mesh: inter.AddMesh("box2", boxPrimitive(0))})
	plain.AddNode(gltf.Node{Mesh: plain.AddMesh("box2", boxPrimitive(0))})
	glb := mustGLB(t, inter)
	doc, _ := splitGLB(t, glb)
	if s := getInt(doc, "bufferViews.5.byteStride"); s != 32 {
		t.Fatalf("byteStride %d, want 32", s)
	}
	mi, err := gltf.Decode(glb, "inter.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	mp, err := gltf.Decode(mustGLB(t, plain), "plain.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	a, b := mi.Meshes[1], mp.Meshes[1]
	if !slices.Equal(a.Positions, b.Positions) || !slices.Equal(a.Normals, b.Normals) || !slices.Equal(a.UVs, b.UVs) {
		t.Error("interleaved data decodes differently")
	}
}

// TestStrideAndOffset reads normalized UVs of both widths through a
// bufferView with a byteStride and accessors with byteOffsets, from a file
// written by hand.
func TestStrideAndOffset(t *testing.T) {
	le := binary.LittleEndian
	var bin []byte
	// bufferView 0: 3 vertices, stride 20: position (12 bytes), ubyte UV
	// at 12, ushort UV at 16.
	uv8 := [][2]uint8{{0, 255}, {255, 51}, {102, 0}}
	uv16 := [][2]uint16{{0, 65535}, {65535, 13107}, {26214, 0}}
	pos := []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	for i := range 3 {
		for _, c := range pos[i] {
			bin = le.AppendUint32(bin, math.Float32bits(c))
		}
		bin = append(bin, uv8[i][0], uv8[i][1], 0, 0)
		bin = le.AppendUint16(bin, uv16[i][0])
		bin = le.AppendUint16(bin, uv16[i][1])
	}
	doc := map[string]any{
		"asset":       map[string]any{"version": "2.0"},
		"nodes":       []any{map[string]any{"mesh": 0}, map[string]any{"mesh": 1}},
		"meshes":      []any{prim(2), prim(3)},
		"buffers":     []any{map[string]any{"byteLength": len(bin)}},
		"bufferViews": []any{map[string]any{"buffer": 0, "byteLength": len(bin), "byteStride": 20}},
		"accessors": []any{
			map[string]any{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"},
			map[string]any{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}, // unused
			map[string]any{"bufferView": 0, "byteOffset": 12, "componentType": 5121, "normalized": true, "count": 3, "type": "VEC2"},
			map[string]any{"bufferView": 0, "byteOffset": 16, "componentType": 5123, "normalized": true, "count": 3, "type": "VEC2"},
		},
	}
	m, err := gltf.Decode(joinGLB(t, doc, bin), "stride.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, m)
	want := []mgl32.Vec2{{0, 1}, {1, 0.2}, {0.4, 0}}
	for i, me := range m.Meshes {
		if !slices.Equal(me.Positions, pos) {
			t.Errorf("mesh %d: positions %v", i, me.Positions)
		}
		for k, w := range want {
			if me.UVs[k].Sub(w).Len() > 1e-6 {
				t.Errorf("mesh %d: uv %d = %v, want %v", i, k, me.UVs[k], w)
			}
		}
	}
}

func prim(uv int) map[string]any {
	return map[string]any{"primitives": []any{map[string]any{
		"attributes": map[string]any{"POSITION": 0, "TEXCOORD_0": uv},
	}}}
}

// TestSeparateFiles writes a .gltf with its buffer and texture in separate
// files, one of them with a name that must be percent-encoded.
func TestSeparateFiles(t *testing.T) {
	dir := t.TempDir()
	js, bin, err := texturedBox().GLTF("data/model.bin")
	if err != nil {
		t.Fatal(err)
	}
	doc := decodeJSON(t, js)
	var tex bytes.Buffer
	if err := png.Encode(&tex, checker()); err != nil {
		t.Fatal(err)
	}
	set(doc, "images", []any{map[string]any{"uri": "my%20texture.png"}})
	write := func(name string, data []byte) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("data/model.bin", bin)
	write("my texture.png", tex.Bytes())
	write("model.gltf", encodeJSON(t, doc))

	m, err := gltf.Load(filepath.Join(dir, "model.gltf"))
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, m)
	if len(m.Meshes) != 1 || len(m.Meshes[0].Indices) != 36 {
		t.Fatalf("meshes %+v", m.Meshes)
	}
	r, g, _, _ := m.Materials[0].BaseColorTexture.At(3, 2).RGBA()
	if w := pixelColor(3, 2); r>>8 != uint32(w.R) || g>>8 != uint32(w.G) {
		t.Errorf("pixel (3, 2) = %d %d, want %v", r>>8, g>>8, w)
	}
	if p := apply(m.Meshes[0].Transform, mgl32.Vec3{}); !near(p, mgl32.Vec3{5, 1, 0}) {
		t.Errorf("origin placed at %v, want (5, 1, 0)", p)
	}

	// Files outside the model's directory are not read.
	write("other/secret.bin", bin)
	set(doc, "buffers.0.uri", "../other/secret.bin")
	write("sub/escape.gltf", encodeJSON(t, doc))
	write("sub/my texture.png", tex.Bytes())
	if _, err := gltf.Load(filepath.Join(dir, "sub/escape.gltf")); err == nil {
		t.Error("Load read a buffer outside the model's directory")
	} else if !strings.Contains(err.Error(), "escape.gltf: buffers[0].uri: ") {
		t.Errorf("error %q does not name the file and buffers[0].uri", err)
	}
	if _, err := gltf.Load(filepath.Join(dir, "missing.gltf")); err == nil {
		t.Error("Load of a missing file succeeded")
	}
}

func TestDataURIs(t *testing.T) {
	js, bin, err := texturedBox().GLTF("")
	if err != nil || bin != nil {
		t.Fatalf("GLTF(\"\") = %d bytes of bin, %v", len(bin), err)
	}
	doc := decodeJSON(t, js)
	var tex bytes.Buffer
	if err := png.Encode(&tex, checker()); err != nil {
		t.Fatal(err)
	}
	set(doc, "images", []any{map[string]any{"uri": "data:image/png;base64," + base64.StdEncoding.EncodeToString(tex.Bytes())}})
	opened := false
	open := func(string) ([]byte, error) { opened = true; return nil, os.ErrNotExist }
	m, err := gltf.Decode(encodeJSON(t, doc), "embedded.gltf", open)
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, m)
	if opened {
		t.Error("Decode called open for a data URI")
	}
	if m.Materials[0].BaseColorTexture == nil || len(m.Meshes[0].Positions) != 24 {
		t.Error("texture or vertices missing")
	}

	// Unpadded base64, which some writers produce, is accepted too.
	uri := get(doc, "buffers.0.uri").(string)
	set(doc, "buffers.0.uri", string(bytes.TrimRight([]byte(uri), "=")))
	if _, err := gltf.Decode(encodeJSON(t, doc), "unpadded.gltf", nil); err != nil {
		t.Error(err)
	}
}

func TestSceneSelection(t *testing.T) {
	var b gltf.Builder
	mesh := b.AddMesh("box", boxPrimitive(-1))
	b.AddNode(gltf.Node{Name: "a", Mesh: mesh})
	b.AddNode(gltf.Node{Name: "b", Mesh: mesh})
	glb := mustGLB(t, &b)
	for _, tc := range []struct {
		name string
		edit func(doc map[string]any)
		want []string
	}{
		{"scene 0", func(map[string]any) {}, []string{"a", "b"}},
		{"scene property", func(doc map[string]any) {
			set(doc, "scenes", []any{map[string]any{"nodes": []any{0}}, map[string]any{"nodes": []any{1}}})
			set(doc, "scene", 1)
		}, []string{"b"}},
		{"first scene", func(doc map[string]any) {
			set(doc, "scenes", []any{map[string]any{"nodes": []any{1}}, map[string]any{"nodes": []any{0}}})
			set(doc, "scene", nil)
		}, []string{"b"}},
		{"no scenes", func(doc map[string]any) {
			set(doc, "scenes", nil)
			set(doc, "scene", nil)
		}, []string{"a", "b"}},
		{"no nodes", func(doc map[string]any) {
			set(doc, "scenes", nil)
			set(doc, "scene", nil)
			set(doc, "nodes", nil)
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := gltf.Decode(editGLB(t, glb, func(doc map[string]any, bin []byte) []byte {
				tc.edit(doc)
				return bin
			}), "scenes.glb", nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, me := range m.Meshes {
				got = append(got, me.Node)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("nodes %v, want %v", got, tc.want)
			}
			if tc.want == nil && m.Bounds != (gltf.Box{}) {
				t.Errorf("empty model has bounds %v", m.Bounds)
			}
		})
	}
}

func TestBuilderErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(b *gltf.Builder)
	}{
		{"no positions", func(b *gltf.Builder) { b.AddMesh("m", gltf.Primitive{Material: -1}) }},
		{"index out of range", func(b *gltf.Builder) {
			p := boxPrimitive(-1)
			p.Indices[4] = 24
			b.AddMesh("m", p)
		}},
		{"index too wide", func(b *gltf.Builder) {
			p := boxPrimitive(-1)
			p.Positions = append(p.Positions, make([]mgl32.Vec3, 300)...)
			p.Normals, p.UVs = nil, nil
			p.Indices[0], p.IndexBytes = 300, 1
			b.AddMesh("m", p)
		}},
		{"bad material", func(b *gltf.Builder) { b.AddMesh("m", boxPrimitive(0)) }},
		{"normals count", func(b *gltf.Builder) {
			p := boxPrimitive(-1)
			p.Normals = p.Normals[1:]
			b.AddMesh("m", p)
		}},
		{"NaN", func(b *gltf.Builder) {
			p := boxPrimitive(-1)
			p.UVs[3][1] = float32(math.NaN())
			b.AddMesh("m", p)
		}},
		{"bad mesh", func(b *gltf.Builder) { b.AddNode(gltf.Node{Mesh: 0}) }},
		{"two parents", func(b *gltf.Builder) {
			c := b.AddNode(gltf.Node{Mesh: -1})
			b.AddNode(gltf.Node{Mesh: -1, Children: []int{c}})
			b.AddNode(gltf.Node{Mesh: -1, Children: []int{c}})
		}},
		{"cycle", func(b *gltf.Builder) {
			a := b.AddNode(gltf.Node{Mesh: -1})
			c := b.AddNode(gltf.Node{Mesh: -1, Children: []int{a}})
			b.AddChild(a, c)
		}},
		{"NaN factor", func(b *gltf.Builder) { b.AddMaterial(gltf.Material{Metallic: float32(math.NaN())}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b gltf.Builder
			tc.build(&b)
			if _, err := b.GLB(); err == nil {
				t.Error("GLB succeeded")
			}
			if _, _, err := b.GLTF("x.bin"); err == nil {
				t.Error("GLTF succeeded")
			}
		})
	}
}
