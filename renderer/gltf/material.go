package gltf

import (
	"bytes"
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
	p := src.PBR
	if p == nil {
		return m, nil
	}
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
	if t := p.BaseColorTexture; t != nil {
		tp := pp + ".baseColorTexture"
		if t.TexCoord != 0 {
			return m, d.refuse(tp+".texCoord", "texture coordinate set %d is not supported (only TEXCOORD_0)", t.TexCoord)
		}
		var err error
		if m.BaseColorTexture, err = d.texture(t.Index, tp+".index"); err != nil {
			return m, err
		}
	}
	return m, nil
}

// unitRange checks that a material factor lies in [0, 1].
func (d *decoder) unitRange(v float32, path string) error {
	if !(v >= 0 && v <= 1) {
		return d.errorf(path, "%g is outside [0, 1]", v)
	}
	return nil
}

// texture returns the decoded image of texture i.
func (d *decoder) texture(i int, path string) (image.Image, error) {
	if i < 0 || i >= len(d.doc.Textures) {
		return nil, d.errorf(path, "texture %d does not exist (%d textures)", i, len(d.doc.Textures))
	}
	tp := fmt.Sprintf("textures[%d]", i)
	t := &d.doc.Textures[i]
	if t.Source == nil {
		// Only an extension (KHR_texture_basisu, EXT_texture_webp, …) can
		// supply the image then; drawing without it would be wrong.
		return nil, d.refuse(tp, "texture without source is not supported")
	}
	return d.image(*t.Source, tp+".source")
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
		return nil, d.refuse(ip, "image format is not supported (want PNG or JPEG; mimeType %q)", d.doc.Images[i].MimeType)
	}
	if err != nil {
		return nil, d.errorf(ip, "%v", err)
	}
	w, h := cfg.Width, cfg.Height
	if w < 1 || h < 1 || w > maxImageSide || h > maxImageSide {
		return nil, d.errorf(ip, "image is %d×%d pixels: want 1 to %d on each side", w, h, maxImageSide)
	}
	if w*h > maxPixelsPerByte*len(data) {
		return nil, d.errorf(ip, "image claims %d×%d pixels, more than %d bytes can hold", w, h, len(data))
	}
	if d.pixels += w * h; d.pixels > maxPixels {
		return nil, d.errorf(ip, "images have more than %d pixels in all", maxPixels)
	}
	img, err := decode(data)
	if err != nil {
		return nil, d.errorf(ip, "%v", err)
	}
	d.images[i], d.imageDone[i] = img, true
	return img, nil
}

// isFinite reports whether v is neither infinite nor NaN.
func isFinite(v float32) bool {
	return math.Float32bits(v)&0x7f800000 != 0x7f800000
}

func finite3(v mgl32.Vec3) bool { return isFinite(v[0]) && isFinite(v[1]) && isFinite(v[2]) }
