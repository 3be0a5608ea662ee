package renderer_test

import (
	"fmt"
	"image"
	"image/color"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// goFace returns Go Regular (ttf goregular.TTF) or Go Mono at px pixels,
// as the renderer rasterises it: opentype at 72 DPI, full hinting (whole
// pixel metrics and advances).
func goFace(ttf []byte, px int) font.Face {
	f, err := opentype.Parse(ttf)
	if err != nil {
		panic(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: float64(px), DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		panic(err)
	}
	return face
}

// textSize returns the advance of text's longest line in face and its
// height: from the first line's top to the last one's bottom.
func textSize(face font.Face, text string) (w, h int) {
	m := face.Metrics()
	lines := strings.Split(text, "\n")
	for _, l := range lines {
		w = max(w, font.MeasureString(face, l).Round())
	}
	return w, (len(lines)-1)*m.Height.Ceil() + m.Ascent.Ceil() + m.Descent.Ceil()
}

// placedText is a text's expected place on the screen: its top-left
// pixel and its size in pixels (Go Regular's em).
type placedText struct {
	text string
	x, y int
	px   int
}

// expectedText returns the coverage of ts's glyphs in the frame, drawn by
// x/image/font from the font itself (the ground truth): each line's
// baseline the font's ascent below its top, lines the font's line height
// apart.
func expectedText(ts ...placedText) *image.Alpha {
	img := image.NewAlpha(image.Rect(0, 0, width, height))
	for _, t := range ts {
		face := goFace(goregular.TTF, t.px)
		m := face.Metrics()
		d := font.Drawer{Dst: img, Src: image.Opaque, Face: face}
		for i, l := range strings.Split(t.text, "\n") {
			d.Dot = fixed.P(t.x, t.y+m.Ascent.Ceil()+i*m.Height.Ceil())
			d.DrawString(l)
		}
	}
	return img
}

// textMismatch counts the pixels where the frame's white text over the
// dark sky and the expected coverage disagree by more than 24 levels of
// 255, where either is brighter than the bodies (grey at most 100).
func textMismatch(img *image.RGBA, want *image.Alpha) (n int, first image.Point) {
	const bg = 14 // the sky's red; the black bodies' is less
	first = image.Pt(-1, -1)
	for y := range height {
		for x := range width {
			exp := bg + (255-bg)*int(want.AlphaAt(x, y).A)/255
			got := int(img.RGBAAt(x, y).R)
			if d := got - exp; (d > 24 || d < -24) && (got > 100 || exp > bg+24) {
				if n == 0 {
					first = image.Pt(x, y)
				}
				n++
			}
		}
	}
	return n, first
}

// overlayFrame draws one frame of snapshots a (older) and b at alpha,
// with b's overlay, and reads it back.
func overlayFrame(r *renderer.Renderer, cam renderer.Camera, seq *uint64, a, b *simthread.Snapshot, alpha float32) (*image.RGBA, error) {
	*seq += 2
	plan := renderer.Plan{Prev: a, Next: b, PrevSeq: *seq - 1, NextSeq: *seq, Alpha: alpha, Ready: true, Span: 0.01}
	return render(r, plan, cam)
}

// TestOverlayTextPixels draws the world's overlay text in the 480×320 test
// window (0.375 pixels a unit) and reads the frame back: every pixel of
// the frame must be as bright as Go Regular's glyphs, at the expected size
// and place, cover it. The cases: a score at the top left (70 units: 26
// px), two lines at the bottom right corner (35 units: 13 px), a line too
// long for the window at 70 units drawn at the largest size that fits and
// pushed back inside from past the right edge, and a label centred on a
// body's interpolated position. The same comparison against the text one
// pixel off, or another string, must fail.
func TestOverlayTextPixels(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		r.SetGroundVisible(false)
		cam := frontCamera()
		var seq uint64
		long := "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW" // 59 characters: 796 px at 26 px
		from, to := mgl32.Vec3{-3, 5, 0}, mgl32.Vec3{1, 7, 0}
		black := simthread.RGB(0, 0, 0) // the bodies stay dark: only text is bright
		type tc struct {
			name  string
			write func(o *simthread.Overlay)
			alpha float32
			want  func() []placedText
		}
		cases := []tc{
			{"score top left", func(o *simthread.Overlay) {
				it := o.Text(simthread.TopLeft, 32, 32, 70, simthread.White, "score ")
				it.Text = append(it.Text, "4711"...)
			}, 1, func() []placedText { return []placedText{{"score 4711", 12, 12, 26}} }},
			{"two lines bottom right", func(o *simthread.Overlay) {
				o.Text(simthread.BottomRight, 0, 0, 35, 0, "lap 3/5\nbest 1:02")
			}, 1, func() []placedText {
				const text = "lap 3/5\nbest 1:02"
				w, h := textSize(goFace(goregular.TTF, 13), text)
				return []placedText{{text, width - w, height - h, 13}}
			}},
			{"too long for the window", func(o *simthread.Overlay) {
				o.Text(simthread.TopRight, 400, 64, 70, simthread.White, long)
			}, 1, func() []placedText {
				px := 26
				for px > 6 {
					if w, _ := textSize(goFace(goregular.TTF, px), long); w <= width {
						break
					}
					px--
				}
				w, _ := textSize(goFace(goregular.TTF, px), long)
				return []placedText{{long, width - w, 24, px}}
			}},
			{"label on an interpolated body", func(o *simthread.Overlay) {
				o.Label(0, 0, -64, 35, simthread.White, "you")
			}, 0.25, func() []placedText {
				// At alpha 0.25 between from and to; 64 units up is 24 px.
				x, y, _ := project(cam, renderer.Lerp(from, to, 0.25), width, height)
				w, h := textSize(goFace(goregular.TTF, 13), "you")
				return []placedText{{"you", int(math.Round(float64(x - float32(w)/2))), int(math.Round(float64(y - 24 - float32(h)/2))), 13}}
			}},
		}
		for _, c := range cases {
			a := &simthread.Snapshot{Tick: seq + 1, Bodies: []simthread.Body{{Pos: from, Color: black, Scale: simthread.UniformScale(0.2)}}}
			b := &simthread.Snapshot{Tick: seq + 2, Bodies: []simthread.Body{{Pos: to, Color: black, Scale: simthread.UniformScale(0.2)}}}
			c.write(&b.Overlay)
			img, err := overlayFrame(r, cam, &seq, a, b, c.alpha)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			for i := 3; i < len(img.Pix); i += 4 {
				if img.Pix[i] != 255 {
					p := i / 4
					return fmt.Errorf("%s: pixel (%d, %d) has alpha %d: text over an opaque frame must leave it opaque (a screenshot's alpha)", c.name, p%width, p/width, img.Pix[i])
				}
			}
			want := c.want()
			if n, at := textMismatch(img, expectedText(want...)); n != 0 {
				return fmt.Errorf("%s: %d pixels differ from the glyphs expected at %+v, the first at %v%s", c.name, n, want, at, saveFailure(img))
			}
			// The comparison notices text one pixel off, or other text.
			off := append([]placedText(nil), want...)
			off[0].x++
			if n, _ := textMismatch(img, expectedText(off...)); n < 20 {
				return fmt.Errorf("%s: the frame matches the text one pixel to the right as well (%d pixels differ)", c.name, n)
			}
			other := append([]placedText(nil), want...)
			other[0].text = "X" + other[0].text[1:]
			if n, _ := textMismatch(img, expectedText(other...)); n < 10 {
				return fmt.Errorf("%s: the frame matches other text as well (%d pixels differ)", c.name, n)
			}
		}
		// Behind the camera, a label is not drawn.
		b := &simthread.Snapshot{Tick: seq + 1, Bodies: []simthread.Body{{Pos: mgl32.Vec3{0, 5, 20}}}}
		b.Overlay.Label(0, 0, 0, 70, 0, "ghost")
		b.Overlay.Label(3, 0, 0, 70, 0, "no such body")
		img, err := overlayFrame(r, cam, &seq, b, b, 1)
		if err != nil {
			return err
		}
		if n, at := textMismatch(img, expectedText()); n != 0 {
			return fmt.Errorf("a label of a body behind the camera or missing: %d bright pixels, the first at %v%s", n, at, saveFailure(img))
		}
		return gl2err(gl.GetError())
	})
}

