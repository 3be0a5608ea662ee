package renderer

import (
	"fmt"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer/interp"
)

// lightDir points towards the sun: high, from the front left.
var lightDir = mgl32.Vec3{-0.45, 0.8, 0.4}.Normalize()

// clearColor is the sky, in sRGB.
var clearColor = [3]float32{0.055, 0.06, 0.075}

// Renderer draws the interpolated scene. It must be created, used and
// deleted on the thread whose OpenGL context is current (the main thread).
type Renderer struct {
	bodies *bodyPass
	ground *groundPass
	hud    *HUD
	target target
	// vp is the frame's view-projection matrix; a field, not a local, as
	// its address goes to cgo and a local would escape every frame.
	vp mgl32.Mat4
}

// Options configures a Renderer. Its zero value means the defaults.
type Options struct {
	// Samples is the MSAA sample count: 0 picks 4, or none on a software
	// rasterizer (llvmpipe), where it would halve the frame rate; -1
	// means none. It is capped at the driver's maximum.
	Samples int
}

// New creates the renderer's GL objects. depth is the planner's history
// depth (interp.Planner.Depth): the renderer mirrors up to that many
// snapshots in GPU buffers.
func New(depth int, opts Options) (*Renderer, error) {
	if depth < 2 {
		return nil, fmt.Errorf("renderer: snapshot history depth %d, need at least 2", depth)
	}
	r := &Renderer{target: target{samples: chooseSamples(opts.Samples)}}
	var err error
	if r.bodies, err = newBodyPass(depth); err != nil {
		return nil, err
	}
	if r.ground, err = newGroundPass(); err != nil {
		r.Delete()
		return nil, err
	}
	if r.hud, err = newHUD(); err != nil {
		r.Delete()
		return nil, err
	}
	return r, nil
}

// Samples reports the MSAA sample count in use (0: none).
func (r *Renderer) Samples() int { return r.target.samples }

// HUD returns the heads-up display.
func (r *Renderer) HUD() *HUD { return r.hud }

// Frame draws one frame as plan says, into a viewport of width×height
// pixels, and returns any GL error the frame raised. It first uploads
// whichever of the plan's two snapshots its GPU buffers do not hold, by
// acquire sequence number, so a frame planned but never drawn cannot leave
// a stale buffer behind. It does not allocate.
func (r *Renderer) Frame(plan *interp.Plan, cam *Camera, width, height int) error {
	var prev, next int
	if plan.Ready {
		prev, next = r.bodies.ensure(plan)
	}
	if err := r.target.ensure(width, height); err != nil {
		return err
	}
	r.target.bind()
	gl.Viewport(0, 0, int32(width), int32(height))
	gl.ClearColor(clearColor[0], clearColor[1], clearColor[2], 1)
	gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	gl.Enable(gl.DEPTH_TEST)
	gl.Enable(gl.CULL_FACE)
	gl.Enable(gl.MULTISAMPLE)
	gl.Disable(gl.BLEND)
	r.vp = cam.ViewProj(float32(width) / float32(max(height, 1)))
	vp := &r.vp
	eye := cam.Eye()
	r.ground.draw(vp, eye, lightDir)
	if plan.Ready {
		r.bodies.drawBodies(prev, next, plan.Alpha, vp, eye, lightDir)
	}
	r.target.resolve()
	if r.hud.Visible {
		r.hud.draw(width, height) // after the resolve: text needs no MSAA
	}
	return checkGL("frame")
}

// Delete frees every GL object.
func (r *Renderer) Delete() {
	if r.bodies != nil {
		r.bodies.delete()
	}
	if r.ground != nil {
		r.ground.delete()
	}
	if r.hud != nil {
		r.hud.delete()
	}
	r.target.delete()
}
