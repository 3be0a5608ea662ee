package renderer

import (
	"fmt"
	"time"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
)

// clearColor is the sky, in sRGB.
var clearColor = [3]float32{0.055, 0.06, 0.075}

// Renderer draws the interpolated scene. It must be created, used and
// deleted on the thread whose OpenGL context is current (the main thread).
type Renderer struct {
	bodies *bodyPass
	ground *groundPass
	hud    *HUD
	over   *overlayPass // the world's overlay (simthread.Overlay)
	lines  *linePass    // the world's lines (simthread.Lines)
	skins  *skinPass    // the skinned characters (simthread.Skin)
	lights *lighting    // the world's lights (simthread.Lights)
	shadow *shadowPass  // the sun's shadow map (simthread.DirLight.Shadows)
	target target
	probe  probeRing
	flight inFlight
	frames uint64
	reg    *Registry  // meshes, materials and static bodies queued from any goroutine
	regErr error      // failures of queued registrations that Draw has yet to report
	static staticPass // the static bodies
	sky    [3]float32 // the clear colour, sRGB (Options.ClearColor)
	notice notice     // the app's own line (SetNotice)
	soft   bool       // GL_RENDERER names a software rasterizer
	// vp is the frame's view-projection matrix; a field, not a local, as
	// its address goes to cgo and a local would escape every frame.
	vp mgl32.Mat4
	// drawn is the projection of the last frame Draw drew (Projection).
	drawn Projection
}

// Options configures a Renderer. Its zero value means the defaults.
type Options struct {
	// Samples is the MSAA sample count: 0 picks 4, or none on a software
	// rasterizer (llvmpipe), where it would halve the frame rate; -1
	// means none. It is capped at the driver's maximum.
	Samples int
	// Probe turns on a record of every frame as the GPU drew it: the pose
	// of body ProbeBody, read back from the interpolation pass's output,
	// and when the GPU finished the frame. Read the records with
	// Renderer.Probed. Off, the renderer reads nothing back.
	Probe bool
	// ProbeBody is the index, in the snapshots' Bodies, of the body Probe
	// reads back: 0 is the first (refworld's reference body). An index
	// no body has gives records with Valid false.
	ProbeBody int
	// Now is the app's clock, onto which Probe converts the GPU's
	// timestamps. nil means the time since New.
	Now func() time.Duration
	// Registry is where the renderer takes the meshes, materials and
	// static bodies to upload from, at the start of every Draw: one made
	// with NewRegistry before the renderer (so that a world created first
	// can hold it), used by this renderer alone. nil: the renderer makes
	// its own (Renderer.Registry).
	Registry *Registry
	// ShadowMap is the side, in texels, of the sun's shadow map, which a
	// snapshot's lights turn on (simthread.DirLight.Shadows): 0 picks
	// 2048, or 1024 on a software rasterizer. Its cost is in
	// docs/scene.md ("Shadows").
	ShadowMap int
	// ClearColor is the sky, the colour every frame starts from, an
	// opaque sRGB colour in Body.Color's layout (simthread.RGB; its alpha
	// is ignored); 0 means the default, a near-black blue grey,
	// RGB(14, 15, 19). An app sets it through Config.Look.
	ClearColor uint32
	// HideGround leaves the ground out (it is shown by default): the sky
	// shows under the bodies. An app sets it through Config.Look.
	HideGround bool
}

