package tickframe

import (
	"fmt"
	"strconv"

	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/gltf"
)

// modelMesh is the mesh id the -model model gets: the first mesh the demo
// registers (the renderer numbers them from 1), so that the world, created
// before the renderer, can name it.
const modelMesh = 1

// loadModel reads -model's file, if any, before anything opens: a file
// that cannot be read, is not glTF 2.0, uses what renderer/gltf does not
// support or has no triangles is a bad flag value (exit 2, one line). It
// returns nil without -model.
func loadModel(path string) (*gltf.Model, error) {
	if path == "" {
		return nil, nil
	}
	m, err := gltf.Load(path)
	if err != nil {
		return nil, usagef("-model: %v", err)
	}
	for _, me := range m.Meshes {
		if len(me.Indices) >= 3 {
			return m, nil
		}
	}
	return nil, usagef("-model %s: no triangles to draw", path)
}

// modelScene returns what registers m with the renderer, fitted to the
// default cube's size by its bounding box, as mesh modelMesh; nil for no
// model.
func modelScene(m *gltf.Model) func(*renderer.Renderer) error {
	if m == nil {
		return nil
	}
	return func(r *renderer.Renderer) error {
		id, err := r.AddModel(m, renderer.FitCube(m.Bounds))
		if err != nil {
			return fmt.Errorf("-model: %w", err)
		}
		if id != modelMesh {
			return fmt.Errorf("-model: the model is mesh %d, the world draws mesh %d", id, modelMesh)
		}
		return nil
	}
}

// quoteNames returns names from a model file (its extensions', its
// attributes') ready to print: a plain name (letters, digits, _) as it
// is, any other quoted as Go quotes it, so that no terminal escape in a
// file reaches the terminal.
func quoteNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		plain := n != ""
		for _, r := range n {
			if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				plain = false
				break
			}
		}
		if !plain {
			out[i] = strconv.Quote(n)
		}
	}
	return out
}
