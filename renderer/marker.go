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
	fillColumn(0, marker.Color(id), width, height)
}

// DrawReaction paints the reaction patch (package marker) for n presses
// of the observer's key: the column of marker.Width pixels at
// marker.ReactionX, in colour marker.Color(n). Call it as DrawMarker.
func (r *Renderer) DrawReaction(n uint64, width, height int) {
	if width <= marker.ReactionX || height <= 0 {
		return
	}
	fillColumn(marker.ReactionX, marker.Color(n), width, height)
}

// fillColumn clears the column of marker.Width pixels from x to c.
func fillColumn(x int, c [3]uint8, width, height int) {
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	gl.Enable(gl.SCISSOR_TEST)
	gl.Scissor(int32(x), 0, int32(min(marker.Width, width-x)), int32(height))
	gl.ClearColor(float32(c[0])/255, float32(c[1])/255, float32(c[2])/255, 1)
	gl.Clear(gl.COLOR_BUFFER_BIT)
	gl.Disable(gl.SCISSOR_TEST)
}
