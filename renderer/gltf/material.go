package gltf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// Limits on decoded images.
const (
	// maxImageSide is the largest width or height: 16384 is the largest
	// GL_MAX_TEXTURE_SIZE of current GPUs, so a larger image could not be
	// uploaded anyway.
	maxImageSide = 16384

	// maxPixels caps the pixels of all images of a model together
	// (8192², 256 MiB as RGBA).
	maxPixels = 1 << 26

	// maxPixelsPerByte bounds the pixels an encoded image of n bytes may
	// claim, so that a small damaged file cannot make the decoder allocate
	// a huge image: one-bit PNG pixels through deflate's best ratio of
	// 1032:1. JPEG cannot do better than one bit per 8×8 block.
	maxPixelsPerByte = 8 * 1032
)

// material decodes material i.
func (d *decoder) material(i int) (Material, error) {
	mp := fmt.Sprintf("materials[%d]", i)
	src := &d.doc.Materials[i]
	m := DefaultMaterial()
	m.Name = src.Name
	if p := src.PBR; p != nil {
		pp := mp + ".pbrMetallicRoughness"
		if p.BaseColorFactor != nil {
			if len(p.BaseColorFactor) != 4 {
				return m, d.errorf(pp+".baseColorFactor", "has %d values, want 4", len(p.BaseColorFactor))
			}
			for j, v := range p.BaseColorFactor {
				if err := d.unitRange(v, fmt.Sprintf("%s.baseColorFactor[%d]", pp, j)); err != nil {
					return m, err
				}
				m.BaseColor[j] = v
			}
		}
		if p.MetallicFactor != nil {
			if err := d.unitRange(*p.MetallicFactor, pp+".metallicFactor"); err != nil {
				return m, err
			}
			m.Metallic = *p.MetallicFactor
		}
		if p.RoughnessFactor != nil {
			if err := d.unitRange(*p.RoughnessFactor, pp+".roughnessFactor"); err != nil {
				return m, err
			}
			m.Roughness = *p.RoughnessFactor
		}
		if err := d.textureRef(&m, BaseColorSlot, p.BaseColorTexture, pp+".baseColorTexture"); err != nil {
			return m, err
		}
		if err := d.textureRef(&m, MetallicRoughnessSlot, p.MetallicRoughnessTexture, pp+".metallicRoughnessTexture"); err != nil {
			return m, err
		}
	}
	if t := src.NormalTexture; t != nil {
		if err := d.textureRef(&m, NormalSlot, t, mp+".normalTexture"); err != nil {
			return m, err
		}
		if present(t.Scale) {
			v, err := d.number(t.Scale, mp+".normalTexture.scale")
			if err != nil {
				return m, err
			}
			m.NormalScale = v
		}
	}
	if t := src.OcclusionTexture; t != nil {
		if err := d.textureRef(&m, OcclusionSlot, t, mp+".occlusionTexture"); err != nil {
			return m, err
		}
		if present(t.Strength) {
			v, err := d.number(t.Strength, mp+".occlusionTexture.strength")
			if err != nil {
				return m, err
			}
			if err := d.unitRange(v, mp+".occlusionTexture.strength"); err != nil {
				return m, err
			}
			m.OcclusionStrength = v
		}
	}
	if err := d.textureRef(&m, EmissiveSlot, src.EmissiveTexture, mp+".emissiveTexture"); err != nil {
		return m, err
	}
	if f := src.EmissiveFactor; f != nil {
		if len(f) != 3 {
			return m, d.errorf(mp+".emissiveFactor", "has %d values, want 3", len(f))
		}
		for j, v := range f {
			if err := d.unitRange(v, fmt.Sprintf("%s.emissiveFactor[%d]", mp, j)); err != nil {
				return m, err
			}
			m.Emissive[j] = v
		}
	}
	if raw, ok := src.Extensions["KHR_materials_emissive_strength"]; ok {
		ep := mp + ".extensions.KHR_materials_emissive_strength"
		var es emissiveStrength
		if err := json.Unmarshal(raw, &es); err != nil {
			return m, d.errorf(ep, "bad JSON value: %v", err)
		}
		if s := es.EmissiveStrength; s != nil {
			if !(*s >= 0) || !isFinite(*s) {
				return m, d.errorf(ep+".emissiveStrength", "%g is not a finite, non-negative strength", *s)
			}
			m.Emissive = m.Emissive.Mul(*s)
		}
	}
	switch src.AlphaMode {
	case "", "OPAQUE":
	case "MASK":
		m.AlphaMode = Mask
	case "BLEND":
		m.AlphaMode = Blend
	default:
		return m, d.refuse(mp+".alphaMode", "alpha mode %s is not one glTF 2.0 lists (OPAQUE, MASK, BLEND)", quote(src.AlphaMode))
	}
	if c := src.AlphaCutoff; c != nil {
		if !(*c >= 0) || !isFinite(*c) {
			return m, d.errorf(mp+".alphaCutoff", "%g is not a finite, non-negative cutoff", *c)
		}
		m.AlphaCutoff = *c
	}
	m.DoubleSided = src.DoubleSided
	return m, nil
}

