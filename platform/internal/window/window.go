package window

import (
	"bytes"
	"errors"
	"fmt"
	"log"
	"os"
	"runtime"
	"strings"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/tickframe/tickframe/platform"
)

// Config describes the window to open. Its zero value opens a 1280×720
// window with vsync.
type Config struct {
	Title         string // "" means "tickframe"
	Width, Height int    // window size in screen coordinates; 0 means 1280×720
	Fullscreen    bool   // on the primary monitor, at its current video mode
	NoVSync       bool   // swap interval 0 instead of 1
	// Samples asks for a multisampled window (0: none). Where the driver
	// has no such visual the window opens without. The renderer does its
	// own MSAA offscreen and needs none.
	Samples int
	Hidden  bool // do not show the window (tests)
}

// Window is a GLFW window with a current OpenGL 4.1 core context. All its
// methods must be called on the main thread.
type Window struct {
	w          *glfw.Window
	vsync      bool
	samples    int
	fullscreen bool
	winX, winY int // windowed position and size, to restore from fullscreen
	winW, winH int
	events     []platform.Event
	dropped    uint64
	cursorX    float64 // the cursor position of the last CursorEvent, for its motion
	cursorY    float64
	captured   bool // the cursor is hidden and locked to the window
	raw        bool // raw mouse motion is on (only while captured)
	fbW, fbH   int  // framebuffer size, kept by the resize callback
	version    string
	renderer   string
	selfPaced  bool // the swap does not wait for the display (SelfPaced)
	xwayland   bool // the X server is a Wayland compositor's (XWayland)
	unmapped   bool // Hide unmapped it, and Show has not mapped it again
}

// maxEvents bounds the events kept between two Polls; more are dropped
// (and counted) rather than allocated.
const maxEvents = 1024

// ErrNoDisplay is wrapped by Open's error when there is no display to open
// a window on.
var ErrNoDisplay = errors.New("no display")

// ErrOldGL is wrapped by Open's error when the driver cannot give an
// OpenGL 4.1 core context.
var ErrOldGL = errors.New("OpenGL 4.1 core is not available")

// Open initialises GLFW, opens a window with an OpenGL 4.1 core,
// forward-compatible context, makes the context current and loads the GL
// functions. It must be called on the main thread (ErrNotMainThread
// otherwise), and only one Window may be open at a time.
func Open(cfg Config) (w *Window, err error) {
	if !onMainThread() {
		return nil, fmt.Errorf("window: Open: %w: call it from main's goroutine or in window.Call", ErrNotMainThread)
	}
	if cfg.Width == 0 && cfg.Height == 0 {
		cfg.Width, cfg.Height = 1280, 720
	}
	if cfg.Width < 1 || cfg.Height < 1 || cfg.Width > 16384 || cfg.Height > 16384 {
		return nil, fmt.Errorf("window: window size %dx%d out of range [1, 16384]", cfg.Width, cfg.Height)
	}
	cfg.Samples = max(cfg.Samples, 0)
	if cfg.Title == "" {
		cfg.Title = "tickframe"
	}
	if err := initGLFW(); err != nil {
		return nil, err
	}
	// go-gl/glfw panics on errors it deems impossible; a driver can still
	// raise them. Return them as errors, with GLFW shut down.
	defer func() {
		if p := recover(); p != nil {
			glfw.Terminate()
			w, err = nil, fmt.Errorf("window: GLFW: %v", p)
		}
	}()
	win, err := create(cfg, cfg.Samples)
	samples := cfg.Samples
	if err != nil && cfg.Samples > 0 {
		win, err = create(cfg, 0) // no multisampled visual: go without
		samples = 0
	}
	if err != nil {
		glfw.Terminate()
		var ge *glfw.Error
		if errors.As(err, &ge) && (ge.Code == glfw.VersionUnavailable || ge.Code == glfw.APIUnavailable || ge.Code == glfw.FormatUnavailable) {
			return nil, fmt.Errorf("window: %w from this driver (%s); update the driver, or use Mesa's llvmpipe (LIBGL_ALWAYS_SOFTWARE=1)", ErrOldGL, ge.Desc)
		}
		return nil, fmt.Errorf("window: create window: %v", glfwDesc(err))
	}
	win.MakeContextCurrent()
	if err := gl.Init(); err != nil {
		win.Destroy()
		glfw.Terminate()
		return nil, fmt.Errorf("window: %w: loading GL functions: %v", ErrOldGL, err)
	}
	var major, minor int32
	gl.GetIntegerv(gl.MAJOR_VERSION, &major)
	gl.GetIntegerv(gl.MINOR_VERSION, &minor)
	if major < 4 || major == 4 && minor < 1 {
		win.Destroy()
		glfw.Terminate()
		return nil, fmt.Errorf("window: %w: the driver gave OpenGL %d.%d", ErrOldGL, major, minor)
	}
	w = &Window{
		w:        win,
		vsync:    !cfg.NoVSync,
		samples:  samples,
		events:   make([]platform.Event, 0, maxEvents),
		version:  gl.GoStr(gl.GetString(gl.VERSION)),
		renderer: gl.GoStr(gl.GetString(gl.RENDERER)),
	}
	w.fullscreen = cfg.Fullscreen
	w.winW, w.winH = cfg.Width, cfg.Height
	w.xwayland = onXWayland()
	w.selfPaced = waylandBuild || w.xwayland
	w.SetVSync(w.vsync)
	w.fbW, w.fbH = win.GetFramebufferSize()
	w.install()
	return w, nil
}