// TestOverlayShapes draws a rectangle at the centre and a bar anchored to
// the bottom edge (units chosen to land on whole pixels at 0.375 px a
// unit), and reads back the colours inside and just outside them, and the
// bar's fill boundary; a narrower window keeps them in proportion.
func TestOverlayShapes(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		r.SetGroundVisible(false)
		var seq uint64
		red, green, blue := simthread.RGB(255, 0, 0), simthread.RGB(0, 255, 0), simthread.RGB(0, 0, 255)
		s := &simthread.Snapshot{Tick: 1}
		s.Overlay.Rect(simthread.Center, 0, 0, 160, 80, red)                // 60×30 px at (210, 145)
		s.Overlay.Bar(simthread.Bottom, 0, -16, 320, 32, 0.25, green, blue) // 120×12 px at (180, 302), 30 px filled
		img, err := overlayFrame(r, frontCamera(), &seq, s, s, 1)
		if err != nil {
			return err
		}
		sky := img.RGBAAt(5, 5)
		checks := []struct {
			x, y int
			want color.RGBA
		}{
			{210, 145, color.RGBA{255, 0, 0, 255}}, {269, 174, color.RGBA{255, 0, 0, 255}},
			{209, 160, sky}, {270, 160, sky}, {240, 144, sky}, {240, 175, sky},
			{180, 302, color.RGBA{0, 255, 0, 255}}, {209, 313, color.RGBA{0, 255, 0, 255}},
			{210, 302, color.RGBA{0, 0, 255, 255}}, {299, 313, color.RGBA{0, 0, 255, 255}},
			{179, 308, sky}, {300, 308, sky}, {240, 301, sky}, {240, 314, sky},
		}
		for _, c := range checks {
			if got := img.RGBAAt(c.x, c.y); !near(got, c.want, 2) {
				return fmt.Errorf("pixel (%d, %d) is %v, want %v%s", c.x, c.y, got, c.want, saveFailure(img))
			}
		}
		return gl2err(gl.GetError())
	})
}

