package gltf_test

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/tickframe/tickframe/renderer/gltf"
)

// fullMaterial uses every material feature the decoder reads.
func fullMaterial() gltf.Material {
	m := gltf.DefaultMaterial()
	m.Name = "full"
	m.BaseColor, m.Metallic, m.Roughness = mgl32.Vec4{0.5, 0.6, 0.7, 0.8}, 0.25, 0.75
	tex := checker()
	m.BaseColorTexture, m.MetallicRoughnessTexture, m.NormalTexture = tex, tex, tex
	m.OcclusionTexture, m.EmissiveTexture = tex, tex
	m.NormalScale, m.OcclusionStrength = 0.5, 0.25
	m.Emissive = mgl32.Vec3{2, 1, 0.5} // above 1: KHR_materials_emissive_strength
	m.AlphaMode, m.AlphaCutoff, m.DoubleSided = gltf.Mask, 0.3, true
	m.Sampling[gltf.BaseColorSlot] = gltf.TextureInfo{
		Sampler: gltf.Sampler{MagFilter: gltf.Nearest, MinFilter: gltf.LinearMipmapNearest, WrapS: gltf.ClampToEdge, WrapT: gltf.MirroredRepeat},
	}
	m.Sampling[gltf.NormalSlot] = gltf.TextureInfo{TexCoord: 1,
		Transform: &gltf.TextureTransform{Offset: mgl32.Vec2{0.25, 0.5}, Rotation: 0.5, Scale: mgl32.Vec2{2, 3}}}
	return m
}

// TestMaterialRoundTrip writes a material that uses every feature and
// reads back the same values; the image is decoded once for all five
// slots, and nothing is ignored.
func TestMaterialRoundTrip(t *testing.T) {
	var b gltf.Builder
	want := fullMaterial()
	p := boxPrimitive(b.AddMaterial(want))
	p.UVs1 = p.UVs
	b.AddNode(gltf.Node{Mesh: b.AddMesh("box", p)})
	m, err := gltf.Decode(mustGLB(t, &b), "full.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	checkModel(t, m)
	if len(m.Ignored) > 0 {
		t.Errorf("ignored %q", m.Ignored)
	}
	got := m.Materials[0]
	if len(m.Images) != 1 {
		t.Fatalf("%d images, want one for every slot", len(m.Images))
	}
	for s := range gltf.Slots {
		if got.Texture(s) != m.Images[0] {
			t.Errorf("%v is not the one image", s)
		}
		got.SetTexture(s, nil)
		want.SetTexture(s, nil)
	}
	const eps = 1e-6
	if !got.Emissive.ApproxEqualThreshold(want.Emissive, eps) {
		t.Errorf("emissive %v, want %v", got.Emissive, want.Emissive)
	}
	got.Emissive = want.Emissive
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded\n%+v\nwant\n%+v", got, want)
	}
	if !slices.Equal(m.Meshes[0].UVs1, p.UVs1) {
		t.Error("TEXCOORD_1 differs")
	}
}

// TestRequiredExtensions: an extension the decoder supports may be
// required; one it does not is refused.
func TestRequiredExtensions(t *testing.T) {
	var b gltf.Builder
	b.AddMaterial(fullMaterial())
	b.AddNode(gltf.Node{Mesh: b.AddMesh("box", boxPrimitive(0))})
	glb := mustGLB(t, &b)
	for _, c := range []struct {
		ext     string
		refused bool
	}{{"KHR_texture_transform", false}, {"KHR_materials_emissive_strength", false}, {"KHR_draco_mesh_compression", true}} {
		edited := editGLB(t, glb, func(doc map[string]any, bin []byte) []byte {
			set(doc, "extensionsRequired", []any{c.ext})
			return bin
		})
		_, err := gltf.Decode(edited, "req.glb", nil)
		if got := errors.Is(err, errors.ErrUnsupported); got != c.refused || (err != nil && !c.refused) {
			t.Errorf("required %s: %v, want refused %v", c.ext, err, c.refused)
		}
	}
}

// TestTextureTransformMatrix checks Matrix against the extension's
// definition, T·R·S with R = [cos sin; −sin cos], at a point.
func TestTextureTransformMatrix(t *testing.T) {
	tt := gltf.TextureTransform{Offset: mgl32.Vec2{0.25, -0.5}, Rotation: 0.3, Scale: mgl32.Vec2{2, 3}}
	u, v := 0.4, 0.7
	su, sv := 2*u, 3*v
	c, s := math.Cos(0.3), math.Sin(0.3)
	want := mgl32.Vec2{float32(c*su + s*sv + 0.25), float32(-s*su + c*sv - 0.5)}
	got := tt.Matrix().Mul3x1(mgl32.Vec3{float32(u), float32(v), 1})
	if !got.Vec2().ApproxEqualThreshold(want, 1e-6) || got[2] != 1 {
		t.Errorf("Matrix maps (%v, %v) to %v, want %v", u, v, got, want)
	}
}

