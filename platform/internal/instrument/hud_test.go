package instrument

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tickframe/tickframe/platform/internal/loop"
	"github.com/tickframe/tickframe/platform/internal/sched"
	"github.com/tickframe/tickframe/platform/internal/sim"
)

// hudNumber is a number as the HUD prints it; hudUnit what must follow
// it: every number has its unit, a count its noun. (A number inside a
// word, p50's, is the word's.) A nice value, Linux's
// own scale, has none.
var (
	hudNumber = regexp.MustCompile(`(^|[^\w.-])-?\d+(\.\d+)?`)
	hudUnit   = regexp.MustCompile(`^N(/s|%| (ms|Hz|ticks/s|ticks|tick|frames|vblanks|cycles|bodies|inputs|Ps|%)(\s|$))`)
)

// hudShape is a HUD line with each number replaced by N: what docs/hud.md
// shows of it.
func hudShape(line string) string { return hudNumber.ReplaceAllString(line, "${1}N") }

// TestHUDLinesAreDocumented: every HUD line starts with its label, which
// has a row in docs/hud.md's table; every number in it has its unit (a
// count its noun); and the line's shape, its numbers as N, is in the
// doc as it is printed, so that every label and unit the HUD prints is
// documented.
func TestHUDLinesAreDocumented(t *testing.T) {
	raw, err := os.ReadFile("../../../docs/hud.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	for i, l := range hudLabels {
		if l == "" {
			t.Errorf("HUD line %d has no label", i)
		} else if !strings.Contains(doc, "| `"+l+"` |") {
			t.Errorf("docs/hud.md has no row for the HUD's %q line", l)
		}
	}
	var st frameStats
	st.TicksPerFrame[2] = 90
	st.TicksPerFrame[1] = 10
	tel := sim.Stats{DiscardedTicks: 2}
	p := loop.Pacing{Hz: 60, Source: "present-msc"}
	var tracker presentTracker
	prio := sched.ThreadPriority{Nice: -10, How: "nice"}
	errs := errFigures{gpu: true, poseDrawn: 0.0073, posePlanned: 0.0071, animShown: 16.515, animPlanned: 0.05, paused: 3}
	var pose, anim []byte
	errLines(&pose, &anim, errFigures{})
	noGPU := string(pose)
	for _, c := range []struct {
		line int
		fill func(*[]byte)
	}{
		{hudFrame, func(b *[]byte) { frameLine(b, &st, 60) }},
		{hudPacing, func(b *[]byte) { pacingLine(b, &p, true) }},
		{hudPose, func(b *[]byte) { errLines(b, new([]byte), errs) }},
		{hudAnim, func(b *[]byte) { errLines(new([]byte), b, errs) }},
		{hudPresent, func(b *[]byte) { presentLine(b, &tracker, 60) }},
		{hudShown, func(b *[]byte) { shownLine(b, &st.Present) }},
		{hudSim, func(b *[]byte) { simLine(b, 120, 119.9) }},
		{hudTicks, func(b *[]byte) { ticksLine(b, &st) }},
		{hudAlpha, func(b *[]byte) { alphaLine(b, &st) }},
		{hudDelay, func(b *[]byte) { delayLine(b, &st, time.Second/120) }},
		{hudLate, func(b *[]byte) { lateLine(b, &tel) }},
		{hudGC, func(b *[]byte) { gcLine(b, 4, false, 64) }},
		{hudGC, func(b *[]byte) { gcLine(b, 4, true, 64) }},
		{hudSched, func(b *[]byte) { schedLine(b, sched.LatencySummary{P99: time.Millisecond}, 4, prio, prio, 0) }},
		{hudBeat, func(b *[]byte) { *b = append(*b, "beat new ticks a frame alternate; interpolation hides it"...) }},
	} {
		var b []byte
		c.fill(&b)
		line := string(b)
		if !strings.HasPrefix(line, hudLabels[c.line]+" ") {
			t.Errorf("HUD line %q does not start with its label %q", line, hudLabels[c.line])
		}
		shape := hudShape(line)
		if !strings.Contains(doc, "`"+shape+"`") {
			t.Errorf("docs/hud.md does not show the HUD's line %q as `%s`", line, shape)
		}
		if len(line) > 80 {
			t.Errorf("HUD line %q is %d characters, past the panel's 80", line, len(line))
		}
		nice := strings.Index(shape, "nice N/N")
		for k := strings.Index(shape, "N"); k >= 0; k = next(shape, k) {
			if !hudUnit.MatchString(shape[k:]) && (nice < 0 || k < nice+5 || k > nice+7) {
				t.Errorf("HUD line %q: a number with no unit at %q", line, shape[k:])
			}
		}
	}
	if !strings.Contains(noGPU, "- ticks") {
		t.Errorf("before the first read-back the pose error reads %q, want \"-\"", noGPU)
	}
}

// next returns the index of the next N in shape after index k, -1 if
// none.
func next(shape string, k int) int {
	j := strings.Index(shape[k+1:], "N")
	if j < 0 {
		return -1
	}
	return k + 1 + j
}
