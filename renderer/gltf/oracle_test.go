package gltf_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/tickframe/tickframe/renderer/gltf"
)

// A verdict is the validator's on one file: its count of errors, and the
// first few ("CODE /pointer: message").
type verdict struct {
	Errors   int      `json:"errors"`
	Messages []string `json:"messages"`
}

// judge decodes data and fails t where Decode breaks the oracle given
// the validator's verdict vd: a refusal must be one printable line in a
// *gltf.Error naming the file, and for a file the validator calls valid a
// documented one (errors.ErrUnsupported, gltf.ErrLimit, gltf.ErrImageData,
// which the validator does not look for); a model must be
// drawable (drawable). It reports whether the file loaded.
func judge(t testing.TB, name string, data []byte, vd verdict) bool {
	t.Helper()
	type result struct {
		m   *gltf.Model
		err error
	}
	done := make(chan result, 1)
	go func() {
		m, err := gltf.Decode(data, name, nil)
		done <- result{m, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(time.Minute): // a small file decodes in milliseconds
		t.Fatalf("%s: Decode did not return in a minute", name)
	}
	if r.err != nil {
		var ge *gltf.Error
		if !errors.As(r.err, &ge) || ge.File != name {
			t.Fatalf("%s: error %q is not a *gltf.Error naming the file", name, r.err)
		}
		if msg := r.err.Error(); !printableLine(msg) {
			t.Fatalf("%s: error is not one printable line (untrusted strings must be quoted): %q", name, msg)
		}
		if vd.Errors == 0 && !errors.Is(r.err, errors.ErrUnsupported) && !errors.Is(r.err, gltf.ErrLimit) && !errors.Is(r.err, gltf.ErrImageData) {
			t.Fatalf("%s: the validator finds no error, and Decode refuses it without a documented reason: %v", name, r.err)
		}
		return false
	}
	drawable(t, name, r.m)
	return true
}

// printableLine reports whether s is UTF-8 without control characters
// (C0, DEL, C1), so that printing it cannot move a terminal's cursor,
// retitle it or end the line.
func printableLine(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r >= 0x7f && r < 0xa0 {
			return false
		}
	}
	return true
}

// drawable fails t unless m keeps Decode's promises (checkModel), every
// animation poses the tree into finite transforms at any time, those
// place every vertex finitely (morphed by the weights it gives), and the bounds fit a view in float32 (a
// size whose length and a centre that are finite), before and after Bake.
func drawable(t testing.TB, name string, m *gltf.Model) {
	t.Helper()
	checkModel(t, m)
	fits := func(b gltf.Box) bool {
		l, c := b.Size().Len(), b.Center()
		return !math.IsInf(float64(l), 0) && !math.IsNaN(float64(l)) && finite3(c)
	}
	if !fits(m.Bounds) {
		t.Fatalf("%s: bounds %v do not fit a view in float32", name, m.Bounds)
	}
	pose := make([]gltf.TRS, len(m.Nodes))
	world := make([]mgl32.Mat4, len(m.Nodes))
	for i := range m.Animations {
		a := &m.Animations[i]
		for _, at := range []float32{a.Start - 1, a.Start, (2*a.Start + a.End) / 3, (a.Start + 2*a.End) / 3, a.End, a.End + 1} {
			m.RestPose(pose)
			a.Sample(at, pose)
			m.WorldPose(pose, world)
			var box gltf.Box
			for k := range m.Meshes {
				me := &m.Meshes[k]
				positions := me.Positions
				if me.Targets != nil { // morphed by the weights the animation gives
					w := append([]float32(nil), me.TargetWeights...)
					a.SampleWeights(at, me.NodeIndex, w)
					positions = make([]mgl32.Vec3, len(me.Positions))
					me.Morph(w, positions, nil, nil)
				}
				for j, p := range positions {
					q := world[me.NodeIndex].Mul4x1(p.Vec4(1)).Vec3()
					if !finite3(q) {
						t.Fatalf("%s: animation %d at %g s places mesh %d vertex %d at %v", name, i, at, k, j, q)
					}
					if k == 0 && j == 0 {
						box = gltf.Box{Min: q, Max: q}
					}
					for c := range 3 {
						box.Min[c], box.Max[c] = min(box.Min[c], q[c]), max(box.Max[c], q[c])
					}
				}
			}
			if !fits(box) {
				t.Fatalf("%s: animation %d at %g s: posed bounds %v do not fit a view in float32", name, i, at, box)
			}
		}
	}
	m.Bake()
	checkModel(t, m)
}