// New creates the renderer's GL objects. depth is the depth of the
// snapshot history the plans are made from: the renderer mirrors up to
// that many snapshots in GPU buffers.
func New(depth int, opts Options) (*Renderer, error) {
	if depth < 2 {
		return nil, fmt.Errorf("renderer: snapshot history depth %d, need at least 2", depth)
	}
	r := &Renderer{target: target{samples: chooseSamples(opts.Samples)}, reg: opts.Registry,
		sky: clearColor, soft: softwareRenderer()}
	if r.reg == nil {
		r.reg = NewRegistry()
	}
	if opts.ClearColor != 0 {
		r.setClearColor(opts.ClearColor)
	}
	if err := r.reg.bind(); err != nil {
		return nil, err
	}
	var err error
	probeBody := -1
	if opts.Probe {
		probeBody = opts.ProbeBody
	}
	if r.bodies, err = newBodyPass(depth, probeBody); err != nil {
		return nil, err
	}
	if err = r.probe.init(&opts); err != nil {
		r.Delete()
		return nil, err
	}
	if r.lines, err = newLinePass(depth); err != nil {
		r.Delete()
		return nil, err
	}
	if r.skins, err = newSkinPass(depth); err != nil {
		r.Delete()
		return nil, err
	}
	if r.lights, err = newLighting(); err != nil {
		r.Delete()
		return nil, err
	}
	if r.shadow, err = newShadowPass(opts.ShadowMap, r.soft); err != nil {
		r.Delete()
		return nil, err
	}
	if r.ground, err = newGroundPass(); err != nil {
		r.Delete()
		return nil, err
	}
	r.ground.hidden = opts.HideGround
	if r.hud, err = newHUD(); err != nil {
		r.Delete()
		return nil, err
	}
	if r.over, err = newOverlayPass(r.hud); err != nil {
		r.Delete()
		return nil, err
	}
	return r, nil
}

// samples reports the MSAA sample count in use (0: none).
func (r *Renderer) samples() int { return r.target.samples }

// Software reports whether the driver is a software rasterizer
// (llvmpipe, softpipe, SwiftShader): every pixel is the CPU's work, so a
// scene sized for a GPU may not keep up with the display.
func (r *Renderer) Software() bool { return r.soft }

// setClearColor sets the sky (Options.ClearColor).
func (r *Renderer) setClearColor(rgb uint32) {
	for i := range r.sky {
		r.sky[i] = float32(rgb>>(8*i)&0xff) / 255
	}
}

// HUD returns the heads-up display.
func (r *Renderer) HUD() *HUD { return r.hud }

// Projection returns the projection of the last frame Draw drew: the
// camera it was given, as it was (posed, followed, dragged and latched
// by the app's loop before the call), and the viewport's size, so that
// its Project and Ray are that frame's pixels; before any frame, the zero
// Projection. An app that runs through app.Main keeps its Renderer from
// Config.Scene and calls this in Config.Input, on the render thread, to
// pick what a click hit (platform/internal/loop's App.Projection is the same
// frame's, for an app that holds its App).
func (r *Renderer) Projection() Projection { return r.drawn }

// Frames reports how many frames Draw has drawn: the id of the last one,
// counting from 1 (0: none yet). Probe.Frame uses the same ids.
func (r *Renderer) Frames() uint64 { return r.frames }

// gpuTimestamps reports whether probe records carry GPU timestamps:
// Options.Probe is set and the driver has timer queries (GL_TIMESTAMP with
// a counter of non-zero width). Without them, Probe.HasGPUTime is false.
func (r *Renderer) gpuTimestamps() bool { return r.probe.on && r.probe.timer }

// Probed returns the oldest record of a drawn frame (see Options.Probe)
// that the GPU has completed and Probed has not returned yet, and false
// when there is none. It never waits for the GPU: a frame's record is
// ready a frame or more after Draw drew it, when the GPU has finished the
// frame; Draw and Probed collect the records that are ready. Records come
// in frame order; a frame whose record could not be kept (more than 8
// frames in flight, or more than 32 records left unread) is missing from
// the sequence. It does not allocate.
func (r *Renderer) Probed() (Probe, bool) {
	if r.probe.count == 0 {
		r.probe.poll()
	}
	return r.probe.pop()
}

