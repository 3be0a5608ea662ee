package loop

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/interp"
	"github.com/tickframe/tickframe/platform/internal/refworld"
	"github.com/tickframe/tickframe/platform/internal/window"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/simthread"
)

func TestMain(m *testing.M) {
	code := 0
	window.Main(func() { code = m.Run() })
	os.Exit(code)
}

// seams records the order the loop calls a hook's methods in, frame by
// frame, and what each saw.
type seams struct {
	a                     *App
	opened                int
	started, stopped      int
	frames, drawn, swaps  int
	order                 []byte // the last frame's seams: P(aced) L(planned) B(efore swap) S(wapped) E(nded)
	bad                   []string
	lastAt, lastSwap      time.Duration
	ready                 int // frames planned with a snapshot
	firstAt, lastStopTime time.Duration
}

func (s *seams) Open(pipe *interp.PipelineConfig, rend *renderer.Options) {
	s.opened++
	if pipe == nil || rend == nil || rend.Now == nil {
		s.bad = append(s.bad, "Open without the pipeline's configuration and the renderer's options")
	}
}
func (s *seams) Started(v *View) {
	s.started++
	if v.Start == 0 || v.Start != s.a.start || v.Sim != s.a.pipe.Sim() || v.Renderer != s.a.rend || v.Pacing == nil || v.Sched == nil {
		s.bad = append(s.bad, "Started without the run's view")
	}
}
func (s *seams) BeforePace() (time.Duration, bool, bool) { return 0, false, false }
func (s *seams) Paced(f *Frame) {
	if len(s.order) > 0 && string(s.order) != "PLBSE" && string(s.order) != "PLE" {
		s.bad = append(s.bad, "frame seams "+string(s.order))
	}
	s.order = append(s.order[:0], 'P')
	if f.At < s.lastAt {
		s.bad = append(s.bad, "display time went back")
	}
	if s.frames == 0 {
		s.firstAt = f.At
	}
	s.lastAt = f.At
	s.frames++
}
func (s *seams) Planned(f *Frame) {
	s.order = append(s.order, 'L')
	if f.Plan.Ready {
		s.ready++
	}
}
func (s *seams) BeforeSwap(f *Frame) {
	s.order = append(s.order, 'B')
	if f.Drawn {
		s.drawn++
	}
}
func (s *seams) Swapped(f *Frame) {
	s.order = append(s.order, 'S')
	if f.Swap < f.Present || f.Present < f.Start || (s.swaps > 0 && f.Interval != f.Swap-s.lastSwap) {
		s.bad = append(s.bad, "swap times out of order")
	}
	s.lastSwap = f.Swap
	s.swaps++
}
func (s *seams) Ended(*Frame) { s.order = append(s.order, 'E') }
func (s *seams) Stopped(end time.Duration) {
	s.stopped++
	s.lastStopTime = end
}

// TestRunAlone runs the runtime by itself, with no instrument (what an
// app that wants none runs): a real window and GL under the display make
// test provides, paced at an emulated 60 Hz for 1.5 s. A hook sees every
// frame's seams in order, and the frames are paced at the rate asked: the
// display times a period apart, as many as the run's length holds.
func TestRunAlone(t *testing.T) {
	if os.Getenv("DISPLAY") == "" {
		t.Fatal("needs a display: run make test, which starts Xvfb, or set DISPLAY")
	}
	world, err := refworld.New(64, 1)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Title: "loop alone", Width: 320, Height: 240, Settings: Settings{Duration: 1500 * time.Millisecond,
		Display: Display{Refresh: 60, KeepRunningUnfocused: true}},
		Sim: simthread.Tuning{InitSnapshot: func(s *simthread.Snapshot) { s.Bodies = make([]simthread.Body, 0, 64) }}}
	var s seams
	window.Call(func() {
		var a *App
		if a, err = New(cfg, world, &s); err != nil {
			return
		}
		defer a.Close()
		s.a = a
		err = a.Run(context.Background())
		if _, ok := a.Renderer().Probed(); ok {
			t.Error("the renderer read a frame back with Config.Probe off")
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d frames (%d with a snapshot, %d drawn), display times %v to %v", s.frames, s.ready, s.drawn, s.firstAt, s.lastAt)
	for _, b := range s.bad {
		t.Error(b)
	}
	if s.opened != 1 || s.started != 1 || s.stopped != 1 {
		t.Errorf("Opened %d times, Started %d, Stopped %d, want once each", s.opened, s.started, s.stopped)
	}
	// 1.5 s at 60 Hz: 90 vblanks; a frame late on a loaded machine misses
	// one, never draws two.
	if span := s.lastAt - s.firstAt; s.frames < 45 || s.frames > 92 || span > time.Duration(s.frames)*time.Second/60+time.Second/2 {
		t.Errorf("%d frames over %v of display times: not paced at 60 Hz", s.frames, span)
	}
	if s.drawn != s.swaps || s.ready < s.frames-10 {
		t.Errorf("%d drawn, %d swapped, %d of %d frames with a snapshot", s.drawn, s.swaps, s.ready, s.frames)
	}
}
