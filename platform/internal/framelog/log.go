package framelog

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tickframe/tickframe/platform/internal/outfile"
)

// Frame is what the app knows of one frame it drew: the app's side of
// the comparison with what the observer saw.
type Frame struct {
	ID uint64 // the frame's id: its marker is colour ID mod 16
	// Swap is when the swap was called and Display the vblank the app
	// says it was shown at (0: unknown), CLOCK_MONOTONIC.
	Swap, Display time.Duration
	// Sim is the simulated time the frame shows and Seg the segment of
	// the simulation's timeline it lies on (s), when HasSim: the frames
	// the app's animation error measures.
	Sim, Seg float64
	HasSim   bool
	// Shown is the app's verdict: displayed (true) or dropped.
	Shown bool
}

// Vblank is one vblank the display system reported to the app, as its
// vblank grid took it (present.Report), CLOCK_MONOTONIC: what the app's
// fit of the display's rate and phase is made from, kept so that a run's
// fit can be replayed (a golden case).
type Vblank struct {
	At  time.Duration
	MSC uint64
}

// Log collects Frames and Vblanks in buffers allocated once, for writing
// when the run ends.
type Log struct {
	frames  []Frame
	vblanks []Vblank
	lost    uint64
	vlost   uint64
}

// vblanksPerFrame is the log's room for vblanks, per frame of room: a
// display reports a vblank a frame or fewer, but an app may draw at a
// fraction of the display's rate (60 fps on 360 Hz).
const vblanksPerFrame = 8

// New returns a log with room for n frames and their vblanks; more are
// counted in Lost, not kept.
func New(n int) *Log {
	n = max(n, 1)
	return &Log{frames: make([]Frame, 0, n), vblanks: make([]Vblank, 0, vblanksPerFrame*n)}
}

// Add appends a frame. It does not allocate.
func (l *Log) Add(f Frame) {
	if len(l.frames) == cap(l.frames) {
		l.lost++
		return
	}
	l.frames = append(l.frames, f)
}

// AddVblank appends a vblank report. It does not allocate.
func (l *Log) AddVblank(v Vblank) {
	if len(l.vblanks) == cap(l.vblanks) {
		l.vlost++
		return
	}
	l.vblanks = append(l.vblanks, v)
}

// Frames returns the frames logged, in the order added.
func (l *Log) Frames() []Frame { return l.frames }

// Vblanks returns the vblank reports logged, in the order added.
func (l *Log) Vblanks() []Vblank { return l.vblanks }

// Lost counts the frames that did not fit.
func (l *Log) Lost() uint64 { return l.lost }

// LostVblanks counts the vblank reports that did not fit, or that the
// app's grid had no room for (CountLostVblanks).
func (l *Log) LostVblanks() uint64 { return l.vlost }

// CountLostVblanks adds n vblank reports lost before the log saw them.
func (l *Log) CountLostVblanks(n uint64) { l.vlost += n }

const logHeader = "# tickframe frame log 1: id swap_ns display_ns sim_s seg_s has_sim shown (CLOCK_MONOTONIC)"

// WriteFile writes the log as text, one frame a line; to a path ending
// in .csv, in PresentMon's CSV columns and tickframe's after them
// (PresentMonColumns, TickframeColumns); to one ending in .mangohud.csv,
// in MangoHud's CSV log form (writeMangoHud), which keeps no frame ids
// and so is not for Read. A reader never sees a partial
// file, and a failure leaves any earlier one as it was (outfile.Write).
func (l *Log) WriteFile(path string) error {
	err := outfile.Write(path, func(w io.Writer) error {
		if isMangoHud(path) {
			return writeMangoHud(w, l.frames)
		}
		if isCSV(path) {
			return writeCSV(w, l.frames, l.lost)
		}
		return l.writeText(w)
	})
	if err != nil {
		return fmt.Errorf("framelog: %w", err)
	}
	return nil
}

// vblankPrefix starts a text log's vblank lines: "#v AT_NS MSC", a
// comment to a reader of frames (Read skips it), read by ReadVblanks.
const vblankPrefix = "#v "

