package simthread_test

import (
	"testing"
	"time"

	"github.com/tickframe/tickframe/simthread"
)

// The default max delta is 250 ms, or two steps where a step is longer
// than 125 ms, so that every rate runs with the defaults and a wake one
// step and a little late is not cut.
func TestDefaultMaxDeltaFollowsTheRate(t *testing.T) {
	for _, tc := range []struct {
		rate int
		want time.Duration
	}{
		{1, 2 * time.Second}, {2, time.Second}, {3, 666666666}, {4, 500 * time.Millisecond},
		{8, 250 * time.Millisecond}, {120, 250 * time.Millisecond}, {simthread.MaxRate, 250 * time.Millisecond},
	} {
		tm := simthread.Timing{Rate: tc.rate}
		if got := tm.WithDefaults().MaxDelta; got != tc.want {
			t.Errorf("rate %d: default max delta %v, want %v", tc.rate, got, tc.want)
		}
		if err := tm.Validate(); err != nil {
			t.Errorf("rate %d: %v", tc.rate, err)
		}
	}
}
