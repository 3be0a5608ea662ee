package renderer

import (
	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/tickframe/tickframe/renderer/marker"
)

// DrawMarker paints frame id's marker (package marker) onto the window's
// framebuffer, over whatever the frame drew there: the column of
// marker.Width pixels at the left edge, in colour marker.Color(id). Call
// it after Draw, before the swap, with the same size and the id Frames
// reports. It is one scissored clear: it costs nothing measurable and
// does not allocate.
func (r *Renderer) DrawMarker(id uint64, width, height int) {
	if width <= 0 || height <= 0 {
		return
	}
	c := marker.Color(id)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	gl.Enable(gl.SCISSOR_TEST)
	gl.Scissor(0, 0, int32(min(marker.Width, width)), int32(height))
	gl.ClearColor(float32(c[0])/255, float32(c[1])/255, float32(c[2])/255, 1)
	gl.Clear(gl.COLOR_BUFFER_BIT)
	gl.Disable(gl.SCISSOR_TEST)
}
