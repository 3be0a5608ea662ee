package gltf_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"image"
	"image/color"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/tickframe/tickframe/renderer/gltf"
)

// boxPrimitive returns a cube from -1 to 1 with one face of four vertices
// per side, outward normals and UVs.
func boxPrimitive(material int) gltf.Primitive {
	var p gltf.Primitive
	p.Material = material
	for axis := range 3 {
		for _, sign := range []float32{1, -1} {
			var n, u, v mgl32.Vec3
			n[axis] = sign
			u[(axis+1)%3] = 1
			v[(axis+2)%3] = 1
			if sign < 0 {
				u, v = v, u // keep the face counter-clockwise seen from outside
			}
			base := uint32(len(p.Positions))
			for _, c := range [][2]float32{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
				p.Positions = append(p.Positions, n.Add(u.Mul(c[0])).Add(v.Mul(c[1])))
				p.Normals = append(p.Normals, n)
				p.UVs = append(p.UVs, mgl32.Vec2{(c[0] + 1) / 2, (1 - c[1]) / 2})
			}
			p.Indices = append(p.Indices, base, base+1, base+2, base, base+2, base+3)
		}
	}
	return p
}

// checker returns a 4×4 texture whose pixel (x, y) is pixelColor(x, y).
func checker() *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	for y := range 4 {
		for x := range 4 {
			img.SetNRGBA(x, y, pixelColor(x, y))
		}
	}
	return img
}

func pixelColor(x, y int) color.NRGBA {
	return color.NRGBA{R: uint8(60 * x), G: uint8(60 * y), B: 200, A: 255}
}

// texturedBox returns a builder holding a textured box placed by node 0,
// a child of node 1, which is the scene's root. Its layout, which the
// corruption tests rely on: bufferView 0 is the PNG, accessors 0 to 3 are
// POSITION, NORMAL, TEXCOORD_0 and indices in bufferViews 1 to 4.
func texturedBox() *gltf.Builder {
	var b gltf.Builder
	mat := gltf.DefaultMaterial()
	mat.Name = "checker"
	mat.BaseColorTexture = checker()
	mi := b.AddMaterial(mat)
	mesh := b.AddMesh("box", boxPrimitive(mi))
	child := b.AddNode(gltf.Node{Name: "child", Mesh: mesh, Translation: mgl32.Vec3{0, 1, 0}})
	b.AddNode(gltf.Node{Name: "root", Mesh: -1, Translation: mgl32.Vec3{5, 0, 0}, Children: []int{child}})
	return &b
}

func mustGLB(t testing.TB, b *gltf.Builder) []byte {
	t.Helper()
	glb, err := b.GLB()
	if err != nil {
		t.Fatal(err)
	}
	return glb
}

// splitGLB returns a GLB's JSON, decoded into generic values, and its BIN
// chunk.
func splitGLB(t testing.TB, glb []byte) (map[string]any, []byte) {
	t.Helper()
	n := binary.LittleEndian.Uint32(glb[12:])
	js := glb[20 : 20+n]
	var bin []byte
	if rest := glb[20+n:]; len(rest) > 8 {
		bin = rest[8:]
	}
	return decodeJSON(t, js), bytes.Clone(bin)
}

// joinGLB builds a GLB from a JSON document and a BIN chunk.
func joinGLB(t testing.TB, doc any, bin []byte) []byte {
	t.Helper()
	js, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	for len(js)%4 != 0 {
		js = append(js, ' ')
	}
	for len(bin)%4 != 0 {
		bin = append(bin, 0)
	}
	size := 12 + 8 + len(js)
	if len(bin) > 0 {
		size += 8 + len(bin)
	}
	le := binary.LittleEndian
	out := le.AppendUint32(nil, 0x46546C67)
	out = le.AppendUint32(out, 2)
	out = le.AppendUint32(out, uint32(size))
	out = le.AppendUint32(out, uint32(len(js)))
	out = le.AppendUint32(out, 0x4E4F534A)
	out = append(out, js...)
	if len(bin) > 0 {
		out = le.AppendUint32(out, uint32(len(bin)))
		out = le.AppendUint32(out, 0x004E4942)
		out = append(out, bin...)
	}
	return out
}

// set sets the value at a dotted path ("accessors.0.count") of a generic
// JSON document, creating objects on the way; a nil value deletes.
func set(doc any, path string, v any) {
	keys := strings.Split(path, ".")
	cur := doc
	for i, k := range keys {
		last := i == len(keys)-1
		switch c := cur.(type) {
		case map[string]any:
			if last {
				if v == nil {
					delete(c, k)
				} else {
					c[k] = v
				}
				return
			}
			if c[k] == nil {
				c[k] = map[string]any{}
			}
			cur = c[k]
		case []any:
			n, err := strconv.Atoi(k)
			if err != nil {
				panic(path)
			}
			if last {
				c[n] = v
				return
			}
			cur = c[n]
		default:
			panic(path)
		}
	}
}

// get returns the value at a dotted path of a generic JSON document.
func get(doc any, path string) any {
	cur := doc
	for _, k := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[k]
		case []any:
			n, _ := strconv.Atoi(k)
			cur = c[n]
		}
	}
	return cur
}

// getInt returns the integer at a dotted path, 0 if absent.
func getInt(doc any, path string) int {
	switch v := get(doc, path).(type) {
	case json.Number:
		n, _ := v.Int64()
		return int(n)
	case float64:
		return int(v)
	case int:
		return v
	}
	return 0
}

