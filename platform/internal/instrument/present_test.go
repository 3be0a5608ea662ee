package instrument

import (
	"math"
	"testing"
	"time"
)

func TestStutterCountsFramesTwiceTheLocalMedian(t *testing.T) {
	var d stutterDetector
	ms := time.Millisecond
	for i := 0; i < 200; i++ {
		iv := 7 * ms
		switch i {
		case 50:
			iv = 15 * ms // > 2 × 7: a stutter
		case 100:
			iv = 13 * ms // < 2 × 7: not
		case 150, 151:
			iv = 30 * ms // two in a row: both
		}
		d.Add(iv)
	}
	if d.Count != 3 || d.Frames != 200-18 {
		t.Fatalf("%d stutters in %d frames judged, want 3 in 182", d.Count, d.Frames)
	}
	// A slow but steady stretch is not stutter: the median follows it.
	var slow stutterDetector
	for i := 0; i < 100; i++ {
		iv := 7 * ms
		if i >= 40 {
			iv = 20 * ms
		}
		slow.Add(iv)
	}
	if slow.Count != 0 {
		t.Errorf("a step from 7 to 20 ms counted %d stutters, want 0", slow.Count)
	}
}

func TestLowFPS(t *testing.T) {
	var s frameStats
	for i := 0; i < 1000; i++ {
		iv := 7 * time.Millisecond
		if i%100 == 0 {
			iv = 20 * time.Millisecond // the slowest 1 %
		}
		s.FrameInterval.Record(int64(iv))
	}
	if got := s.LowFPS(); math.Abs(got-50) > 50*0.04 {
		t.Errorf("1 %% low %.1f fps, want 50 (1000 / 20 ms)", got)
	}
}
