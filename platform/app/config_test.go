package app

import (
	"reflect"
	"testing"
)

// maxConfigLeaves is issue 35's bound on what a game sets: Config's
// leaves, counted as configLeaves counts them.
const maxConfigLeaves = 30

// configLeaves counts t's leaves: it descends into struct and
// pointer-to-struct fields and counts every other exported field as one.
func configLeaves(t reflect.Type) (n int, names []string) {
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		ft := f.Type
		if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct {
			k, sub := configLeaves(ft)
			n += k
			for _, s := range sub {
				names = append(names, f.Name+"."+s)
			}
			continue
		}
		n++
		names = append(names, f.Name)
	}
	return n, names
}

// Config holds what a game sets, at most maxConfigLeaves leaves; the
// tuning knobs are Settings.
func TestConfigLeaves(t *testing.T) {
	n, names := configLeaves(reflect.TypeFor[Config]())
	if n > maxConfigLeaves {
		t.Errorf("Config has %d leaves, more than %d: %v", n, maxConfigLeaves, names)
	}
	t.Logf("Config: %d leaves: %v", n, names)
}
