package renderer

import (
	"github.com/go-gl/gl/v4.1-core/gl"
)

// DrawMarker paints a column of one colour onto the window's framebuffer,
// over whatever the frame drew: cols pixels wide from x, the window's
// height, in colour c (red, green, blue). It is how an app shows a marker
// that an observer outside it reads back from the screen (a frame's id,
// a count of presses); what the colours mean is the caller's. Call it
// after Draw, before the swap, with the same size. It is one scissored
// clear: it costs nothing measurable and does not allocate. A column
// outside the window draws nothing.
func (r *Renderer) DrawMarker(x, cols int, c [3]uint8, width, height int) {
	if x < 0 || cols <= 0 || x >= width || height <= 0 {
		return
	}
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	gl.Enable(gl.SCISSOR_TEST)
	gl.Scissor(int32(x), 0, int32(min(cols, width-x)), int32(height))
	gl.ClearColor(float32(c[0])/255, float32(c[1])/255, float32(c[2])/255, 1)
	gl.Clear(gl.COLOR_BUFFER_BIT)
	gl.Disable(gl.SCISSOR_TEST)
}
