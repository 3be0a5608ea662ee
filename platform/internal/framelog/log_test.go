package framelog

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A text log keeps the vblank reports after the frames: ReadVblanks gives
// them back exactly, with the count lost, and Read, which reads the
// frames, passes over them. A log with room for one frame keeps 8
// vblanks and counts the rest lost.
func TestVblanksRoundTrip(t *testing.T) {
	l := New(1)
	l.Add(Frame{ID: 1, Swap: 100, Display: 2000, Shown: true})
	var want []Vblank
	for i := range 10 {
		v := Vblank{At: time.Duration(1_000_000_000_000 + i*2_777_778), MSC: uint64(7 + i)}
		if i < vblanksPerFrame {
			want = append(want, v)
		}
		l.AddVblank(v)
	}
	l.CountLostVblanks(3)
	path := filepath.Join(t.TempDir(), "frames.log")
	if err := l.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, lost, err := ReadVblanks(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || lost != 5 {
		t.Errorf("vblanks %v, lost %d; want %v, lost 5", got, lost, want)
	}
	frames, err := Read(path)
	if err != nil || len(frames) != 1 || frames[0].Display != 2000 {
		t.Errorf("frames %v, %v: want the one frame", frames, err)
	}
	// A vblank line that is not two integers is refused, with its line.
	data, _ := os.ReadFile(path)
	bad := strings.Replace(string(data), "#v 1000002777778 8", "#v 1000002777778 x8", 1)
	os.WriteFile(path, []byte(bad), 0o644)
	if _, _, err := ReadVblanks(path); err == nil || !strings.Contains(err.Error(), "frames.log:5:") {
		t.Errorf("a bad vblank line: %v, want an error naming line 5", err)
	}
}