// TestOverlayScale checks the overlay's scale against its definition:
// pixels a unit are the smaller of the window's ratios to 1280×720.
func TestOverlayScale(t *testing.T) {
	for _, c := range []struct {
		w, h  int
		scale float32
	}{{1280, 720, 1}, {2560, 1440, 2}, {480, 360, 0.375}, {640, 1000, 0.5}, {1920, 360, 0.5}} {
		if got := renderer.OverlayScale(c.w, c.h); got != c.scale {
			t.Errorf("OverlayScale(%d, %d) = %v, want %v", c.w, c.h, got, c.scale)
		}
	}
}

// TestOverlayFrameDoesNotAllocate draws frames whose snapshots carry a
// changing score, a bar and a label, and counts heap allocations once the
// overlay's buffers have grown: none. A score formatted as a new string
// each frame is seen to allocate, so the count can fail.
func TestOverlayFrameDoesNotAllocate(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		cam := frontCamera()
		snaps := [3]simthread.Snapshot{}
		for i := range snaps {
			snaps[i].Bodies = []simthread.Body{{Pos: mgl32.Vec3{0, 5, 0}}}
		}
		var seq uint64
		score, naive := int64(0), false
		frame := func() {
			a, b := &snaps[seq%3], &snaps[(seq+1)%3]
			b.Tick = seq + 2
			o := &b.Overlay
			o.Reset()
			if naive {
				o.Text(simthread.TopLeft, 16, 16, 32, 0, "score "+strconv.FormatInt(score, 10))
			} else {
				it := o.Text(simthread.TopLeft, 16, 16, 32, 0, "score ")
				it.Text = strconv.AppendInt(it.Text, score, 10)
			}
			o.Bar(simthread.Bottom, 0, -16, 400, 16, float32(score%100)/100, simthread.RGB(80, 220, 120), simthread.RGBA(0, 0, 0, 160))
			o.Label(0, 0, -40, 20, 0, "you")
			score += 7
			seq += 2
			plan := renderer.Plan{Prev: a, Next: b, PrevSeq: seq - 1, NextSeq: seq, Alpha: 0.5, Ready: true, Span: 0.01}
			err = r.Draw(&plan, &cam, width, height)
		}
		for range 10 {
			frame()
		}
		if n := testing.AllocsPerRun(50, frame); n != 0 || err != nil {
			return fmt.Errorf("a frame with a changing overlay allocates %.1f times (err %v)", n, err)
		}
		naive = true
		if n := testing.AllocsPerRun(50, frame); n < 1 {
			return fmt.Errorf("a score formatted as a new string allocated %.1f times a frame: the count misses allocations", n)
		}
		return err
	})
}