func finite3(v mgl32.Vec3) bool {
	for _, c := range v {
		if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
			return false
		}
	}
	return true
}

// A mutator damages glTF files the way a hostile but fair tester would,
// deterministically from its seed: JSON values replaced by edge values,
// wrong types, other enums and strings with terminal escapes; keys deleted
// and added (cameras, matrices, extensions, …); array elements dropped and
// repeated; floats in the BIN chunk replaced by NaN, infinities and
// extremes; and now and then a raw byte (invalid UTF-8 among them).
type mutator struct{ r *rand.Rand }

func newMutator(seed uint64) *mutator {
	return &mutator{rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}
}

// Edge values for the JSON mutations.
var (
	edgeNumbers = []string{"-1", "0", "1", "2", "3", "4", "5", "99", "255", "65535", "4294967295",
		"2147483648", "1e30", "3e38", "-3e38", "0.5", "-0.5", "1.5", "1e-40", "-0", "5121", "5126", "34963"}
	edgeStrings = []string{"", "SCALAR", "VEC2", "VEC3", "VEC4", "MAT4", "STEP", "CUBICSPLINE", "LINEAR",
		"BLEND", "MASK", "OPAQUE", "translation", "rotation", "scale", "weights", "POSITION", "TEXCOORD_1",
		"\x1b]0;owned\x07\x1b[2J", "KHR_draco_mesh_compression", "KHR_texture_transform", "x:y",
		"DATA:application/octet-stream;base64,AAAAAA==", "../outside.bin", "image/ktx2", "2.0", "1.0", "3.0"}
	addKeys = []struct {
		key string
		v   string // JSON
	}{
		{"camera", "99"}, {"camera", "0"}, {"cameras", `[{"type":"perspective","perspective":{"yfov":1,"znear":0.1}}]`},
		{"matrix", "[0,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1]"}, {"matrix", "[1,0,0,0, 1,1,0,0, 0,0,1,0, 0,0,0,1]"},
		{"matrix", "[1,0,0,0, 0,1,0,0, 0,0,1,0, 3e38,0,0,1]"}, {"translation", "[3e38,0,0]"},
		{"translation", "[-3e38,3e38,0]"}, {"rotation", "[0,0,0,0]"}, {"scale", "[0,0,0]"}, {"scale", "[1e30,1e30,1e30]"},
		{"extensionsRequired", `["KHR_texture_transform"]`}, {"extensionsUsed", `["KHR_lights_punctual"]`},
		{"extensionsRequired", "[\"\\u001b[2J\"]"}, {"extensions", "{\"\\u001b]0;x\\u0007\":{}}"},
		{"sampler", "0"}, {"source", "99"}, {"children", "[0]"}, {"mesh", "0"}, {"mode", "0"}, {"targets", "[{}]"},
		{"byteStride", "12"}, {"normalized", "true"}, {"scene", "0"}, {"scene", "7"}, {"skin", "0"},
		{"uri", "\"\\u001b[2Jx.bin\""}, {"texCoord", "2"}, {"alphaCutoff", "-1"},
	}
	edgeFloats = []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 3e38, -3e38,
		0, -1, 1e-40, 2, 1e20, -0.5}
)

