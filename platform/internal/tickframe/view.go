package tickframe

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/tickframe/tickframe/platform"
	"github.com/tickframe/tickframe/platform/app"
	"github.com/tickframe/tickframe/platform/internal/outfile"
	"github.com/tickframe/tickframe/renderer"
	"github.com/tickframe/tickframe/renderer/gltf"
	"github.com/tickframe/tickframe/simthread"
)

const viewUsage = `usage: tickframe view [flags] FILE.glb|FILE.gltf

Shows a glTF model alone, framed by its bounding sphere, in its own
materials, turning on a turntable that the simulation steps at -hz; drag
to orbit, the wheel zooms, N cycles shaded, normals and wireframe views,
H shows the model's name and counts.
Flags:
`

// viewOptions are the viewer's validated flags.
type viewOptions struct {
	cfg    app.Config
	set    app.Settings
	file   string
	hud    bool
	ownHUD bool          // -hud is the viewer's flag, not app.Flags'
	turn   time.Duration // one turn of the turntable; 0: still
	anim   int           // the animation played, -1: none
}

// viewMain runs `tickframe view`: 0 after a clean run, 2 for a bad flag or
// a model that cannot be shown (one line), 1 for a failure at run time.
func viewMain(args []string, stdout, stderr io.Writer) int {
	o, err := parseViewFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	var m *gltf.Model
	if err == nil {
		m, err = loadViewModel(o)
	}
	if err == nil {
		err = view(o, m, stdout, stderr)
	}
	if err == nil {
		return 0
	}
	var se *renderer.ShaderError
	if errors.As(err, &se) {
		fmt.Fprintf(stderr, "tickframe: %v\n", err)
	} else {
		fmt.Fprintf(stderr, "tickframe: %s\n", oneLine(err.Error()))
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// parseViewFlags parses the viewer's command line; FILE may come before,
// after or among the flags.
func parseViewFlags(args []string, out io.Writer) (*viewOptions, error) {
	o := &viewOptions{}
	fs := flag.NewFlagSet("tickframe view", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	o.cfg.Look.HideHUD = true     // the caption hidden unless -hud or H
	app.Flags(fs, &o.cfg, &o.set) // -ground among them: the ground under the model
	// -hud is the app's where app.Flags registers it (it then sets
	// cfg.Look.HideHUD itself), the viewer's own otherwise.
	if o.ownHUD = fs.Lookup("hud") == nil; o.ownHUD {
		fs.BoolVar(&o.hud, "hud", false, "show the model's name and counts at the start (H toggles them)")
	}
	fs.DurationVar(&o.turn, "turn", 12*time.Second, "one turn of the turntable takes this long (0: still)")
	fs.IntVar(&o.anim, "anim", 0, "play animation `N` of the file, if it has any (-1: none)")
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(out, viewUsage)
				fs.SetOutput(out)
				fs.PrintDefaults()
				return nil, err
			}
			return nil, usagef("view: %v (see tickframe view -h)", err)
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch len(files) {
	case 0:
		return nil, usagef("view: no model file given (usage: tickframe view [flags] FILE.glb|FILE.gltf)")
	case 1:
		o.file = files[0]
	default:
		return nil, usagef("view: one model file at a time, got %d (%s)", len(files), strings.Join(files, ", "))
	}
	if ext := strings.ToLower(filepath.Ext(o.file)); ext != ".glb" && ext != ".gltf" {
		return nil, usagef("view %s: want a .glb or .gltf file", o.file)
	}
	if o.turn < 0 {
		return nil, usagef("view: -turn %v: want 0 (still) or a positive duration", o.turn)
	}
	if o.anim < -1 {
		return nil, usagef("view: -anim %d: want an animation index, or -1 for none", o.anim)
	}
	if o.cfg.Width < 1 || o.cfg.Height < 1 {
		return nil, usagef("view: window size %dx%d: want at least 1x1", o.cfg.Width, o.cfg.Height)
	}
	if o.set.Tools.Record != "" || o.set.Tools.Replay != "" {
		// The turntable is a function of time: nothing to record.
		return nil, usagef("view: -record and -replay are the demo's and the apps': the viewer's turntable has no inputs to record")
	}
	if err := app.Validate(o.cfg, o.set); err != nil {
		return nil, usagef("view: %v", err)
	}
	if s := o.set.Tools.Screenshot; s != "" {
		if strings.ToLower(filepath.Ext(s)) != ".png" {
			return nil, usagef("view: -screenshot %s: want a .png file", s)
		}
		if err := outfile.CheckWritable(s); err != nil {
			return nil, usagef("view: -screenshot %s: %v", s, err)
		}
	}
	return o, nil
}

// loadViewModel reads the model before any window opens: a file that
// cannot be read, decoded or drawn is a bad argument (exit 2).
func loadViewModel(o *viewOptions) (*gltf.Model, error) {
	m, err := gltf.Load(o.file)
	if err != nil {
		return nil, usagef("view: %v", err)
	}
	if modelTriangles(m) == 0 {
		return nil, usagef("view %s: no triangles to draw", o.file)
	}
	if o.anim > 0 && o.anim >= len(m.Animations) {
		return nil, usagef("view %s: -anim %d: the file has %s", o.file, o.anim, count(len(m.Animations), "animation", "animations"))
	}
	return m, nil
}

// The turntable's geometry, in metres: the model is scaled so that its
// bounding sphere has viewRadius, and stands on the ground (y = 0) at the
// origin; the timing marker, a small cube, rides the turntable's rim.
const (
	viewRadius   = 1.5
	markerRadius = 1.15 * viewRadius
	markerSize   = 0.035 // half-extent
	// viewMargin leaves a little room around the sphere in the frame.
	viewMargin = 1.08
)

// viewMesh is the first mesh id the viewer registers (ids are given from
// 1): the whole model's, or without -anim -1 and with an animation, the
// first node's, the others following in node order. The world, created
// before the renderer exists, counts on it.
const viewMesh = 1

// viewWorld is the viewer's world: a turntable turning at a fixed angular
// speed, read in closed form at each tick (no drift), carrying the model
// and, on its rim, the marker whose exact path the app measures the drawn
// frames against. With an animation it also samples the animation at
// each tick (looping over its keyframes) and publishes a body per node
// that draws primitives, posed as the animation and the turntable place
// it: the animation is the world's state, interpolated by the renderer
// like any body. Its state is the simulated time alone (the sum of the
// steps, as the meter's: ticks the simulation discards do not move it);
// Step and Snapshot do not allocate.
type viewWorld struct {
	omega float64    // rad/s
	lift  mgl32.Vec3 // where the model's fitted centre stands
	time  float64    // simulated seconds

	// With an animation: the model, the animation, the fitting
	// transform, the nodes drawn, and the pose at the last tick.
	model *gltf.Model
	anim  *gltf.Animation
	place mgl32.Mat4
	nodes []renderer.NodeMesh
	pose  []gltf.TRS
	world []mgl32.Mat4
	loop  uint32 // the animation's loops so far: the bodies' epoch
	// skin poses the model's skinned meshes, nil if it has none; clip is
	// the animation played and at its time at the last tick.
	skin *renderer.Character
	clip int
	at   float32
}

// viewSkin is the skinned model's id: the first AddSkinned registers.
const viewSkin = 1

// newViewWorld returns the world for model m, fitted by fit, turning at
// omega rad/s, playing animation anim (−1: none, or the model has none).
func newViewWorld(m *gltf.Model, fit viewFit, omega float64, anim int) *viewWorld {
	w := &viewWorld{omega: omega, lift: fit.centre, place: fit.place}
	if anim < 0 || anim >= len(m.Animations) {
		return w
	}
	w.model, w.anim, w.clip = m, &m.Animations[anim], anim
	w.skin, _ = renderer.NewCharacter(m) // nil: no skinned mesh
	w.pose = make([]gltf.TRS, len(m.Nodes))
	w.world = make([]mgl32.Mat4, len(m.Nodes))
	// The meshes AddNodeMeshes registers, in its order.
	seen := map[int]bool{}
	for i := range m.Meshes {
		me := &m.Meshes[i]
		if len(me.Indices) >= 3 && me.Joints == nil && !seen[me.NodeIndex] {
			seen[me.NodeIndex] = true
			w.nodes = append(w.nodes, renderer.NodeMesh{Node: me.NodeIndex, Mirror: me.Transform.Mat3().Det() < 0})
		}
	}
	slices.SortFunc(w.nodes, func(a, b renderer.NodeMesh) int { return a.Node - b.Node })
	for i := range w.nodes {
		w.nodes[i].Mesh = simthread.MeshID(viewMesh + i)
	}
	w.sample()
	return w
}

func (w *viewWorld) Step(_ uint64, dt float64, _ []simthread.Input) {
	w.time += dt
	w.sample()
}

// sample poses the model's nodes at the animation's time of the current
// tick: its keyframes' span looped from its start.
func (w *viewWorld) sample() {
	if w.anim == nil {
		return
	}
	a := w.anim
	t, span := w.time, float64(a.End-a.Start)
	at := float64(a.Start)
	if span > 0 {
		loops := math.Floor(t / span)
		at += t - loops*span
		w.loop = uint32(loops)
	}
	w.model.RestPose(w.pose)
	a.Sample(float32(at), w.pose)
	w.model.WorldPose(w.pose, w.world)
	w.at = float32(at)
}

// angle is the turntable's angle at simulated time t seconds, folded at
// 4π (a quaternion's period) so that float32 keeps it precise.
func (w *viewWorld) angle(t float64) float64 { return math.Mod(w.omega*t, 4*math.Pi) }

func (w *viewWorld) Snapshot(dst *simthread.Snapshot) {
	t := w.time
	a := w.angle(t)
	rot := mgl32.QuatRotate(float32(a), mgl32.Vec3{0, 1, 0})
	spin := mgl32.Vec3{0, float32(w.omega), 0}
	p := w.markerAt(t)
	dst.Bodies = append(dst.Bodies[:0], simthread.Body{
		Pos: mgl32.Vec3{float32(p[0]), float32(p[1]), float32(p[2])}, Rot: rot,
		Scale: simthread.UniformScale(markerSize), Color: simthread.RGB(255, 140, 30),
		Vel:    mgl32.Vec3{float32(-w.omega * markerRadius * math.Sin(a)), 0, float32(-w.omega * markerRadius * math.Cos(a))},
		AngVel: spin,
	})
	if w.anim == nil {
		dst.Bodies = append(dst.Bodies, simthread.Body{Pos: w.lift, Rot: rot, Scale: simthread.UniformScale(1),
			Color: simthread.White, Mesh: viewMesh, AngVel: spin})
		return
	}
	dst.Skins, dst.Joints = dst.Skins[:0], dst.Joints[:0]
	if w.skin != nil {
		w.skin.Pose(w.clip, w.at)
		place := mgl32.Translate3D(w.lift[0], w.lift[1], w.lift[2]).Mul4(rot.Mat4()).Mul4(w.place)
		dst.Skins = append(dst.Skins, simthread.Skin{Model: viewSkin, Color: simthread.White, Epoch: w.loop})
		dst.Joints = w.skin.Append(dst.Joints, place)
		dst.MorphWeights = w.skin.AppendWeights(dst.MorphWeights[:0]) // FirstWeight 0
	}
	for i := range w.nodes {
		n := &w.nodes[i]
		m := w.place.Mul4(w.world[n.Node])
		if n.Mirror {
			m = m.Mul4(renderer.MirrorX)
		}
		x := gltf.Decompose(m)
		dst.Bodies = append(dst.Bodies, simthread.Body{
			Pos: w.lift.Add(rot.Rotate(x.T)), Rot: rot.Mul(x.R), Scale: x.S,
			Color: simthread.White, Mesh: n.Mesh, Epoch: w.loop,
		})
	}
}

// markerAt is the marker's exact position at simulated time t: the point
// (markerRadius, 0, 0) of the turntable turned by its angle.
func (w *viewWorld) markerAt(t float64) mgl64.Vec3 {
	s, c := math.Sincos(w.angle(t))
	return mgl64.Vec3{markerRadius * c, markerSize, -markerRadius * s}
}

// viewFit is how the model is placed: the transform fitting it to the
// turntable, where its centre then stands, and the camera framing it.
type viewFit struct {
	place  mgl32.Mat4
	centre mgl32.Vec3
	camera renderer.Camera
}

// fitView scales the model so that its bounding sphere (about its box's
// centre, through its corners) has viewRadius, stands it on the ground and
// puts the camera at the distance where that sphere fills the narrower of
// the two fields of view of a width×height window.
func fitView(b gltf.Box, width, height int) viewFit {
	r := b.Size().Len() / 2
	s := float32(1)
	if r > 0 && finite32(r) {
		s = viewRadius / r
	}
	c := b.Center()
	place := mgl32.Scale3D(s, s, s).Mul4(mgl32.Translate3D(-c[0], -c[1], -c[2]))
	lift := (c[1] - b.Min[1]) * s // the lowest point on the ground
	centre := mgl32.Vec3{0, lift, 0}
	cam := renderer.DefaultCamera()
	cam.Target, cam.Yaw, cam.Pitch = centre, 0.5, 0.3
	aspect := float64(width) / float64(max(height, 1))
	half := float64(cam.FovY) / 2
	if aspect < 1 {
		half = math.Atan(math.Tan(half) * aspect)
	}
	cam.Distance = float32(viewMargin * viewRadius / math.Sin(half))
	cam.Near, cam.Far = cam.Distance/50, cam.Distance*40
	return viewFit{place: place, centre: centre, camera: cam}
}

func finite32(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }

// view runs the viewer on model m.
func view(o *viewOptions, m *gltf.Model, stdout, stderr io.Writer) (err error) {
	fit := fitView(m.Bounds, o.cfg.Width, o.cfg.Height)
	omega := 0.0
	if o.turn > 0 {
		omega = 2 * math.Pi / o.turn.Seconds()
	}
	world := newViewWorld(m, fit, omega, o.anim)
	cfg, set := o.cfg, o.set
	name := filepath.Base(o.file)
	cfg.Title = "tickframe view " + name
	cfg.Camera = func(c *renderer.Camera) { *c = fit.camera } // -near, -far (Settings) clip it
	if o.ownHUD {
		cfg.Look.HideHUD = !o.hud
	}
	set.Display.KeepRunningUnfocused = true
	if world.omega > 0 { // a model that does not turn has no motion to measure
		set.Tools.Truth = world.markerAt
		set.Tools.TruthSpeed = world.omega * markerRadius
	}
	// N cycles the view: shaded, normals, wireframe. The renderer is
	// the render thread's, as the input callback is.
	var rend *renderer.Renderer
	view := renderer.ViewShaded
	cfg.Input = func(e platform.Event) (simthread.Input, bool) {
		if e.Kind == platform.KeyEvent && e.Action == platform.Press && e.Key == 'N' && rend != nil {
			view = (view + 1) % (renderer.ViewWireframe + 1)
			rend.SetView(view)
		}
		return simthread.Input{}, false
	}
	cfg.Scene = func(r *renderer.Renderer) error {
		rend = r
		// Compact: the caption alone, no timing; hidden unless -hud or H,
		// as no panel fits beside the model in a small window.
		r.HUD().SetCaption(hudCaption(name, m, world)...)
		r.HUD().Compact = true
		if world.anim == nil {
			id, err := r.AddModel(m, fit.place)
			if err != nil {
				return err
			}
			if id != viewMesh {
				return fmt.Errorf("view: the model is mesh %d, the world draws mesh %d", id, viewMesh)
			}
			return nil
		}
		if world.skin != nil {
			id, err := r.AddSkinned(m)
			if err != nil {
				return err
			}
			if id != viewSkin {
				return fmt.Errorf("view: the skinned model is %d, the world draws %d", id, viewSkin)
			}
		}
		if len(world.nodes) == 0 {
			return nil // skinned meshes alone
		}
		nodes, err := r.AddNodeMeshes(m)
		if err != nil {
			return err
		}
		if !slices.Equal(nodes, world.nodes) {
			return fmt.Errorf("view: the model's node meshes are %v, the world draws %v", nodes, world.nodes)
		}
		return nil
	}
	fmt.Fprintf(stdout, "tickframe view: %s\n", modelSummary(name, m))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	// app.Run writes the report, the plot and the profiles asked for,
	// and says where the last frame went.
	return app.Run(ctx, cfg, world, app.WithSettings(&set))
}

// modelTriangles counts the triangles the scene places.
func modelTriangles(m *gltf.Model) int {
	n := 0
	for i := range m.Meshes {
		n += len(m.Meshes[i].Indices) / 3
	}
	return n
}

// modelSummary is one line about m: its counts, and what of the file the
// viewer does not show.
func modelSummary(name string, m *gltf.Model) string {
	s := name + ": " + strings.Join(modelCounts(m), ", ")
	if len(m.Ignored) > 0 {
		s += "; ignored: " + strings.Join(quoteNames(m.Ignored), ", ")
	}
	return s
}

// modelCounts counts what m holds: meshes, primitives, vertices,
// triangles, materials, textures, and animations if any.
func modelCounts(m *gltf.Model) []string {
	meshes := map[int]bool{}
	verts := 0
	for i := range m.Meshes {
		meshes[m.Meshes[i].MeshIndex] = true
		verts += len(m.Meshes[i].Positions)
	}
	c := []string{
		count(len(meshes), "mesh", "meshes"), count(len(m.Meshes), "primitive", "primitives"),
		count(verts, "vertex", "vertices"), count(modelTriangles(m), "triangle", "triangles"),
		count(len(m.Materials), "material", "materials"), count(len(m.Images), "texture", "textures"),
	}
	if n := len(m.Animations); n > 0 {
		c = append(c, count(n, "animation", "animations"))
	}
	return c
}

// viewCaptionLen is where the caption's lines wrap: 64 characters of
// 7 px and the panel's padding fit a 480 px window.
const viewCaptionLen = 64

// hudCaption is what the viewer's compact HUD shows: the model's name and
// counts, the animation played, what is ignored, wrapped at commas to
// viewCaptionLen, and the keys.
func hudCaption(name string, m *gltf.Model, w *viewWorld) []string {
	var lines []string
	lines = append(lines, wrap(name+": "+strings.Join(modelCounts(m), ", "), viewCaptionLen)...)
	if w.anim != nil {
		lines = append(lines, fmt.Sprintf("animation %d of %d %q, %.2f s", slices.Index(animPtrs(m), w.anim), len(m.Animations), w.anim.Name, w.anim.End-w.anim.Start))
	}
	if len(m.Ignored) > 0 {
		lines = append(lines, wrap("ignored: "+strings.Join(m.Ignored, ", "), viewCaptionLen)...)
	}
	return append(lines, "N shaded/normals/wireframe, H hides this")
}

// animPtrs returns pointers to m's animations, to find one by identity.
func animPtrs(m *gltf.Model) []*gltf.Animation {
	out := make([]*gltf.Animation, len(m.Animations))
	for i := range m.Animations {
		out[i] = &m.Animations[i]
	}
	return out
}

// wrap cuts s into lines of at most n bytes after its commas (a longer
// piece is cut where it must be).
func wrap(s string, n int) []string {
	var lines []string
	for len(s) > n {
		cut := strings.LastIndex(s[:n], ", ")
		if cut <= 0 {
			cut = n - 2
		}
		lines = append(lines, s[:cut+1])
		s = "  " + strings.TrimLeft(s[cut+1:], " ")
	}
	return append(lines, s)
}

// count is "1 mesh", "2 meshes".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
