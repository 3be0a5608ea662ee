package renderer_test

import (
	"fmt"
	"image"
	"math"
	"strconv"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// inkRows returns the rows of img, within columns [x0, x1), that hold a
// pixel brighter than halfway between the dark sky and white: text's ink.
func inkRows(img *image.RGBA, x0, x1 int) []int {
	var rows []int
	for y := range img.Rect.Dy() {
		for x := x0; x < x1; x++ {
			if img.RGBAAt(x, y).R > 135 {
				rows = append(rows, y)
				break
			}
		}
	}
	return rows
}

// TestOverlayTextSizes draws "H" over "H" at 16 and at 26 pixels (units
// that the 480×320 window's 0.375 pixels a unit make those sizes) and
// measures, in the frame read back, the first H's height and how far
// below it the second starts: each must be within a pixel of the closed
// form from the font's own metrics (sfnt: the cap height, and the ascent
// plus descent, in font units, times the size over the units per em),
// 11.6 and 18.5 px at 16 px, 18.8 and 30.0 at 26.
func TestOverlayTextSizes(t *testing.T) {
	f, err := sfnt.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	var buf sfnt.Buffer
	upem := f.UnitsPerEm()
	m, err := f.Metrics(&buf, fixed.I(int(upem)), font.HintingNone)
	if err != nil {
		t.Fatal(err)
	}
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		r.SetGroundVisible(false)
		var seq uint64
		caps := map[int]int{}
		for _, px := range []int{16, 26} {
			s := &simthread.Snapshot{Tick: seq + 1}
			units := float32(px) / renderer.OverlayScale(width, height)
			s.Overlay.Text(simthread.TopLeft, 32, 32, units, simthread.White, "H\nH")
			img, err := overlayFrame(r, frontCamera(), &seq, s, s, 1)
			if err != nil {
				return err
			}
			rows := inkRows(img, 0, 100)
			// The two H's: runs of consecutive rows.
			var runs [][2]int
			for i, y := range rows {
				if i == 0 || y != rows[i-1]+1 {
					runs = append(runs, [2]int{y, y})
				}
				runs[len(runs)-1][1] = y
			}
			if len(runs) != 2 {
				return fmt.Errorf("%d px: ink in rows %v: want two H's%s", px, runs, saveFailure(img))
			}
			capH, lineH := runs[0][1]-runs[0][0]+1, runs[1][0]-runs[0][0]
			// m is in 26.6 fixed point at a size of upem: font units.
			wantCap := float64(m.CapHeight) / 64 / float64(upem) * float64(px)
			wantLine := float64(m.Ascent+m.Descent) / 64 / float64(upem) * float64(px)
			t.Logf("%d px: cap height %d px (the font's %.2f), line height %d px (%.2f)", px, capH, wantCap, lineH, wantLine)
			if math.Abs(float64(capH)-wantCap) > 1 || math.Abs(float64(lineH)-wantLine) > 1 {
				return fmt.Errorf("%d px: cap height %d px, line height %d px; the font's are %.2f and %.2f%s", px, capH, lineH, wantCap, wantLine, saveFailure(img))
			}
			caps[px] = capH
		}
		if caps[16] >= caps[26] {
			return fmt.Errorf("cap heights %v: 26 px text is not taller than 16 px", caps)
		}
		return nil
	})
}

