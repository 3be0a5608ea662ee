package renderer_test

import (
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/internal/gltest"
	"github.com/tickframe/tickframe/shaders"
	"github.com/tickframe/tickframe/simthread"
)

var update = flag.Bool("update", false, "rewrite the golden images in testdata/")

func TestMain(m *testing.M) {
	flag.Parse()
	code := 0
	gltest.Main(func() { code = m.Run() })
	if code == 0 && failedDir.name != "" {
		// Only the break tests' frames, which were meant to fail.
		os.RemoveAll(failedDir.name)
	}
	os.Exit(code)
}

const width, height = 480, 320

// onMain runs f on the main thread with a window and GL context open, and
// fails the test with the error f returns. f must not call t.Fatal: that
// would end the main goroutine, which serves every GL call. It skips the
// test when there is no display.
func onMain(t *testing.T, f func(w *gltest.Window) error) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" {
		t.Skip("needs a display: run `make test`, which starts Xvfb, or set DISPLAY")
	}
	var err error
	gltest.Call(func() {
		var w *gltest.Window
		w, err = gltest.Open(t.Name(), width, height, false)
		if err != nil {
			return
		}
		defer w.Close()
		err = f(w)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestShaderErrorNamesFileLogAndLines(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		common, _ := shaders.FS.ReadFile(shaders.Common)
		files := fstest.MapFS{
			shaders.Common: {Data: common},
			"broken.vert":  {Data: []byte("void main() {\n    gl_Position = vec4(1.0);\n    undeclared = 2.0;\n}\n")},
			"ok.frag":      {Data: []byte("out vec4 c;\nvoid main() { c = vec4(1.0); }\n")},
		}
		_, err := renderer.LoadProgram(files, "broken.vert", "ok.frag")
		var se *renderer.ShaderError
		if !errors.As(err, &se) {
			return fmt.Errorf("LoadProgram = %v, want a *ShaderError", err)
		}
		msg := err.Error()
		for _, want := range []string{"renderer: compile shaders/broken.vert (vertex):", "0:3", "undeclared", "   3      undeclared = 2.0;"} {
			if !strings.Contains(msg, want) {
				t.Errorf("error does not contain %q:\n%s", want, msg)
			}
		}
		if _, err := renderer.LoadProgram(files, "missing.vert", "ok.frag"); err == nil || !strings.Contains(err.Error(), "shaders/missing.vert") {
			t.Errorf("missing file: %v", err)
		}
		if e := gl.GetError(); e != gl.NO_ERROR {
			t.Errorf("failed loads left GL error 0x%x", e)
		}
		return nil
	})
}

// scene is a sequence of snapshots rendered without a simulation: the
// plans it makes name them by their sequence numbers, as the planner's do.
type scene struct {
	snaps []*simthread.Snapshot
}

func newScene() *scene { return &scene{} }

func (s *scene) publish(tick uint64, bodies []simthread.Body) {
	t := time.Duration(tick) * 10 * time.Millisecond
	s.snaps = append(s.snaps, &simthread.Snapshot{Tick: tick, Time: t, Published: t,
		Bodies: append([]simthread.Body(nil), bodies...)})
}

// newest plans the newest snapshot alone.
func (s *scene) newest() renderer.Plan {
	n := len(s.snaps)
	return renderer.Plan{Prev: s.snaps[n-1], Next: s.snaps[n-1], PrevSeq: uint64(n), NextSeq: uint64(n), Alpha: 1, Ready: true}
}

// pair plans the two newest snapshots at alpha.
func (s *scene) pair(alpha float32) renderer.Plan {
	n := len(s.snaps)
	return renderer.Plan{Prev: s.snaps[n-2], Next: s.snaps[n-1], PrevSeq: uint64(n - 1), NextSeq: uint64(n), Alpha: alpha, Ready: true}
}

func render(r *renderer.Renderer, plan renderer.Plan, cam renderer.Camera) (*image.RGBA, error) {
	if err := r.Draw(&plan, &cam, width, height); err != nil {
		return nil, err
	}
	return renderer.ReadFrame(nil, width, height)
}

// isRef reports whether a pixel has the reference body's orange hue, lit
// or in shade: the swarm is blue to violet, the ground grey.
func isRef(c color.RGBA) bool {
	return c.R > 90 && int(c.R) > int(c.B)+60
}