// initGLFW initialises GLFW and returns its failure as an error. On X11,
// go-gl's glfw.Init returns nil when GLFW reports a platform error (no
// display, say) and only prints it with the standard logger, so the logger
// is captured for the duration of the call.
func initGLFW() error {
	if runtime.GOOS != "darwin" && runtime.GOOS != "windows" &&
		os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return fmt.Errorf("window: %w (DISPLAY is not set): set DISPLAY to a running X server, or use `make run`, which starts Xvfb", ErrNoDisplay)
	}
	var logged bytes.Buffer
	out, flags := log.Writer(), log.Flags()
	log.SetOutput(&logged)
	log.SetFlags(0)
	err := glfw.Init()
	log.SetOutput(out)
	log.SetFlags(flags)
	if err == nil && logged.Len() > 0 {
		glfw.Terminate()
		err = errors.New(strings.TrimSpace(strings.SplitN(logged.String(), "\n", 2)[0]))
	}
	if err == nil {
		return nil
	}
	if strings.Contains(strings.ToLower(glfwDesc(err)), "display") {
		return fmt.Errorf("window: %w (%v): set DISPLAY to a running X server, or use `make run`, which starts Xvfb", ErrNoDisplay, glfwDesc(err))
	}
	return fmt.Errorf("window: init GLFW: %v", glfwDesc(err))
}

