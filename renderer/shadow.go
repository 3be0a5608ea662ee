package renderer

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/shaders"
)

// Shadow map defaults and bindings (docs/scene.md, "Shadows").
const (
	// defaultShadowMap is the shadow map's side in texels when
	// Options.ShadowMap is 0: over the default 20 m radius, a texel is
	// 2 cm. softShadowMap is that on a software rasterizer, where a
	// 2048² map costs a 320×240 frame about 20 ms more (BenchmarkShadow).
	defaultShadowMap, softShadowMap = 2048, 1024
	// defaultShadowRadius is the shadowed area's radius, metres, when
	// simthread.DirLight.ShadowRadius is 0.
	defaultShadowRadius = 20
	// shadowUnit is the shadow map's texture unit: after the material
	// slots' 0–4, before the skins' 6 and the lines' 7.
	shadowUnit = 5
	// shadowBinding is the Shadow uniform block's binding point (the
	// Material block's is 0, the Lights block's 1).
	shadowBinding = 2
	// normalOffset is how far, in texels, a receiving point moves along
	// its normal before it is looked up in the map; with the depth pass's
	// slope-scaled offset (polygonFactor, polygonUnits) it keeps a
	// surface from shadowing itself (acne) at any angle to the sun.
	normalOffset = 1.5
	// The depth pass's glPolygonOffset: the depth slope's factor and the
	// depth format's units.
	polygonFactor, polygonUnits = 1.5, 4
)

// shadowBlock is common.glsl's Shadow uniform block in std140.
type shadowBlock struct {
	lightVP [16]float32 // world to the map's texture coordinates and depth
	params  [4]float32  // x on (1) or off (0); y the normal offset, metres; zw 0
}

var _ [80]byte = [unsafe.Sizeof(shadowBlock{})]byte{}

// shadowPass draws the sun's shadow map: the depth, seen from the sun
// through an orthographic box about the area the world names
// (simthread.DirLight.Shadows), of the snapshot's bodies at the poses the
// frame's interpolation pass wrote (the very buffer the main pass draws
// from) and of the static bodies. The main pass's built-in shading then
// compares against it (common.glsl's sunShadow). Off, it draws nothing and
// costs a uniform branch per pixel; the map's storage is made the first
// time a snapshot turns shadows on.
type shadowPass struct {
	prog      glProgram
	uLightVP  int32
	size      int // the map's side in texels
	buf       glBuffer
	tex       glTexture // the depth map; storage once shadows were first on
	fbo       uint32
	on        bool // the last frame drew with shadows
	block     shadowBlock
	vp, bias  mgl32.Mat4 // fields: their addresses go to cgo every frame
	noOffsets bool       // a test's knob: no normal and depth offsets (acne)
}

func newShadowPass(size int, soft bool) (*shadowPass, error) {
	if size == 0 {
		size = defaultShadowMap
		if soft {
			size = softShadowMap
		}
	}
	var most int32
	gl.GetIntegerv(gl.MAX_TEXTURE_SIZE, &most)
	if size < 16 || size > int(most) {
		return nil, fmt.Errorf("renderer: shadow map of %d texels a side: want 16 to %d", size, most)
	}
	prog, err := loadShaderProgram(shaders.FS, "shadow.vert", "shadow.frag")
	if err != nil {
		return nil, err
	}
	sh := &shadowPass{prog: prog, uLightVP: prog.uniform("uLightViewProj"), size: size, buf: newBuffer()}
	gl.BindBuffer(gl.UNIFORM_BUFFER, uint32(sh.buf))
	gl.BufferData(gl.UNIFORM_BUFFER, int(unsafe.Sizeof(sh.block)), unsafe.Pointer(&sh.block), gl.DYNAMIC_DRAW)
	gl.BindBuffer(gl.UNIFORM_BUFFER, 0)
	if err := checkGL("create shadow pass"); err != nil {
		sh.delete()
		return nil, err
	}
	return sh, nil
}

// bindShadow points program p's Shadow block, if it has one, at
// shadowBinding and its shadow sampler at shadowUnit, which no other
// sampler type shares.
func bindShadow(p glProgram) {
	if i := gl.GetUniformBlockIndex(uint32(p), gl.Str("Shadow\x00")); i != gl.INVALID_INDEX {
		gl.UniformBlockBinding(uint32(p), i, shadowBinding)
	}
	if loc := p.uniform("uShadowMap"); loc >= 0 {
		gl.ProgramUniform1i(uint32(p), loc, shadowUnit)
	}
}