// refCentroid finds the reference body's pixels.
func refCentroid(img *image.RGBA) (x, y float64, n int) {
	for py := 0; py < img.Rect.Dy(); py++ {
		for px := 0; px < img.Rect.Dx(); px++ {
			if isRef(img.RGBAAt(px, py)) {
				x += float64(px)
				y += float64(py)
				n++
			}
		}
	}
	if n > 0 {
		x /= float64(n)
		y /= float64(n)
	}
	return x, y, n
}

// TestFrameShowsTheReferenceBodyWhereTheSimulationPutsIt runs a test
// world for a moment, draws a real frame under the window's GL context and
// finds the reference body on screen where its interpolated position
// projects, within a few pixels.
func TestFrameShowsTheReferenceBodyWhereTheSimulationPutsIt(t *testing.T) {
	onMain(t, func(w *gltest.Window) error {
		// Few enough bodies that nothing hides the reference body.
		tl := newTimeline(renderer.NewTestWorld(40, 1, false), simthread.DefaultRate, renderer.MotionLerp)
		r, err := renderer.New(tl.depth, renderer.Options{})
		if err != nil {
			return err
		}
		defer r.Delete()
		r.HUD().Visible = false
		var plan renderer.Plan
		for i := 1; i <= 40; i++ { // 40 frames at 144 Hz, the world at 120 Hz
			plan = tl.plan(time.Duration(i) * time.Second / 144)
			if err := r.Draw(&plan, ptr(renderer.DefaultCamera()), width, height); err != nil {
				return err
			}
		}
		img, err := renderer.ReadFrame(nil, width, height)
		if err != nil {
			return err
		}
		// Not blank: many distinct colours.
		seen := map[color.RGBA]bool{}
		for i := 0; i < len(img.Pix); i += 4 * 97 {
			seen[color.RGBA{img.Pix[i], img.Pix[i+1], img.Pix[i+2], 255}] = true
		}
		if len(seen) < 20 {
			return fmt.Errorf("frame looks blank: %d distinct colours", len(seen))
		}
		prev, cur := plan.Prev.Bodies[0], plan.Next.Bodies[0]
		pos := renderer.Lerp(prev.Pos, cur.Pos, plan.Alpha)
		wantX, wantY, ok := project(renderer.DefaultCamera(), pos, width, height)
		if !ok {
			return errors.New("reference body behind the camera")
		}
		x, y, n := refCentroid(img)
		if n < 20 {
			return fmt.Errorf("reference body not found on screen (%d pixels); expected at %.0f,%.0f%s", n, wantX, wantY, saveFailure(img))
		}
		if d := math.Hypot(x-float64(wantX), y-float64(wantY)); d > 4 {
			return fmt.Errorf("reference body drawn at %.1f,%.1f, simulation puts it at %.1f,%.1f (%.1f px off)%s", x, y, wantX, wantY, d, saveFailure(img))
		}
		return nil
	})
}

func ptr[T any](v T) *T { return &v }

// failedDir holds the frames saveFailure wrote in this test process; it
// is removed when every test passed, so that the frames the break tests
// make fail on purpose do not pile up in the temporary directory.
var failedDir struct {
	sync.Mutex
	name string
}

// saveFailure writes a failing frame where the developer can look at it
// and returns a note saying where.
func saveFailure(img image.Image) string {
	failedDir.Lock()
	if failedDir.name == "" {
		failedDir.name, _ = os.MkdirTemp("", "tickframe-renderer-failed-")
	}
	dir := failedDir.name
	failedDir.Unlock()
	if dir == "" {
		return ""
	}
	f, err := os.CreateTemp(dir, "frame-*.png")
	if err != nil {
		return ""
	}
	defer f.Close()
	if png.Encode(f, img) != nil {
		return ""
	}
	return " (frame saved to " + f.Name() + ")"
}

