package framelog

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// MangoHud's header lines as its src/logging.cpp writes them
// (writeFileHeaders, commit a5e7dc78d67882bb21f917937480d458a9b2e920),
// copied by hand rather than built from mangoHudColumns.
const (
	mangoSysInfoLine = "os,cpu,gpu,ram,kernel,driver,cpuscheduler"
	mangoColumnsLine = "fps,frametime,cpu_load,cpu_power,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,gpu_mem_clock,gpu_vram_used,gpu_power,ram_used,swap_used,process_rss,cpu_mhz,elapsed"
)

// A frame log written to FILE.mangohud.csv is MangoHud's CSV log, with
// the figures computed by hand, and reads back as MangoHud's readers
// take it.
func TestFrameLogMangoHud(t *testing.T) {
	const ms = time.Millisecond
	base := 5 * time.Second
	type row struct {
		fps, frametimeMs float64
		elapsed          time.Duration
	}
	for _, tc := range []struct {
		name   string
		frames []Frame
		want   []row
		lines  []string // as written: fps, frametime, 13 empty columns, elapsed
	}{
		{"display times", []Frame{
			{ID: 1, Swap: base, Display: base + 10*ms, Shown: true}, // the first: no row; elapsed counts from its swap
			{ID: 2, Swap: base + 16*ms, Display: base + 26*ms, Shown: true},
			{ID: 3, Swap: base + 30*ms},                                     // dropped
			{ID: 4, Swap: base + 35*ms, Display: base + 46*ms, Shown: true}, //
			{ID: 5, Swap: base + 40*ms, Shown: true},                        // shown at an unknown time
			{ID: 6, Swap: base + 45*ms, Display: base + 46*ms, Shown: true}, // not after the one before
			{ID: 7, Swap: base + 60*ms, Display: base + 71*ms, Shown: true}, //
			{ID: 8, Swap: base + 68500*time.Microsecond, Display: base + 83500*time.Microsecond, Shown: true},
		}, []row{
			{62.5, 16, 26 * ms}, {50, 20, 46 * ms}, {40, 25, 71 * ms}, {80, 12.5, 83500 * time.Microsecond},
		}, []string{
			"62.500,16.000000,,,,,,,,,,,,,,26000000",
			"50.000,20.000000,,,,,,,,,,,,,,46000000",
			"40.000,25.000000,,,,,,,,,,,,,,71000000",
			"80.000,12.500000,,,,,,,,,,,,,,83500000",
		}},
		{"swaps, where no frame has a display time", []Frame{
			{ID: 1, Swap: base},
			{ID: 2, Swap: base + 4*ms, Shown: true},
			{ID: 3, Swap: base + 16500*time.Microsecond},
			{ID: 4, Swap: base + 36500*time.Microsecond, Shown: true},
		}, []row{
			{250, 4, 4 * ms}, {80, 12.5, 16500 * time.Microsecond}, {50, 20, 36500 * time.Microsecond},
		}, []string{
			"250.000,4.000000,,,,,,,,,,,,,,4000000",
			"80.000,12.500000,,,,,,,,,,,,,,16500000",
			"50.000,20.000000,,,,,,,,,,,,,,36500000",
		}},
		{"no frames", nil, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := New(len(tc.frames))
			for _, f := range tc.frames {
				l.Add(f)
			}
			l.Add(Frame{ID: 99, Swap: base + time.Second}) // no room: lost, not in the log
			path := filepath.Join(t.TempDir(), "run.MangoHud.csv")
			if err := l.WriteFile(path); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := append([]string{mangoSysInfoLine, ",,,,,,", mangoColumnsLine}, tc.lines...)
			if got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); !slices.Equal(got, want) {
				t.Fatalf("wrote\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}

			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, err := readMangoHud(path, f)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("read %d rows, want %d", len(got), len(tc.want))
			}
			for i, r := range tc.want {
				if g := got[i]; g.fps != r.fps || g.frametimeMs != r.frametimeMs || g.elapsed != r.elapsed {
					t.Errorf("row %d read %+v, want %+v", i+1, g, r)
				}
			}
			if _, err := Read(path); err == nil || !strings.Contains(err.Error(), "is a MangoHud log") {
				t.Errorf("Read: %v, want an error that names MangoHud's form", err)
			}
		})
	}
}

// readMangoHud reads a log as MangoHud writes it, log_versioning's lines
// and every column's zeros included (src/logging.cpp's writeFileHeaders
// and writeToFile; the figures are a made-up run).
func TestReadMangoHudsOwnLog(t *testing.T) {
	log := "v1\n0.8.4\n---------------------SYSTEM INFO---------------------\n" +
		mangoSysInfoLine + "\n" +
		"Debian GNU/Linux 12 (bookworm),AMD Ryzen 7 5800X 8-Core Processor,AMD Radeon RX 6800 (radv),31.3 GB,6.1.0-18-amd64,Mesa 22.3.6,\n" +
		"--------------------FRAME METRICS--------------------\n" +
		mangoColumnsLine + "\n" +
		"59.9988,16.667,12.5,0,97,54,61,2475,1000,3.1,187,9.8,0,1.2,4400,16698412\n" +
		"144.03,6.943,8,0,99,55,62,2475,1000,3.1,190,9.8,0,1.2,4391,23641500\n"
	got, err := readMangoHud("mango.csv", strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	want := []mangoHudRow{{59.9988, 16.667, 16698412}, {144.03, 6.943, 23641500}}
	if !slices.Equal(got, want) {
		t.Errorf("read %+v, want %+v", got, want)
	}
	empty, err := readMangoHud("ours.csv", strings.NewReader(mangoSysInfoLine+"\n,,,,,,\n"+mangoColumnsLine+"\n,,,,,,,,,,,,,,,5\n"))
	if err != nil || len(empty) != 1 || !math.IsNaN(empty[0].fps) || !math.IsNaN(empty[0].frametimeMs) || empty[0].elapsed != 5 {
		t.Errorf("a row of empty cells read %+v, %v; want NaN, NaN, 5 ns", empty, err)
	}
	if _, err := readMangoHud("x.csv", strings.NewReader("a,b\n1,2\n")); err == nil {
		t.Error("a CSV without an fps column read as a MangoHud log")
	}
}

// docs/present.md's table of the MangoHud log's columns names every
// column, in order, and the units the writer uses.
func TestMangoHudColumnsDocumented(t *testing.T) {
	data, err := os.ReadFile("../../../docs/present.md")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	units := map[string]string{}
	inTable := false
	for _, ln := range strings.Split(string(data), "\n") {
		if ln == "| column | unit | tickframe's value |" {
			inTable = true
			continue
		}
		if !inTable || strings.HasPrefix(ln, "|---") {
			continue
		}
		if !strings.HasPrefix(ln, "|") {
			break
		}
		cells := strings.Split(ln, "|")
		for _, n := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(cells[1], -1) {
			names = append(names, n[1])
			units[n[1]] = strings.TrimSpace(cells[2])
		}
	}
	if !slices.Equal(names, mangoHudColumns) {
		t.Errorf("docs/present.md's MangoHud table names %q, want %q", names, mangoHudColumns)
	}
	for n, u := range map[string]string{"fps": "frames/s", "frametime": "ms", "elapsed": "ns"} {
		if units[n] != u {
			t.Errorf("docs/present.md: %s in %q, want %q", n, units[n], u)
		}
	}
}
