package renderer

import (
	"fmt"
	"image"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// ReadFrame reads the back buffer of a width×height viewport into dst,
// top row first, reusing dst's pixels when they are big enough, and
// returns it. Call it after Draw and before the buffers are swapped.
func ReadFrame(dst *image.RGBA, width, height int) (*image.RGBA, error) {
	if width <= 0 || height <= 0 {
		return nil, fmt.Errorf("renderer: read frame: empty viewport %dx%d", width, height)
	}
	if dst == nil || cap(dst.Pix) < 4*width*height {
		dst = image.NewRGBA(image.Rect(0, 0, width, height))
	} else {
		dst.Pix = dst.Pix[:4*width*height]
		dst.Stride = 4 * width
		dst.Rect = image.Rect(0, 0, width, height)
	}
	gl.ReadBuffer(gl.BACK)
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	gl.ReadPixels(0, 0, int32(width), int32(height), gl.RGBA, gl.UNSIGNED_BYTE, unsafe.Pointer(&dst.Pix[0]))
	if err := checkGL("read frame"); err != nil {
		return nil, err
	}
	// GL's rows run bottom to top.
	row := make([]byte, dst.Stride)
	for y := 0; y < height/2; y++ {
		a := dst.Pix[y*dst.Stride : (y+1)*dst.Stride]
		b := dst.Pix[(height-1-y)*dst.Stride : (height-y)*dst.Stride]
		copy(row, a)
		copy(a, b)
		copy(b, row)
	}
	return dst, nil
}
