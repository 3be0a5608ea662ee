package verify

import (
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tickframe/tickframe/platform/internal/outfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// WriteJSON writes the results as indented JSON; ReadJSON reads them back.
func WriteJSON(w io.Writer, res *Results) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// ReadJSON reads results written by WriteJSON.
func ReadJSON(r io.Reader) (*Results, error) {
	var res Results
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		return nil, fmt.Errorf("verify: read results: %w", err)
	}
	return &res, nil
}

// plotFormat returns the image format a plot file's extension asks for.
func plotFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png", ".svg":
		return ext[1:], nil
	default:
		return "", fmt.Errorf("%s: want a .png or .svg file", path)
	}
}

// The plot's floors on its log scales: p99s of 0 (or too small to matter)
// are drawn there.
const (
	posFloor  = 1e-4 // ticks
	animFloor = 1e-4 // ms
)

// writePlot plots the p99 of both errors against the display patterns, a
// line per simulation rate for the interpolated rows and glyphs for the
// baselines, on log scales with the pass bounds drawn in, and writes it
// atomically to path as PNG or SVG according to its extension.
func writePlot(path string, res *Results) (err error) {
	format, err := plotFormat(path)
	if err != nil {
		return err
	}
	// gonum/plot panics on values its scales cannot show; the floors
	// avoid that, and a panic left over is an error, not a crash.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("verify: plot %s: %v", path, r)
		}
	}()

	var labels []string
	index := make(map[string]int)
	for i := range res.Rows {
		if _, ok := index[res.Rows[i].Display]; !ok {
			index[res.Rows[i].Display] = len(labels)
			labels = append(labels, res.Rows[i].Display)
		}
	}
	pos, err := errorPlot(res, labels, index, "p99 position error (ticks)", PosErrLimit, posFloor,
		func(r *Row) (float64, bool) { return r.PosErr.P99, r.PosSamples > 0 })
	if err != nil {
		return err
	}
	anim, err := errorPlot(res, labels, index, "p99 animation error (ms)", AnimErrLimit, animFloor,
		func(r *Row) (float64, bool) { return r.AnimErr.P99, r.AnimSamples > 0 })
	if err != nil {
		return err
	}
	pos.Title.Text = fmt.Sprintf("tickframe verify: p99 errors after a %v warm-up (values below 1e-4 drawn at 1e-4)", res.Warmup)

	c, err := draw.NewFormattedCanvas(14*vg.Inch, 6*vg.Inch, format)
	if err != nil {
		return fmt.Errorf("verify: plot %s: %w", path, err)
	}
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Centimeter, PadTop: vg.Millimeter * 2,
		PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	plots := [][]*plot.Plot{{pos, anim}}
	canvases := plot.Align(plots, tiles, draw.New(c))
	pos.Draw(canvases[0][0])
	anim.Draw(canvases[0][1])
	return outfile.Write(path, func(w io.Writer) error {
		_, err := c.WriteTo(w)
		return err
	})
}

// errorPlot draws one measurement per display: a line per simulation rate
// for the interpolated rows, and the baselines as glyphs alone (they run on
// a few displays only, which a line would wrongly join). Rows with nothing
// measured are left out; values below floor are drawn at floor.
func errorPlot(res *Results, labels []string, index map[string]int, ylabel string, limit, floor float64,
	value func(*Row) (float64, bool)) (*plot.Plot, error) {
	p := plot.New()
	p.Y.Label.Text = ylabel
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.NominalX(labels...)
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	p.Legend.Top = true
	p.Add(plotter.NewGrid())

	type key struct {
		sim    int
		mode   Mode
		motion string
	}
	var order []key
	series := make(map[key]plotter.XYs)
	sims := make(map[int]int) // colour index
	top := limit
	for i := range res.Rows {
		r := &res.Rows[i]
		v, ok := value(r)
		if r.Err != "" || !ok {
			continue
		}
		if r.Driver == ByRun {
			continue // the same as its Wake-driven row
		}
		k := key{r.Sim, r.Mode, r.Motion}
		if _, ok := series[k]; !ok {
			order = append(order, k)
		}
		if _, ok := sims[r.Sim]; !ok {
			sims[r.Sim] = len(sims)
		}
		series[k] = append(series[k], plotter.XY{X: float64(index[r.Display]), Y: max(v, floor)})
		top = max(top, v)
	}
	legend := make(map[int]*plotter.Line)
	for _, k := range order {
		col := plotutil.Color(sims[k.sim])
		s, err := plotter.NewScatter(series[k])
		if err != nil {
			return nil, fmt.Errorf("verify: plot: %w", err)
		}
		s.Color = col
		switch k.mode {
		case NoInterp:
			s.Shape = draw.BoxGlyph{}
			s.Radius = vg.Points(3.5)
		case Naive:
			s.Shape = draw.TriangleGlyph{}
			s.Radius = vg.Points(3.5)
		default:
			s.Shape = draw.CircleGlyph{}
			l, err := plotter.NewLine(series[k])
			if err != nil {
				return nil, fmt.Errorf("verify: plot: %w", err)
			}
			l.Color, l.Width = col, vg.Points(1.5)
			switch k.motion {
			case "hermite":
				l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
			case "extrapolate":
				l.Dashes = []vg.Length{vg.Points(1.5), vg.Points(2.5)}
			default:
				legend[k.sim] = l
			}
			p.Add(l)
		}
		p.Add(s)
	}
	for _, hz := range res.Sims {
		if l := legend[hz]; l != nil {
			p.Legend.Add(fmt.Sprintf("%d Hz sim, interpolated (lerp)", hz), l)
		}
	}
	for _, m := range []struct {
		name   string
		dashes []vg.Length
	}{{"hermite (dashed)", []vg.Length{vg.Points(6), vg.Points(3)}}, {"extrapolate (dotted)", []vg.Length{vg.Points(1.5), vg.Points(2.5)}}} {
		if !slices.Contains(res.Motions, strings.Fields(m.name)[0]) {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{})
		if err != nil {
			return nil, fmt.Errorf("verify: plot: %w", err)
		}
		l.Color, l.Width, l.Dashes = color.Gray{Y: 64}, vg.Points(1.5), m.dashes
		p.Legend.Add(m.name, l)
	}
	for _, m := range []struct {
		name  string
		shape draw.GlyphDrawer
	}{{"no interpolation (baseline)", draw.BoxGlyph{}}, {"naive variable step (baseline)", draw.TriangleGlyph{}}} {
		s, err := plotter.NewScatter(plotter.XYs{})
		if err != nil {
			return nil, fmt.Errorf("verify: plot: %w", err)
		}
		s.Shape, s.Radius = m.shape, vg.Points(3.5)
		p.Legend.Add(m.name, s)
	}
	bound := plotter.NewFunction(func(float64) float64 { return limit })
	bound.Color = color.Gray{Y: 96}
	bound.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	bound.Width = vg.Points(1)
	p.Add(bound)
	p.Legend.Add(fmt.Sprintf("pass bound (%g)", limit), bound)
	p.X.Min, p.X.Max = -0.5, float64(len(labels))-0.5
	// Four decades of headroom keep the legend clear of the data.
	p.Y.Min, p.Y.Max = floor, top*1e4
	return p, nil
}
