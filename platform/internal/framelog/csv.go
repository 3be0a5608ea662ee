package framelog

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// PresentMonColumns are the columns of PresentMon's CSV (2.x console
// application, default metrics, with display tracking, without GPU and
// input tracking, with --write_display_time and --write_frame_id), in its
// order: a frame log written as .csv opens in the tools that read
// PresentMon captures. Columns tickframe does not measure hold "NA", as
// PresentMon writes where a metric is not available: the swap's return,
// CPU and GPU busy times, the swap chain's present mode.
var PresentMonColumns = []string{
	"Application", "ProcessID", "SwapChainAddress", "PresentRuntime", "SyncInterval", "PresentFlags",
	"AllowsTearing", "PresentMode", "TimeInSeconds", "MsBetweenSimulationStart", "MsBetweenPresents",
	"MsBetweenDisplayChange", "MsInPresentAPI", "MsRenderPresentLatency", "MsUntilDisplayed",
	"CPUStartTimeInSeconds", "MsBetweenAppStart", "MsCPUBusy", "MsCPUWait", "MsAnimationError",
	"AnimationTime", "MsFlipDelay", "DisplayTimeAbs", "FrameId",
}

// TickframeColumns follow PresentMon's: DisplayedTime (PresentMon 2.x's
// --v2_metrics column: how long the frame stayed on the screen) and the
// frame log itself, on CLOCK_MONOTONIC, from which every column above
// recomputes.
var TickframeColumns = []string{
	"DisplayedTime", "TfSwapNs", "TfDisplayNs", "TfSimS", "TfSegS", "TfHasSim", "TfShown",
}

// isCSV reports whether path names a CSV frame log.
func isCSV(path string) bool { return strings.EqualFold(filepath.Ext(path), ".csv") }

// writeCSV writes the frames in PresentMon's columns, then tickframe's.
//
// Times are from the first frame's swap (TimeInSeconds, DisplayTimeAbs)
// or from the first frame's simulated time (AnimationTime), as PresentMon
// counts from the start of its capture. MsBetweenPresents is the time
// since the previous frame's swap; MsUntilDisplayed from the swap to the
// vblank that showed the frame; MsBetweenDisplayChange from the previous
// displayed frame's vblank to this one's; DisplayedTime from this one's
// to the next displayed frame's; MsAnimationError, as PresentMon signs
// it, the simulated time between the previous displayed frame and this
// one less the time between their vblanks, where both lie on one segment
// of the simulation's timeline. Frames not displayed have NA in the
// display columns.
func writeCSV(w io.Writer, frames []Frame, lost uint64) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append(append([]string{}, PresentMonColumns...), TickframeColumns...)); err != nil {
		return err
	}
	app, pid := filepath.Base(os.Args[0]), strconv.Itoa(os.Getpid())
	const na = "NA"
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 6, 64) }
	var t0 time.Duration
	var sim0 float64
	haveSim0 := false
	if len(frames) > 0 {
		t0 = frames[0].Swap
	}
	for _, f := range frames {
		if f.HasSim {
			sim0, haveSim0 = f.Sim, true
			break
		}
	}
	// The next displayed frame after each, for DisplayedTime.
	next := make([]int, len(frames))
	n := -1
	for i := len(frames) - 1; i >= 0; i-- {
		next[i] = n
		if displayed(frames[i]) {
			n = i
		}
	}
	prevShown := -1
	row := make([]string, 0, len(PresentMonColumns)+len(TickframeColumns))
	for i, f := range frames {
		between, untilDisp, change, animErr, animTime, dispAbs, shownFor := na, na, na, na, na, na, na
		if i > 0 {
			between = ms(f.Swap - frames[i-1].Swap)
		}
		if f.HasSim && haveSim0 {
			animTime = strconv.FormatFloat((f.Sim-sim0)*1e3, 'f', 6, 64)
		}
		if displayed(f) {
			untilDisp, dispAbs = ms(f.Display-f.Swap), ms(f.Display-t0)
			if prevShown >= 0 {
				p := frames[prevShown]
				change = ms(f.Display - p.Display)
				if e, ok := animationError(p, f); ok {
					animErr = strconv.FormatFloat(e*1e3, 'f', 6, 64)
				}
			}
			if next[i] >= 0 {
				shownFor = ms(frames[next[i]].Display - f.Display)
			}
			prevShown = i
		}
		row = append(row[:0], app, pid, "0x0", "Other", na, "0", "0", "Other",
			strconv.FormatFloat(float64(f.Swap-t0)/1e9, 'f', 9, 64), na, between, change, na, na, untilDisp,
			na, na, na, na, animErr, animTime, na, dispAbs, strconv.FormatUint(f.ID, 10),
			shownFor, strconv.FormatInt(int64(f.Swap), 10), strconv.FormatInt(int64(f.Display), 10),
			strconv.FormatFloat(f.Sim, 'f', 9, 64), strconv.FormatFloat(f.Seg, 'f', 9, 64), strconv.Itoa(b2i(f.HasSim)), strconv.Itoa(b2i(f.Shown)))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	if lost > 0 {
		// PresentMon's readers skip rows they cannot parse; ours reads it.
		_, err := fmt.Fprintf(w, "# lost %d\n", lost)
		return err
	}
	return nil
}

