package simthread_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/simthread"
	"github.com/tickframe/tickframe/sync/waitfree"
)

// scorer is a world whose score changes every tick and is published as
// overlay text, a bar and a label.
type scorer struct {
	score int64
	naive bool // build the text as a new string each tick (allocates: the check must see it)
}

func (w *scorer) Step(tick uint64, dt float64, _ []simthread.Input) {
	w.score += 7
}

func (w *scorer) Snapshot(dst *simthread.Snapshot) {
	dst.Bodies = append(dst.Bodies[:0], simthread.NewBody(mgl32.Vec3{}))
	o := &dst.Overlay
	o.Reset()
	if w.naive {
		o.Text(simthread.TopLeft, 16, 16, 32, simthread.White, "score "+strconv.FormatInt(w.score, 10))
	} else {
		t := o.Text(simthread.TopLeft, 16, 16, 32, simthread.White, "score ")
		t.Text = strconv.AppendInt(t.Text, w.score, 10)
	}
	o.Bar(simthread.Bottom, 0, -16, 400, 16, float32(w.score%100)/100, simthread.RGB(80, 220, 120), simthread.RGBA(0, 0, 0, 160))
	o.Label(0, 0, -40, 20, simthread.White, "you")
}

// publishAllocs steps w and writes its snapshots into a triple buffer
// whose history is simthread.DefaultHistory, as the simulation does,
// warmed up until every slot has held the world's snapshot, and returns
// the allocations of a tick that steps, writes a snapshot, publishes it
// and acquires it, and the newest snapshot.
func publishAllocs(t *testing.T, w simthread.World) (float64, *simthread.Snapshot) {
	out, view, err := waitfree.NewTripleBuffer[simthread.Snapshot](simthread.DefaultHistory, nil)
	if err != nil {
		t.Fatal(err)
	}
	tick := uint64(0)
	publish := func() {
		if tick > 0 {
			w.Step(tick, 1.0/simthread.DefaultRate, nil)
		}
		w.Snapshot(out.Slot())
		out.Publish()
		view.Acquire()
		tick++
	}
	for range 2 * (simthread.DefaultHistory + 3) {
		publish()
	}
	a := testing.AllocsPerRun(100, publish)
	return a, view.History(0)
}

// TestOverlayScoreDoesNotAllocate: a world that writes a changing score,
// a bar and a label into every snapshot's overlay allocates nothing per
// tick once the slots are warm, and the snapshot holds what it wrote. A
// world that formats its score as a new string each tick is counted.
func TestOverlayScoreDoesNotAllocate(t *testing.T) {
	w := &scorer{}
	a, snap := publishAllocs(t, w)
	if a != 0 {
		t.Fatalf("a tick that changes the overlay's score allocates %.1f times", a)
	}
	items := snap.Overlay.Items
	if len(items) != 3 {
		t.Fatalf("overlay has %d items, want 3", len(items))
	}
	want := "score " + strconv.FormatInt(w.score, 10)
	if got := string(items[0].Text); got != want || items[0].Kind != simthread.OverlayText || items[0].Size != 32 {
		t.Errorf("text item %+v (%q), want %q size 32", items[0], got, want)
	}
	if b := items[1]; b.Kind != simthread.OverlayBar || b.Anchor != simthread.Bottom || b.W != 400 || b.Back != 0xA0000000 {
		t.Errorf("bar item %+v", b)
	}
	if l := items[2]; l.Anchor != simthread.AtBody || l.Body != 0 || string(l.Text) != "you" {
		t.Errorf("label item %+v", l)
	}

	// The same measurement sees a score formatted as a new string.
	if a, _ := publishAllocs(t, &scorer{naive: true}); a < 1 {
		t.Errorf("a score formatted as a new string allocated %.1f times a tick: the measurement misses allocations", a)
	}
}

// TestOverlayAddReusesItems: Add copies the text given into the slot's own
// buffer, a reset overlay reuses the items' buffers, and Bar clamps its
// fill.
func TestOverlayAddReusesItems(t *testing.T) {
	var o simthread.Overlay
	src := []byte("abc")
	it := o.Add(simthread.OverlayItem{Kind: simthread.OverlayText, Text: src})
	src[0] = 'x'
	if string(it.Text) != "abc" {
		t.Fatalf("Add kept the caller's buffer: %q", it.Text)
	}
	first := &o.Items[0].Text[:1][0]
	o.Reset()
	if len(o.Items) != 0 {
		t.Fatal("Reset left items")
	}
	it = o.Text(simthread.Center, 0, 0, 0, 0, "de")
	if &it.Text[0] != first || string(it.Text) != "de" {
		t.Errorf("the item's buffer was not reused (%q)", it.Text)
	}
	for _, tc := range []struct{ in, want float32 }{{-1, 0}, {0.25, 0.25}, {3, 1}, {float32(nan()), 0}} {
		if got := o.Bar(simthread.TopLeft, 0, 0, 1, 1, tc.in, 0, 0).Fill; got != tc.want {
			t.Errorf("Bar fill %v = %v, want %v", tc.in, got, tc.want)
		}
	}
	if c := simthread.RGBA(1, 2, 3, 4); c != 0x04030201 || simthread.RGB(1, 2, 3) != simthread.RGBA(1, 2, 3, 255) {
		t.Errorf("RGBA(1, 2, 3, 4) = %#x", c)
	}
}

func nan() float64 { z := 0.0; return z / z }

// A world writes its score, a bar and a label into every snapshot's
// overlay; the number is appended to the item's own buffer, so a
// changing score allocates nothing.
func ExampleOverlay() {
	var dst simthread.Snapshot
	score, fuel := 1250, float32(0.4)
	o := &dst.Overlay
	o.Reset()
	t := o.Text(simthread.TopLeft, 16, 16, 32, simthread.White, "score ")
	t.Text = strconv.AppendInt(t.Text, int64(score), 10)
	o.Bar(simthread.Bottom, 0, -16, 400, 16, fuel, simthread.RGB(80, 220, 120), simthread.RGBA(0, 0, 0, 160))
	o.Label(0, 0, -40, 20, 0, "you")
	for _, it := range dst.Overlay.Items {
		fmt.Printf("kind %d anchor %d %q\n", it.Kind, it.Anchor, it.Text)
	}
	// Output:
	// kind 0 anchor 0 "score 1250"
	// kind 2 anchor 7 ""
	// kind 0 anchor 9 "you"
}
