package app

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/tickframe/tickframe/platform/app/outfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// WriteFile writes r as indented JSON to path, through a temporary file
// renamed into place: a reader never sees a partial report.
func (r *Report) WriteFile(path string) error {
	return outfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	})
}

// WritePlot draws the frame intervals and the animation error of the run
// over time, one panel above the other, as PNG or SVG by path's
// extension, titled with r's figures (a.Report()). Call it after Run.
func (a *App) WritePlot(path string, r *Report) (err error) {
	// gonum/plot panics on values its scales cannot show; a panic is an
	// error here, not a crash that would lose the other files.
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("-plot %s: %v", path, p)
		}
	}()
	var intervals, anim plotter.XYs
	for _, s := range a.stats.Series.Samples() {
		t := s.At.Seconds()
		if s.Interval > 0 {
			intervals = append(intervals, plotter.XY{X: t, Y: float64(s.Interval)})
		}
		if !math.IsNaN(float64(s.AnimErr)) {
			anim = append(anim, plotter.XY{X: t, Y: float64(s.AnimErr)})
		}
	}
	top, err := intervalPanel(intervals, r)
	if err != nil {
		return err
	}
	top.Title.Text = fmt.Sprintf("%s: sim %d Hz, display %.4g Hz (%s), %d bodies, %.0f fps, %d discarded ticks",
		a.shots.name, r.SimHz, r.RefreshHz, r.RefreshSource, r.Bodies, r.FPS, r.DiscardedTicks)
	bottom, err := animPanel(anim)
	if err != nil {
		return err
	}
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	c, err := draw.NewFormattedCanvas(12*vg.Inch, 7*vg.Inch, format)
	if err != nil {
		return fmt.Errorf("-plot %s: %w", path, err)
	}
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Centimeter / 2, PadTop: vg.Millimeter * 2,
		PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	canvases := plot.Align([][]*plot.Plot{{top}, {bottom}}, tiles, draw.New(c))
	top.Draw(canvases[0][0])
	bottom.Draw(canvases[1][0])
	return outfile.Write(path, func(w io.Writer) error {
		_, err := c.WriteTo(w)
		return err
	})
}

// intervalPanel plots the frame intervals against the display's.
func intervalPanel(intervals plotter.XYs, r *Report) (*plot.Plot, error) {
	top := plot.New()
	top.X.Label.Text = "time (s)"
	top.Y.Label.Text = "frame interval (ms)"
	top.Add(plotter.NewGrid())
	if len(intervals) > 0 {
		l, err := plotter.NewLine(intervals)
		if err != nil {
			return nil, err
		}
		l.Color = plotter.DefaultLineStyle.Color
		top.Add(l)
	}
	if r.RefreshHz > 0 {
		target := plotter.NewFunction(func(float64) float64 { return 1000 / r.RefreshHz })
		target.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		top.Add(target)
		top.Legend.Add(fmt.Sprintf("display interval %.3g ms", 1000/r.RefreshHz), target)
	}
	top.Y.Min = 0 // keep the display interval in view
	return top, nil
}

// animPanel plots PresentMon's animation error of each frame.
func animPanel(anim plotter.XYs) (*plot.Plot, error) {
	bottom := plot.New()
	bottom.X.Label.Text = "time (s)"
	bottom.Y.Label.Text = "animation error (ms, PresentMon)"
	bottom.Add(plotter.NewGrid())
	if len(anim) > 0 {
		sc, err := plotter.NewScatter(anim)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Radius = vg.Points(1)
		bottom.Add(sc)
	}
	return bottom, nil
}
