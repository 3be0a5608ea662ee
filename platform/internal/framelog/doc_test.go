package framelog

import (
	"os"
	"strings"
	"testing"
)

// TestFrameLogDocAgrees holds docs/framelog.md, the formats' contract,
// to the code that writes them: the text header, the vblank lines'
// prefix, and the PresentMon, tickframe and MangoHud column lists, each
// a line of the doc exactly.
func TestFrameLogDocAgrees(t *testing.T) {
	doc, err := os.ReadFile("../../../docs/framelog.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]bool{}
	for _, l := range strings.Split(string(doc), "\n") {
		lines[l] = true
	}
	for name, want := range map[string]string{
		"the text header":      logHeader,
		"the vblank lines":     vblankPrefix + "AT_NS MSC",
		"PresentMon's columns": strings.Join(PresentMonColumns, ","),
		"tickframe's columns":  strings.Join(TickframeColumns, ","),
		"MangoHud's sys-info":  mangoHudSysInfo,
		"MangoHud's columns":   strings.Join(mangoHudColumns, ","),
	} {
		if !lines[want] {
			t.Errorf("docs/framelog.md has no line %q (%s)", want, name)
		}
	}
}