// TestTeleportDoesNotStreak renders a body that jumped between the two
// snapshots (new epoch) half-way through the interpolation: it must be
// drawn at its new position only, not half-way along the jump.
func TestTeleportDoesNotStreak(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		s := newScene()
		r, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1})
		if err != nil {
			return err
		}
		defer r.Delete()
		r.HUD().Visible = false
		cam := renderer.DefaultCamera()
		ref := simthread.Body{Pos: mgl32.Vec3{-8, 2, 0}, Scale: simthread.UniformScale(0.8), Rot: mgl32.QuatIdent(), Color: renderer.RefColor}
		s.publish(1, []simthread.Body{ref})
		r.Draw(ptr(s.newest()), &cam, width, height)
		jumped := ref
		jumped.Pos = mgl32.Vec3{8, 2, 0}
		for _, epoch := range []uint32{0, 1} {
			jumped.Epoch = epoch
			s.publish(uint64(2+epoch), []simthread.Body{jumped})
			img, err := render(r, s.pair(0.5), cam)
			if err != nil {
				return err
			}
			x, y, n := refCentroid(img)
			mid, _, _ := project(cam, mgl32.Vec3{0, 2, 0}, width, height)
			end, _, _ := project(cam, jumped.Pos, width, height)
			if n == 0 {
				return fmt.Errorf("epoch %d: body not drawn", epoch)
			}
			if epoch == 0 && math.Abs(x-float64(mid)) > 10 {
				return fmt.Errorf("same epoch: body at x=%.0f, want the interpolated midpoint %.0f", x, mid)
			}
			if epoch == 1 && math.Abs(x-float64(end)) > 10 {
				return fmt.Errorf("new epoch: body at x=%.0f,%.0f, want its new position %.0f (no streak through %.0f)", x, y, end, mid)
			}
			// Put the body back for the next round.
			s.publish(uint64(10+epoch), []simthread.Body{ref})
			r.Draw(ptr(s.newest()), &cam, width, height)
		}
		return nil
	})
}

// TestGoldenFrame compares a fixed scene, drawn with the HUD, with
// testdata/golden.png within a tolerance (go test -update rewrites it).
func TestGoldenFrame(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		s := newScene()
		world := renderer.NewTestWorld(200, 42, false)
		var snap simthread.Snapshot
		for k := uint64(1); k <= 120; k++ {
			world.Step(k, 1.0/120, nil)
		}
		world.Snapshot(&snap)
		s.publish(120, snap.Bodies)
		r, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1})
		if err != nil {
			return err
		}
		defer r.Delete()
		h := r.HUD()
		*h.Line(0) = append(*h.Line(0), "tickframe golden 0123456789 .:%/"...)
		h.SetLines(1)
		for i := 0; i < 100; i++ {
			h.AddFrame(float32(6.9+0.3*math.Sin(float64(i)/5)), 6.94)
		}
		img, err := render(r, s.newest(), renderer.DefaultCamera())
		if err != nil {
			return err
		}
		golden := filepath.Join("testdata", "golden.png")
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				return err
			}
			return writePNG(golden, img)
		}
		f, err := os.Open(golden)
		if err != nil {
			return fmt.Errorf("%v (run go test -update to create it)", err)
		}
		defer f.Close()
		want, err := png.Decode(f)
		if err != nil {
			return err
		}
		if want.Bounds() != img.Bounds() {
			return fmt.Errorf("golden is %v, frame is %v", want.Bounds(), img.Bounds())
		}
		var sum float64
		bad := 0
		for y := 0; y < height; y++ {
			for x := 0; x < width; x++ {
				a := img.RGBAAt(x, y)
				br, bg, bb, _ := want.At(x, y).RGBA()
				d := max(absDiff(a.R, uint8(br>>8)), absDiff(a.G, uint8(bg>>8)), absDiff(a.B, uint8(bb>>8)))
				sum += float64(d)
				if d > 48 {
					bad++
				}
			}
		}
		mean := sum / float64(width*height)
		if mean > 2 || bad > width*height/100 {
			return fmt.Errorf("frame differs from %s: mean channel difference %.2f, %d pixels off by more than 48%s", golden, mean, bad, saveFailure(img))
		}
		return nil
	})
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// TestGLErrorsSurface makes GL raise an error in the middle of a frame and
// checks that Draw returns it as an error instead of drawing a silent
// black frame, and that the next frame is clean.
func TestGLErrorsSurface(t *testing.T) {
	onMain(t, func(*gltest.Window) error {
		s := newScene()
		r, err := renderer.New(simthread.DefaultHistory, renderer.Options{Samples: -1})
		if err != nil {
			return err
		}
		defer r.Delete()
		cam := renderer.DefaultCamera()
		s.publish(1, []simthread.Body{{Scale: simthread.UniformScale(1), Rot: mgl32.QuatIdent(), Color: renderer.RefColor}})
		gl.BindBuffer(gl.ARRAY_BUFFER, 0xdead) // never generated: GL_INVALID_OPERATION in core
		err = r.Draw(ptr(s.newest()), &cam, width, height)
		if !errors.Is(err, renderer.ErrGL) || !strings.Contains(err.Error(), "GL_INVALID_OPERATION") {
			return fmt.Errorf("a GL error during the frame gave %v, want a renderer error naming GL_INVALID_OPERATION", err)
		}
		if err := r.Draw(ptr(s.newest()), &cam, width, height); err != nil {
			return fmt.Errorf("the next frame: %v", err)
		}
		return nil
	})
}