// ensureMap gives the map its storage and framebuffer, once.
func (sh *shadowPass) ensureMap() error {
	if sh.tex.Valid() {
		return nil
	}
	var t uint32
	gl.GenTextures(1, &t)
	gl.BindTexture(gl.TEXTURE_2D, t)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.DEPTH_COMPONENT24, int32(sh.size), int32(sh.size), 0, gl.DEPTH_COMPONENT, gl.UNSIGNED_INT, nil)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_BORDER)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_BORDER)
	border := [4]float32{1, 1, 1, 1} // the farthest depth: outside the map is lit
	gl.TexParameterfv(gl.TEXTURE_2D, gl.TEXTURE_BORDER_COLOR, &border[0])
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_COMPARE_MODE, gl.COMPARE_REF_TO_TEXTURE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_COMPARE_FUNC, gl.LEQUAL)
	gl.BindTexture(gl.TEXTURE_2D, 0)
	sh.tex = glTexture(t)
	gl.GenFramebuffers(1, &sh.fbo)
	gl.BindFramebuffer(gl.FRAMEBUFFER, sh.fbo)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.TEXTURE_2D, t, 0)
	gl.DrawBuffer(gl.NONE)
	gl.ReadBuffer(gl.NONE)
	status := gl.CheckFramebufferStatus(gl.FRAMEBUFFER)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	err := checkGL(fmt.Sprintf("create a %d² shadow map", sh.size))
	if err == nil && status != gl.FRAMEBUFFER_COMPLETE {
		err = fmt.Errorf("renderer: shadow map framebuffer incomplete (0x%x)", status)
	}
	if err != nil {
		sh.deleteMap()
	}
	return err
}

// draw draws the frame's shadow map when the plan's newer snapshot turns
// shadows on and the sun gives light (lights is the frame's uploaded
// Lights block), and uploads the Shadow block: on, with the map bound on
// shadowUnit; or off. The bodies are slot next's n poses in the pose
// buffer, as interpolate wrote them. It leaves the default framebuffer
// bound; the caller binds its own and sets its viewport.
func (sh *shadowPass) draw(b *bodyPass, st *staticPass, plan *Plan, lights *lightsBlock, next, n int) error {
	center, radius, on := shadowArea(plan)
	on = on && (lights.sunColor[0] > 0 || lights.sunColor[1] > 0 || lights.sunColor[2] > 0)
	if !on {
		if sh.on {
			sh.on = false
			sh.block = shadowBlock{}
			sh.upload()
		} else {
			gl.BindBufferBase(gl.UNIFORM_BUFFER, shadowBinding, uint32(sh.buf))
		}
		return nil
	}
	if err := sh.ensureMap(); err != nil {
		return err
	}
	sh.on = true
	dir := mgl32.Vec3{lights.sun[0], lights.sun[1], lights.sun[2]}
	sh.fit(dir, center, radius)
	sh.upload()

	gl.BindFramebuffer(gl.FRAMEBUFFER, sh.fbo)
	gl.Viewport(0, 0, int32(sh.size), int32(sh.size))
	gl.Enable(gl.DEPTH_TEST)
	gl.DepthMask(true)
	gl.Clear(gl.DEPTH_BUFFER_BIT)
	// Casters between the sun and the box's near face still cast:
	// clamped to the nearest depth rather than clipped.
	gl.Enable(gl.DEPTH_CLAMP)
	gl.Disable(gl.CULL_FACE) // double-sided parts cast; closed meshes keep their nearer faces
	gl.Disable(gl.BLEND)
	if !sh.noOffsets {
		gl.Enable(gl.POLYGON_OFFSET_FILL)
		gl.PolygonOffset(polygonFactor, polygonUnits)
	}
	gl.UseProgram(uint32(sh.prog))
	gl.UniformMatrix4fv(sh.uLightVP, 1, false, &sh.vp[0])
	if n > 0 {
		b.castShadows(next)
	}
	err := b.prepareStatic(st)
	if len(st.slot.items) > 0 && len(b.slots) > 0 {
		// As drawStatic does: lend the static pass's items, poses and
		// vertex arrays to slot 0.
		saved := b.slots[0]
		b.slots[0] = st.slot
		b.poses, st.poses = st.poses, b.poses
		b.vaos, st.vaos = st.vaos, b.vaos
		b.ensureVAOs(len(b.slots[0].items))
		b.castShadows(0)
		b.vaos, st.vaos = st.vaos, b.vaos
		b.poses, st.poses = st.poses, b.poses
		st.slot = b.slots[0]
		b.slots[0] = saved
	}
	gl.BindVertexArray(0)
	gl.Disable(gl.POLYGON_OFFSET_FILL)
	gl.Disable(gl.DEPTH_CLAMP)
	gl.Enable(gl.CULL_FACE)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	gl.ActiveTexture(gl.TEXTURE0 + shadowUnit)
	gl.BindTexture(gl.TEXTURE_2D, uint32(sh.tex))
	gl.ActiveTexture(gl.TEXTURE0)
	debugCheck("draw shadow map")
	return err
}

