package renderer

import (
	"fmt"
	"image"
	"image/draw"
	"reflect"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/tickframe/tickframe/renderer/gltf"
)

// EXT_texture_filter_anisotropic, core only in OpenGL 4.6.
const (
	textureMaxAnisotropy    = 0x84FE
	maxTextureMaxAnisotropy = 0x84FF
	// wantAnisotropy: 8× is where the sharpening of oblique textures
	// (the ground) stops being visible at ordinary angles.
	wantAnisotropy = 8
)

// maxAnisotropy returns the anisotropic filtering degree textures get: 8,
// or the driver's maximum if lower, or 1 without the extension or on a
// software rasterizer: llvmpipe's anisotropic sampling of a large tiled
// ground seen at a grazing angle took from 70 ms to over a minute for one
// frame, against 45 ms without.
func maxAnisotropy() float32 {
	if softwareRenderer() {
		return 1
	}
	has := false
	var n int32
	gl.GetIntegerv(gl.NUM_EXTENSIONS, &n)
	for i := range n {
		switch gl.GoStr(gl.GetStringi(gl.EXTENSIONS, uint32(i))) {
		case "GL_EXT_texture_filter_anisotropic", "GL_ARB_texture_filter_anisotropic":
			has = true
		}
	}
	if !has {
		return 1
	}
	var most float32
	gl.GetFloatv(maxTextureMaxAnisotropy, &most)
	gl.GetError() // a driver that lists the extension but refuses the query
	return max(1, min(wantAnisotropy, most))
}

// textureKey names an uploaded texture: the same image is uploaded once
// per colour space it is sampled in.
type textureKey struct {
	img  image.Image
	srgb bool
}

// texture returns the texture of img in the given colour space, uploading
// it the first time.
func (s *scene) texture(img image.Image, srgb bool) (glTexture, error) {
	comparable := reflect.TypeOf(img).Comparable()
	key := textureKey{img, srgb}
	if comparable {
		if t, ok := s.textureOf[key]; ok {
			return t, nil
		}
	}
	t, err := uploadTexture(img, srgb, s.anisotropy)
	if err != nil {
		return 0, err
	}
	s.textures = append(s.textures, t)
	if comparable {
		s.textureOf[key] = t
	}
	return t, nil
}

// uploadTexture uploads an image, top row first, as an sRGB texture
// (GL_SRGB8_ALPHA8: the GPU decodes it to linear when sampling) or as
// linear data (GL_RGBA8), with mipmaps. Its own parameters are the
// default sampler's (trilinear, anisotropic, repeat); a material's
// sampler object overrides them.
func uploadTexture(img image.Image, srgb bool, anisotropy float32) (glTexture, error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	var limit int32
	gl.GetIntegerv(gl.MAX_TEXTURE_SIZE, &limit)
	if w <= 0 || h <= 0 || w > int(limit) || h > int(limit) {
		return 0, fmt.Errorf("renderer: texture of %dx%d pixels: want 1 to %d on a side", w, h, limit)
	}
	// Straight (not premultiplied) alpha, rows packed: NRGBA. GL's first
	// row is at t = 0, the image's top row: glTF's (0, 0) is the top left.
	pix, ok := img.(*image.NRGBA)
	if !ok || pix.Stride != 4*w || pix.Rect.Min != (image.Point{}) {
		pix = image.NewNRGBA(image.Rect(0, 0, w, h))
		draw.Draw(pix, pix.Rect, img, b.Min, draw.Src)
	}
	format := int32(gl.RGBA8)
	if srgb {
		format = gl.SRGB8_ALPHA8
	}
	var n uint32
	gl.GenTextures(1, &n)
	t := glTexture(n)
	gl.BindTexture(gl.TEXTURE_2D, n)
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 1)
	gl.TexImage2D(gl.TEXTURE_2D, 0, format, int32(w), int32(h), 0, gl.RGBA, gl.UNSIGNED_BYTE, unsafe.Pointer(&pix.Pix[0]))
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 4)
	gl.GenerateMipmap(gl.TEXTURE_2D)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.REPEAT)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.REPEAT)
	if anisotropy > 1 {
		gl.TexParameterf(gl.TEXTURE_2D, textureMaxAnisotropy, anisotropy)
	}
	gl.BindTexture(gl.TEXTURE_2D, 0)
	if err := checkGL(fmt.Sprintf("upload %dx%d texture", w, h)); err != nil {
		t.Delete()
		return 0, err
	}
	return t, nil
}

