package gltf_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/tickframe/tickframe/renderer/gltf"
)

// A hostileCase is a file a hostile but fair tester hands the loader,
// and what must come of it.
type hostileCase struct {
	name string
	// valid is the Khronos validator's verdict on the file
	// (TestHostileVerdicts checks it).
	valid bool
	// path is the JSON path Decode's refusal names, "-" where the file
	// loads (and must be drawable).
	path string
	// is, if not nil, is what the refusal must match (errors.Is).
	is    error
	build func(t testing.TB) []byte
}

func (tc hostileCase) file(t testing.TB) []byte {
	t.Helper()
	return tc.build(t)
}

// editBox returns a case's build: the textured box's GLB, edited.
func editBox(edit func(doc map[string]any, bin []byte)) func(testing.TB) []byte {
	return func(t testing.TB) []byte {
		return editGLB(t, mustGLB(t, texturedBox()), func(doc map[string]any, bin []byte) []byte {
			edit(doc, bin)
			return bin
		})
	}
}

// editAnimated is editBox for fullAnimated's GLB.
func editAnimated(edit func(doc map[string]any, bin []byte)) func(testing.TB) []byte {
	return func(t testing.TB) []byte {
		return editGLB(t, mustGLB(t, fullAnimated()), func(doc map[string]any, bin []byte) []byte {
			edit(doc, bin)
			return bin
		})
	}
}

// putFloats writes vs over accessor acc's first elements.
func putFloats(doc map[string]any, bin []byte, acc int, vs ...float32) {
	off := accessorOffset(doc, acc)
	for i, v := range vs {
		binary.LittleEndian.PutUint32(bin[off+4*i:], math.Float32bits(v))
	}
}

// hostileCases are the files of issue 24's items 15 and 16, and others
// like them.
func hostileCases() []hostileCase {
	const esc = "\x1b]0;owned\x07\x1b[2J"
	return []hostileCase{
		// Valid files.
		{"translation 3e38", true, "nodes[0]", gltf.ErrLimit, editBox(func(doc map[string]any, _ []byte) {
			set(doc, "nodes.1.translation", []any{3e38, 0, 0})
		})},
		{"uppercase DATA scheme", true, "-", nil, func(t testing.TB) []byte {
			js, _, err := texturedBox().GLTF("")
			if err != nil {
				t.Fatal(err)
			}
			return bytes.Replace(js, []byte(`"data:`), []byte(`"DATA:`), 1)
		}},
		{"texture without source", true, "textures[0]", errors.ErrUnsupported, editBox(func(doc map[string]any, _ []byte) {
			set(doc, "textures.0.source", nil)
		})},
		{"required extension with escapes", true, "extensionsRequired[0]", errors.ErrUnsupported, editBox(func(doc map[string]any, _ []byte) {
			doc["extensionsUsed"] = []any{esc}
			doc["extensionsRequired"] = []any{esc}
		})},
		{"animated translation 3e38", true, "animations[0]", gltf.ErrLimit, editAnimated(func(doc map[string]any, bin []byte) {
			putFloats(doc, bin, getInt(doc, "animations.0.samplers.0.output"), 0, 0, 0, 3e38, 0, 0)
		})},

		// Invalid files.
		{"camera 99", false, "nodes[0].camera", nil, editBox(func(doc map[string]any, _ []byte) {
			set(doc, "nodes.0.camera", 99)
		})},
		{"singular matrix", false, "nodes[1].matrix", nil, editBox(func(doc map[string]any, _ []byte) {
			set(doc, "nodes.1.translation", nil)
			set(doc, "nodes.1.matrix", []any{0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 5, 0, 0, 1})
		})},
		{"sheared matrix", true, "-", nil, editBox(func(doc map[string]any, _ []byte) {
			set(doc, "nodes.1.translation", nil)
			set(doc, "nodes.1.matrix", []any{1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 5, 0, 0, 1})
		})},
		{"unknown wrap mode", true, "samplers[0].wrapT", errors.ErrUnsupported, editBox(func(doc map[string]any, _ []byte) {
			doc["samplers"] = []any{map[string]any{"wrapT": 33649}}
			set(doc, "textures.0.sampler", 0)
		})},
		{"negative keyframe time", false, "animations[0].samplers[0].input", nil, editAnimated(func(doc map[string]any, bin []byte) {
			in := getInt(doc, "animations.0.samplers.0.input")
			putFloats(doc, bin, in, -1)
			set(doc, "accessors."+strconv.Itoa(in)+".min", []any{-1})
		})},
		{"zero quaternion keyframe", false, "animations[0].samplers[1].output", nil, editAnimated(func(doc map[string]any, bin []byte) {
			putFloats(doc, bin, getInt(doc, "animations.0.samplers.1.output"), 0, 0, 0, 0)
		})},
		{"invalid UTF-8 JSON", false, "", nil, func(t testing.TB) []byte {
			glb := mustGLB(t, texturedBox())
			return bytes.Replace(glb, []byte(`"child"`), []byte("\"ch\xffld\""), 1)
		}},
		{"extensionsRequired not in extensionsUsed", false, "extensionsRequired[0]", nil, editBox(func(doc map[string]any, _ []byte) {
			delete(doc, "extensionsUsed")
			doc["extensionsRequired"] = []any{"KHR_texture_transform"}
		})},
		{"count of the wrong type", false, "accessors[3].count", nil, editBox(func(doc map[string]any, _ []byte) {
			set(doc, "accessors.3.count", "36")
		})},
		{"buffer URI with escapes", false, "buffers[0].uri", nil, func(t testing.TB) []byte {
			js, _, err := texturedBox().GLTF(esc + ".bin")
			if err != nil {
				t.Fatal(err)
			}
			return js
		}},
		{"duplicate animation target", false, "animations[0].channels[3].target", nil, editAnimated(func(doc map[string]any, _ []byte) {
			chans := get(doc, "animations.0.channels").([]any)
			set(doc, "animations.0.channels", append(chans, chans[0]))
		})},
		{"non-root node in another scene", false, "scenes[1].nodes[0]", nil, editBox(func(doc map[string]any, _ []byte) {
			doc["scenes"] = append(doc["scenes"].([]any), map[string]any{"nodes": []any{0}})
		})},
		{"unused accessor with a bad bufferView", false, "accessors[4].bufferView", nil, editBox(func(doc map[string]any, _ []byte) {
			doc["accessors"] = append(doc["accessors"].([]any),
				map[string]any{"bufferView": 99, "componentType": 5126, "count": 1, "type": "SCALAR"})
		})},
	}
}

// TestHostile checks what becomes of each hostile case: a refusal names
// its JSON path in one printable line, and matches what the case says it
// must; a file that loads is drawable.
func TestHostile(t *testing.T) {
	for _, tc := range hostileCases() {
		t.Run(tc.name, func(t *testing.T) {
			m, err := gltf.Decode(tc.file(t), "hostile.glb", nil)
			if tc.path == "-" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				drawable(t, "hostile.glb", m)
				return
			}
			if err == nil {
				t.Fatalf("loaded (%d meshes), want a refusal at %s", len(m.Meshes), tc.path)
			}
			var ge *gltf.Error
			if !errors.As(err, &ge) || ge.Path != tc.path {
				t.Fatalf("error %q, want one at path %q", err, tc.path)
			}
			if !printableLine(err.Error()) {
				t.Fatalf("error is not one printable line: %q", err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Fatalf("error %q does not match %v", err, tc.is)
			}
		})
	}
}
