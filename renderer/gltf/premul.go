package gltf

import (
	"fmt"
	"image"
	"image/color"
)

// notPremultiplied returns an error naming the first pixel (or palette
// entry) of img whose colour is above its alpha, which no premultiplied
// colour is, for the image types that hold premultiplied colours as they
// are (image.RGBA, image.RGBA64, and a Paletted image's palette). Such a
// colour is a straight one put in the wrong type: image/png would divide
// it by its alpha into a value past 255 and write it wrapped around.
// Other types convert their own colours and are always valid.
func notPremultiplied(img image.Image) error {
	bad := func(at string, r, g, b, a uint32) error {
		return fmt.Errorf("%T %s has colour (%d, %d, %d) above its alpha %d: %T holds premultiplied colours; put straight ones in an *image.NRGBA", img, at, r, g, b, a, img)
	}
	switch m := img.(type) {
	case *image.RGBA:
		for y := m.Rect.Min.Y; y < m.Rect.Max.Y; y++ {
			row := m.Pix[m.PixOffset(m.Rect.Min.X, y):m.PixOffset(m.Rect.Max.X, y)]
			for i := 0; i+3 < len(row); i += 4 {
				if p := row[i : i+4 : i+4]; p[0] > p[3] || p[1] > p[3] || p[2] > p[3] {
					return bad(fmt.Sprintf("pixel (%d, %d)", m.Rect.Min.X+i/4, y), uint32(p[0]), uint32(p[1]), uint32(p[2]), uint32(p[3]))
				}
			}
		}
	case *image.RGBA64:
		for y := m.Rect.Min.Y; y < m.Rect.Max.Y; y++ {
			for x := m.Rect.Min.X; x < m.Rect.Max.X; x++ {
				if c := m.RGBA64At(x, y); c.R > c.A || c.G > c.A || c.B > c.A {
					return bad(fmt.Sprintf("pixel (%d, %d)", x, y), uint32(c.R), uint32(c.G), uint32(c.B), uint32(c.A))
				}
			}
		}
	case *image.Paletted:
		for i, c := range m.Palette {
			if r, g, b, a := c.RGBA(); r > a || g > a || b > a {
				if rgba, ok := c.(color.RGBA); ok {
					r, g, b, a = uint32(rgba.R), uint32(rgba.G), uint32(rgba.B), uint32(rgba.A)
				}
				return bad(fmt.Sprintf("palette entry %d", i), r, g, b, a)
			}
		}
	}
	return nil
}
