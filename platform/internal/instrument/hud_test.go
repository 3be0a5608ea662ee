package instrument

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/simthread"
)

// Every HUD line starts with its label, and docs/hud.md documents every
// label (a row of its table).
func TestHUDLinesAreLabelledAndDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/hud.md")
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range hudLabels {
		if l == "" {
			t.Errorf("HUD line %d has no label", i)
		} else if !strings.Contains(string(doc), "| `"+l+"` |") {
			t.Errorf("docs/hud.md has no row for the HUD's %q line", l)
		}
	}
	var st frameStats
	var tel simthread.Stats
	p := loop.Pacing{Hz: 60, Source: "present-msc"}
	for _, c := range []struct {
		line int
		fill func(*[]byte)
	}{
		{hudFrame, func(b *[]byte) { frameLine(b, &st, 60, &p) }},
		{hudSim, func(b *[]byte) { simLine(b, &st, 120, 120) }},
		{hudAlpha, func(b *[]byte) { alphaLine(b, &st, time.Second/120) }},
		{hudLate, func(b *[]byte) { lateLine(b, &tel) }},
	} {
		var b []byte
		c.fill(&b)
		if !strings.HasPrefix(string(b), hudLabels[c.line]+" ") {
			t.Errorf("HUD line %q does not start with its label %q", b, hudLabels[c.line])
		}
	}
}