// writeText writes the log in its own text form, which Read and
// ReadVblanks read, to w (outfile.Write's, buffered: its flush reports an
// error): the frames, then the vblank reports.
func (l *Log) writeText(w io.Writer) error {
	fmt.Fprintln(w, logHeader)
	if l.lost > 0 {
		fmt.Fprintf(w, "# lost %d\n", l.lost)
	}
	for _, x := range l.frames {
		if _, err := fmt.Fprintf(w, "%d %d %d %.9f %.9f %d %d\n", x.ID, int64(x.Swap), int64(x.Display), x.Sim, x.Seg, b2i(x.HasSim), b2i(x.Shown)); err != nil {
			return err
		}
	}
	if len(l.vblanks) > 0 || l.vlost > 0 {
		fmt.Fprintf(w, "# vblanks the display system reported, as the app's grid took them: %s AT_NS MSC (lost %d)\n", strings.TrimSpace(vblankPrefix), l.vlost)
	}
	for _, v := range l.vblanks {
		if _, err := fmt.Fprintf(w, "%s%d %d\n", vblankPrefix, int64(v.At), v.MSC); err != nil {
			return err
		}
	}
	return nil
}

// ReadVblanks reads the vblank reports of a text log written by
// WriteFile (none in a CSV log, nor in a log written before they were
// kept), and how many the app lost.
func ReadVblanks(path string) (v []Vblank, lost uint64, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("framelog: %w", err)
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) == 0 || lines[0] != logHeader {
		return nil, 0, fmt.Errorf("framelog: %s is not a tickframe frame log in its text form", path)
	}
	for i, ln := range lines[1:] {
		if rest, ok := strings.CutPrefix(ln, "# vblanks "); ok {
			if _, after, ok := strings.Cut(rest, "(lost "); ok {
				lost, err = strconv.ParseUint(strings.TrimSuffix(after, ")"), 10, 64)
				if err != nil {
					return nil, 0, fmt.Errorf("framelog: %s:%d: %v", path, i+2, err)
				}
			}
			continue
		}
		rest, ok := strings.CutPrefix(ln, vblankPrefix)
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 {
			return nil, 0, fmt.Errorf("framelog: %s:%d: a vblank has %d fields, want 2", path, i+2, len(f))
		}
		at, e1 := strconv.ParseInt(f[0], 10, 64)
		msc, e2 := strconv.ParseUint(f[1], 10, 64)
		if e1 != nil || e2 != nil {
			return nil, 0, fmt.Errorf("framelog: %s:%d: vblank %q: not two integers", path, i+2, rest)
		}
		v = append(v, Vblank{At: time.Duration(at), MSC: msc})
	}
	return v, lost, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Read reads a log written by WriteFile, as text or as CSV.
func Read(path string) ([]Frame, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("framelog: %w", err)
	}
	if isMangoHudLog(string(data)) {
		return nil, fmt.Errorf("framelog: %s is a MangoHud log, which keeps no frame ids: write the frame log as text or .csv", path)
	}
	if strings.HasPrefix(string(data), PresentMonColumns[0]+",") {
		return readCSV(path, strings.NewReader(string(data)))
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) == 0 || lines[0] != logHeader {
		return nil, fmt.Errorf("framelog: %s is not a tickframe frame log", path)
	}
	var out []Frame
	for i, ln := range lines[1:] {
		if ln == "" || ln[0] == '#' {
			continue
		}
		f := strings.Fields(ln)
		if len(f) != 7 {
			return nil, fmt.Errorf("framelog: %s:%d: %d fields, want 7", path, i+2, len(f))
		}
		var x Frame
		var e [7]error
		var swap, disp int64
		x.ID, e[0] = strconv.ParseUint(f[0], 10, 64)
		swap, e[1] = strconv.ParseInt(f[1], 10, 64)
		disp, e[2] = strconv.ParseInt(f[2], 10, 64)
		x.Sim, e[3] = strconv.ParseFloat(f[3], 64)
		x.Seg, e[4] = strconv.ParseFloat(f[4], 64)
		x.HasSim, x.Shown = f[5] == "1", f[6] == "1"
		for _, err := range e {
			if err != nil {
				return nil, fmt.Errorf("framelog: %s:%d: %v", path, i+2, err)
			}
		}
		x.Swap, x.Display = time.Duration(swap), time.Duration(disp)
		if len(out) > 0 && x.ID <= out[len(out)-1].ID {
			return nil, fmt.Errorf("framelog: %s:%d: frame %d after frame %d", path, i+2, x.ID, out[len(out)-1].ID)
		}
		out = append(out, x)
	}
	return out, nil
}