func create(cfg Config, samples int) (*glfw.Window, error) {
	glfw.DefaultWindowHints()
	glfw.WindowHint(glfw.ContextVersionMajor, 4)
	glfw.WindowHint(glfw.ContextVersionMinor, 1)
	glfw.WindowHint(glfw.OpenGLProfile, glfw.OpenGLCoreProfile)
	glfw.WindowHint(glfw.OpenGLForwardCompatible, glfw.True)
	glfw.WindowHint(glfw.Samples, samples)
	glfw.WindowHint(glfw.ScaleToMonitor, glfw.True) // HiDPI: size in logical units
	glfw.WindowHint(glfw.Resizable, glfw.True)
	if cfg.Hidden {
		glfw.WindowHint(glfw.Visible, glfw.False)
	}
	if cfg.Fullscreen {
		// A fullscreen window stays up when it loses the focus. GLFW's
		// default minimises it on any FocusOut, and Mutter sends a
		// passing one while it maps a window (its debug log: FocusOut,
		// FocusIn, then GLFW's WM_CHANGE_STATE to iconic 260 ms later):
		// the window was minimised at start and never shown. SDL
		// stopped minimising on focus loss by default likewise.
		glfw.WindowHint(glfw.AutoIconify, glfw.False)
		// And it is mapped without decorations, at the size it will
		// have: GLFW maps it, then asks for fullscreen, and a window
		// manager that framed it resizes it then. Mutter before 44.2
		// (GNOME on Debian 12, Ubuntu 22.04) freezes an XWayland
		// window's commits for a resize until it has painted the
		// window, which it cannot do before the window's first commit
		// (mutter#2639): in 6 of 24 runs nested here the window was
		// never shown and its frame timings never came; undecorated,
		// Mutter neither frames nor resizes it (0 of 22).
		glfw.WindowHint(glfw.Decorated, glfw.False)
		if m := glfw.GetPrimaryMonitor(); m != nil {
			mode := m.GetVideoMode()
			glfw.WindowHint(glfw.RefreshRate, mode.RefreshRate)
			return glfw.CreateWindow(mode.Width, mode.Height, cfg.Title, m, nil)
		}
	}
	return glfw.CreateWindow(cfg.Width, cfg.Height, cfg.Title, nil, nil)
}

func glfwDesc(err error) string {
	var ge *glfw.Error
	if errors.As(err, &ge) {
		return ge.Desc
	}
	return err.Error()
}

// install registers the callbacks that turn GLFW's events into Events.
func (w *Window) install() {
	named() // the key table, now rather than at the first key press
	w.cursorX, w.cursorY = w.w.GetCursorPos()
	w.w.SetKeyCallback(func(_ *glfw.Window, key glfw.Key, scancode int, action glfw.Action, mods glfw.ModifierKey) {
		w.push(keyEvent(key, scancode, action, mods))
	})
	w.w.SetMouseButtonCallback(func(gw *glfw.Window, b glfw.MouseButton, action glfw.Action, mods glfw.ModifierKey) {
		x, y := gw.GetCursorPos()
		w.push(buttonEvent(b, action, mods, x, y))
	})
	w.w.SetCursorPosCallback(func(_ *glfw.Window, x, y float64) {
		w.push(platform.Event{Kind: platform.CursorEvent, X: x, Y: y, DX: x - w.cursorX, DY: y - w.cursorY})
		w.cursorX, w.cursorY = x, y
	})
	w.w.SetScrollCallback(func(_ *glfw.Window, x, y float64) {
		w.push(platform.Event{Kind: platform.ScrollEvent, X: x, Y: y})
	})
	w.w.SetIconifyCallback(func(_ *glfw.Window, iconified bool) {
		w.push(platform.Event{Kind: platform.IconifyEvent, On: iconified})
	})
	w.w.SetFocusCallback(func(_ *glfw.Window, focused bool) {
		w.push(platform.Event{Kind: platform.FocusEvent, On: focused})
	})
	w.w.SetFramebufferSizeCallback(func(_ *glfw.Window, width, height int) {
		w.fbW, w.fbH = width, height
		w.push(platform.Event{Kind: platform.ResizeEvent, X: float64(width), Y: float64(height)})
	})
	w.w.SetCloseCallback(func(_ *glfw.Window) {
		w.push(platform.Event{Kind: platform.CloseEvent})
	})
}

func (w *Window) push(e platform.Event) {
	if len(w.events) == cap(w.events) {
		w.dropped++
		return
	}
	w.events = append(w.events, e)
}

// Poll processes pending window-system events and returns them. The slice
// is reused by the next Poll. It does not allocate.
func (w *Window) Poll() []platform.Event {
	w.events = w.events[:0]
	glfw.PollEvents()
	return w.events
}