// BenchmarkGLText measures Renderer.Draw, plus gl.Finish, of frames of 64
// cubes that each get a new snapshot, 640×360 without MSAA (the overlay's
// scale 0.5: its default 26-unit text 13 px), by what text they carry:
// none; the overlay's changing score and bar and a label with a changing
// number above each cube (AboveBody); the same labels depth-tested; and
// the HUD's ten lines, changed every frame (its panel repainted every
// frame: the upper bound, as an app changes them four times a second).
// 0 allocs/op. Under llvmpipe ns/op is the software GPU's.
func BenchmarkGLText(b *testing.B) {
	if os.Getenv("DISPLAY") == "" {
		b.Skip("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	const w, h = 640, 360
	for _, text := range []string{"none", "overlay", "overlay-depth", "hud"} {
		b.Run("text="+text, func(b *testing.B) {
			var err error
			gltest.Call(func() {
				var win *gltest.Window
				if win, err = gltest.Open(b.Name(), w, h, false); err != nil {
					return
				}
				defer win.Close()
				var r *renderer.Renderer
				if r, err = newTestRenderer(); err != nil {
					return
				}
				defer r.Delete()
				hud := r.HUD()
				hud.Visible = text == "hud"
				cam := frontCamera()
				var snaps [3]simthread.Snapshot
				var seq uint64
				frame := func() {
					a, s := &snaps[seq%3], &snaps[(seq+1)%3]
					s.Bodies = s.Bodies[:0]
					for i := range 64 {
						s.Bodies = append(s.Bodies, simthread.Body{Pos: mgl32.Vec3{float32(i%8-4) * 1.2, float32(i/8) * 1.2, -2}, Rot: ident,
							Scale: simthread.UniformScale(0.3), Color: simthread.White})
					}
					o := &s.Overlay
					o.Reset()
					if text == "overlay" || text == "overlay-depth" {
						it := o.Text(simthread.TopLeft, 16, 16, 32, 0, "score ")
						it.Text = strconv.AppendUint(it.Text, 1000+seq%9000, 10) // 4 digits: its buffer never grows
						o.Bar(simthread.Bottom, 0, -16, 400, 16, float32(seq%100)/100, simthread.RGB(80, 220, 120), simthread.RGBA(0, 0, 0, 160))
						for i := range 64 {
							l := o.Label(i, 0, 0, 20, 0, "body ")
							l.Text = strconv.AppendUint(l.Text, 100+(seq+uint64(i))%900, 10)
							l.Anchor, l.DepthTest = simthread.AboveBody, text == "overlay-depth"
						}
					}
					if text == "hud" {
						for i := range 10 {
							l := hud.Line(i)
							*l = strconv.AppendUint(append(*l, "frame time p99 "...), seq+uint64(i), 10)
						}
						hud.SetLines(10)
						hud.AddFrame(16+float32(seq%5), 0)
					}
					seq += 2
					plan := renderer.Plan{Prev: a, Next: s, PrevSeq: seq - 1, NextSeq: seq, Alpha: 0.5, Ready: true, Span: 0.01}
					if e := r.Draw(&plan, &cam, w, h); e != nil {
						err = e
					}
					gl.Finish()
				}
				loopFrames(b, frame)
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}
