package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
	"time"
)

// The frame loop's files name no fault and no instrument: what breaks or
// marks a frame attaches through loopHook, never as a branch of the loop.
func TestFrameLoopHasNoFaultBranches(t *testing.T) {
	banned := map[string]bool{"fault": true, "PresentFault": true, "Marker": true, "DrawMarker": true}
	for _, file := range []string{"frame.go", "pacing.go", "run.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && banned[id.Name] {
				t.Errorf("%s names %s: attach it as a loopHook instead", file, id.Name)
			}
			return true
		})
	}
}

// The present fault, as a hook, drops every third frame: the frame after
// a dropped one takes the dropped one's display time at once, and the one
// its successor replaces asks for a whole period ahead.
func TestPresentFaultAsAHook(t *testing.T) {
	var h loopHook = &fault{cfg: PresentFault{DropEvery: 3}}
	var aheads, takes int
	at, lastAhead := time.Duration(0), -2
	for i := range 10 {
		got, take, ahead := h.beforePace()
		if take {
			takes++
			if lastAhead != i-1 {
				t.Errorf("frame %d taken at once, but the frame before it did not start ahead", i)
			}
			if got != at {
				t.Errorf("frame %d takes %v, want the dropped frame's %v", i, got, at)
			}
		} else {
			at = time.Duration(i) * time.Millisecond
		}
		if ahead {
			aheads++
			lastAhead = i
		}
		h.paced(at)
	}
	if takes != 3 || aheads != 3 {
		t.Errorf("%d frames taken at once and %d a period ahead in 10, want 3 and 3", takes, aheads)
	}
	if cfg := (Config{}); len(cfg.hooks(nil)) != 0 {
		t.Error("a zero Config attaches hooks")
	}
}