// textureRef decodes the texture reference t (nil: none) into slot s of
// m: its image, sampler, UV set and transform.
func (d *decoder) textureRef(m *Material, s Slot, t *textureRef, tp string) error {
	if t == nil {
		return nil
	}
	info := TextureInfo{TexCoord: t.TexCoord}
	if raw, ok := t.Extensions["KHR_texture_transform"]; ok {
		xp := tp + ".extensions.KHR_texture_transform"
		var x textureTransform
		if err := json.Unmarshal(raw, &x); err != nil {
			return d.errorf(xp, "bad JSON value: %v", err)
		}
		tt := &TextureTransform{Rotation: x.Rotation, Scale: mgl32.Vec2{1, 1}}
		for _, f := range []struct {
			name string
			v    []float32
			dst  *mgl32.Vec2
		}{{"offset", x.Offset, &tt.Offset}, {"scale", x.Scale, &tt.Scale}} {
			if f.v == nil {
				continue
			}
			if len(f.v) != 2 || !isFinite(f.v[0]) || !isFinite(f.v[1]) {
				return d.errorf(xp+"."+f.name, "%v: want two finite values", f.v)
			}
			*f.dst = mgl32.Vec2{f.v[0], f.v[1]}
		}
		if !isFinite(tt.Rotation) {
			return d.errorf(xp+".rotation", "is not finite")
		}
		if x.TexCoord != nil {
			info.TexCoord = *x.TexCoord // the extension's overrides the reference's
		}
		info.Transform = tt
	}
	if info.TexCoord < 0 || info.TexCoord > 1 {
		return d.refuse(tp+".texCoord", "texture coordinate set %d is not supported (only TEXCOORD_0 and TEXCOORD_1)", info.TexCoord)
	}
	img, smp, err := d.texture(t.Index, tp+".index")
	if err != nil {
		return err
	}
	info.Sampler = smp
	m.setTexture(s, img)
	m.Sampling[s] = info
	return nil
}

// present reports whether a raw JSON value is there and not null.
func present(raw json.RawMessage) bool { return raw != nil && string(raw) != "null" }

// number reads a raw JSON number as a finite float32.
func (d *decoder) number(raw json.RawMessage, path string) (float32, error) {
	var v float32
	if err := json.Unmarshal(raw, &v); err != nil {
		return 0, d.errorf(path, "bad JSON value: want a number")
	}
	if !isFinite(v) {
		return 0, d.errorf(path, "is not finite")
	}
	return v, nil
}

// unitRange checks that a material factor lies in [0, 1].
func (d *decoder) unitRange(v float32, path string) error {
	if !(v >= 0 && v <= 1) {
		return d.errorf(path, "%g is outside [0, 1]", v)
	}
	return nil
}

