package instrument

import (
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"

	"github.com/tickframe/tickframe/platform/internal/instrument/internal/chart"
	"github.com/tickframe/tickframe/platform/internal/outfile"
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

// WritePlot draws the frame intervals and the planned animation error of
// the run (each frame's, signed, on its intended time: the per-frame
// figure behind planned_animation_error_ms) over time, one panel above the other, as PNG or SVG by path's
// extension, titled with r's figures (Set.Report). Call it after Run.
// Without a meter (Options.Reference) the animation error is not
// measured, and its panel says so instead of drawing empty axes.
func (in *Set) WritePlot(path string, r *Report) error {
	format, err := chart.ParseFormat(filepath.Ext(path))
	if err != nil {
		return fmt.Errorf("-plot %s: %w", path, err)
	}
	samples := in.stats.Series.Samples()
	var t, interval, anim []float64
	for _, s := range samples {
		t = append(t, s.At.Seconds())
		interval = append(interval, math.NaN())
		if s.Interval > 0 {
			interval[len(interval)-1] = float64(s.Interval)
		}
		anim = append(anim, float64(s.AnimErr)) // NaN where not measured
	}
	top := chart.Panel{
		Title: fmt.Sprintf("%s: sim %d Hz, display %.4g Hz (%s), %d bodies, %.0f fps, %d discarded ticks",
			in.run.ScreenshotName, r.SimHz, r.RefreshHz, r.RefreshSource, r.Bodies, r.FPS, r.DiscardedTicks),
		XLabel: "time (s)", YLabel: "frame interval (ms)", YFromZero: true,
		Series: []chart.Series{{Name: "frame interval", X: t, Y: interval, Style: chart.Line,
			Colour: color.RGBA{0x1f, 0x4e, 0xa8, 0xff}}},
		Empty: "no frame was timed",
	}
	if r.RefreshHz > 0 {
		top.Guides = []chart.Guide{{Name: fmt.Sprintf("display interval %.3g ms", 1000/r.RefreshHz), Y: 1000 / r.RefreshHz}}
	}
	bottom := chart.Panel{
		// The meter's per-frame figure is the planned one (on the frame's
		// intended time, planned_animation_error_ms): the display times
		// come later, and only their quantiles are kept.
		XLabel: "time (s)", YLabel: "planned animation error, signed (ms, on intended frame times)",
		Series: []chart.Series{{Name: "planned animation error per frame (report: planned_animation_error_ms)", X: t, Y: anim, Style: chart.Dots,
			Colour: color.RGBA{0x1f, 0x4e, 0xa8, 0xff}}},
		Empty: "planned animation error not measured: the app has no Config.Tools.Truth",
	}
	// 12×7 inches at 96 dpi, the size the plot has always had.
	return outfile.Write(path, func(w io.Writer) error {
		return chart.Write(w, format, 1152, 672, []chart.Panel{top, bottom})
	})
}