// TestVertexColorsAndTangents reads COLOR_0 as float RGBA and as
// normalized unsigned byte and short RGB (alpha 1), and TANGENT with its
// W reduced to its sign; a primitive without normals is flattened with
// them.
func TestVertexColorsAndTangents(t *testing.T) {
	var b gltf.Builder
	p := boxPrimitive(-1)
	for i := range p.Positions {
		p.Colors = append(p.Colors, mgl32.Vec4{float32(i%3) / 2, 1, 0, 0.5})
		p.Tangents = append(p.Tangents, mgl32.Vec4{1, 0, 0, -0.999})
	}
	b.AddNode(gltf.Node{Mesh: b.AddMesh("box", p)})
	glb := mustGLB(t, &b)
	m, err := gltf.Decode(glb, "colors.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	me := m.Meshes[0]
	if !slices.Equal(me.Colors, p.Colors) {
		t.Errorf("float colours %v, want %v", me.Colors[:3], p.Colors[:3])
	}
	for _, tg := range me.Tangents {
		if tg != (mgl32.Vec4{1, 0, 0, -1}) {
			t.Fatalf("tangent %v, want (1, 0, 0, -1)", tg)
		}
	}
	// The same colours as normalized RGB: rewrite the COLOR_0 accessor
	// in place as unsigned bytes, then as shorts.
	for _, c := range []struct {
		comp, size int
		max        float64
	}{{5121, 1, 255}, {5123, 2, 65535}} {
		edited := editGLB(t, glb, func(doc map[string]any, bin []byte) []byte {
			acc := getInt(doc, "meshes.0.primitives.0.attributes.COLOR_0")
			a := "accessors." + strconv.Itoa(acc)
			off := accessorOffset(doc, acc)
			for i := range p.Colors {
				for k := range 3 {
					v := uint64(math.Round(float64(p.Colors[i][k]) * c.max))
					at := off + (3*i+k)*c.size
					if c.size == 1 {
						bin[at] = byte(v)
					} else {
						binary.LittleEndian.PutUint16(bin[at:], uint16(v))
					}
				}
			}
			set(doc, a+".componentType", c.comp)
			set(doc, a+".normalized", true)
			set(doc, a+".type", "VEC3")
			return bin
		})
		m, err := gltf.Decode(edited, "colors.glb", nil)
		if err != nil {
			t.Fatalf("component type %d: %v", c.comp, err)
		}
		for i, got := range m.Meshes[0].Colors {
			want := p.Colors[i]
			want[3] = 1
			if !got.ApproxEqualThreshold(want, float32(0.5/c.max+1e-6)) { // one step of rounding
				t.Fatalf("component type %d: colour %d is %v, want %v", c.comp, i, got, want)
			}
		}
	}
	// Without normals the primitive is flattened: every attribute follows.
	p.Normals = nil
	var fb gltf.Builder
	fb.AddNode(gltf.Node{Mesh: fb.AddMesh("flat", p)})
	m, err = gltf.Decode(mustGLB(t, &fb), "flat.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	me = m.Meshes[0]
	if len(me.Colors) != len(p.Indices) || len(me.Tangents) != len(p.Indices) {
		t.Fatalf("flattened: %d colours, %d tangents for %d vertices", len(me.Colors), len(me.Tangents), len(p.Indices))
	}
	for k, i := range p.Indices {
		if me.Colors[k] != p.Colors[i] {
			t.Fatalf("flattened vertex %d has colour %v, want %v", k, me.Colors[k], p.Colors[i])
		}
	}
}

// TestIgnored lists what a file holds that is read past: cameras,
// animations while unsupported, vertex attributes outside the subset and
// extensions the decoder does not know, each once; the extensions it
// knows are not listed.
func TestIgnored(t *testing.T) {
	var b gltf.Builder
	b.AddMaterial(fullMaterial())
	b.AddNode(gltf.Node{Mesh: b.AddMesh("box", boxPrimitive(0))})
	glb := editGLB(t, mustGLB(t, &b), func(doc map[string]any, bin []byte) []byte {
		set(doc, "cameras", []any{map[string]any{"type": "perspective"}})
		set(doc, "extensionsUsed", append(get(doc, "extensionsUsed").([]any), "KHR_lights_punctual", "KHR_lights_punctual"))
		set(doc, "meshes.0.primitives.0.attributes.TEXCOORD_2", getInt(doc, "meshes.0.primitives.0.attributes.TEXCOORD_0"))
		set(doc, "meshes.0.primitives.0.attributes._ID", getInt(doc, "meshes.0.primitives.0.attributes.TEXCOORD_0"))
		return bin
	})
	m, err := gltf.Decode(glb, "ignored.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"cameras", "TEXCOORD_2", "KHR_lights_punctual"}; !slices.Equal(m.Ignored, want) {
		t.Errorf("ignored %q, want %q", m.Ignored, want)
	}
}

// TestDamagedMaterials: values out of their range or of the wrong kind
// are errors at their JSON path; a UV set past 1 is refused.
func TestDamagedMaterials(t *testing.T) {
	var b gltf.Builder
	b.AddMaterial(fullMaterial())
	p := boxPrimitive(0)
	p.UVs1, p.Colors = p.UVs, make([]mgl32.Vec4, len(p.Positions))
	p.Tangents = make([]mgl32.Vec4, len(p.Positions))
	b.AddNode(gltf.Node{Mesh: b.AddMesh("box", p)})
	glb := mustGLB(t, &b)
	pp := "materials.0.pbrMetallicRoughness."
	for _, c := range []struct {
		name, path string
		edit       func(doc map[string]any)
		refused    bool
	}{
		{"alpha mode", "materials[0].alphaMode", func(d map[string]any) { set(d, "materials.0.alphaMode", "SOMETIMES") }, true}, // enums: the validator warns only
		{"cutoff", "materials[0].alphaCutoff", func(d map[string]any) { set(d, "materials.0.alphaCutoff", -1) }, false},
		{"emissive", "materials[0].emissiveFactor[1]", func(d map[string]any) { set(d, "materials.0.emissiveFactor", []any{0, 2, 0}) }, false},
		{"emissive length", "materials[0].emissiveFactor", func(d map[string]any) { set(d, "materials.0.emissiveFactor", []any{0, 1}) }, false},
		{"strength", "materials[0].extensions.KHR_materials_emissive_strength.emissiveStrength", func(d map[string]any) {
			set(d, "materials.0.extensions.KHR_materials_emissive_strength.emissiveStrength", -2)
		}, false},
		{"occlusion strength", "materials[0].occlusionTexture.strength", func(d map[string]any) { set(d, "materials.0.occlusionTexture.strength", 2) }, false},
		{"mag filter", "samplers[0].magFilter", func(d map[string]any) { set(d, "samplers.0.magFilter", 9984) }, true},
		{"min filter", "samplers[0].minFilter", func(d map[string]any) { set(d, "samplers.0.minFilter", 1) }, true},
		{"wrap", "samplers[0].wrapT", func(d map[string]any) { set(d, "samplers.0.wrapT", 7) }, true},
		{"sampler index", "textures[0].sampler", func(d map[string]any) { set(d, "textures.0.sampler", 9) }, false},
		{"transform", "materials[0].normalTexture.extensions.KHR_texture_transform.scale", func(d map[string]any) {
			set(d, "materials.0.normalTexture.extensions.KHR_texture_transform.scale", []any{1})
		}, false},
		{"texCoord 2", "materials[0].normalTexture.texCoord", func(d map[string]any) {
			set(d, "materials.0.normalTexture.extensions.KHR_texture_transform.texCoord", 2)
		}, true},
		{"metallic-roughness index", "materials[0].pbrMetallicRoughness.metallicRoughnessTexture.index", func(d map[string]any) {
			set(d, pp+"metallicRoughnessTexture.index", 99)
		}, false},
		{"colour type", "meshes[0].primitives[0].attributes.COLOR_0", func(d map[string]any) {
			set(d, "accessors."+strconv.Itoa(getInt(d, "meshes.0.primitives.0.attributes.COLOR_0"))+".type", "VEC2")
		}, false},
		{"tangent type", "meshes[0].primitives[0].attributes.TANGENT", func(d map[string]any) {
			set(d, "accessors."+strconv.Itoa(getInt(d, "meshes.0.primitives.0.attributes.TANGENT"))+".type", "VEC3")
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			edited := editGLB(t, glb, func(doc map[string]any, bin []byte) []byte { c.edit(doc); return bin })
			_, err := gltf.Decode(edited, "bad.glb", nil)
			if err == nil {
				t.Fatal("Decode succeeded")
			}
			checkError(t, err, "bad.glb", c.path)
			if errors.Is(err, errors.ErrUnsupported) != c.refused {
				t.Errorf("%v: refused %v, want %v", err, !c.refused, c.refused)
			}
		})
	}
	// Colours outside [0, 1] as floats.
	edited := editGLB(t, glb, func(doc map[string]any, bin []byte) []byte {
		off := accessorOffset(doc, getInt(doc, "meshes.0.primitives.0.attributes.COLOR_0"))
		binary.LittleEndian.PutUint32(bin[off:], math.Float32bits(1.5))
		return bin
	})
	if _, err := gltf.Decode(edited, "bad.glb", nil); err == nil {
		t.Error("a colour of 1.5 was accepted")
	} else {
		checkError(t, err, "bad.glb", "meshes[0].primitives[0].attributes.COLOR_0")
	}
}
