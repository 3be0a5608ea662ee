package renderer_test

import (
	"fmt"
	"image"
	"testing"

	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
)

// TestHUDCompact draws the HUD, numbered lines and a caption of two, over
// a light sky, and measures its panel (the pixels it darkens): compact, it
// is exactly the caption's size (the longest caption line of the HUD
// font's advances and two rows of its line height, with the padding round
// them) and its text is the caption's, in the first rows; not compact,
// the panel holds the numbered lines and the graph below them, far
// larger.
func TestHUDCompact(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		r.SetGroundVisible(false)
		r.SetClearColor(simthread.RGB(200, 200, 200))
		h := r.HUD()
		h.Visible = true
		for i := range 6 {
			b := h.Line(i)
			*b = append(*b, "timing detail timing detail timing detail"...)
		}
		h.SetLines(6)
		h.SetCaption("model.glb: 3 meshes", "N shaded/normals/wireframe") // 26 characters the longest
		panel := func(compact bool) (image.Rectangle, int, error) {
			h.Compact = compact
			img, err := drawBodies(r, newScene(), frontCamera(), nil)
			if err != nil {
				return image.Rectangle{}, 0, err
			}
			var box image.Rectangle
			text := 0
			for y := range height {
				for x := range width {
					c := img.RGBAAt(x, y)
					if c.R < 150 { // darkened by the panel
						box = box.Union(image.Rect(x, y, x+1, y+1))
					}
					if c.R > 120 && x < 300 && y < 50 { // the text, brighter than the panel
						text++
					}
				}
			}
			return box, text, nil
		}
		compact, text, err := panel(true)
		if err != nil {
			return err
		}
		face, pad := hudFace(height)
		rowH := face.Metrics().Height.Ceil()
		adv, _ := face.GlyphAdvance('0')
		if want := image.Rect(0, 0, 26*adv.Round()+2*pad, 2*rowH+2*pad); compact != want {
			return fmt.Errorf("the compact panel covers %v, want %v", compact, want)
		}
		if text < 100 {
			return fmt.Errorf("the compact panel shows %d text pixels", text)
		}
		full, _, err := panel(false)
		if err != nil {
			return err
		}
		if full.Dy() < compact.Dy()+6*rowH || full.Dx() < 26*adv.Round()+2*pad+100 {
			return fmt.Errorf("the full panel covers %v: the test does not tell it from the compact one", full)
		}
		h.SetCaption()
		none, _, err := panel(true)
		if err != nil {
			return err
		}
		if !none.Empty() {
			return fmt.Errorf("a compact HUD with no caption covers %v", none)
		}
		return nil
	})
}
