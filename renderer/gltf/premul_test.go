package gltf_test

import (
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/renderer/gltf"
)

// premulGLB builds a box whose base colour texture is img.
func premulGLB(img image.Image) ([]byte, error) {
	var b gltf.Builder
	mat := gltf.DefaultMaterial()
	mat.BaseColorTexture = img
	b.AddNode(gltf.Node{Mesh: b.AddMesh("box", boxPrimitive(b.AddMaterial(mat)))})
	return b.GLB()
}

// TestBuilderPremultipliedTextures: an image.RGBA with partial alpha
// (premultiplied, as Go defines it) comes back as the straight colours it
// stands for, and an image.NRGBA as it is; an image.RGBA, an RGBA64 or a
// palette that holds straight colours above their alpha (a ring that fades
// out, written into the type a user reaches for first) is refused with an
// error naming the pixel and image.NRGBA, where it used to be written as
// colours wrapped past 255.
func TestBuilderPremultipliedTextures(t *testing.T) {
	fill := func(img interface{ Set(x, y int, c color.Color) }, c color.Color) {
		for y := range 2 {
			for x := range 3 {
				img.Set(x, y, c)
			}
		}
	}
	for _, tc := range []struct {
		name string
		img  image.Image
		want color.NRGBA
	}{
		{"premultiplied RGBA", func() image.Image {
			m := image.NewRGBA(image.Rect(0, 0, 3, 2))
			fill(m, color.RGBA{100, 50, 25, 128})
			return m
		}(), color.NRGBA{199, 99, 49, 128}},
		{"NRGBA", func() image.Image {
			m := image.NewNRGBA(image.Rect(0, 0, 3, 2))
			fill(m, color.NRGBA{255, 128, 0, 128})
			return m
		}(), color.NRGBA{255, 128, 0, 128}},
	} {
		glb, err := premulGLB(tc.img)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		m, err := gltf.Decode(glb, "premul.glb", nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		tex := m.Materials[0].BaseColorTexture
		for _, p := range []image.Point{{0, 0}, {2, 1}} {
			got := color.NRGBAModel.Convert(tex.At(p.X, p.Y)).(color.NRGBA)
			if absDiff8(got.R, tc.want.R) > 1 || absDiff8(got.G, tc.want.G) > 1 || absDiff8(got.B, tc.want.B) > 1 || got.A != tc.want.A {
				t.Errorf("%s: pixel %v reads back %v, want %v", tc.name, p, got, tc.want)
			}
		}
	}

	straight := image.NewRGBA(image.Rect(0, 0, 3, 2))
	fill(straight, color.RGBA{10, 10, 10, 255})
	straight.SetRGBA(2, 1, color.RGBA{255, 128, 0, 128})
	wide := image.NewRGBA64(image.Rect(0, 0, 1, 1))
	wide.SetRGBA64(0, 0, color.RGBA64{0xffff, 0, 0, 0x8000})
	pal := image.NewPaletted(image.Rect(0, 0, 1, 1), color.Palette{color.RGBA{0, 0, 0, 255}, color.RGBA{200, 40, 40, 100}})
	for _, tc := range []struct {
		name, at string
		img      image.Image
	}{
		{"straight colours in an RGBA", "pixel (2, 1)", straight},
		{"straight colours in an RGBA64", "pixel (0, 0)", wide},
		{"straight colours in a palette", "palette entry 1", pal},
	} {
		_, err := premulGLB(tc.img)
		if err == nil {
			t.Errorf("%s: written without an error", tc.name)
			continue
		}
		msg := err.Error()
		for _, want := range []string{"gltf: builder: texture: ", tc.at, "above its alpha", "*image.NRGBA"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: error %q does not name %q", tc.name, msg, want)
			}
		}
	}
}

func absDiff8(a, b uint8) int { return max(int(a)-int(b), int(b)-int(a)) }
