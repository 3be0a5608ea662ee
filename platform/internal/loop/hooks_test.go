package loop

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"
)

// The frame loop's files name no fault and no instrument: what breaks,
// marks or measures a frame attaches as a Hook, never as a branch of the
// loop (the architecture test keeps package app's instruments out of
// this package's imports).
func TestFrameLoopHasNoFaultBranches(t *testing.T) {
	banned := map[string]bool{"fault": true, "PresentFault": true, "Marker": true, "DrawMarker": true,
		"Probed": true, "Report": true, "Meter": true, "Measure": true, "Track": true, "AddFrame": true}
	for _, file := range []string{"frame.go", "pacing.go", "loop.go"} {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && banned[id.Name] {
				t.Errorf("%s names %s: attach it as a Hook instead", file, id.Name)
			}
			return true
		})
	}
}
