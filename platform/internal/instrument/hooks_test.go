package instrument

import (
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/internal/loop"
)

// The present fault, as a hook, drops every third frame: the frame after
// a dropped one takes the dropped one's display time at once, and the one
// its successor replaces asks for a whole period ahead.
func TestPresentFaultAsAHook(t *testing.T) {
	var h loop.Hook = &fault{cfg: PresentFault{DropEvery: 3}}
	var aheads, takes int
	at, lastAhead := time.Duration(0), -2
	for i := range 10 {
		got, take, ahead := h.BeforePace()
		if take {
			takes++
			if lastAhead != i-1 {
				t.Errorf("frame %d taken at once, but the frame before it did not start ahead", i)
			}
			if got != at {
				t.Errorf("frame %d takes %v, want the dropped frame's %v", i, got, at)
			}
		} else {
			at = time.Duration(i) * time.Millisecond
		}
		if ahead {
			aheads++
			lastAhead = i
		}
		h.Paced(&loop.Frame{At: at})
	}
	if takes != 3 || aheads != 3 {
		t.Errorf("%d frames taken at once and %d a period ahead in 10, want 3 and 3", takes, aheads)
	}
}

// A held swap is never a frame the next one replaces, nor that
// replacement: held, neither makes a hitch that shows. The hold due then
// falls on the next frame.
func TestPresentFaultHoldsAFrameThatIsShown(t *testing.T) {
	clock := &virtualClock{} // soak_test.go's
	f := &fault{cfg: PresentFault{DropEvery: 3, Hold: 20 * time.Millisecond, HoldEvery: 50 * time.Millisecond}, clock: clock}
	var held int
	for i := range 300 {
		_, take, _ := f.BeforePace()
		f.Paced(&loop.Frame{At: clock.now})
		dropped := f.again // the next frame replaces this one
		before := clock.now
		f.BeforeSwap(&loop.Frame{Drawn: true})
		if clock.now > before {
			held++
			if dropped || take {
				t.Errorf("frame %d held: a frame its successor replaces (%v) or a replacement (%v)", i, dropped, take)
			}
		}
		clock.now += 7 * time.Millisecond
	}
	if held < 20 {
		t.Errorf("%d frames held in 300 of 7 ms with a hold due every 50 ms", held)
	}
}

// A held swap is held until Hold past its frame's display time, not Hold
// past the swap: a frame started three periods ahead of its vblank (a
// deep queue, a long lead under load) still reaches the screen Hold late.
// (A CI run held 20 ms from the swap, and its three hitches made no
// animation error: the lead had absorbed them.)
func TestPresentFaultHoldsPastTheDisplayTime(t *testing.T) {
	clock := &virtualClock{now: time.Second} // soak_test.go's
	f := &fault{cfg: PresentFault{Hold: 20 * time.Millisecond}, clock: clock}
	for i := range 300 {
		f.BeforePace()
		at := clock.now + 21*time.Millisecond // planned three 144 Hz periods ahead
		f.Paced(&loop.Frame{At: at})
		before := clock.now
		f.BeforeSwap(&loop.Frame{Drawn: true, At: at})
		if clock.now > before && clock.now < at+20*time.Millisecond {
			t.Fatalf("frame %d planned for %v held until %v: want at least %v", i, at, clock.now, at+20*time.Millisecond)
		}
		clock.now += 7 * time.Millisecond
	}
	if f.Holds == 0 {
		t.Fatal("no frame held in 2.1 s with a hold due every second")
	}
}

// InputLate draws in each frame the input the frame before polled: the
// reaction patch shows the presses counted at that poll, the frame's Poll
// is that poll's time (input_age_ms counts from it), and the frames do
// not start any earlier than the pacer starts them. Without the fault the
// same frames draw their own poll's presses and keep their own Poll.
func TestInputLateDrawsTheInputAFrameOld(t *testing.T) {
	for _, late := range []bool{false, true} {
		r := &Reactions{}
		press := r.Input(nil)
		m := &marker{r: r}
		h := PresentFault{InputLate: late}.Hook(r)
		var drawn []uint64
		var polls []time.Duration
		for i := range 5 {
			if _, take, ahead := h.BeforePace(); take || ahead {
				t.Fatalf("late %v, frame %d: take %v, ahead %v: the fault moves no frame", late, i, take, ahead)
			}
			// One press polled by each frame from the second on.
			if i > 0 {
				press(platform.Event{Kind: platform.KeyEvent, Action: platform.Press, Key: ReactKey})
			}
			f := &loop.Frame{Poll: time.Duration(i+1) * 10 * time.Millisecond}
			m.Planned(f)
			h.Planned(f)
			drawn, polls = append(drawn, m.presses), append(polls, f.Poll)
		}
		want, wantPoll := []uint64{0, 1, 2, 3, 4}, []time.Duration{10, 20, 30, 40, 50}
		if late {
			want, wantPoll = []uint64{0, 0, 1, 2, 3}, []time.Duration{10, 10, 20, 30, 40}
		}
		for i := range want {
			if drawn[i] != want[i] || polls[i] != wantPoll[i]*time.Millisecond {
				t.Errorf("late %v: frames draw presses %v polled at %v, want %v at %v ms", late, drawn, polls, want, wantPoll)
				break
			}
		}
	}
}