// DroppedEvents reports how many events overflowed between two Polls.
func (w *Window) DroppedEvents() uint64 { return w.dropped }

// Swap presents the back buffer. With vsync on, it waits for the display.
func (w *Window) Swap() { w.w.SwapBuffers() }

// ShouldClose reports whether the user asked to close the window.
func (w *Window) ShouldClose() bool { return w.w.ShouldClose() }

// FramebufferSize returns the drawable size in pixels (larger than the
// window size on HiDPI displays), as of the last Poll. It does not call
// into GLFW (whose query allocates), so it is free every frame.
func (w *Window) FramebufferSize() (width, height int) { return w.fbW, w.fbH }

// ContentScale returns the ratio of pixels to screen coordinates.
func (w *Window) ContentScale() float32 {
	fw, _ := w.w.GetFramebufferSize()
	ww, _ := w.w.GetSize()
	if ww <= 0 || fw <= 0 {
		return 1
	}
	return float32(fw) / float32(ww)
}

// VSync reports whether the swap interval is 1.
func (w *Window) VSync() bool { return w.vsync }

// SetVSync sets the swap interval to 1 (on) or 0 (off). On Wayland it is
// always 0 (see SelfPaced): on means the app paces itself to the display.
func (w *Window) SetVSync(on bool) {
	w.vsync = on
	if on && !waylandBuild {
		glfw.SwapInterval(1)
	} else {
		glfw.SwapInterval(0)
	}
}

// SelfPaced reports whether the swap returns without waiting for the
// display, whatever VSync says, so that the app must pace its frames
// itself to show no more than the display does: on Wayland (the swap
// interval is 0: an interval of 1 blocks for as long as the window is
// hidden), and under XWayland, whose swap returns at once. It is
// decided at Open.
func (w *Window) SelfPaced() bool { return w.selfPaced }

// XWayland reports whether the window's X server is XWayland, a Wayland
// compositor's X server: what the X server reports of a frame is its hand
// over to the compositor, which may still drop it or show it later. It is
// decided at Open.
func (w *Window) XWayland() bool { return w.xwayland }

// onXWayland reports whether the X server is XWayland (a Wayland
// compositor's X server), which names its outputs XWAYLANDn.
func onXWayland() bool {
	if waylandBuild {
		return false
	}
	m := glfw.GetPrimaryMonitor()
	return m != nil && strings.HasPrefix(m.GetName(), "XWAYLAND")
}

// Samples reports the MSAA sample count the window got.
func (w *Window) Samples() int { return w.samples }

// GLVersion reports the driver's GL_VERSION string, read once at Open so
// that reports can name the driver without a GL call.
func (w *Window) GLVersion() string { return w.version }

// GLRenderer reports the driver's GL_RENDERER string ("llvmpipe ..." for
// Mesa's software rasterizer), read once at Open.
func (w *Window) GLRenderer() string { return w.renderer }

// Fullscreen reports whether the window covers a monitor.
func (w *Window) Fullscreen() bool { return w.fullscreen }

// ToggleFullscreen switches between windowed and fullscreen on the primary
// monitor, restoring the windowed position and size.
func (w *Window) ToggleFullscreen() {
	m := glfw.GetPrimaryMonitor()
	if m == nil {
		return
	}
	if w.fullscreen {
		w.w.SetMonitor(nil, w.winX, w.winY, w.winW, w.winH, 0)
		w.w.SetAttrib(glfw.Decorated, glfw.True) // made fullscreen without them (create)
	} else {
		w.winX, w.winY = w.w.GetPos()
		w.winW, w.winH = w.w.GetSize()
		mode := m.GetVideoMode()
		w.w.SetMonitor(m, 0, 0, mode.Width, mode.Height, mode.RefreshRate)
	}
	w.fullscreen = !w.fullscreen
	w.SetVSync(w.vsync) // some drivers reset the swap interval
}

