package gltf_test

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/tickframe/tickframe/renderer/gltf"
)

// A corruption damages a valid file; path is the JSON path the error must
// name ("" where the damage is to the container).
type corruption struct {
	name string
	path string
	edit func(t *testing.T, glb []byte) []byte
}

// inJSON returns a corruption edit that changes the JSON and BIN chunks.
func inJSON(f func(doc map[string]any, bin []byte)) func(*testing.T, []byte) []byte {
	return func(t *testing.T, glb []byte) []byte {
		return editGLB(t, glb, func(doc map[string]any, bin []byte) []byte {
			f(doc, bin)
			return bin
		})
	}
}

// setJSON returns a corruption edit that sets one JSON value.
func setJSON(path string, v any) func(*testing.T, []byte) []byte {
	return inJSON(func(doc map[string]any, _ []byte) { set(doc, path, v) })
}

func TestDamaged(t *testing.T) {
	le := binary.LittleEndian
	nan := math.Float32bits(float32(math.NaN()))
	inf := math.Float32bits(float32(math.Inf(1)))
	// The PNG's IHDR chunk claims other dimensions, with a valid CRC.
	pngSize := func(w, h uint32) func(*testing.T, []byte) []byte {
		return inJSON(func(doc map[string]any, bin []byte) {
			p := bin[getInt(doc, "bufferViews.0.byteOffset"):]
			le := binary.BigEndian
			le.PutUint32(p[16:], w)
			le.PutUint32(p[20:], h)
			le.PutUint32(p[29:], crc32.ChecksumIEEE(p[12:29]))
		})
	}
	for _, tc := range []corruption{
		// The container.
		{"empty", "", func(*testing.T, []byte) []byte { return nil }},
		{"truncated header", "", func(_ *testing.T, g []byte) []byte { return g[:10] }},
		{"truncated", "", func(_ *testing.T, g []byte) []byte { return g[:len(g)-4] }},
		{"truncated with fixed length", "", func(_ *testing.T, g []byte) []byte {
			g = g[:len(g)-4]
			le.PutUint32(g[8:], uint32(len(g)))
			return g
		}},
		{"truncated chunk header", "", func(_ *testing.T, g []byte) []byte {
			n := 20 + le.Uint32(g[12:]) + 4
			g = g[:n]
			le.PutUint32(g[8:], n)
			return g
		}},
		{"trailing bytes", "", func(_ *testing.T, g []byte) []byte { return append(g, 0, 0, 0, 0) }},
		{"JSON chunk too long", "", func(_ *testing.T, g []byte) []byte { le.PutUint32(g[12:], math.MaxUint32); return g }},
		{"JSON chunk 4 bytes long", "", func(_ *testing.T, g []byte) []byte { le.PutUint32(g[12:], le.Uint32(g[12:])+4); return g }},
		{"JSON chunk 4 bytes short", "", func(_ *testing.T, g []byte) []byte { le.PutUint32(g[12:], le.Uint32(g[12:])-4); return g }},
		{"BIN chunk too long", "", func(_ *testing.T, g []byte) []byte {
			n := 20 + le.Uint32(g[12:])
			le.PutUint32(g[n:], le.Uint32(g[n:])+1)
			return g
		}},
		{"BIN chunk short", "", func(_ *testing.T, g []byte) []byte {
			n := 20 + le.Uint32(g[12:])
			le.PutUint32(g[n:], le.Uint32(g[n:])-8)
			return g
		}},
		{"first chunk not JSON", "", func(_ *testing.T, g []byte) []byte { g[16] = 'X'; return g }},
		{"bad JSON", "", func(_ *testing.T, g []byte) []byte { g[20] = '['; return g }},
		{"JSON type", "accessors", setJSON("accessors.0.count", "many")},
		{"fractional index", "nodes", setJSON("nodes.0.mesh", 0.5)},
		{"no asset", "asset.version", setJSON("asset", nil)},

		// Buffers, views, accessors.
		{"no buffers", "bufferViews[0].buffer", setJSON("buffers", nil)},
		{"buffer longer than BIN", "buffers[0]", inJSON(func(doc map[string]any, bin []byte) {
			set(doc, "buffers.0.byteLength", len(bin)+100)
		})},
		{"buffer length 0", "buffers[0]", setJSON("buffers.0.byteLength", 0)},
		{"second buffer without uri", "buffers[1]", inJSON(func(doc map[string]any, _ []byte) {
			set(doc, "buffers", append(get(doc, "buffers").([]any), map[string]any{"byteLength": 4}))
			set(doc, "bufferViews.1.buffer", 1)
		})},
		{"bufferView beyond buffer", "bufferViews[1]", setJSON("bufferViews.1.byteLength", 1<<20)},
		{"bufferView offset huge", "bufferViews[1]", setJSON("bufferViews.1.byteOffset", int64(1)<<62)},
		{"bufferView offset negative", "bufferViews[1]", setJSON("bufferViews.1.byteOffset", -4)},
		{"bufferView missing", "accessors[0].bufferView", setJSON("accessors.0.bufferView", 99)},
		{"bufferView negative", "accessors[0].bufferView", setJSON("accessors.0.bufferView", -1)},
		{"byteStride odd", "bufferViews[1].byteStride", setJSON("bufferViews.1.byteStride", 6)},
		{"byteStride too large", "bufferViews[1].byteStride", setJSON("bufferViews.1.byteStride", 256)},
		{"byteStride below element", "accessors[0]", setJSON("bufferViews.1.byteStride", 8)},
		{"count too large", "accessors[0]", setJSON("accessors.0.count", 25)},
		{"count huge", "accessors[0]", setJSON("accessors.0.count", int64(1)<<40)},
		{"count overflowing", "accessors[0]", setJSON("accessors.0.count", int64(math.MaxInt64))},
		{"count zero", "accessors[0].count", setJSON("accessors.0.count", 0)},
		{"count negative", "accessors[0].count", setJSON("accessors.0.count", -3)},
		{"byteOffset beyond view", "accessors[0]", setJSON("accessors.0.byteOffset", 4)},
		{"byteOffset huge", "accessors[0]", setJSON("accessors.0.byteOffset", int64(1)<<62)},
		{"byteOffset negative", "accessors[0]", setJSON("accessors.0.byteOffset", -12)},
		{"unknown componentType", "accessors[0].componentType", setJSON("accessors.0.componentType", 1234)},
		{"unknown type", "accessors[0].type", setJSON("accessors.0.type", "VEC5")},
		{"POSITION not float", "meshes[0].primitives[0].attributes.POSITION", setJSON("accessors.0.componentType", 5123)},
		{"POSITION VEC2", "meshes[0].primitives[0].attributes.POSITION", setJSON("accessors.0.type", "VEC2")},
		{"TEXCOORD_0 not normalized", "meshes[0].primitives[0].attributes.TEXCOORD_0", inJSON(func(doc map[string]any, _ []byte) {
			set(doc, "accessors.2.componentType", 5121)
		})},
		{"indices float", "accessors[3]", setJSON("accessors.3.componentType", 5126)},
		{"indices VEC3", "meshes[0].primitives[0].indices", inJSON(func(doc map[string]any, _ []byte) {
			set(doc, "accessors.3.type", "VEC3")
			set(doc, "accessors.3.count", 12)
		})},
		{"accessor missing", "meshes[0].primitives[0].attributes.NORMAL", setJSON("meshes.0.primitives.0.attributes.NORMAL", 9)},
		{"indices accessor missing", "meshes[0].primitives[0].indices", setJSON("meshes.0.primitives.0.indices", 9)},
		{"aliasing", "accessors[", inJSON(func(doc map[string]any, _ []byte) {
			// 200 accessors all reading the same 288 bytes of positions.
			accs := get(doc, "accessors").([]any)
			var prims []any
			for range 200 {
				prims = append(prims, map[string]any{"attributes": map[string]any{"POSITION": len(accs)}})
				accs = append(accs, accs[0])
			}
			set(doc, "accessors", accs)
			set(doc, "meshes.0.primitives", prims)
		})},

		// Vertex data.
		{"NaN position", "meshes[0].primitives[0].attributes.POSITION", inJSON(func(doc map[string]any, bin []byte) {
			le.PutUint32(bin[accessorOffset(doc, 0)+4*7:], nan)
		})},
		{"infinite normal", "meshes[0].primitives[0].attributes.NORMAL", inJSON(func(doc map[string]any, bin []byte) {
			le.PutUint32(bin[accessorOffset(doc, 1)+4*70:], inf)
		})},
		{"NaN UV", "meshes[0].primitives[0].attributes.TEXCOORD_0", inJSON(func(doc map[string]any, bin []byte) {
			le.PutUint32(bin[accessorOffset(doc, 2)+4*47:], nan)
		})},
		{"index out of range", "meshes[0].primitives[0].indices", inJSON(func(doc map[string]any, bin []byte) {
			bin[accessorOffset(doc, 3)+5] = 24
		})},
		{"normal count", "meshes[0].primitives[0].attributes.NORMAL", setJSON("accessors.1.count", 23)},
		{"UV count", "meshes[0].primitives[0].attributes.TEXCOORD_0", setJSON("accessors.2.count", 23)},
		{"no primitives", "meshes[0].primitives", setJSON("meshes.0.primitives", []any{})},
		{"unknown mode", "meshes[0].primitives[0].mode", setJSON("meshes.0.primitives.0.mode", 9)},

		// Nodes and scenes.
		{"mesh missing", "nodes[0].mesh", setJSON("nodes.0.mesh", 5)},
		{"child missing", "nodes[1].children[0]", setJSON("nodes.1.children", []any{7})},
		{"child negative", "nodes[1].children[0]", setJSON("nodes.1.children", []any{-1})},
		{"cycle", "nodes[", setJSON("nodes.0.children", []any{1})},
		{"own child", "nodes[0].children[0]", setJSON("nodes.0.children", []any{0})},
		{"unreachable cycle", "nodes[", inJSON(func(doc map[string]any, _ []byte) {
			nodes := get(doc, "nodes").([]any)
			nodes = append(nodes, map[string]any{"children": []any{3}}, map[string]any{"children": []any{2}})
			set(doc, "nodes", nodes)
		})},
		{"two parents", "nodes[2].children[0]", inJSON(func(doc map[string]any, _ []byte) {
			set(doc, "nodes", append(get(doc, "nodes").([]any), map[string]any{"children": []any{0}}))
		})},
		{"child twice", "nodes[1].children[1]", setJSON("nodes.1.children", []any{0, 0})},
		{"scene missing", "scene", setJSON("scene", 3)},
		{"scene node missing", "scenes[0].nodes[0]", setJSON("scenes.0.nodes", []any{5})},
		{"scene node not a root", "scenes[0].nodes[0]", setJSON("scenes.0.nodes", []any{0})},
		{"scene node twice", "scenes[0].nodes[1]", setJSON("scenes.0.nodes", []any{1, 1})},
		{"matrix length", "nodes[1].matrix", inJSON(func(doc map[string]any, _ []byte) {
			set(doc, "nodes.1.translation", nil)
			set(doc, "nodes.1.matrix", []any{1, 0, 0})
		})},
		{"matrix and TRS", "nodes[1]", setJSON("nodes.1.matrix", []any{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1})},
		{"matrix projective", "nodes[1].matrix", inJSON(func(doc map[string]any, _ []byte) {
			set(doc, "nodes.1.translation", nil)
			set(doc, "nodes.1.matrix", []any{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1})
		})},
		{"translation length", "nodes[1].translation", setJSON("nodes.1.translation", []any{1, 2})},
		{"rotation zero", "nodes[1].rotation", setJSON("nodes.1.rotation", []any{0, 0, 0, 0})},
		{"scale length", "nodes[1].scale", setJSON("nodes.1.scale", []any{1})},
		{"translation overflows float32", "nodes", setJSON("nodes.1.translation", []any{1e39, 0, 0})},
		{"world transform overflows", "nodes[0]", inJSON(func(doc map[string]any, _ []byte) {
			set(doc, "nodes.1.translation", []any{3e38, 0, 0})
			set(doc, "nodes.0.translation", []any{3e38, 0, 0})
		})},
		{"transformed positions overflow", "nodes[0]", inJSON(func(doc map[string]any, _ []byte) {
			set(doc, "nodes.0.translation", []any{3e38, 0, 0})
			set(doc, "nodes.0.scale", []any{3e38, 1, 1})
		})},

		// Materials and images.
		{"material missing", "meshes[0].primitives[0].material", setJSON("meshes.0.primitives.0.material", 9)},
		{"baseColorFactor length", "materials[0].pbrMetallicRoughness.baseColorFactor", setJSON("materials.0.pbrMetallicRoughness.baseColorFactor", []any{1, 1, 1})},
		{"baseColorFactor range", "materials[0].pbrMetallicRoughness.baseColorFactor[1]", setJSON("materials.0.pbrMetallicRoughness.baseColorFactor", []any{1, 2, 1, 1})},
		{"metallic negative", "materials[0].pbrMetallicRoughness.metallicFactor", setJSON("materials.0.pbrMetallicRoughness.metallicFactor", -0.5)},
		{"roughness above 1", "materials[0].pbrMetallicRoughness.roughnessFactor", setJSON("materials.0.pbrMetallicRoughness.roughnessFactor", 1.5)},
		{"texture missing", "materials[0].pbrMetallicRoughness.baseColorTexture.index", setJSON("materials.0.pbrMetallicRoughness.baseColorTexture.index", 4)},
		{"image missing", "textures[0].source", setJSON("textures.0.source", 3)},
		{"image without data", "images[0]", setJSON("images.0.bufferView", nil)},
		{"image with uri and bufferView", "images[0]", setJSON("images.0.uri", "x.png")},
		{"image bufferView missing", "images[0].bufferView", setJSON("images.0.bufferView", 42)},
		{"PNG truncated", "images[0]", setJSON("bufferViews.0.byteLength", 60)},
		{"PNG damaged", "images[0]", inJSON(func(doc map[string]any, bin []byte) {
			p := bin[getInt(doc, "bufferViews.0.byteOffset"):]
			for i := 40; i < 60; i++ {
				p[i] ^= 0x5a
			}
		})},
		{"PNG claims too many pixels", "images[0]", pngSize(16000, 16000)},
		{"PNG wider than a texture", "images[0]", pngSize(20000, 1)},
		{"PNG empty", "images[0]", pngSize(0, 4)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			glb := tc.edit(t, mustGLB(t, texturedBox()))
			m, err := gltf.Decode(glb, "damaged.glb", nil)
			if err == nil {
				t.Fatalf("Decode succeeded with %d meshes", len(m.Meshes))
			}
			checkError(t, err, "damaged.glb", tc.path)
		})
	}
}