// Draw draws one frame as plan says, into a viewport of width×height
// pixels, and returns any GL error the frame raised. It first uploads
// what the registry holds queued (returning, once, the failures: the ids
// that failed are drawn as 0), then
// whichever of the plan's two snapshots its GPU buffers do not hold, by
// acquire sequence number, so a frame planned but never drawn cannot leave
// a stale buffer behind, and groups an uploaded snapshot's bodies by mesh
// and material (O(n), once per snapshot). It then interpolates every body
// in one pass, draws the sun's shadow map from those poses when the
// snapshot turns shadows on (simthread.DirLight.Shadows), and draws each group of the newer snapshot with one
// instanced call per part of its mesh, then the newer snapshot's lines
// (simthread.Lines) in one call. With Options.Probe it also starts the frame's
// read-back and collects those that have completed (see Probed). It does
// not allocate.
func (r *Renderer) Draw(plan *Plan, cam *Camera, width, height int) error {
	var prev, next int
	// What was registered before the plan's snapshots were published is
	// uploaded before they are.
	err := r.registrationErr()
	if plan.Ready {
		var e error
		if prev, next, e = r.bodies.ensure(plan); err == nil {
			err = e
		}
	}
	if e := r.target.ensure(width, height); e != nil {
		return e
	}
	r.frames++
	r.drawn = Projection{Camera: *cam, Width: width, Height: height}
	r.probe.begin(r.frames)
	n, at := 0, -1
	if plan.Ready {
		var e error
		if n, e = r.bodies.interpolate(prev, next, plan); err == nil {
			err = e
		}
		if n > 0 {
			at = r.bodies.probeAt(next)
		}
	}
	r.probe.capture(r.bodies.poses, at)
	r.lights.upload(plan)
	// The shadow map, from the poses just interpolated, before the
	// frame's passes sample it.
	if e := r.shadow.draw(r.bodies, &r.static, plan, &r.lights.block, next, n); err == nil {
		err = e
	}
	r.target.bind()
	gl.Viewport(0, 0, int32(width), int32(height))
	gl.ClearColor(r.sky[0], r.sky[1], r.sky[2], 1)
	gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	gl.Enable(gl.DEPTH_TEST)
	gl.Enable(gl.CULL_FACE)
	gl.Enable(gl.MULTISAMPLE)
	gl.Disable(gl.BLEND)
	r.vp = cam.viewProj(float32(width) / float32(max(height, 1)))
	vp := &r.vp
	eye := cam.Eye()
	r.ground.draw(vp, eye, r.lights.block.sun[3] > 0)
	r.bodies.drawBodies(next, n, vp, eye, r.frames)
	if e := r.skins.draw(&r.bodies.scene, plan, prev, next, vp, eye, r.bodies.view, r.frames); err == nil {
		err = e
	}
	if e := r.bodies.drawStatic(&r.static, vp, eye, r.frames); err == nil {
		err = e
	}
	if e := r.lines.draw(r.bodies, plan, prev, next, vp, eye, width, height); err == nil {
		err = e
	}
	r.over.drawScene(plan, &r.vp, width, height) // its depth-tested labels
	r.target.resolve()
	r.over.draw(plan, &r.vp, width, height) // the world's text, under the HUD
	r.drawNotice(width, height)
	if r.hud.Visible {
		r.hud.draw(width, height) // after the resolve: text needs no MSAA
	}
	r.probe.end()
	if e := checkGL("frame"); err == nil {
		err = e
	}
	return err
}

// Delete frees every GL object.
func (r *Renderer) Delete() {
	r.static.delete()
	if r.bodies != nil {
		r.bodies.delete()
	}
	if r.ground != nil {
		r.ground.delete()
	}
	if r.hud != nil {
		r.hud.delete()
	}
	if r.over != nil {
		r.over.delete()
	}
	if r.lines != nil {
		r.lines.delete()
	}
	if r.skins != nil {
		r.skins.delete()
	}
	if r.lights != nil {
		r.lights.delete()
	}
	if r.shadow != nil {
		r.shadow.delete()
	}
	r.target.delete()
	r.probe.delete()
	r.flight.delete()
}
