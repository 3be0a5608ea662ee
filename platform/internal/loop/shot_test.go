package loop

import (
	"bytes"
	"path/filepath"
	"regexp"
	"testing"
)

// TestScreenshotsAreNamedAfterTheTitle: F12's files and the recording's
// world name come from Config.Title, not from the template's name.
func TestScreenshotsAreNamedAfterTheTitle(t *testing.T) {
	for _, tc := range []struct{ title, stem string }{
		{"Falling Cubes", "falling-cubes"},
		{"tickframe: minimal", "tickframe-minimal"},
		{"  Ball/Wall v2!  ", "ball-wall-v2"},
		{"Über Ball", "ber-ball"},
		{"", "tickframe"},
		{"***", "tickframe"},
	} {
		if got := FileStem(tc.title); got != tc.stem {
			t.Errorf("FileStem(%q) = %q, want %q", tc.title, got, tc.stem)
		}
	}
	var log bytes.Buffer
	s := newScreenshots("Falling Cubes", "shots", &log)
	if p := s.path(); !regexp.MustCompile(`^falling-cubes-[0-9]+\.png$`).MatchString(filepath.Base(p)) || filepath.Dir(p) != "shots" {
		t.Errorf("F12 saves to %q, want shots/falling-cubes-<ms>.png", p)
	}
}
