package renderer_test

import (
	"fmt"
	"image/color"
	"testing"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/simthread"
)

// normalColour is what normal.frag draws for the unit normal n, encoded
// as the framebuffer stores it.
func normalColour(n mgl32.Vec3) color.RGBA {
	return color.RGBA{srgb(float64(n[0])*0.5 + 0.5), srgb(float64(n[1])*0.5 + 0.5), srgb(float64(n[2])*0.5 + 0.5), 255}
}

// TestPrimitivesDrawOutsideIn draws each primitive with a material that
// shows the normal as a colour, around a red cube half its size, and reads
// the frame back: where the camera looks at the mesh's front (and, on
// the sphere, at points 37° and 53° off its axis) it must see the outside
// with its outward normal. An inside-out mesh shows the red cube through
// its culled front, or its far side's normal: a sphere with every
// triangle reversed is drawn too, and must fail the same check. The
// bodies are zero-value literals but for Pos, Mesh, Material and Color:
// a zero Scale draws them at their own size, a zero Rot unrotated.
func TestPrimitivesDrawOutsideIn(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		r, err := newTestRenderer()
		if err != nil {
			return err
		}
		defer r.Delete()
		nm := unlit(mgl32.Vec4{1, 1, 1, 1}, nil)
		nm.Shader = "normal.frag"
		normals, err := r.AddMaterial(nm)
		if err != nil {
			return err
		}
		red, err := r.AddMaterial(unlit(mgl32.Vec4{1, 0, 0, 1}, nil))
		if err != nil {
			return err
		}
		reversed := renderer.SphereMesh(32, 16)
		for i := 0; i+2 < len(reversed.Indices); i += 3 {
			reversed.Indices[i+1], reversed.Indices[i+2] = reversed.Indices[i+2], reversed.Indices[i+1]
		}
		type shape struct {
			name  string
			part  renderer.Part
			front float32 // the distance of the front from the centre along +z
			bad   bool    // must fail
		}
		shapes := []shape{
			{"sphere", renderer.SphereMesh(32, 16), 1, false},
			{"box", renderer.BoxMesh(), 1, false},
			{"capsule", renderer.CapsuleMesh(0.5, 32, 8), 0.5, false},
			{"cylinder", renderer.CylinderMesh(32), 1, false},
			{"reversed sphere", reversed, 1, true},
		}
		cam := frontCamera()
		centre := mgl32.Vec3{0, 5, 0}
		white := simthread.RGB(255, 255, 255)
		s := newScene()
		for _, sh := range shapes {
			id, err := r.AddMesh(sh.part)
			if err != nil {
				return fmt.Errorf("%s: %w", sh.name, err)
			}
			bodies := []simthread.Body{
				{Pos: centre, Mesh: id, Material: normals, Color: white},
				{Pos: centre, Scale: simthread.UniformScale(0.5 * sh.front), Material: red, Color: white},
			}
			img, err := drawBodies(r, s, cam, bodies)
			if err != nil {
				return err
			}
			probes := []mgl32.Vec3{{0, 0, 1}}
			if sh.name == "sphere" || sh.name == "reversed sphere" {
				probes = append(probes, mgl32.Vec3{0.6, 0, 0.8}, mgl32.Vec3{0, -0.8, 0.6})
			}
			var bad error
			for _, n := range probes {
				got, err := pixelAt(img, cam, centre.Add(n.Mul(sh.front)))
				if err != nil {
					return err
				}
				// The facets are flat: a smooth normal is met within a few
				// degrees of the probe's.
				if want := normalColour(n); !near(got, want, 14) {
					bad = fmt.Errorf("%s: at normal %v the frame shows %v, want %v (outside)%s", sh.name, n, got, want, saveFailure(img))
					break
				}
			}
			if sh.bad != (bad != nil) {
				if bad == nil {
					bad = fmt.Errorf("%s: drawn as if it were the right way out", sh.name)
				}
				return bad
			}
		}
		return gl2err(gl.GetError())
	})
}
