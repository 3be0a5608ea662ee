package renderer_test

import (
	"fmt"
	"image/color"
	"math"
	"testing"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
)

// TestGroundSize looks down on the ground under a blue sky
// (SetClearColor) and resizes it with SetGroundSize: a point 2.5 m from
// the origin is ground in a 6 m square and sky in a 4 m one; 3.5 m out
// is sky in both, ground in the default 400 m square. Sizes that are not
// positive and finite are refused.
func TestGroundSize(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		r.SetClearColor(simthread.RGB(40, 80, 160))
		sky := color.RGBA{40, 80, 160, 255}
		cam := renderer.DefaultCamera()
		cam.Target, cam.Yaw, cam.Pitch, cam.Distance = mgl32.Vec3{}, 0, 1.2, 12
		s := newScene()
		for _, c := range []struct {
			side       float32 // 0: the default
			at25, at35 bool    // ground at 2.5 m and 3.5 m
		}{{0, true, true}, {6, true, false}, {4, false, false}, {renderer.DefaultGroundSize, true, true}} {
			if c.side > 0 {
				if err := r.SetGroundSize(c.side); err != nil {
					return err
				}
			}
			img, err := drawBodies(r, s, cam, nil)
			if err != nil {
				return err
			}
			for _, p := range []struct {
				x      float32
				ground bool
			}{{2.5, c.at25}, {3.5, c.at35}} {
				got, err := pixelAt(img, cam, mgl32.Vec3{p.x, 0, 0})
				if err != nil {
					return err
				}
				if near(got, sky, 3) == p.ground {
					return fmt.Errorf("ground of side %v: at %v m the frame shows %v, want ground %v (sky %v)%s", c.side, p.x, got, p.ground, sky, saveFailure(img))
				}
			}
		}
		for _, bad := range []float32{0, -1, float32(math.Inf(1)), float32(math.NaN())} {
			if r.SetGroundSize(bad) == nil {
				return fmt.Errorf("SetGroundSize(%v) was accepted", bad)
			}
		}
		return gl2err(gl.GetError())
	})
}
