package renderer

import (
	"unsafe"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/simthread"
)

// lightsBlock is common.glsl's Lights uniform block in std140: the frame's
// lights, interpolated.
type lightsBlock struct {
	sun        [4]float32 // xyz towards the sun, unit; w the number of point lights
	sunColor   [4]float32 // rgb radiance; w the sky's share
	ground     [4]float32 // rgb the ground's sun factor; w its sky factor
	pointPos   [simthread.MaxPointLights][4]float32
	pointColor [simthread.MaxPointLights][4]float32
}

// lightsBinding is the uniform buffer binding point of the Lights block
// (the Material block's is materialBinding).
const lightsBinding = 1

var _ [48 + 32*simthread.MaxPointLights]byte = [unsafe.Sizeof(lightsBlock{})]byte{}

// The default sun (simthread.DefaultSun): its direction, unit, and its
// radiance, colour × intensity, as the shaders used them before lights
// could be published, so that the zero Lights draws the same pixels.
var (
	defaultSun      = simthread.DefaultSun()
	lightDir        = defaultSun.Dir.Normalize()
	defaultRadiance = defaultSun.Color.Mul(defaultSun.Intensity)
)

// Ground factors: the ground is lit by 0.45 of the sky and 0.9 of the
// default sun (ground.frag).
const groundSky, groundSun = 0.45, 0.9

// lighting uploads the frame's lights into the Lights uniform buffer: once
// a frame, without allocating.
type lighting struct {
	buf   glBuffer
	block lightsBlock // a field: its address goes to cgo every frame
}

func newLighting() (*lighting, error) {
	l := &lighting{buf: newBuffer()}
	gl.BindBuffer(gl.UNIFORM_BUFFER, uint32(l.buf))
	gl.BufferData(gl.UNIFORM_BUFFER, int(unsafe.Sizeof(l.block)), nil, gl.DYNAMIC_DRAW)
	gl.BindBuffer(gl.UNIFORM_BUFFER, 0)
	if err := checkGL("create lights buffer"); err != nil {
		l.buf.Delete()
		return nil, err
	}
	return l, nil
}

// bindLightsBlock points program p's Lights block, if it has one, at
// lightsBinding, and its shadow map's block and sampler at theirs
// (bindShadow).
func bindLightsBlock(p glProgram) {
	if i := gl.GetUniformBlockIndex(uint32(p), gl.Str("Lights\x00")); i != gl.INVALID_INDEX {
		gl.UniformBlockBinding(uint32(p), i, lightsBinding)
	}
	bindShadow(p)
}

// upload sets the block to the plan's lights and uploads it, bound at
// lightsBinding for the frame's draws.
func (l *lighting) upload(plan *Plan) {
	l.block.set(plan)
	gl.BindBuffer(gl.UNIFORM_BUFFER, uint32(l.buf))
	gl.BufferSubData(gl.UNIFORM_BUFFER, 0, int(unsafe.Sizeof(l.block)), unsafe.Pointer(&l.block))
	gl.BindBuffer(gl.UNIFORM_BUFFER, 0)
	gl.BindBufferBase(gl.UNIFORM_BUFFER, lightsBinding, uint32(l.buf))
	debugCheck("upload lights")
}

func (l *lighting) delete() { l.buf.Delete() }

// set fills the block with the lights of the plan's newer snapshot
// (simthread.Lights), the sun's direction and the free point lights'
// positions lerped from the older one's where simthread.Lights says, tied
// lights where BodyPose puts their bodies; the zero Lights (and no
// plan) is the default sun and sky.
func (b *lightsBlock) set(plan *Plan) {
	var next, prev *simthread.Lights
	lerp := false
	if plan.Ready {
		next, prev = &plan.Next.Lights, &plan.Prev.Lights
		lerp = plan.Motion != MotionExtrapolate && plan.Prev != plan.Next
	}
	sky := float32(1)
	dir, radiance := lightDir, defaultRadiance
	ground := mgl32.Vec3{groundSun, groundSun, groundSun}
	if next != nil {
		sky = 1 - min(max(next.SkyDim, 0), 1)
		if !finite(sky) {
			sky = 1
		}
		if sun := &next.Sun; sun.Dir != (mgl32.Vec3{}) || lerp && prev.Sun.Dir != (mgl32.Vec3{}) {
			dir = sunDir(&next.Sun)
			if lerp {
				dir = Lerp(sunDir(&prev.Sun), dir, plan.Alpha)
			}
			if l := dir.Len(); l > 0 && finite(l) {
				dir = dir.Mul(1 / l)
			} else {
				dir = lightDir
			}
		}
		if sun := &next.Sun; sun.Dir != (mgl32.Vec3{}) {
			radiance = lightColor(sun.Color, sun.Intensity)
			for k := range 3 {
				ground[k] = groundSun * radiance[k] / defaultRadiance[k]
			}
		}
	}
	b.sun = [4]float32{dir[0], dir[1], dir[2], 0}
	b.sunColor = [4]float32{radiance[0], radiance[1], radiance[2], sky}
	b.ground = [4]float32{ground[0], ground[1], ground[2], groundSky * sky}
	if next == nil {
		return
	}
	pts := next.Points[:min(len(next.Points), simthread.MaxPointLights)]
	lerpPoints := lerp && len(prev.Points) == len(next.Points)
	for i := range pts {
		p := &pts[i]
		pos, c := p.Pos, lightColor(p.Color, p.Intensity)
		switch {
		case p.OnBody:
			pose, ok, _ := BodyPose(plan, p.Body, nil)
			if !ok {
				c = mgl32.Vec3{}
			}
			pos = pose.Pos.Add(p.Pos)
		case lerpPoints && !prev.Points[i].OnBody:
			pos = Lerp(prev.Points[i].Pos, pos, plan.Alpha)
		}
		inv := float32(0)
		if p.Range > 0 {
			inv = 1 / p.Range
		}
		if !finite(pos[0], pos[1], pos[2], inv, c[0], c[1], c[2]) {
			c = mgl32.Vec3{}
			pos = mgl32.Vec3{}
		}
		b.pointPos[i] = [4]float32{pos[0], pos[1], pos[2], inv}
		b.pointColor[i] = [4]float32{c[0], c[1], c[2], 0}
	}
	b.sun[3] = float32(len(pts))
}

// sunDir is the direction towards sun, not normalised: DefaultSun's for a
// zero Dir.
func sunDir(sun *simthread.DirLight) mgl32.Vec3 {
	if sun.Dir == (mgl32.Vec3{}) {
		return lightDir
	}
	if l := sun.Dir.Len(); l > 0 && finite(l) {
		return sun.Dir.Mul(1 / l)
	}
	return lightDir
}

// lightColor is a light's radiance: colour (zero: white) × intensity, or
// zero where that is negative or not finite.
func lightColor(color mgl32.Vec3, intensity float32) mgl32.Vec3 {
	if color == (mgl32.Vec3{}) {
		color = mgl32.Vec3{1, 1, 1}
	}
	c := color.Mul(intensity)
	if !finite(c[0], c[1], c[2]) || c[0] < 0 || c[1] < 0 || c[2] < 0 {
		return mgl32.Vec3{}
	}
	return c
}