// checkError fails t unless err is an *Error naming file and path (a
// prefix of its Path) whose message starts with "gltf: file: path".
func checkError(t *testing.T, err error, file, path string) {
	t.Helper()
	var ge *gltf.Error
	if !errors.As(err, &ge) {
		t.Fatalf("error %q is a %T, not a *gltf.Error", err, err)
	}
	if ge.File != file || !strings.HasPrefix(ge.Path, path) {
		t.Errorf("error %q: file %q path %q, want %q and %q", err, ge.File, ge.Path, file, path)
	}
	if want := "gltf: " + file + ": " + path; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
}

func TestDamagedGLTF(t *testing.T) {
	js, bin, err := texturedBox().GLTF("model.bin")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"model.bin": bin, "notes.txt": []byte("not an image")}
	open := func(uri string) ([]byte, error) {
		if b, ok := files[uri]; ok {
			return b, nil
		}
		return nil, errors.New("no such file")
	}
	for _, tc := range []struct {
		name, path string
		edit       func(doc map[string]any)
		open       func(string) ([]byte, error)
	}{
		{"missing file", "buffers[0].uri", func(doc map[string]any) { set(doc, "buffers.0.uri", "gone.bin") }, open},
		{"no open", "buffers[0].uri", func(map[string]any) {}, nil},
		{"bad escape", "buffers[0].uri", func(doc map[string]any) { set(doc, "buffers.0.uri", "model%zz.bin") }, open},
		{"short file", "buffers[0]", func(doc map[string]any) { set(doc, "buffers.0.byteLength", len(bin)+1) }, open},
		{"bad base64", "buffers[0].uri", func(doc map[string]any) { set(doc, "buffers.0.uri", "data:;base64,!!!!") }, open},
		{"image file missing", "images[0].uri", func(doc map[string]any) {
			set(doc, "images.0", map[string]any{"uri": "tex.png"})
		}, open},
		{"image file not an image", "images[0]", func(doc map[string]any) {
			set(doc, "images.0", map[string]any{"uri": "notes.txt"})
		}, open},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := decodeJSON(t, js)
			tc.edit(doc)
			_, err := gltf.Decode(encodeJSON(t, doc), "model.gltf", tc.open)
			if err == nil {
				t.Fatal("Decode succeeded")
			}
			checkError(t, err, "model.gltf", tc.path)
		})
	}
	// Not JSON at all.
	if _, err := gltf.Decode([]byte("solid cube\nfacet normal 0 0 1\n"), "cube.stl", nil); err == nil {
		t.Error("Decode of an STL file succeeded")
	} else {
		checkError(t, err, "cube.stl", "")
	}
}

