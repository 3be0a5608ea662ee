package chart

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/color"
	"image/png"
	"math"
	"strconv"
	"strings"
	"testing"
)

var blue = color.RGBA{0x10, 0x40, 0xc0, 0xff}

func panels() []Panel {
	var xs, ys []float64
	for i := range 101 {
		xs = append(xs, float64(i)/10)
		ys = append(ys, 5)
	}
	ys[50] = math.NaN() // a gap
	return []Panel{
		{Title: "intervals", XLabel: "time (s)", YLabel: "ms", YFromZero: true,
			Series: []Series{{Name: "interval", X: xs, Y: ys, Style: Line, Colour: blue}},
			Guides: []Guide{{Name: "display 2 ms", Y: 2}}},
		{Title: "error", XLabel: "time (s)", YLabel: "ms", Empty: "no truth: nothing measured"},
	}
}

// The PNG puts the series and the guide on the rows the layout maps them
// to: the constant 5 on its row across the panel, the guide on its own.
func TestPNGPlacesMarksWhereTheLayoutSays(t *testing.T) {
	var buf bytes.Buffer
	ps := panels()
	if err := Write(&buf, PNG, 800, 500, ps); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	l := Layouts(800, 500, ps)[0]
	if l.YMin != 0 || l.YMax < 5 {
		t.Fatalf("y range %g..%g: want 0 (YFromZero) to at least 5", l.YMin, l.YMax)
	}
	// Orientation and scale from the layout's own area, not from Map: y
	// grows up from the bottom axis, x right from the left one.
	if _, y5 := l.Map(0, 5); math.Abs(y5-(l.Area.Y1-5/l.YMax*(l.Area.Y1-l.Area.Y0))) > 0.5 {
		t.Errorf("y=5 drawn at row %.1f: not 5/%g of the way up from %.0f to %.0f", y5, l.YMax, l.Area.Y1, l.Area.Y0)
	}
	if x10, _ := l.Map(l.XMax, 0); math.Abs(x10-l.Area.X1) > 0.5 {
		t.Errorf("x max drawn at %.1f, want the right edge %.0f", x10, l.Area.X1)
	}
	for _, x := range []float64{1, 3, 7, 9.5} {
		px, py := l.Map(x, 5)
		if !near(img, px, py, blue) {
			t.Errorf("no series pixel at data (%g, 5) = canvas (%.0f, %.0f)", x, px, py)
		}
		gx, gy := l.Map(x, 2)
		if !near(img, gx, gy, guide) && !near(img, gx+3, gy, guide) {
			t.Errorf("no guide pixel at data (%g, 2) = canvas (%.0f, %.0f)", x, gx, gy)
		}
		if _, py3 := l.Map(x, 3); near(img, px, py3, blue) {
			t.Errorf("series pixel at y=3, where there is no data")
		}
	}
}

// near reports whether a pixel within one of (x, y) has colour c.
func near(img image.Image, x, y float64, c color.RGBA) bool {
	for j := -1; j <= 1; j++ {
		for i := -1; i <= 1; i++ {
			r, g, b, _ := img.At(int(math.Round(x))+i, int(math.Round(y))+j).RGBA()
			if uint8(r>>8) == c.R && uint8(g>>8) == c.G && uint8(b>>8) == c.B {
				return true
			}
		}
	}
	return false
}

// The SVG is well-formed, its lines carry every finite point at the
// layout's coordinates, a NaN breaks the line in two, and an empty panel
// says why.
func TestSVGCarriesEveryPoint(t *testing.T) {
	var buf bytes.Buffer
	ps := panels()
	if err := Write(&buf, SVG, 800, 500, ps); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Polylines []struct {
			Points string `xml:"points,attr"`
		} `xml:"polyline"`
		Texts []string `xml:"text"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	if len(doc.Polylines) != 2 {
		t.Fatalf("%d polylines, want 2 (the NaN at x=5 splits the line)", len(doc.Polylines))
	}
	l := Layouts(800, 500, ps)[0]
	n := 0
	for _, pl := range doc.Polylines {
		for _, pt := range strings.Fields(pl.Points) {
			xy := strings.Split(pt, ",")
			x, _ := strconv.ParseFloat(xy[0], 64)
			y, _ := strconv.ParseFloat(xy[1], 64)
			dx := float64(n) / 10
			if n >= 50 {
				dx = float64(n+1) / 10
			}
			wx, wy := l.Map(dx, 5)
			if math.Abs(x-wx) > 0.01 || math.Abs(y-wy) > 0.01 {
				t.Fatalf("point %d at (%g, %g), want (%.2f, %.2f)", n, x, y, wx, wy)
			}
			n++
		}
	}
	if n != 100 {
		t.Errorf("%d points drawn, want the 100 finite ones", n)
	}
	if !strings.Contains(buf.String(), "no truth: nothing measured") {
		t.Error("the empty panel does not say why it is empty")
	}
}

func TestTicksAreNiceAndCoverTheRange(t *testing.T) {
	for _, c := range []struct{ lo, hi float64 }{{0, 1}, {0, 6.94}, {-3.2, 17}, {1e-4, 3e-4}, {100, 100}} {
		lo, hi := pad(c.lo, c.hi, false)
		if lo > c.lo || hi < c.hi || hi <= lo {
			t.Errorf("pad(%g, %g) = %g, %g: does not cover it", c.lo, c.hi, lo, hi)
		}
		ts := ticks(lo, hi)
		if len(ts) < 3 || len(ts) > 12 {
			t.Errorf("%g..%g: %d ticks", lo, hi, len(ts))
		}
	}
}

func TestBadInput(t *testing.T) {
	if _, err := ParseFormat(".pdf"); err == nil {
		t.Error(".pdf accepted")
	}
	if f, err := ParseFormat(".SVG"); err != nil || f != SVG {
		t.Error(".SVG refused")
	}
	if err := Write(new(bytes.Buffer), PNG, 10, 10, panels()); err == nil {
		t.Error("a 10×10 chart accepted")
	}
}
