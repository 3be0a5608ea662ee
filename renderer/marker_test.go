package renderer_test

import (
	"fmt"
	"testing"

	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
)

// TestDrawMarkerFillsItsColumn draws a frame, then two marker columns
// (one clipped by the window's right edge, one outside it), and reads the
// window back: each column in its colour over the whole height, the
// pixels beside it as the frame drew them.
func TestDrawMarkerFillsItsColumn(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1})
		if err != nil {
			return err
		}
		defer r.Delete()
		r.HUD().Visible = false
		s := newScene()
		s.publish(1, nil)
		cam := renderer.DefaultCamera()
		if err := r.Draw(ptr(s.newest()), &cam, width, height); err != nil {
			return err
		}
		before, err := renderer.ReadFrame(nil, width, height)
		if err != nil {
			return err
		}
		red, green := [3]uint8{255, 0, 0}, [3]uint8{0, 128, 255}
		r.DrawMarker(8, 8, red, width, height)
		r.DrawMarker(width-4, 8, green, width, height) // 4 columns in the window
		r.DrawMarker(width, 8, red, width, height)     // none
		img, err := renderer.ReadFrame(nil, width, height)
		if err != nil {
			return err
		}
		for _, y := range []int{0, height / 2, height - 1} {
			for x := range width {
				want := before.RGBAAt(x, y)
				switch {
				case x >= 8 && x < 16:
					want.R, want.G, want.B = red[0], red[1], red[2]
				case x >= width-4:
					want.R, want.G, want.B = green[0], green[1], green[2]
				}
				if got := img.RGBAAt(x, y); got.R != want.R || got.G != want.G || got.B != want.B {
					return fmt.Errorf("pixel %d,%d is %v, want %v", x, y, got, want)
				}
			}
		}
		return nil
	})
}
