package marker_test

import (
	"testing"

	"github.com/tickframe/tickframe/platform/internal/marker"
)

// Every colour decodes to itself, also after rounding by up to 48 in
// each channel, and no two colours are closer than twice that.
func TestPaletteDecodes(t *testing.T) {
	for i, c := range marker.Palette {
		for _, d := range []int{-48, -20, 0, 20, 48} {
			r, g, b := clamp(int(c[0])+d), clamp(int(c[1])+d), clamp(int(c[2])-d)
			if got := marker.Decode(r, g, b); got != i {
				t.Errorf("colour %d %v off by %d decodes as %d", i, c, d, got)
			}
		}
		for j, e := range marker.Palette[:i] {
			far := 0
			for k := range 3 {
				far = max(far, abs(int(c[k])-int(e[k])))
			}
			if far < 2*48+1 {
				t.Errorf("colours %d and %d differ by only %d", j, i, far)
			}
		}
	}
	if got := marker.Decode(30, 30, 40); got != -1 {
		t.Errorf("the sky decodes as marker %d", got)
	}
	if marker.Color(17) != marker.Palette[1] {
		t.Error("frame 17 is not colour 1")
	}
}

func clamp(v int) uint8 { return uint8(min(max(v, 0), 255)) }

func abs(v int) int { return max(v, -v) }
