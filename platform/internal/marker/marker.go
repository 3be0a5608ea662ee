// Package marker is the per-frame marker's code, shared by the
// instruments that draw it (with renderer.DrawMarker) and the observer
// that reads it back from the screen: a column of one colour down the
// window's left edge (as FCAT draws it), frame n in colour n mod 16; and
// the reaction patch beside it, for an observer that measures input to
// photon (docs/present.md, "Input to photon").
package marker

// Width is the width of the column in pixels.
const Width = 8

// ReactionX is where the reaction patch starts: a column of Width pixels
// right of the marker's, in colour Color(n) once the app has polled n
// presses of the observer's key.
const ReactionX = Width

// Palette is the marker's 16 colours, in order. Each channel is 0, 128 or
// 255, so that any two colours differ by at least 127 in some channel: an
// observer tells them apart after any rounding a copy to the screen makes.
var Palette = [16][3]uint8{
	{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 0},
	{255, 0, 255}, {0, 255, 255}, {255, 255, 255}, {128, 0, 0},
	{0, 128, 0}, {0, 0, 128}, {128, 128, 0}, {128, 0, 128},
	{0, 128, 128}, {255, 128, 0}, {0, 255, 128}, {128, 0, 255},
}

// Color returns frame id's colour.
func Color(id uint64) [3]uint8 { return Palette[id%uint64(len(Palette))] }

// Decode returns the index in Palette of a colour within 48 of one of
// Palette's in every channel, else -1.
func Decode(r, g, b uint8) int {
	for i, c := range Palette {
		if near(r, c[0]) && near(g, c[1]) && near(b, c[2]) {
			return i
		}
	}
	return -1
}

func near(a, b uint8) bool { return int(a)-int(b) <= 48 && int(b)-int(a) <= 48 }
