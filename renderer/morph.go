package renderer

import (
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/shaders"
)

const (
	// morphTextureUnit is a skinned part's morph displacements' buffer
	// texture, and morphWeightUnit the frame's morph weights': past the
	// materials' 0 to 4, the shadow map's 5, the joints' 6 and the line
	// pass's 7.
	morphTextureUnit = 8
	morphWeightUnit  = 9
	// morphTexels is one target's displacement of one vertex: position,
	// normal and tangent, an RGBA32F texel each.
	morphTexels = 3
)

// morphWeights is the skin pass's morph weight pass: one point per
// weight of the newer snapshot interpolates it from the older
// (morphweight.vert) into the frame's weights, which skin.vert reads.
type morphWeights struct {
	prog               glProgram
	uAlpha, uPrevCount int32
	vao                glVertexArray
	feedback           uint32
	buf                glBuffer // the frame's weights
	tex                glTexture
	boundPrev          int
	boundNext          int
}

func newMorphWeights() (*morphWeights, error) {
	w := &morphWeights{boundPrev: -1, boundNext: -1}
	var err error
	if w.prog, err = loadShaderProgram(shaders.FS, "morphweight.vert", "", "oWeight"); err != nil {
		return nil, err
	}
	w.uAlpha, w.uPrevCount = w.prog.uniform("uAlpha"), w.prog.uniform("uPrevCount")
	gl.GenTransformFeedbacks(1, &w.feedback)
	w.vao = newVertexArray()
	gl.BindVertexArray(uint32(w.vao))
	for loc := uint32(0); loc <= 3; loc++ {
		gl.EnableVertexAttribArray(loc)
	}
	gl.BindVertexArray(0)
	w.buf = newBuffer()
	var tex uint32
	gl.GenTextures(1, &tex)
	w.tex = glTexture(tex)
	return w, checkGL("create morph weight pass")
}

// grow gives the frame's weights room for n.
func (w *morphWeights) grow(n int) {
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(w.buf))
	gl.BufferData(gl.ARRAY_BUFFER, max(n, 1)*4, nil, gl.DYNAMIC_COPY)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
	gl.BindTexture(gl.TEXTURE_BUFFER, uint32(w.tex))
	gl.TexBuffer(gl.TEXTURE_BUFFER, gl.R32F, uint32(w.buf))
	gl.BindTexture(gl.TEXTURE_BUFFER, 0)
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, w.feedback)
	gl.BindBufferBase(gl.TRANSFORM_FEEDBACK_BUFFER, 0, uint32(w.buf))
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, 0)
	w.boundPrev, w.boundNext = -1, -1
}

// draw interpolates the weights of slots prev and next (as the skin
// pass's) at alpha into the frame's weights.
func (w *morphWeights) draw(slots []skinSlot, prev, next int, alpha float32) {
	sl := &slots[next]
	if sl.weights == 0 {
		return
	}
	gl.BindVertexArray(uint32(w.vao))
	if prev != w.boundPrev || next != w.boundNext {
		for k, s := range [2]*skinSlot{&slots[prev], sl} {
			loc := uint32(2 * k)
			gl.BindBuffer(gl.ARRAY_BUFFER, uint32(s.wbuf))
			gl.VertexAttribPointerWithOffset(loc, 1, gl.FLOAT, false, 4, 0)
			gl.BindBuffer(gl.ARRAY_BUFFER, uint32(s.wtags))
			gl.VertexAttribIPointerWithOffset(loc+1, 4, gl.UNSIGNED_INT, 16, 0)
		}
		gl.BindBuffer(gl.ARRAY_BUFFER, 0)
		w.boundPrev, w.boundNext = prev, next
	}
	gl.UseProgram(uint32(w.prog))
	gl.Uniform1f(w.uAlpha, alpha)
	prevCount := int32(slots[prev].weights)
	if prev == next {
		prevCount = 0
	}
	gl.Uniform1i(w.uPrevCount, prevCount)
	gl.Enable(gl.RASTERIZER_DISCARD)
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, w.feedback)
	gl.BeginTransformFeedback(gl.POINTS)
	gl.DrawArrays(gl.POINTS, 0, int32(sl.weights))
	gl.EndTransformFeedback()
	gl.BindTransformFeedback(gl.TRANSFORM_FEEDBACK, 0)
	gl.Disable(gl.RASTERIZER_DISCARD)
	gl.BindVertexArray(0)
	debugCheck("morph weights")
}

func (w *morphWeights) delete() {
	w.prog.Delete()
	w.vao.Delete()
	if w.feedback != 0 {
		gl.DeleteTransformFeedbacks(1, &w.feedback)
		w.feedback = 0
	}
	w.buf.Delete()
	w.tex.Delete()
}

// uploadMorph uploads mesh me's morph targets' displacements into part
// q's buffer texture (morphTexels a target a vertex, vertex by vertex),
// their weights starting at at among its character's.
func uploadMorph(q *skinPart, me *gltf.Mesh, at int) error {
	if len(me.Targets) == 0 {
		return nil
	}
	n := len(me.Targets)
	data := make([]float32, 0, len(me.Positions)*n*morphTexels*4)
	for v := range me.Positions {
		for _, t := range me.Targets {
			for _, d := range [][]mgl32.Vec3{t.Positions, t.Normals, t.Tangents} {
				var x mgl32.Vec3
				if d != nil {
					x = d[v]
				}
				data = append(data, x[0], x[1], x[2], 0)
			}
		}
	}
	q.morph = newBuffer()
	gl.BindBuffer(gl.TEXTURE_BUFFER, uint32(q.morph))
	gl.BufferData(gl.TEXTURE_BUFFER, len(data)*4, unsafe.Pointer(&data[0]), gl.STATIC_DRAW)
	gl.BindBuffer(gl.TEXTURE_BUFFER, 0)
	var tex uint32
	gl.GenTextures(1, &tex)
	q.morphTex = glTexture(tex)
	gl.BindTexture(gl.TEXTURE_BUFFER, tex)
	gl.TexBuffer(gl.TEXTURE_BUFFER, gl.RGBA32F, uint32(q.morph))
	gl.BindTexture(gl.TEXTURE_BUFFER, 0)
	q.targets, q.morphAt = int32(n), int32(at)
	return checkGL("upload morph targets")
}