// mutate returns a damaged copy of seed, a GLB or a .gltf.
func (mu *mutator) mutate(t testing.TB, seed []byte) []byte {
	t.Helper()
	glb := len(seed) >= 4 && string(seed[:4]) == "glTF"
	var doc map[string]any
	var bin []byte
	if glb {
		doc, bin = splitGLB(t, seed)
	} else {
		doc = decodeJSON(t, seed)
	}
	for range 1 + mu.r.IntN(3) {
		switch k := mu.r.IntN(10); {
		case k < 6:
			mu.editValue(doc)
		case k < 8:
			mu.addKey(doc)
		case k < 9 && len(bin) >= 4:
			off := 4 * mu.r.IntN(len(bin)/4)
			v := math.Float32bits(edgeFloats[mu.r.IntN(len(edgeFloats))])
			if mu.r.IntN(4) == 0 {
				v = mu.r.Uint32()
			}
			binary.LittleEndian.PutUint32(bin[off:], v)
		default:
			mu.editValue(doc)
		}
	}
	var out []byte
	if glb {
		out = joinGLB(t, doc, bin)
	} else {
		out = encodeJSON(t, doc)
	}
	if mu.r.IntN(12) == 0 {
		// A raw byte: inside the JSON (a GLB's JSON chunk starts at
		// byte 20), often a byte UTF-8 never has.
		start := 0
		if glb {
			start = 20
		}
		end := len(out)
		if glb {
			end = 20 + int(binary.LittleEndian.Uint32(out[12:]))
		}
		if end > start {
			b := byte(0xff)
			if mu.r.IntN(2) == 0 {
				b = byte(mu.r.IntN(256))
			}
			out = bytes.Clone(out)
			out[start+mu.r.IntN(end-start)] = b
		}
	}
	return out
}

// A slot is a place in a JSON document that holds a value.
type slot struct {
	get func() any
	set func(any)
	del func() // removes the key or the array element
	dup func() // repeats the array element (nil for a key)
}

// slots lists every place in doc, in a fixed order.
func slots(doc map[string]any) []slot {
	var out []slot
	var walk func(v any, set func(any))
	walk = func(v any, set func(any)) {
		switch c := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(c))
			for k := range c {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				out = append(out, slot{
					get: func() any { return c[k] },
					set: func(x any) { c[k] = x },
					del: func() { delete(c, k) },
				})
				walk(c[k], func(x any) { c[k] = x })
			}
		case []any:
			for i := range c {
				out = append(out, slot{
					get: func() any { return c[i] },
					set: func(x any) { c[i] = x },
					del: func() { set(slices.Delete(slices.Clone(c), i, i+1)) },
					dup: func() { set(slices.Insert(slices.Clone(c), i, c[i])) },
				})
				walk(c[i], func(x any) { c[i] = x })
			}
		}
	}
	walk(doc, nil)
	return out
}

// editValue changes, deletes or repeats one value of doc.
func (mu *mutator) editValue(doc map[string]any) {
	all := slots(doc)
	if len(all) == 0 {
		return
	}
	s := all[mu.r.IntN(len(all))]
	switch k := mu.r.IntN(10); {
	case k == 0:
		s.del()
	case k == 1 && s.dup != nil:
		s.dup()
	case k == 2:
		wrong := []any{nil, true, "x", []any{}, map[string]any{}, json.Number("1.5")}
		s.set(wrong[mu.r.IntN(len(wrong))])
	default:
		switch v := s.get().(type) {
		case json.Number:
			if mu.r.IntN(2) == 0 {
				s.set(json.Number(edgeNumbers[mu.r.IntN(len(edgeNumbers))]))
				break
			}
			f, _ := v.Float64()
			deltas := []float64{1, -1}
			f += deltas[mu.r.IntN(2)]
			s.set(json.Number(strconv.FormatFloat(f, 'g', -1, 64)))
		case string:
			switch mu.r.IntN(3) {
			case 0:
				s.set(strings.ToUpper(v))
			case 1:
				s.set(strings.ToLower(v))
			default:
				s.set(edgeStrings[mu.r.IntN(len(edgeStrings))])
			}
		default:
			s.set(json.Number(edgeNumbers[mu.r.IntN(len(edgeNumbers))]))
		}
	}
}

// addKey adds one of addKeys to one of doc's objects.
func (mu *mutator) addKey(doc map[string]any) {
	objs := []map[string]any{doc}
	for _, s := range slots(doc) {
		if o, ok := s.get().(map[string]any); ok {
			objs = append(objs, o)
		}
	}
	o := objs[mu.r.IntN(len(objs))]
	kv := addKeys[mu.r.IntN(len(addKeys))]
	var v any
	d := json.NewDecoder(strings.NewReader(kv.v))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		panic(kv.v)
	}
	o[kv.key] = v
}
