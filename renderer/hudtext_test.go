package renderer_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"os"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/math/fixed"
)

// hudFace returns the HUD's face in a window height pixels high (Go Mono
// at the HUD's size) and the panel's padding.
func hudFace(height int) (face font.Face, pad int) {
	px, pad := renderer.HUDTextLayout(height, 1)
	return goFace(gomono.TTF, px), pad
}

// TestHUDTextPixels draws the HUD's lines, one highlighted, the last cut
// at HUDLineLen, and compares every pixel of its text rows with the text
// rasterised on the CPU by x/image/font from the same font at the HUD's
// size for the window (Go Mono, 9 px in a window 320 pixels high) and
// layout (the panel's padding, rows the font's line height apart): each
// pixel of a row is the panel's colour (which a pixel of the padding
// shows) with the text's colour (the warning colour on the highlighted
// line) over it as much as the glyphs cover it, within 3 levels, as far
// as the row's own text and padding reach, and the sky's beyond it (an
// empty row: the sky); and nothing else.
func TestHUDTextPixels(t *testing.T) {
	lines := []string{
		"fps 143.9  frame p50 6.94 ms  p99 7.10 ms",
		"late: 3 wakes > 2 ms {[|]} ~ `' \" @#$%^&*()_+=-",
		"",
		"0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567", // past the 80 shown
	}
	const warnLine = 1
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		r.SetGroundVisible(false)
		r.SetClearColor(simthread.RGB(40, 90, 160))
		h := r.HUD()
		h.Visible = true
		for i, l := range lines {
			b := h.Line(i)
			*b = append(*b, l...)
		}
		h.Highlight(warnLine)
		h.SetLines(len(lines))
		img, err := drawBodies(r, newScene(), frontCamera(), []simthread.Body{})
		if err != nil {
			return err
		}
		face, pad := hudFace(height)
		m := face.Metrics()
		rowH, cut := m.Height.Ceil(), renderer.HUDLineLen
		panel := img.RGBAAt(2, 2)
		text, warn := color.RGBA{230, 235, 240, 255}, color.RGBA{255, 170, 60, 255}
		adv, _ := face.GlyphAdvance('0')
		sky := color.RGBA{40, 90, 160, 255}
		// The CPU's text over the panel's colour, one row at a time, each
		// row's panel as wide as its text and padding.
		want := image.NewRGBA(image.Rect(0, 0, width, pad+len(lines)*rowH))
		draw.Draw(want, want.Rect, image.NewUniform(sky), image.Point{}, draw.Src)
		for i, l := range lines {
			if n := min(len(l), cut); n > 0 {
				row := image.Rect(0, pad+i*rowH, 2*pad+n*adv.Round(), pad+(i+1)*rowH)
				draw.Draw(want, row, image.NewUniform(panel), image.Point{}, draw.Src)
			}
		}
		for i, l := range lines {
			c := text
			if i == warnLine {
				c = warn
			}
			d := font.Drawer{Dst: want, Src: image.NewUniform(c), Face: face, Dot: fixed.P(pad, pad+i*rowH+m.Ascent.Ceil())}
			d.DrawString(l[:min(len(l), cut)])
		}
		// The longest row's panel is its line with the padding either
		// side; the sky shows right of it.
		panelW, y := 2*pad+cut*adv.Round(), pad+3*rowH
		if got := img.RGBAAt(panelW, y); got != sky || img.RGBAAt(panelW-1, y) == sky {
			return fmt.Errorf("the panel does not end at x = %d: (%d, %d) is %v, left of it %v", panelW, panelW, y, got, img.RGBAAt(panelW-1, y))
		}
		bad, ink := 0, 0
		var first string
		for y := pad; y < want.Rect.Dy(); y++ {
			for x := 0; x < width; x++ {
				exp := want.RGBAAt(x, y)
				if !near(exp, panel, 60) && exp != sky {
					ink++
				}
				if got := img.RGBAAt(x, y); !near(got, exp, 3) {
					if bad == 0 {
						first = fmt.Sprintf("(%d, %d) is %v, want %v", x, y, got, exp)
					}
					bad++
				}
			}
		}
		if ink < 1000 {
			return fmt.Errorf("the CPU's text has %d pixels of ink: the test draws too little", ink)
		}
		if panel == sky {
			return fmt.Errorf("the padding at (2, 2) is the sky's colour: no panel")
		}
		if bad > 0 {
			return fmt.Errorf("%d of the text rows' pixels differ from the CPU's text (%d pixels of ink); the first: %s%s", bad, ink, first, saveFailure(img))
		}
		return nil
	})
}