// RefreshRate reports the refresh rate of the monitor the window is on
// (the primary monitor when windowed), or 0 where the system does not say
// (Xvfb reports 0).
func (w *Window) RefreshRate() int {
	m := w.w.GetMonitor()
	if m == nil {
		m = glfw.GetPrimaryMonitor()
	}
	if m == nil {
		return 0
	}
	if mode := m.GetVideoMode(); mode != nil {
		return mode.RefreshRate
	}
	return 0
}

// Iconified reports whether the window is minimised.
func (w *Window) Iconified() bool { return w.w.GetAttrib(glfw.Iconified) == glfw.True }

// Focused reports whether the window has the keyboard focus.
func (w *Window) Focused() bool { return w.w.GetAttrib(glfw.Focused) == glfw.True }

// Iconify minimises the window.
func (w *Window) Iconify() { w.w.Iconify() }

// Restore brings a minimised window back.
func (w *Window) Restore() { w.w.Restore() }

// Hide unmaps the window (on Wayland its surface loses its role: the
// compositor shows none of its frames); Show maps it again.
func (w *Window) Hide() { w.w.Hide(); w.unmapped = true }

// Show maps a hidden window.
func (w *Window) Show() { w.w.Show(); w.unmapped = false }

// Unmapped reports whether Hide unmapped the window and Show has not
// mapped it again: a window the display system shows nothing of, which
// on Wayland no event and no feedback says.
func (w *Window) Unmapped() bool { return w.unmapped }

// CaptureCursor, on, hides the cursor and locks it to the window, for
// mouse look: CursorEvents then carry an unbounded virtual position and
// its motion (DX, DY), unaccelerated where the system offers raw mouse
// motion (see RawMotion). Off, the cursor shows and moves freely again.
// GLFW releases a captured cursor while the window is unfocused and takes
// it back on focus.
func (w *Window) CaptureCursor(on bool) {
	if on {
		// Raw motion first: GLFW then selects it as it disables the
		// cursor, before the round trip that reads the cursor's place
		// (X11), so the server has the selection when this returns. Set
		// after, it waited in Xlib's buffer for the next Poll, and motion
		// that came first was dropped (the disabled cursor skips core
		// motion while raw motion is on): a make test beside a build loop
		// lost a whole xdotool move so.
		w.raw = glfw.RawMouseMotionSupported()
		if w.raw {
			w.w.SetInputMode(glfw.RawMouseMotion, glfw.True)
		}
		w.w.SetInputMode(glfw.CursorMode, glfw.CursorDisabled)
	} else {
		if w.raw {
			w.w.SetInputMode(glfw.RawMouseMotion, glfw.False)
			w.raw = false
		}
		w.w.SetInputMode(glfw.CursorMode, glfw.CursorNormal)
	}
	w.captured = on
	// The position jumps between the real and the virtual cursor: measure
	// the next motion from where it lands, not across the jump.
	w.cursorX, w.cursorY = w.w.GetCursorPos()
}

// CursorCaptured reports whether CaptureCursor has captured the cursor.
func (w *Window) CursorCaptured() bool { return w.captured }

// RawMotion reports whether the captured cursor moves by raw, unaccelerated
// mouse motion (X11 with XInput2, Windows; not macOS). It is false while
// the cursor is not captured.
func (w *Window) RawMotion() bool { return w.raw }

// CursorPos returns the cursor position in screen coordinates from the
// window's top left corner, as of the last Poll or CaptureCursor. It does
// not call into GLFW.
func (w *Window) CursorPos() (x, y float64) { return w.cursorX, w.cursorY }

// SetTitle sets the window title.
func (w *Window) SetTitle(s string) { w.w.SetTitle(s) }

// Close destroys the window and terminates GLFW.
func (w *Window) Close() {
	if w.w != nil {
		w.w.Destroy()
		w.w = nil
		glfw.Terminate()
	}
}
