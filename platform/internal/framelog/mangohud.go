package framelog

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MangoHud's CSV log, as its src/logging.cpp writes it (writeFileHeaders
// and Logger::writeToFile, github.com/flightlessmango/MangoHud commit
// a5e7dc78d67882bb21f917937480d458a9b2e920, v0.8.4-109; the columns are
// the same since v0.8.2), without log_versioning (the form
// flightlessmango.com reads): a line of system-info field names, a line
// of their values, the frame metrics' column names, then one row a
// present at MangoHud's default log_interval of 0.
const mangoHudSysInfo = "os,cpu,gpu,ram,kernel,driver,cpuscheduler"

var mangoHudColumns = []string{
	"fps", "frametime", "cpu_load", "cpu_power", "gpu_load", "cpu_temp", "gpu_temp",
	"gpu_core_clock", "gpu_mem_clock", "gpu_vram_used", "gpu_power", "ram_used",
	"swap_used", "process_rss", "cpu_mhz", "elapsed",
}

// isMangoHud reports whether path names a frame log in MangoHud's form:
// still a .csv, so MangoHud's mangoplot (which takes a folder's *.csv)
// finds it.
func isMangoHud(path string) bool {
	return strings.HasSuffix(strings.ToLower(path), ".mangohud.csv")
}

// mangoHudInterval is one row of a MangoHud log: a frame, the time since
// the frame before it and when it came.
type mangoHudInterval struct {
	frametime, elapsed time.Duration
}

// mangoHudIntervals takes the rows from the frames. Where any frame was
// displayed at a known time, the rows are the displayed frames, timed by
// their display times (what a viewer saw: the display system's reports,
// or the vblank the app's swap model put the frame on where it reports
// none; the log does not say which); else every frame, timed by its swap
// (what MangoHud itself times: present to present). The first frame has
// no row (no frame before it), nor has a frame not timed after the one
// before it. Elapsed counts from the first frame's swap, as the
// PresentMon columns' TimeInSeconds does.
func mangoHudIntervals(frames []Frame) []mangoHudInterval {
	if len(frames) == 0 {
		return nil
	}
	t0 := frames[0].Swap
	at := func(f Frame) (time.Duration, bool) { return f.Swap, true }
	if slices.ContainsFunc(frames, displayed) {
		at = func(f Frame) (time.Duration, bool) { return f.Display, displayed(f) }
	}
	var out []mangoHudInterval
	prev, have := time.Duration(0), false
	for _, f := range frames {
		t, ok := at(f)
		if !ok {
			continue
		}
		if have && t > prev {
			out = append(out, mangoHudInterval{frametime: t - prev, elapsed: t - t0})
		}
		if !have || t > prev {
			prev, have = t, true
		}
	}
	return out
}

// writeMangoHud writes the frames in MangoHud's CSV log form
// (mangoHudIntervals' rows): fps (1000 / frametime), frametime (ms) and
// elapsed (ns), as MangoHud's units are; the other columns (CPU and GPU
// load, temperatures, clocks, power, memory), and the system-info values,
// are empty: tickframe does not measure them. Frames the log had no room
// for are not in it (MangoHud's readers take every line as a row).
func writeMangoHud(w io.Writer, frames []Frame) error {
	fmt.Fprintln(w, mangoHudSysInfo)
	fmt.Fprintln(w, strings.Repeat(",", strings.Count(mangoHudSysInfo, ",")))
	fmt.Fprintln(w, strings.Join(mangoHudColumns, ","))
	empty := strings.Repeat(",", len(mangoHudColumns)-3)
	for _, iv := range mangoHudIntervals(frames) {
		ms := float64(iv.frametime) / 1e6
		if _, err := fmt.Fprintf(w, "%s,%s%s,%d\n", strconv.FormatFloat(1e3/ms, 'f', 3, 64),
			strconv.FormatFloat(ms, 'f', 6, 64), empty, int64(iv.elapsed)); err != nil {
			return err
		}
	}
	return nil
}

// mangoHudRow is what readMangoHud takes from a row of a MangoHud log.
type mangoHudRow struct {
	fps, frametimeMs float64 // NaN where empty
	elapsed          time.Duration
}

// isMangoHudLog reports whether data opens as a MangoHud log does (with
// or without log_versioning's lines before).
func isMangoHudLog(data string) bool {
	return strings.HasPrefix(data, mangoHudSysInfo+"\n") || strings.Contains(data, "\n"+mangoHudSysInfo+"\n")
}

// readMangoHud reads a MangoHud CSV log, MangoHud's own or writeMangoHud's:
// its column names are the first line with an "fps" field, as MangoHud's
// mangoplot finds them, and the rows follow.
func readMangoHud(path string, r io.Reader) ([]mangoHudRow, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("framelog: %w", err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	head := slices.IndexFunc(lines, func(ln string) bool {
		return slices.Contains(strings.Split(strings.TrimRight(ln, "\r\n"), ","), "fps")
	})
	if head < 0 {
		return nil, fmt.Errorf("framelog: %s: no fps column: not a MangoHud log", path)
	}
	cr := csv.NewReader(strings.NewReader(strings.Join(lines[head:], "")))
	names, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("framelog: %s: %w", path, err)
	}
	col := map[string]int{}
	for i, n := range names {
		col[n] = i
	}
	for _, n := range []string{"frametime", "elapsed"} {
		if _, ok := col[n]; !ok {
			return nil, fmt.Errorf("framelog: %s: no %s column: not a MangoHud log", path, n)
		}
	}
	num := func(s string) (float64, error) {
		if s == "" {
			return math.NaN(), nil
		}
		return strconv.ParseFloat(s, 64)
	}
	var out []mangoHudRow
	for line := head + 2; ; line++ {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("framelog: %s: %w", path, err)
		}
		var x mangoHudRow
		var e [3]error
		var ns int64
		x.fps, e[0] = num(rec[col["fps"]])
		x.frametimeMs, e[1] = num(rec[col["frametime"]])
		ns, e[2] = strconv.ParseInt(rec[col["elapsed"]], 10, 64)
		for _, err := range e {
			if err != nil {
				return nil, fmt.Errorf("framelog: %s:%d: %v", path, line, err)
			}
		}
		x.elapsed = time.Duration(ns)
		out = append(out, x)
	}
	return out, nil
}