func TestUnsupported(t *testing.T) {
	for _, tc := range []corruption{
		{"asset.version 1.0", "asset.version", setJSON("asset.version", "1.0")},
		{"asset.version 3.0", "asset.version", setJSON("asset.version", "3.0")},
		{"asset.minVersion 2.1", "asset.minVersion", setJSON("asset.minVersion", "2.1")},
		{"GLB version 1", "", func(_ *testing.T, g []byte) []byte { g[4] = 1; return g }},
		{"draco", "extensionsRequired[0]", setJSON("extensionsRequired", []any{"KHR_draco_mesh_compression"})},
		{"meshopt", "extensionsRequired[0]", setJSON("extensionsRequired", []any{"EXT_meshopt_compression"})},
		{"basisu", "extensionsRequired[0]", setJSON("extensionsRequired", []any{"KHR_texture_basisu"})},
		{"no POSITION", "meshes[0].primitives[0].attributes", setJSON("meshes.0.primitives.0.attributes.POSITION", nil)},
		{"sparse", "accessors[2].sparse", setJSON("accessors.2.sparse", map[string]any{"count": 1})},
		{"no bufferView", "accessors[0]", setJSON("accessors.0.bufferView", nil)},
		{"points", "meshes[0].primitives[0].mode", setJSON("meshes.0.primitives.0.mode", 0)},
		{"lines", "meshes[0].primitives[0].mode", setJSON("meshes.0.primitives.0.mode", 1)},
		{"strip", "meshes[0].primitives[0].mode", setJSON("meshes.0.primitives.0.mode", 5)},
		{"fan", "meshes[0].primitives[0].mode", setJSON("meshes.0.primitives.0.mode", 6)},
		{"texCoord 2", "materials[0].pbrMetallicRoughness.baseColorTexture.texCoord", setJSON("materials.0.pbrMetallicRoughness.baseColorTexture.texCoord", 2)},
		{"texture without source", "textures[0]", setJSON("textures.0.source", nil)},
		{"webp", "images[0]", inJSON(func(doc map[string]any, bin []byte) {
			copy(bin[getInt(doc, "bufferViews.0.byteOffset"):], "RIFF\x00\x00\x00\x00WEBP")
		})},
		{"http", "buffers[0].uri", setJSON("buffers.0.uri", "https://example.com/model.bin")},
		{"percent-encoded data URI", "buffers[0].uri", setJSON("buffers.0.uri", "data:application/octet-stream,%00%01")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			glb := tc.edit(t, mustGLB(t, texturedBox()))
			_, err := gltf.Decode(glb, "model.glb", nil)
			if err == nil {
				t.Fatal("Decode succeeded")
			}
			checkError(t, err, "model.glb", tc.path)
			if !errors.Is(err, errors.ErrUnsupported) {
				t.Errorf("error %q does not match errors.ErrUnsupported", err)
			}
		})
	}

	// Damage is not reported as unsupported.
	_, err := gltf.Decode(setJSON("accessors.0.count", 1000)(t, mustGLB(t, texturedBox())), "model.glb", nil)
	if err == nil || errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("error %v matches errors.ErrUnsupported", err)
	}
}

