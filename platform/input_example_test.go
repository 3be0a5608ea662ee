package platform_test

import (
	"fmt"

	"github.com/tickframe/tickframe/platform"
)

// "Hold W to walk": a press and a release bracket the time a key is held,
// with the system's repeats between them, so an array indexed by Key
// keeps what is held now. A printable key is its character ('W'), the
// others platform's constants: no GLFW import.
func ExampleEvent() {
	var held [platform.KeyLast + 1]bool
	events := []platform.Event{
		{Kind: platform.KeyEvent, Key: 'W', Action: platform.Press},
		{Kind: platform.KeyEvent, Key: 'W', Action: platform.Repeat},
		{Kind: platform.KeyEvent, Key: platform.KeyLeftShift, Action: platform.Press},
		{Kind: platform.KeyEvent, Key: 'W', Action: platform.Release, Mods: platform.ModShift},
	}
	for _, e := range events {
		if e.Kind == platform.KeyEvent {
			held[e.Key] = e.Action != platform.Release
		}
		fmt.Printf("%v %v: walking %v, running %v\n", e.Key, e.Action,
			held['W'], held['W'] && held[platform.KeyLeftShift])
	}
	// Output:
	// W Press: walking true, running false
	// W Repeat: walking true, running false
	// LeftShift Press: walking true, running true
	// W Release: walking false, running false
}
