package renderer_test

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
)

// labelFrame draws bodies with overlay o's items (written by write) as
// one snapshot and reads the frame back.
func labelFrame(r *renderer.Renderer, cam renderer.Camera, seq *uint64, bodies []simthread.Body, write func(o *simthread.Overlay)) (*image.RGBA, error) {
	*seq++
	s := &simthread.Snapshot{Tick: *seq, Bodies: bodies}
	write(&s.Overlay)
	return render(r, renderer.Plan{Prev: s, Next: s, PrevSeq: *seq, NextSeq: *seq, Alpha: 1, Ready: true}, cam)
}

// rows returns the first and last row holding a pixel that is, and how
// many there are.
func rows(img *image.RGBA, is func(color.RGBA) bool) (first, last, n int) {
	first, last = -1, -1
	for y := 0; y < img.Rect.Dy(); y++ {
		for x := 0; x < img.Rect.Dx(); x++ {
			if is(img.RGBAAt(x, y)) {
				if first < 0 {
					first = y
				}
				last = y
				n++
			}
		}
	}
	return first, last, n
}

func isRed(c color.RGBA) bool   { return c.R > 150 && c.G < 80 && c.B < 80 }
func isWhite(c color.RGBA) bool { return c.R > 200 && c.G > 200 && c.B > 200 }
func isGreen(c color.RGBA) bool { return c.G > 120 && c.R < 100 && c.B < 100 }

// TestLabelAboveBody draws a red sphere of radius 1 above the view's
// centre at 10 m and at 40 m, and of radius 2.5 at 10 m, each with a
// white rectangle anchored AboveBody, and reads the frames back: the
// rectangle's bottom edge lies on the sphere's outline's top row, within
// 2 pixels, straight above its centre. A green text label anchored the
// same way has its ink above the outline, its lowest ink no more than
// the font's descent and 2 pixels above it. (Anchored AtBody, the old
// way, the rectangle covers the sphere's centre: the test fails.)
func TestLabelAboveBody(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		r.SetGroundVisible(false)
		sphere, err := r.AddMesh(renderer.SphereMesh(96, 48))
		if err != nil {
			return err
		}
		red, err := r.AddMaterial(unlit(mgl32.Vec4{1, 0, 0, 1}, nil))
		if err != nil {
			return err
		}
		cam := frontCamera()
		var seq uint64
		for _, c := range []struct {
			pos    mgl32.Vec3
			radius float32
		}{
			{mgl32.Vec3{0.5, 6.5, 0}, 1},
			{mgl32.Vec3{-2, 9, -30}, 1},
			{mgl32.Vec3{1, 3.5, 0}, 2.5},
		} {
			body := simthread.Body{Pos: c.pos, Scale: simthread.UniformScale(c.radius), Color: simthread.White, Mesh: sphere, Material: red}
			name := fmt.Sprintf("sphere of radius %v at %v", c.radius, c.pos)
			plain, err := labelFrame(r, cam, &seq, []simthread.Body{body}, func(*simthread.Overlay) {})
			if err != nil {
				return err
			}
			top, _, n := rows(plain, isRed)
			if n < 20 {
				return fmt.Errorf("%s: %d red pixels%s", name, n, saveFailure(plain))
			}
			img, err := labelFrame(r, cam, &seq, []simthread.Body{body}, func(o *simthread.Overlay) {
				o.Rect(simthread.AboveBody, 0, 0, 40, 24, simthread.White).Body = 0
			})
			if err != nil {
				return err
			}
			_, last, n := rows(img, isWhite)
			if n == 0 || math.Abs(float64(last+1-top)) > 2 {
				return fmt.Errorf("%s: the rectangle's bottom edge at row %d, the outline's top at %d (%d white pixels)%s", name, last+1, top, n, saveFailure(img))
			}
			// Straight above the centre.
			x, _, _ := project(cam, c.pos, width, height)
			lo, hi := width, -1
			for px := 0; px < width; px++ {
				if isWhite(img.RGBAAt(px, last)) {
					lo, hi = min(lo, px), max(hi, px)
				}
			}
			if mid := float32(lo+hi+1) / 2; math.Abs(float64(mid-x)) > 1.5 {
				return fmt.Errorf("%s: the rectangle centred at x %v, the body at %v", name, mid, x)
			}
			img, err = labelFrame(r, cam, &seq, []simthread.Body{body}, func(o *simthread.Overlay) {
				o.Label(0, 0, 0, 35, simthread.RGB(0, 255, 0), "Hg").Anchor = simthread.AboveBody
			})
			if err != nil {
				return err
			}
			// 35 units at 0.375 px a unit: Go Regular at 13 px, descent 3.
			_, ink, n := rows(img, isGreen)
			if n == 0 || ink >= top || ink < top-3-2 {
				return fmt.Errorf("%s: the label's lowest ink at row %d, the outline's top at %d%s", name, ink, top, saveFailure(img))
			}
		}
		return gl2err(gl.GetError())
	})
}

// TestLabelDepthTest draws a body behind a blue wall and one in front of
// it, each with a white rectangle centred on it, and reads the frames
// back, without and with 4× multisampling: a depth-tested label behind
// the wall is hidden, one in front of it is shown whole, and without
// DepthTest the one behind is shown whole, over the wall.
func TestLabelDepthTest(t *testing.T) {
	for _, samples := range []int{-1, 4} {
		t.Run(fmt.Sprintf("samples=%d", samples), func(t *testing.T) {
			onMain(t, func(*gltest.Window) error {
				r, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: samples})
				if err != nil {
					return err
				}
				defer r.Delete()
				r.HUD().Visible = false
				r.SetGroundVisible(false)
				blue, err := r.AddMaterial(unlit(mgl32.Vec4{0, 0, 1, 1}, nil))
				if err != nil {
					return err
				}
				cam := frontCamera()
				wall := simthread.Body{Pos: mgl32.Vec3{0, 5, 2}, Scale: mgl32.Vec3{3, 3, 0.1}, Color: simthread.White, Material: blue}
				behind := simthread.Body{Pos: mgl32.Vec3{0, 5, 0}, Scale: simthread.UniformScale(0.2), Color: simthread.RGB(0, 0, 0)}
				before := behind
				before.Pos[2] = 4
				var seq uint64
				// 80×40 units: 30×15 pixels, all over the wall.
				const area = 30 * 15
				for _, c := range []struct {
					name  string
					body  simthread.Body
					test  bool
					shown bool
				}{
					{"behind the wall, depth-tested", behind, true, false},
					{"in front of the wall, depth-tested", before, true, true},
					{"behind the wall, not depth-tested", behind, false, true},
				} {
					img, err := labelFrame(r, cam, &seq, []simthread.Body{wall, c.body}, func(o *simthread.Overlay) {
						it := o.Rect(simthread.AtBody, 0, 0, 80, 40, simthread.White)
						it.Body, it.DepthTest = 1, c.test
					})
					if err != nil {
						return err
					}
					_, _, n := rows(img, isWhite)
					if c.shown && math.Abs(float64(n-area)) > 60 || !c.shown && n != 0 {
						return fmt.Errorf("%s: %d white pixels, want %v%s", c.name, n, map[bool]string{true: "the rectangle's 450", false: "none"}[c.shown], saveFailure(img))
					}
				}
				return gl2err(gl.GetError())
			})
		})
	}
}