// displayed reports whether the app counted f shown at a known vblank.
func displayed(f Frame) bool { return f.Shown && f.Display > 0 }

// animationError is PresentMon's animation error between displayed frames
// a and b (b after a), in seconds, signed as PresentMon signs it (the
// simulated time between them less the time between their vblanks);
// ok is false where they do not lie on one segment of the simulation's
// timeline or do not advance.
func animationError(a, b Frame) (float64, bool) {
	if !a.HasSim || !b.HasSim || math.Abs(a.Seg-b.Seg) >= 1e-6 || b.Display <= a.Display {
		return 0, false
	}
	return (b.Sim - a.Sim) - (b.Display - a.Display).Seconds(), true
}

// readCSV reads a frame log written by writeCSV, from its tickframe
// columns.
func readCSV(path string, r io.Reader) ([]Frame, error) {
	br := bufio.NewReader(r)
	var body strings.Builder
	for {
		ln, err := br.ReadString('\n')
		if !strings.HasPrefix(ln, "#") {
			body.WriteString(ln)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("framelog: %w", err)
		}
	}
	cr := csv.NewReader(strings.NewReader(body.String()))
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("framelog: %s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	need := []string{"FrameId", "TfSwapNs", "TfDisplayNs", "TfSimS", "TfSegS", "TfHasSim", "TfShown"}
	for _, h := range need {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("framelog: %s: no %s column: not a tickframe frame log", path, h)
		}
	}
	var out []Frame
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("framelog: %s: %w", path, err)
		}
		var x Frame
		var e [5]error
		var swap, disp int64
		x.ID, e[0] = strconv.ParseUint(rec[col["FrameId"]], 10, 64)
		swap, e[1] = strconv.ParseInt(rec[col["TfSwapNs"]], 10, 64)
		disp, e[2] = strconv.ParseInt(rec[col["TfDisplayNs"]], 10, 64)
		x.Sim, e[3] = strconv.ParseFloat(rec[col["TfSimS"]], 64)
		x.Seg, e[4] = strconv.ParseFloat(rec[col["TfSegS"]], 64)
		x.HasSim, x.Shown = rec[col["TfHasSim"]] == "1", rec[col["TfShown"]] == "1"
		for _, err := range e {
			if err != nil {
				return nil, fmt.Errorf("framelog: %s:%d: %v", path, line, err)
			}
		}
		x.Swap, x.Display = time.Duration(swap), time.Duration(disp)
		if len(out) > 0 && x.ID <= out[len(out)-1].ID {
			return nil, fmt.Errorf("framelog: %s:%d: frame %d after frame %d", path, line, x.ID, out[len(out)-1].ID)
		}
		out = append(out, x)
	}
	return out, nil
}
