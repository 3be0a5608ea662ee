package app

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tickframe/tickframe/simthread/refworld"
)

// TestMainRejectsBadFlagsWithOneLine: every bad command line exits 2 with
// one line naming the program, before any window opens.
func TestMainRejectsBadFlagsWithOneLine(t *testing.T) {
	for _, args := range [][]string{
		{"-refresh", "NaN"},
		{"-refresh", "-60"},
		{"-duration", "-1s"},
		{"-hz", "0"},
		{"-width", "-5"},
		{"-bogus"},
		{"stray"},
	} {
		world, _ := refworld.New(1, 1)
		var stderr bytes.Buffer
		code := run(append([]string{"/bin/demo"}, args...), &stderr, Config{}, world)
		msg := stderr.String()
		if code != 2 || strings.Count(msg, "\n") != 1 || !strings.HasPrefix(msg, "demo: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line starting with \"demo: \"", args, code, msg)
		}
	}
	world, _ := refworld.New(1, 1)
	var stderr bytes.Buffer
	if code := run([]string{"demo", "-h"}, &stderr, Config{}, world); code != 0 || !strings.Contains(stderr.String(), "-duration") {
		t.Errorf("-h: exit %d, %q", code, stderr.String())
	}
}
