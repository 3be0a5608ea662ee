package renderer

import (
	"fmt"
	"strings"

	"github.com/go-gl/gl/v4.1-core/gl"
)

// target is the multisampled offscreen framebuffer the scene is drawn
// into and resolved from onto the window. Owning it, rather than asking
// the window system for a multisampled window, lets the renderer choose
// the sample count once it knows the driver (no MSAA on a software
// rasterizer, where it halves the frame rate) and follow resizes.
type target struct {
	samples      int
	fbo          uint32
	color, depth uint32
	w, h         int
}

// softwareRenderer reports whether GL_RENDERER names a software
// rasterizer, where every sample is paid for on the CPU.
func softwareRenderer() bool {
	r := strings.ToLower(gl.GoStr(gl.GetString(gl.RENDERER)))
	for _, s := range []string{"llvmpipe", "softpipe", "swrast", "software", "swiftshader"} {
		if strings.Contains(r, s) {
			return true
		}
	}
	return false
}

// chooseSamples turns Options.Samples into a sample count the driver has.
func chooseSamples(want int) int {
	switch {
	case want < 0:
		return 0
	case want == 0:
		if softwareRenderer() {
			return 0
		}
		want = 4
	}
	var limit int32
	gl.GetIntegerv(gl.MAX_SAMPLES, &limit)
	if want > int(limit) {
		want = int(limit)
	}
	if want < 2 {
		return 0
	}
	return want
}

// ensure (re)allocates the target for a w×h viewport.
func (t *target) ensure(w, h int) error {
	if t.samples == 0 || (w == t.w && h == t.h && t.fbo != 0) {
		return nil
	}
	t.delete()
	gl.GenFramebuffers(1, &t.fbo)
	gl.BindFramebuffer(gl.FRAMEBUFFER, t.fbo)
	gl.GenRenderbuffers(1, &t.color)
	gl.BindRenderbuffer(gl.RENDERBUFFER, t.color)
	gl.RenderbufferStorageMultisample(gl.RENDERBUFFER, int32(t.samples), gl.RGBA8, int32(w), int32(h))
	gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, t.color)
	gl.GenRenderbuffers(1, &t.depth)
	gl.BindRenderbuffer(gl.RENDERBUFFER, t.depth)
	gl.RenderbufferStorageMultisample(gl.RENDERBUFFER, int32(t.samples), gl.DEPTH_COMPONENT24, int32(w), int32(h))
	gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, t.depth)
	status := gl.CheckFramebufferStatus(gl.FRAMEBUFFER)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	gl.BindRenderbuffer(gl.RENDERBUFFER, 0)
	if status != gl.FRAMEBUFFER_COMPLETE {
		t.delete()
		return fmt.Errorf("renderer: %d× multisampled framebuffer %dx%d incomplete (status 0x%x)", t.samples, w, h, status)
	}
	if err := checkGL("create multisampled framebuffer"); err != nil {
		t.delete()
		return err
	}
	t.w, t.h = w, h
	return nil
}

// bind makes the target (or the window, without MSAA) the draw target.
func (t *target) bind() {
	gl.BindFramebuffer(gl.FRAMEBUFFER, t.fbo) // 0 without MSAA: the window
}

// resolve averages the samples onto the window's back buffer.
func (t *target) resolve() {
	if t.fbo == 0 {
		return
	}
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, t.fbo)
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, 0)
	gl.BlitFramebuffer(0, 0, int32(t.w), int32(t.h), 0, 0, int32(t.w), int32(t.h), gl.COLOR_BUFFER_BIT, gl.NEAREST)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	debugCheck("resolve multisampled framebuffer")
}

func (t *target) delete() {
	if t.fbo != 0 {
		gl.DeleteFramebuffers(1, &t.fbo)
		t.fbo = 0
	}
	if t.color != 0 {
		gl.DeleteRenderbuffers(1, &t.color)
		t.color = 0
	}
	if t.depth != 0 {
		gl.DeleteRenderbuffers(1, &t.depth)
		t.depth = 0
	}
	t.w, t.h = 0, 0
}
