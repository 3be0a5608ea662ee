package tickframe

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// agreeTable is make agree's table: each cell of the display matrix, the
// app's figures beside the observer's, with the machine and the date.
type agreeTable struct {
	Date    string     `json:"date"`
	Machine string     `json:"machine"`
	Commit  string     `json:"commit"`
	Go      string     `json:"go"`
	Rows    []agreeRow `json:"rows"`
}

// agreeRow is one cell. The app's figures are its report's; the
// observer's its placement of the same frames on the app's vblanks
// (frames) and on its own fit of the framebuffer's changes (own).
type agreeRow struct {
	Cell      string  `json:"cell"`
	DisplayHz float64 `json:"display_hz"` // the fake CRTC's rate
	Refresh   float64 `json:"refresh"`    // -refresh (0: the display's)
	Tries     int     `json:"tries"`
	// The app's.
	AppVblankHz  float64    `json:"app_vblank_hz"`  // present_vblank_hz
	AppFiguresHz float64    `json:"app_figures_hz"` // present_figures_hz
	FPS          float64    `json:"fps"`
	App          [3]uint64  `json:"app_displayed_dropped_repeated"`
	AppAnimErrMs [2]float64 `json:"app_animation_error_ms"` // p99, max
	// The observer's.
	ObserverHz      float64    `json:"observer_fit_hz"` // its own fit (0: none determined)
	Observer        [3]uint64  `json:"observer_displayed_dropped_repeated"`
	ObserverAnimErr [2]float64 `json:"observer_animation_error_ms"` // p99, max, as seen
	Compared        int        `json:"frames_compared"`
	// Input to photon (observe -inputs): presses seen of those sent,
	// the observer's press to the photon and the app's input age, p50
	// and p99 in ms.
	Presses          [2]int     `json:"presses_seen_sent"`
	PhotonMs         [2]float64 `json:"input_to_photon_ms"`
	AppInputAgeMs    [2]float64 `json:"app_input_age_ms"`
	Agree            bool       `json:"agree"`
	Disagreements    []string   `json:"disagreements,omitempty"`
	InstrumentFailed string     `json:"instrument_failed,omitempty"`
}

func (row *agreeRow) fill(run *displayRun) {
	r, o := run.r, &run.o
	row.FPS = r.FPS
	if hz := r.PresentVblankHz; hz != nil { // the table's 0: not measured
		row.AppVblankHz = *hz
	}
	if hz := r.PresentFiguresHz; hz != nil {
		row.AppFiguresHz = *hz
	}
	row.App = [3]uint64{r.DisplayedFrames, r.DroppedFrames, r.RepeatedFrames}
	if a := r.AnimErrorMs; a != nil {
		row.AppAnimErrMs = [2]float64{a.P99, a.Max}
	}
	if f := o.OwnFit; f != nil && f.Determined {
		row.ObserverHz = f.Hz
	}
	if f := o.Frames; f != nil {
		row.Observer = [3]uint64{f.Displayed[0], f.Dropped[0], f.Repeated[0]}
		row.ObserverAnimErr = [2]float64{f.SeenAnimErr[1], f.SeenAnimErr[2]}
		row.Compared = compared(f)
	}
	if in := o.Inputs; in != nil {
		row.Presses = [2]int{in.Seen, in.Sent}
		if p := in.ToPhotonMs; p != nil {
			row.PhotonMs = [2]float64{p[0], p[1]}
		}
		if a := in.AppInputAgeMs; a != nil {
			row.AppInputAgeMs = *a
		}
	}
}

// write writes the table to dir as agree.json and agree.md.
func (t *agreeTable) write(dir string) error {
	t.Date = time.Now().UTC().Format(time.RFC3339)
	t.Go = runtime.Version()
	t.Machine = machine()
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		t.Commit = strings.TrimSpace(string(out))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "agree.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# The app against the observer\n\n%s, %s, commit %s, %s. `make agree` (platform/internal/tickframe TestDisplayMatrix): the demo under Xvfb, watched from outside its process by `tickframe observe`. Counts are displayed / dropped / repeated; the animation error is p99 / max in ms; the observer's on the app's vblanks. Input to photon is the observer's key presses (`-inputs`: seen / sent) to the next vblank after the app's reaction patch changed, p50 / p99 in ms, beside the app's input age (its poll to the display); the outside figure adds the wait for the app's next poll, 0 to a frame. \"broken input\" (`-breakinput`) draws in each frame the input the frame before polled: both must move by a frame.\n\n", t.Date, t.Machine, t.Commit, t.Go)
	b.WriteString("| cell | tries | app vblank Hz | observer fit Hz | fps | app counts | observer counts | app anim. error ms | observer anim. error ms | compared | presses | input to photon ms | app input age ms | verdict |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range t.Rows {
		verdict := "agree"
		switch {
		case r.InstrumentFailed != "":
			verdict = "observer failed: " + r.InstrumentFailed
		case !r.Agree:
			verdict = "disagree: " + strings.Join(r.Disagreements, "; ")
		}
		fmt.Fprintf(&b, "| %s | %d | %.2f | %.2f | %.1f | %d / %d / %d | %d / %d / %d | %.2f / %.2f | %.2f / %.2f | %d | %d / %d | %.2f / %.2f | %.2f / %.2f | %s |\n",
			r.Cell, r.Tries, r.AppVblankHz, r.ObserverHz, r.FPS, r.App[0], r.App[1], r.App[2],
			r.Observer[0], r.Observer[1], r.Observer[2], r.AppAnimErrMs[0], r.AppAnimErrMs[1],
			r.ObserverAnimErr[0], r.ObserverAnimErr[1], r.Compared, r.Presses[0], r.Presses[1],
			r.PhotonMs[0], r.PhotonMs[1], r.AppInputAgeMs[0], r.AppInputAgeMs[1], strings.ReplaceAll(verdict, "|", "/"))
	}
	return os.WriteFile(filepath.Join(dir, "agree.md"), []byte(b.String()), 0o644)
}

// machine names the machine the table was measured on.
func machine() string {
	model := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, ln := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(ln, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s/%s, %d CPUs, %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), model)
}