// texture returns the decoded image of texture i and its sampler.
func (d *decoder) texture(i int, path string) (image.Image, Sampler, error) {
	if i < 0 || i >= len(d.doc.Textures) {
		return nil, Sampler{}, d.errorf(path, "texture %d does not exist (%d textures)", i, len(d.doc.Textures))
	}
	tp := fmt.Sprintf("textures[%d]", i)
	t := &d.doc.Textures[i]
	if t.Source == nil {
		// Only an extension (KHR_texture_basisu, EXT_texture_webp, …) can
		// supply the image then; drawing without it would be wrong.
		return nil, Sampler{}, d.refuse(tp, "texture without source is not supported")
	}
	var smp Sampler
	if t.Sampler != nil {
		k := *t.Sampler
		if k < 0 || k >= len(d.doc.Samplers) {
			return nil, smp, d.errorf(tp+".sampler", "sampler %d does not exist (%d samplers)", k, len(d.doc.Samplers))
		}
		src := &d.doc.Samplers[k]
		sp := fmt.Sprintf("samplers[%d]", k)
		smp = Sampler{MagFilter: src.MagFilter, MinFilter: src.MinFilter, WrapS: src.WrapS, WrapT: src.WrapT}
		switch smp.MagFilter {
		case 0, Nearest, Linear:
		default:
			return nil, smp, d.refuse(sp+".magFilter", "filter %d is not one glTF 2.0 lists", smp.MagFilter)
		}
		switch smp.MinFilter {
		case 0, Nearest, Linear, NearestMipmapNearest, LinearMipmapNearest, NearestMipmapLinear, LinearMipmapLinear:
		default:
			return nil, smp, d.refuse(sp+".minFilter", "filter %d is not one glTF 2.0 lists", smp.MinFilter)
		}
		for _, w := range []struct {
			name string
			v    int
		}{{"wrapS", smp.WrapS}, {"wrapT", smp.WrapT}} {
			switch w.v {
			case 0, Repeat, ClampToEdge, MirroredRepeat:
			default:
				return nil, smp, d.refuse(sp+"."+w.name, "wrap mode %d is not one glTF 2.0 lists", w.v)
			}
		}
	}
	img, err := d.image(*t.Source, tp+".source")
	return img, smp, err
}

// image returns image i, decoding it on first use.
func (d *decoder) image(i int, path string) (image.Image, error) {
	if i < 0 || i >= len(d.doc.Images) {
		return nil, d.errorf(path, "image %d does not exist (%d images)", i, len(d.doc.Images))
	}
	if d.imageDone[i] {
		return d.images[i], nil
	}
	ip := fmt.Sprintf("images[%d]", i)
	data, err := d.imageData(i, ip)
	if err != nil {
		return nil, err
	}
	var (
		cfg    image.Config
		decode func([]byte) (image.Image, error)
	)
	switch {
	case isPNG(data):
		cfg, err = png.DecodeConfig(bytes.NewReader(data))
		decode = func(b []byte) (image.Image, error) { return png.Decode(bytes.NewReader(b)) }
	case isJPEG(data):
		cfg, err = jpeg.DecodeConfig(bytes.NewReader(data))
		decode = func(b []byte) (image.Image, error) { return jpeg.Decode(bytes.NewReader(b)) }
	default:
		return nil, d.refuse(ip, "image format is not supported (want PNG or JPEG; mimeType %s)", quote(d.doc.Images[i].MimeType))
	}
	if err != nil {
		return nil, d.errorf(ip, "%w: %v", ErrImageData, err)
	}
	w, h := cfg.Width, cfg.Height
	if w < 1 || h < 1 || w > maxImageSide || h > maxImageSide {
		return nil, d.limit(ip, "image is %d×%d pixels: want 1 to %d on each side", w, h, maxImageSide)
	}
	if w*h > maxPixelsPerByte*len(data) {
		return nil, d.limit(ip, "image claims %d×%d pixels, more than %d bytes can hold", w, h, len(data))
	}
	if d.pixels += w * h; d.pixels > maxPixels {
		return nil, d.limit(ip, "images have more than %d pixels in all", maxPixels)
	}
	img, err := decode(data)
	if err != nil {
		return nil, d.errorf(ip, "%w: %v", ErrImageData, err)
	}
	d.images[i], d.imageDone[i] = img, true
	return img, nil
}

// isFinite reports whether v is neither infinite nor NaN.
func isFinite(v float32) bool {
	return math.Float32bits(v)&0x7f800000 != 0x7f800000
}

func finite3(v mgl32.Vec3) bool { return isFinite(v[0]) && isFinite(v[1]) && isFinite(v[2]) }