// glSampler is a sampler's GL parameters, with glTF's gaps filled: a
// filter the file leaves undefined is linear (trilinear for
// minification), a wrap of 0 repeats.
type glSampler struct {
	mag, min, wrapS, wrapT int32
}

// samplerParams checks s and returns its GL parameters.
func samplerParams(s gltf.Sampler) (glSampler, error) {
	g := glSampler{mag: gl.LINEAR, min: gl.LINEAR_MIPMAP_LINEAR, wrapS: gl.REPEAT, wrapT: gl.REPEAT}
	switch s.MagFilter {
	case 0:
	case gltf.Nearest, gltf.Linear:
		g.mag = int32(s.MagFilter)
	default:
		return g, fmt.Errorf("magnification filter %d: want NEAREST or LINEAR", s.MagFilter)
	}
	switch s.MinFilter {
	case 0:
	case gltf.Nearest, gltf.Linear, gltf.NearestMipmapNearest, gltf.LinearMipmapNearest, gltf.NearestMipmapLinear, gltf.LinearMipmapLinear:
		g.min = int32(s.MinFilter)
	default:
		return g, fmt.Errorf("minification filter %d is not a GL filter", s.MinFilter)
	}
	for _, w := range []struct {
		v   int
		dst *int32
	}{{s.WrapS, &g.wrapS}, {s.WrapT, &g.wrapT}} {
		switch w.v {
		case 0:
		case gltf.Repeat, gltf.ClampToEdge, gltf.MirroredRepeat:
			*w.dst = int32(w.v)
		default:
			return g, fmt.Errorf("wrap mode %d: want REPEAT, CLAMP_TO_EDGE or MIRRORED_REPEAT", w.v)
		}
	}
	return g, nil
}

// sampler returns the GL sampler object for s, creating it the first
// time. Mipmaps exist for every texture; the sampler's minification
// filter decides whether they are used. Anisotropic filtering (where the
// renderer uses it) goes with trilinear filtering only.
func (s *scene) sampler(smp gltf.Sampler) (uint32, error) {
	g, err := samplerParams(smp)
	if err != nil {
		return 0, err
	}
	if id, ok := s.samplers[g]; ok {
		return id, nil
	}
	var id uint32
	gl.GenSamplers(1, &id)
	gl.SamplerParameteri(id, gl.TEXTURE_MAG_FILTER, g.mag)
	gl.SamplerParameteri(id, gl.TEXTURE_MIN_FILTER, g.min)
	gl.SamplerParameteri(id, gl.TEXTURE_WRAP_S, g.wrapS)
	gl.SamplerParameteri(id, gl.TEXTURE_WRAP_T, g.wrapT)
	if s.anisotropy > 1 && g.min == gl.LINEAR_MIPMAP_LINEAR {
		gl.SamplerParameterf(id, textureMaxAnisotropy, s.anisotropy)
	}
	if err := checkGL("create sampler"); err != nil {
		gl.DeleteSamplers(1, &id)
		return 0, err
	}
	if s.samplers == nil {
		s.samplers = make(map[glSampler]uint32)
	}
	s.samplers[g] = id
	return id, nil
}

// deleteSamplers frees the sampler objects.
func (s *scene) deleteSamplers() {
	for _, id := range s.samplers {
		gl.DeleteSamplers(1, &id)
	}
	s.samplers = nil
}
