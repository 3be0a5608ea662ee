package app

import (
	"io"
	"strconv"
	"testing"
)

// Every -hz of the documented range [1, 10000] is a valid setting for an
// app, which has no -maxdelta: the default max delta follows the rate
// (issue 24, item 13; -hz 1 to 3 were refused).
func TestEveryRateRuns(t *testing.T) {
	t.Setenv("DISPLAY", "")
	for _, hz := range []int{1, 2, 3, 4, 7, 8, 120, 10000} {
		var cfg Config
		var set Settings
		if err := ParseFlags([]string{"-hz", strconv.Itoa(hz)}, &cfg, &set, io.Discard); err != nil {
			t.Fatalf("-hz %d: %v", hz, err)
		}
		if err := Validate(cfg, set); err != nil {
			t.Errorf("-hz %d: %v", hz, err)
		}
	}
}