// castShadows draws slot next's opaque and masked items (masked ones as
// solid) into the bound shadow map, from the pose buffer; blended parts
// cast none. The shadow program must be in use.
func (b *bodyPass) castShadows(next int) {
	s := &b.slots[next]
	for _, j := range s.drawSeq {
		it := &s.items[j]
		v := &b.vaos[j]
		if !v.initialized || v.part != it.part || v.mat != it.mat || v.first != it.first || v.gen != b.gen {
			b.point(v, it)
		}
		gl.BindVertexArray(uint32(v.vao))
		gl.DrawElementsInstanced(gl.TRIANGLES, b.parts[it.part].indices, gl.UNSIGNED_INT, nil, it.count)
	}
	debugCheck("cast shadows")
}

// shadowArea returns the plan's shadowed area: the newer snapshot's
// centre, lerped from the older one's as a free point light is, and its
// radius; on is whether the newer snapshot turns shadows on.
func shadowArea(plan *Plan) (center mgl32.Vec3, radius float32, on bool) {
	if !plan.Ready || !plan.Next.Lights.Sun.Shadows {
		return center, 0, false
	}
	sun := &plan.Next.Lights.Sun
	center, radius = sun.ShadowCenter, sun.ShadowRadius
	if prev := &plan.Prev.Lights.Sun; prev.Shadows && plan.Prev != plan.Next && plan.Motion != MotionExtrapolate {
		center = Lerp(prev.ShadowCenter, center, plan.Alpha)
	}
	if radius == 0 {
		radius = defaultShadowRadius
	}
	if !(radius > 0) || !finite(radius, center[0], center[1], center[2]) {
		return center, 0, false
	}
	return center, radius, true
}

// fit sets the light's view-projection (vp, for the depth pass) and the
// Shadow block's matrix and parameters: an orthographic box 2·radius on
// each side about center, looking along −dir (dir unit, towards the sun).
// The box moves in whole texels across the light's view, so that a
// moving centre does not make the shadows' edges crawl.
func (sh *shadowPass) fit(dir, center mgl32.Vec3, radius float32) {
	up := mgl32.Vec3{0, 1, 0}
	if math.Abs(float64(dir[1])) > 0.99 {
		up = mgl32.Vec3{0, 0, 1}
	}
	view := mgl32.LookAtV(dir, mgl32.Vec3{}, up)
	c := view.Mul4x1(center.Vec4(1))
	texel := 2 * radius / float32(sh.size)
	x := float32(math.Round(float64(c[0]/texel))) * texel
	y := float32(math.Round(float64(c[1]/texel))) * texel
	depth := -c[2]
	proj := mgl32.Ortho(x-radius, x+radius, y-radius, y+radius, depth-radius, depth+radius)
	sh.vp = proj.Mul4(view)
	// Clip space to texture coordinates and depth: × ½ + ½.
	sh.bias = mgl32.Translate3D(0.5, 0.5, 0.5).Mul4(mgl32.Scale3D(0.5, 0.5, 0.5))
	sh.block.lightVP = sh.bias.Mul4(sh.vp)
	offset := float32(normalOffset) * texel
	if sh.noOffsets {
		offset = 0
	}
	sh.block.params = [4]float32{1, offset, 0, 0}
}

// upload writes the Shadow block and binds it at shadowBinding.
func (sh *shadowPass) upload() {
	gl.BindBuffer(gl.UNIFORM_BUFFER, uint32(sh.buf))
	gl.BufferSubData(gl.UNIFORM_BUFFER, 0, int(unsafe.Sizeof(sh.block)), unsafe.Pointer(&sh.block))
	gl.BindBuffer(gl.UNIFORM_BUFFER, 0)
	gl.BindBufferBase(gl.UNIFORM_BUFFER, shadowBinding, uint32(sh.buf))
	debugCheck("upload shadow block")
}

func (sh *shadowPass) deleteMap() {
	if sh.fbo != 0 {
		gl.DeleteFramebuffers(1, &sh.fbo)
		sh.fbo = 0
	}
	sh.tex.Delete()
}

func (sh *shadowPass) delete() {
	sh.deleteMap()
	sh.prog.Delete()
	sh.buf.Delete()
}