// accessorOffset returns where accessor i's first element lies in bin.
func accessorOffset(doc any, i int) int {
	a := "accessors." + strconv.Itoa(i)
	v := "bufferViews." + strconv.Itoa(getInt(doc, a+".bufferView"))
	return getInt(doc, v+".byteOffset") + getInt(doc, a+".byteOffset")
}

// editGLB returns glb with its JSON and BIN changed by edit.
func editGLB(t testing.TB, glb []byte, edit func(doc map[string]any, bin []byte) []byte) []byte {
	t.Helper()
	doc, bin := splitGLB(t, glb)
	return joinGLB(t, doc, edit(doc, bin))
}

// checkModel fails t if m breaks the guarantees Decode documents.
func checkModel(t testing.TB, m *gltf.Model) {
	t.Helper()
	finite := func(vs ...float32) bool {
		for _, v := range vs {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return false
			}
		}
		return true
	}
	for i, me := range m.Meshes {
		n := len(me.Positions)
		switch {
		case n == 0:
			t.Fatalf("mesh %d has no vertices", i)
		case len(me.Normals) != n:
			t.Fatalf("mesh %d: %d normals for %d positions", i, len(me.Normals), n)
		case me.UVs != nil && len(me.UVs) != n:
			t.Fatalf("mesh %d: %d UVs for %d positions", i, len(me.UVs), n)
		case me.UVs1 != nil && len(me.UVs1) != n, me.Colors != nil && len(me.Colors) != n, me.Tangents != nil && len(me.Tangents) != n:
			t.Fatalf("mesh %d: %d second UVs, %d colours, %d tangents for %d positions", i, len(me.UVs1), len(me.Colors), len(me.Tangents), n)
		case me.NodeIndex < 0 || me.NodeIndex >= len(m.Nodes):
			t.Fatalf("mesh %d: node %d of %d", i, me.NodeIndex, len(m.Nodes))
		case len(me.Indices)%3 != 0:
			t.Fatalf("mesh %d: %d indices", i, len(me.Indices))
		case me.Material < -1 || me.Material >= len(m.Materials):
			t.Fatalf("mesh %d: material %d of %d", i, me.Material, len(m.Materials))
		case !finite(me.Transform[:]...):
			t.Fatalf("mesh %d: transform %v", i, me.Transform)
		}
		for _, x := range me.Indices {
			if int(x) >= n {
				t.Fatalf("mesh %d: index %d for %d vertices", i, x, n)
			}
		}
		for k := range n {
			if !finite(me.Positions[k][:]...) || !finite(me.Normals[k][:]...) {
				t.Fatalf("mesh %d vertex %d: %v %v", i, k, me.Positions[k], me.Normals[k])
			}
			if me.UVs != nil && !finite(me.UVs[k][:]...) {
				t.Fatalf("mesh %d vertex %d: uv %v", i, k, me.UVs[k])
			}
		}
	}
	for i, mat := range m.Materials {
		if !finite(mat.BaseColor[:]...) || !finite(mat.Metallic, mat.Roughness) {
			t.Fatalf("material %d: %+v", i, mat)
		}
	}
	for i := range m.Meshes {
		me := &m.Meshes[i]
		if len(me.Targets) > gltf.MaxTargets || len(me.Targets) != len(me.TargetWeights) || me.Targets != nil && me.Joints == nil {
			t.Fatalf("mesh %d: %d targets, %d weights, skinned %v", i, len(me.Targets), len(me.TargetWeights), me.Joints != nil)
		}
		if !finite(me.TargetWeights...) {
			t.Fatalf("mesh %d: weights %v", i, me.TargetWeights)
		}
		for k, tg := range me.Targets {
			for _, v := range [][]mgl32.Vec3{tg.Positions, tg.Normals, tg.Tangents} {
				if v != nil && len(v) != len(me.Positions) {
					t.Fatalf("mesh %d target %d: %d displacements for %d vertices", i, k, len(v), len(me.Positions))
				}
				for _, x := range v {
					if !finite(x[:]...) {
						t.Fatalf("mesh %d target %d: displacement %v", i, k, x)
					}
				}
			}
		}
	}
	for i, a := range m.Animations {
		for j, c := range a.Channels {
			n := 3
			switch c.Path {
			case gltf.Rotation:
				n = 4
			case gltf.Weights:
				n = -1 // the node's mesh's targets
				for k := range m.Meshes {
					if me := &m.Meshes[k]; me.NodeIndex == c.Node && me.Targets != nil {
						n = len(me.Targets)
					}
				}
				if n < 0 {
					continue // an unskinned mesh, baked at rest: the channel is not played
				}
			}
			if c.Interp == gltf.InterpCubicSpline {
				n *= 3
			}
			if c.Node < 0 || c.Node >= len(m.Nodes) || m.Nodes[c.Node].HasMatrix || len(c.Times) == 0 || len(c.Values) != n*len(c.Times) {
				t.Fatalf("animation %d channel %d: node %d of %d, %d times, %d values", i, j, c.Node, len(m.Nodes), len(c.Times), len(c.Values))
			}
		}
	}
	if !finite(m.Bounds.Min[:]...) || !finite(m.Bounds.Max[:]...) {
		t.Fatalf("bounds %v", m.Bounds)
	}
}

func near(a, b mgl32.Vec3) bool { return a.Sub(b).Len() < 1e-5 }

// apply returns t applied to the point p.
func apply(t mgl32.Mat4, p mgl32.Vec3) mgl32.Vec3 { return t.Mul4x1(p.Vec4(1)).Vec3() }

func decodeJSON(t testing.TB, js []byte) map[string]any {
	t.Helper()
	var doc map[string]any
	d := json.NewDecoder(bytes.NewReader(js))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func encodeJSON(t testing.TB, doc any) []byte {
	t.Helper()
	js, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}
