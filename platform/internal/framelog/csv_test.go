package framelog_test

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/framelog"
)

// A frame log written as .csv has PresentMon's columns in PresentMon's
// order, then tickframe's; PresentMon's recompute from tickframe's (the
// log itself), and the log reads back as it was written.
func TestFrameLogCSV(t *testing.T) {
	l := framelog.New(16)
	const p = 6944 * time.Microsecond
	base := 5 * time.Second
	frames := []framelog.Frame{
		{ID: 1, Swap: base, Display: base + p, Sim: 1, Seg: 0, HasSim: true, Shown: true},
		{ID: 2, Swap: base + p, Display: base + 2*p, Sim: 1 + p.Seconds(), HasSim: true, Shown: true},
		{ID: 3, Swap: base + 2*p, Display: 0, Sim: 1 + 2*p.Seconds(), HasSim: true, Shown: false},                            // dropped
		{ID: 4, Swap: base + 2*p + time.Millisecond, Display: base + 4*p, Sim: 1 + 2*p.Seconds(), HasSim: true, Shown: true}, // shows vblank 3's time a vblank late
		{ID: 6, Swap: base + 4*p, Display: base + 5*p, Sim: 7, Seg: 6, HasSim: true, Shown: true},                            // a new segment
		{ID: 7, Swap: base + 5*p, Display: base + 6*p, Shown: true},                                                          // no simulated time
	}
	for _, f := range frames {
		l.Add(f)
	}
	path := filepath.Join(t.TempDir(), "frames.csv")
	if err := l.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]string{}, framelog.PresentMonColumns...), framelog.TickframeColumns...)
	if !slices.Equal(rows[0], want) {
		t.Fatalf("header %q, want %q", rows[0], want)
	}
	// PresentMon's names, as its CSV writes them: the ones the issue and
	// the frame-analysis tools key on.
	for _, name := range []string{"Application", "ProcessID", "MsBetweenPresents", "MsBetweenDisplayChange", "MsUntilDisplayed", "MsAnimationError", "DisplayedTime", "TimeInSeconds", "FrameId"} {
		if !slices.Contains(rows[0], name) {
			t.Errorf("no column %q", name)
		}
	}
	if len(rows) != len(frames)+1 {
		t.Fatalf("%d rows, want %d", len(rows)-1, len(frames))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	num := func(r []string, name string) (float64, bool) {
		s := r[col[name]]
		if s == "NA" {
			return 0, false
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s %q: %v", name, s, err)
		}
		return v, true
	}
	msOf := func(d time.Duration) float64 { return float64(d) / 1e6 }
	// What each column must hold, from the log: NA as ok=false.
	type cell struct {
		v  float64
		ok bool
	}
	expect := func(i int) map[string]cell {
		f := frames[i]
		m := map[string]cell{
			"TimeInSeconds":          {(f.Swap - base).Seconds(), true},
			"MsBetweenPresents":      {},
			"MsUntilDisplayed":       {},
			"MsBetweenDisplayChange": {},
			"DisplayedTime":          {},
			"MsAnimationError":       {},
			"DisplayTimeAbs":         {},
			"FrameId":                {float64(f.ID), true},
		}
		if i > 0 {
			m["MsBetweenPresents"] = cell{msOf(f.Swap - frames[i-1].Swap), true}
		}
		if f.HasSim {
			m["AnimationTime"] = cell{(f.Sim - 1) * 1e3, true}
		} else {
			m["AnimationTime"] = cell{}
		}
		if f.Shown {
			m["MsUntilDisplayed"] = cell{msOf(f.Display - f.Swap), true}
			m["DisplayTimeAbs"] = cell{msOf(f.Display - base), true}
		}
		return m
	}
	// The displayed frames: 0, 1, 3, 4, 5 (index 2 dropped).
	exp := make([]map[string]cell, len(frames))
	for i := range frames {
		exp[i] = expect(i)
	}
	shown := []int{0, 1, 3, 4, 5}
	for k := 1; k < len(shown); k++ {
		a, b := frames[shown[k-1]], frames[shown[k]]
		exp[shown[k]]["MsBetweenDisplayChange"] = cell{msOf(b.Display - a.Display), true}
		exp[shown[k-1]]["DisplayedTime"] = cell{msOf(b.Display - a.Display), true}
		if a.HasSim && b.HasSim && a.Seg == b.Seg {
			exp[shown[k]]["MsAnimationError"] = cell{((b.Sim - a.Sim) - (b.Display - a.Display).Seconds()) * 1e3, true}
		}
	}
	// Frame 4 (index 3) was a vblank late: its animation error is minus a
	// period, as PresentMon signs it.
	if e := exp[3]["MsAnimationError"]; !e.ok || math.Abs(e.v+msOf(p)) > 1e-6 {
		t.Fatalf("the case is wrong: frame 4's expected error %v", e)
	}
	for i, r := range rows[1:] {
		for name, e := range exp[i] {
			v, ok := num(r, name)
			if ok != e.ok || math.Abs(v-e.v) > 1e-5 {
				t.Errorf("frame %d: %s %q, want %v (NA: %v)", frames[i].ID, name, r[col[name]], e.v, !e.ok)
			}
		}
		if r[col["Application"]] == "" || r[col["ProcessID"]] != strconv.Itoa(os.Getpid()) {
			t.Errorf("frame %d: application %q, process %q", frames[i].ID, r[col["Application"]], r[col["ProcessID"]])
		}
	}
	back, err := framelog.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back, frames) {
		t.Errorf("read back\n%+v\nwant\n%+v", back, frames)
	}
}
