package renderer_test

import (
	"fmt"
	"image"
	"testing"

	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
)

// TestHUDCaption draws the HUD with one numbered line and a caption of
// two: the caption's text shows in the rows after the line (bright glyph
// pixels there), and only while it is set.
func TestHUDCaption(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		h := r.HUD()
		h.Visible = true
		b := h.Line(0)
		*b = append(*b, "line"...)
		h.SetLines(1)
		sc := newScene()
		cam := frontCamera()
		// Rows 2 and 3 of text: the panel's padding, then rows of the
		// font's line height.
		face, pad := hudFace(height)
		rowH := face.Metrics().Height.Ceil()
		adv, _ := face.GlyphAdvance('#')
		rows := image.Rect(pad, pad+rowH, pad+20*adv.Round(), pad+3*rowH)
		lit := func() (int, error) {
			img, err := drawBodies(r, sc, cam, []simthread.Body{})
			if err != nil {
				return 0, err
			}
			n := 0
			for y := rows.Min.Y; y < rows.Max.Y; y++ {
				for x := rows.Min.X; x < rows.Max.X; x++ {
					if c := img.RGBAAt(x, y); c.R > 150 && c.G > 150 && c.B > 150 {
						n++
					}
				}
			}
			return n, nil
		}
		h.SetCaption("####################", "####################", "", "", "", "", "past HUDCaptionLines: dropped")
		with, err := lit()
		if err != nil {
			return err
		}
		h.SetCaption()
		without, err := lit()
		if err != nil {
			return err
		}
		if with < 100 || without != 0 { // 40 glyphs of thin strokes
			return fmt.Errorf("bright pixels where the caption goes: %d with it, %d without", with, without)
		}
		return nil
	})
}
