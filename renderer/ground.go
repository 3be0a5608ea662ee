package renderer

import (
	"fmt"
	"unsafe"

	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/simthread"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/shaders"
)

// groundPass draws a rectangle at y = 0, by default the 400 m square
// about the origin (SetGroundRect), with a metre grid, on a plain base
// colour or a material's (see Renderer.SetGround).
type groundPass struct {
	// progs are the ground's program lit by the sun and the sky alone
	// (ground.frag with SUN_ONLY), drawn while no point light shines, and
	// with the point lights: the loop over them, never entered, doubled the
	// ground's cost on llvmpipe (the demo at 960x540 fell from 60 to 30 fps).
	progs           [2]glProgram
	vao             glVertexArray
	vbo             glBuffer
	uViewProj, uEye [2]int32
	tex             glTexture // the material's texture, or none
	hidden          bool      // Options.HideGround
}

// groundBase is the plain ground's colour, linear.
var groundBase = mgl32.Vec3{0.16, 0.17, 0.19}

func newGroundPass() (*groundPass, error) {
	g := &groundPass{}
	for i, defines := range [...]string{"#define SUN_ONLY\n", ""} {
		prog, err := loadProgram(stage{files: shaders.FS, name: "ground.vert", lib: shaders.FS},
			stage{files: shaders.FS, name: "ground.frag", lib: shaders.FS, defines: defines})
		if err != nil {
			g.progs[0].Delete()
			return nil, err
		}
		g.progs[i] = prog
		g.uViewProj[i], g.uEye[i] = prog.uniform("uViewProj"), prog.uniform("uEye")
		bindLightsBlock(prog)
	}
	g.set(groundBase, 0, 1)
	g.setRect(groundRect)
	quad := []float32{0, 0, 0, 1, 1, 0, 1, 1} // a strip facing up, scaled to the rectangle by the shader
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

// set makes the ground base colour base (linear), times texture tex (if
// valid) repeating every tile metres.
func (g *groundPass) set(base mgl32.Vec3, tex glTexture, tile float32) {
	textured := int32(0)
	if tex.Valid() {
		textured = 1
	}
	for _, p := range g.progs {
		gl.UseProgram(uint32(p))
		gl.Uniform3f(p.uniform("uBase"), base[0], base[1], base[2])
		gl.Uniform1i(p.uniform("uTextured"), textured)
		gl.Uniform1i(p.uniform("uTexture"), 0)
		gl.Uniform1f(p.uniform("uTile"), tile)
	}
	gl.UseProgram(0)
	g.tex = tex
}

// draw draws the ground; points says whether any point light shines.
func (g *groundPass) draw(viewProj *mgl32.Mat4, eye mgl32.Vec3, points bool) {
	if g.hidden {
		return
	}
	i := 0
	if points {
		i = 1
	}
	if g.tex.Valid() {
		gl.ActiveTexture(gl.TEXTURE0)
		gl.BindTexture(gl.TEXTURE_2D, uint32(g.tex))
	}
	gl.UseProgram(uint32(g.progs[i]))
	gl.UniformMatrix4fv(g.uViewProj[i], 1, false, &viewProj[0])
	gl.Uniform3f(g.uEye[i], eye[0], eye[1], eye[2])
	gl.BindVertexArray(uint32(g.vao))
	gl.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	debugCheck("draw ground")
	gl.BindVertexArray(0)
}

func (g *groundPass) delete() {
	g.progs[0].Delete()
	g.progs[1].Delete()
	g.vao.Delete()
	g.vbo.Delete()
}

// SetGround draws the ground with a registered material: its base colour
// times its base colour texture (if any), the texture repeating every
// tile metres (its UVs are the ground's x and z over tile), lit as the
// plain ground is, with a hint of the metre grid. Material 0 gives the
// plain ground back; it is the default. Only the material's colour and
// texture are used, not its lighting or shader.
func (r *Renderer) SetGround(material simthread.MaterialID, tile float32) error {
	if int(material) >= len(r.bodies.materials) {
		return fmt.Errorf("renderer: ground material %d is not registered", material)
	}
	if !(tile > 0) || !finite(tile) {
		return fmt.Errorf("renderer: ground texture tile %v m: want a positive size", tile)
	}
	if material == 0 {
		r.ground.set(groundBase, 0, 1)
		return checkGL("set ground")
	}
	m := &r.bodies.materials[material]
	c := mgl32.Vec3{m.block[blockBaseColor], m.block[blockBaseColor+1], m.block[blockBaseColor+2]}
	r.ground.set(c, m.tex[gltf.BaseColorSlot], tile)
	return checkGL("set ground")
}

// defaultGroundSize is the side of the default ground's square about the
// origin, in metres: it runs to the horizon of the default camera, whose
// far plane is as far.
const defaultGroundSize = 400

// groundRect is the default ground: the defaultGroundSize square about the
// origin, x0, z0, x1, z1.
var groundRect = [4]float32{-defaultGroundSize / 2, -defaultGroundSize / 2, defaultGroundSize / 2, defaultGroundSize / 2}

// setGroundSize makes the ground the square of side metres about the
// origin (the default is defaultGroundSize): SetGroundRect's square.
func (r *Renderer) setGroundSize(side float32) error {
	if !(side > 0) || !finite(side) {
		return fmt.Errorf("renderer: ground size %v m: want a positive, finite side", side)
	}
	return r.SetGroundRect(mgl32.Vec2{-side / 2, -side / 2}, mgl32.Vec2{side / 2, side / 2})
}

// setRect makes the ground the rectangle x ∈ [rect[0], rect[2]],
// z ∈ [rect[1], rect[3]].
func (g *groundPass) setRect(rect [4]float32) {
	for _, p := range g.progs {
		gl.UseProgram(uint32(p))
		gl.Uniform4f(p.uniform("uRect"), rect[0], rect[1], rect[2], rect[3])
	}
	gl.UseProgram(0)
}

// SetGroundRect bounds the ground to the rectangle from lo to hi in x and
// z (lo[0] ≤ x ≤ hi[0], lo[1] ≤ z ≤ hi[1]) at y = 0: the floor of a room
// or an arena, beyond whose edges the sky's clear colour shows, instead
// of the default 400 m square that runs to the horizon. The grid stays a
// metre grid from the origin; a material's texture keeps repeating from
// the origin too.
func (r *Renderer) SetGroundRect(lo, hi mgl32.Vec2) error {
	if !finite(lo[0], lo[1], hi[0], hi[1]) || !(lo[0] < hi[0]) || !(lo[1] < hi[1]) {
		return fmt.Errorf("renderer: ground rectangle from %v to %v: want finite corners, lo below hi on both axes", lo, hi)
	}
	r.ground.setRect([4]float32{lo[0], lo[1], hi[0], hi[1]})
	return checkGL("set ground rectangle")
}

// setGroundVisible shows or hides the ground (Options.HideGround).
func (r *Renderer) setGroundVisible(visible bool) { r.ground.hidden = !visible }