// onMainSized is onMain with a window of w×h pixels.
func onMainSized(t *testing.T, w, h int, f func() error) {
	t.Helper()
	var err error
	gltest.Call(func() {
		var win *gltest.Window
		win, err = gltest.Open(t.Name(), w, h, false)
		if err != nil {
			return
		}
		defer win.Close()
		if fw, fh := win.FramebufferSize(); fw != w || fh != h {
			err = fmt.Errorf("asked for a %d×%d window, got %d×%d", w, h, fw, fh)
			return
		}
		err = f()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestHUDShareOfWindow fills the HUD as the app's instruments do at their
// widest (10 lines of HUDLineLen characters and a full graph) and
// measures the part of the window its panel covers: the pixels that
// differ from the frame with the HUD hidden, as a bounding box and a
// count. At 640×360 its text is at its 9 px floor and it covers under a
// third of the window, every line and the graph (before its text scaled,
// 62 %: 80 columns of 7 px glyphs and 16 rows of 16 px are 576×248 px
// whatever the window); at 1280×720 a sixth or less, as before (15.5 %).
// At 320×240, where the whole HUD would cover three quarters of the
// window (make bench-instruments' size, where it cost 40 to 60 % of a
// frame on llvmpipe), it covers a third at most: the first lines, the
// last row saying how many it left out, no graph.
func TestHUDShareOfWindow(t *testing.T) {
	for _, c := range []struct {
		w, h int
		most float64
		cut  bool // lines left out and no graph
	}{{320, 240, 1.0 / 3, true}, {640, 360, 1.0 / 3, false}, {1280, 720, 1.0 / 6, false}} {
		onMainSized(t, c.w, c.h, func() error {
			r, err := newTestRenderer()
			if err != nil {
				return err
			}
			defer r.Delete()
			h := r.HUD()
			for i := range 10 {
				b := h.Line(i)
				for len(*b) < renderer.HUDLineLen {
					*b = strconv.AppendInt(append(*b, ' '), int64(i*1000+len(*b)), 10)
				}
			}
			h.SetLines(10)
			for i := range renderer.HUDGraphLen {
				h.AddFrame(16+float32(i%7), 0)
			}
			s := &simthread.Snapshot{Tick: 1, Bodies: []simthread.Body{{Pos: mgl32.Vec3{0, 5, 0}}}}
			plan := renderer.Plan{Prev: s, Next: s, PrevSeq: 1, NextSeq: 1, Alpha: 1, Ready: true}
			cam := frontCamera()
			frame := func(visible bool) (*image.RGBA, error) {
				h.Visible = visible
				if err := r.Draw(&plan, &cam, c.w, c.h); err != nil {
					return nil, err
				}
				return renderer.ReadFrame(nil, c.w, c.h)
			}
			hidden, err := frame(false)
			if err != nil {
				return err
			}
			shown, err := frame(true)
			if err != nil {
				return err
			}
			var box image.Rectangle
			n := 0
			for y := range c.h {
				for x := range c.w {
					if hidden.RGBAAt(x, y) != shown.RGBAAt(x, y) {
						box = box.Union(image.Rect(x, y, x+1, y+1))
						n++
					}
				}
			}
			share, count := float64(box.Dx()*box.Dy())/float64(c.w*c.h), float64(n)/float64(c.w*c.h)
			rows, graph := h.Rows()
			t.Logf("%d×%d: the HUD covers %v, %.1f %% of the window (%.1f %% of its pixels), %d rows, graph %v", c.w, c.h, box, 100*share, 100*count, rows, graph)
			if box.Empty() || count > c.most || (!c.cut && share > c.most) {
				return fmt.Errorf("%d×%d: the HUD covers %v, %.1f %% of the window (%.1f %% of its pixels); want at most %.1f %%%s", c.w, c.h, box, 100*share, 100*count, 100*c.most, saveFailure(shown))
			}
			if cut := rows < 10 && !graph; cut != c.cut || (c.cut && rows < 3) {
				return fmt.Errorf("%d×%d: %d rows of 10 lines, graph %v; want lines left out and no graph: %v%s", c.w, c.h, rows, graph, c.cut, saveFailure(shown))
			}
			return nil
		})
	}
}

// TestHUDFrameDoesNotAllocate draws frames whose HUD's figures change
// every frame (its lines rebuilt with strconv's appenders, a frame added
// to its graph), and counts heap allocations once the HUD has drawn its
// size once: none, and the panel is laid out and painted again only when
// its text changes. A caption set every frame is seen to allocate, so
// the count can fail.
func TestHUDFrameDoesNotAllocate(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		h := r.HUD()
		h.Visible = true
		s := &simthread.Snapshot{Tick: 1}
		plan := renderer.Plan{Prev: s, Next: s, PrevSeq: 1, NextSeq: 1, Alpha: 1, Ready: true}
		cam := frontCamera()
		n, naive, change := int64(0), false, true
		frame := func() {
			if change {
				for i := range 4 {
					b := h.Line(i)
					*b = strconv.AppendInt(append(*b, "frame "...), n+int64(i), 10)
				}
				h.SetLines(4)
			}
			if naive {
				h.SetCaption("frame " + strconv.FormatInt(n, 10))
			}
			h.AddFrame(16+float32(n%5), 0)
			n++
			if e := r.Draw(&plan, &cam, width, height); err == nil {
				err = e
			}
		}
		for range 5 {
			frame()
		}
		if a := testing.AllocsPerRun(50, frame); a != 0 || err != nil {
			return fmt.Errorf("a frame with changing HUD text allocates %.1f times (err %v)", a, err)
		}
		change = false
		frame()
		paints, layouts := h.Paints(), h.Layouts()
		for range 10 {
			frame()
		}
		if got := h.Paints() - paints; got != 0 {
			return fmt.Errorf("10 frames with the same text painted the panel %d times", got)
		}
		if got := h.Layouts() - layouts; got != 0 {
			return fmt.Errorf("10 frames with the same text laid it out %d times", got)
		}
		change = true
		frame()
		if got := h.Paints() - paints; got != 1 {
			return fmt.Errorf("a frame with new text painted the panel %d times, want 1", got)
		}
		if got := h.Layouts() - layouts; got != 1 {
			return fmt.Errorf("a frame with new text laid it out %d times, want 1", got)
		}
		naive = true
		if a := testing.AllocsPerRun(50, frame); a < 1 {
			return fmt.Errorf("a caption set every frame allocated %.1f times a frame: the count misses allocations", a)
		}
		return err
	})
}