// TestLimits checks the caps on what a small file can make Decode
// allocate by instancing.
func TestLimits(t *testing.T) {
	t.Run("meshes", func(t *testing.T) {
		// 300 nodes placing a mesh of 300 primitives that share one
		// triangle: 90000 meshes from a few kilobytes.
		var b gltf.Builder
		tri := gltf.Primitive{Positions: []mgl32.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Material: -1}
		b.AddMesh("many", tri)
		for range 300 {
			b.AddNode(gltf.Node{Mesh: 0})
		}
		glb := inJSON(func(doc map[string]any, _ []byte) {
			p := get(doc, "meshes.0.primitives.0")
			prims := make([]any, 300)
			for i := range prims {
				prims[i] = p
			}
			set(doc, "meshes.0.primitives", prims)
		})(t, mustGLB(t, &b))
		_, err := gltf.Decode(glb, "many.glb", nil)
		if err == nil {
			t.Fatal("Decode succeeded")
		}
		checkError(t, err, "many.glb", "nodes[")
	})
	t.Run("vertices", func(t *testing.T) {
		// 1000 instances of 20000 vertices.
		var b gltf.Builder
		p := gltf.Primitive{Positions: make([]mgl32.Vec3, 20001), Material: -1}
		mesh := b.AddMesh("big", p)
		for i := range 1000 {
			b.AddNode(gltf.Node{Mesh: mesh, Translation: mgl32.Vec3{float32(i), 0, 0}})
		}
		_, err := gltf.Decode(mustGLB(t, &b), "big.glb", nil)
		if err == nil {
			t.Fatal("Decode succeeded")
		}
		checkError(t, err, "big.glb", "nodes[")
	})
}