// TestHUDRepaintsWhatChanged: the panel and its text are painted into a
// texture of their own only when they change. A HUD whose text, then
// highlight, then width changes from frame to frame draws each frame as a
// new renderer drawing that text at once does, pixel for pixel; a frame
// with nothing changed draws as the one before.
func TestHUDRepaintsWhatChanged(t *testing.T) {
	type state struct {
		lines []string
		warn  int // -1: none
	}
	states := []state{
		{[]string{"fps 143.9", "late 0"}, -1},
		{[]string{"fps 144.1", "late 0"}, -1},                        // the text, same widths
		{[]string{"fps 144.1", "late 0"}, 1},                         // the highlight alone
		{[]string{"fps 144.1", "late 0"}, 1},                         // nothing
		{[]string{"fps 144.1 and a much longer line", "late 3"}, -1}, // the panel's width
		{[]string{"fps 144.1"}, -1},                                  // the rows
		{[]string{"fps 144.1", ""}, -1},                              // the rows alone: an empty line
	}
	full, empty := make([]string, renderer.HUDLines), make([]string, renderer.HUDLines)
	for i := range full {
		full[i] = fmt.Sprintf("line %d of text", i)
	}
	empty[0] = "x"
	states = append(states,
		state{full, -1},
		state{[]string{"x"}, -1},
		state{empty, -1}, // the cells as the last frame's, the panel taller: nothing of the full panel's text below
	)
	set := func(h *renderer.HUD, s state) {
		for i, l := range s.lines {
			b := h.Line(i)
			*b = append(*b, l...)
		}
		if s.warn >= 0 {
			h.Highlight(s.warn)
		}
		h.SetLines(len(s.lines))
		h.Visible = true
	}
	draw := func(r *renderer.Renderer) (*image.RGBA, error) {
		r.SetGroundVisible(false)
		r.SetClearColor(simthread.RGB(40, 90, 160))
		return drawBodies(r, newScene(), frontCamera(), []simthread.Body{})
	}
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		for i, s := range states {
			set(r.HUD(), s)
			got, err := draw(r)
			if err != nil {
				return err
			}
			fresh, err := newTestRenderer()
			if err != nil {
				return err
			}
			set(fresh.HUD(), s)
			want, err := draw(fresh)
			fresh.Delete()
			if err != nil {
				return err
			}
			if !bytes.Equal(got.Pix, want.Pix) {
				n, first := 0, image.Point{}
				for y := 0; y < got.Rect.Dy(); y++ {
					for x := 0; x < got.Rect.Dx(); x++ {
						if got.RGBAAt(x, y) != want.RGBAAt(x, y) {
							if n == 0 {
								first = image.Pt(x, y)
							}
							n++
						}
					}
				}
				return fmt.Errorf("state %d (%+v): %d pixels differ from a new renderer's drawing it, the first at %v: %v, want %v",
					i, s, n, first, got.RGBAAt(first.X, first.Y), want.RGBAAt(first.X, first.Y))
			}
		}
		return nil
	})
}

// TestEmptyHUDDrawsNothing: a HUD shown with no line, no caption and no
// frame in its graph (a loop.App with no instrument to fill it) leaves the
// frame as with the HUD hidden; one frame in the graph draws the panel.
func TestEmptyHUDDrawsNothing(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		r.SetGroundVisible(false)
		r.SetClearColor(simthread.RGB(40, 90, 160))
		draw := func(visible bool) (*image.RGBA, error) {
			r.HUD().Visible = visible
			return drawBodies(r, newScene(), frontCamera(), []simthread.Body{})
		}
		hidden, err := draw(false)
		if err != nil {
			return err
		}
		shown, err := draw(true)
		if err != nil {
			return err
		}
		if !bytes.Equal(hidden.Pix, shown.Pix) {
			return fmt.Errorf("an empty HUD drew pixels")
		}
		r.HUD().AddFrame(16.7, 0)
		graph, err := draw(true)
		if err != nil {
			return err
		}
		if bytes.Equal(hidden.Pix, graph.Pix) {
			return fmt.Errorf("a HUD with a frame in its graph drew nothing")
		}
		return nil
	})
}

// TestHUDMoreRowDocumented: the row a small window's HUD ends with is in
// docs/hud.md, its number as N, as the instruments' lines are.
func TestHUDMoreRowDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/hud.md")
	if err != nil {
		t.Fatal(err)
	}
	row := renderer.HUDMoreRow(7)
	shape := strings.Replace(row, "7", "N", 1)
	if shape == row || !bytes.Contains(doc, []byte("`"+shape+"`")) {
		t.Errorf("docs/hud.md does not show the HUD's row %q as `%s`", row, shape)
	}
}
