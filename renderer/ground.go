package renderer

import (
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/shaders"
)

// groundPass draws a 400 m square at y = 0 with a metre grid.
type groundPass struct {
	prog                 Program
	vao                  VertexArray
	vbo                  Buffer
	uViewProj, uEye, uLD int32
}

func newGroundPass() (*groundPass, error) {
	prog, err := LoadProgram(shaders.FS, "ground.vert", "ground.frag")
	if err != nil {
		return nil, err
	}
	g := &groundPass{prog: prog}
	g.uViewProj = prog.uniform("uViewProj")
	g.uEye = prog.uniform("uEye")
	g.uLD = prog.uniform("uLightDir")
	const e = 200
	quad := []float32{-e, -e, -e, e, e, -e, e, e} // a strip facing up
	g.vao = newVertexArray()
	gl.BindVertexArray(uint32(g.vao))
	g.vbo = newBuffer()
	gl.BindBuffer(gl.ARRAY_BUFFER, uint32(g.vbo))
	gl.BufferData(gl.ARRAY_BUFFER, len(quad)*4, unsafe.Pointer(&quad[0]), gl.STATIC_DRAW)
	gl.EnableVertexAttribArray(0)
	gl.VertexAttribPointerWithOffset(0, 2, gl.FLOAT, false, 8, 0)
	gl.BindVertexArray(0)
	if err := checkGL("create ground pass"); err != nil {
		g.delete()
		return nil, err
	}
	return g, nil
}

func (g *groundPass) draw(viewProj *mgl32.Mat4, eye, lightDir mgl32.Vec3) {
	gl.UseProgram(uint32(g.prog))
	gl.UniformMatrix4fv(g.uViewProj, 1, false, &viewProj[0])
	gl.Uniform3f(g.uEye, eye[0], eye[1], eye[2])
	gl.Uniform3f(g.uLD, lightDir[0], lightDir[1], lightDir[2])
	gl.BindVertexArray(uint32(g.vao))
	gl.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	debugCheck("draw ground")
	gl.BindVertexArray(0)
}

func (g *groundPass) delete() {
	g.prog.Delete()
	g.vao.Delete()
	g.vbo.Delete()
}