// TestIncompleteTriangle: a primitive whose indices or (without indices)
// vertices do not make whole triangles is drawn as OpenGL draws it, its
// incomplete last triangle left out (the Khronos validator warns of it,
// MESH_PRIMITIVE_INCOMPATIBLE_MODE, and calls the file valid).
func TestIncompleteTriangle(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(doc map[string]any)
		tris int
	}{
		{"indices", func(doc map[string]any) { set(doc, "accessors.3.count", 35) }, 11},
		{"vertices", func(doc map[string]any) {
			set(doc, "meshes.0.primitives.0.indices", nil)
			for _, a := range []string{"0", "1", "2"} {
				set(doc, "accessors."+a+".count", 23)
			}
		}, 7},
		{"two vertices", func(doc map[string]any) {
			set(doc, "meshes.0.primitives.0.indices", nil)
			for _, a := range []string{"0", "1", "2"} {
				set(doc, "accessors."+a+".count", 2)
			}
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			glb := editGLB(t, mustGLB(t, texturedBox()), func(doc map[string]any, bin []byte) []byte { tc.edit(doc); return bin })
			m, err := gltf.Decode(glb, "model.glb", nil)
			if err != nil {
				t.Fatal(err)
			}
			checkModel(t, m)
			if got := len(m.Meshes[0].Indices) / 3; got != tc.tris || len(m.Meshes[0].Indices)%3 != 0 {
				t.Fatalf("%d indices, want %d triangles", len(m.Meshes[0].Indices), tc.tris)
			}
		})
	}
}
