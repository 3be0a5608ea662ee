package gltf

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// A treeNode is a node of the file's tree, for animation: its parent and
// its transform relative to the parent, as translation, rotation and
// scale, or as a matrix (which no animation may target).
type treeNode struct {
	Name   string
	Parent int // -1 for a root
	// Rest is the node's local transform in the file; where the file
	// gives a matrix, HasMatrix is true and Matrix holds it instead.
	Rest      TRS
	Matrix    mgl32.Mat4
	HasMatrix bool
}

// A TRS is a node's local transform: scale, then rotation, then
// translation.
type TRS struct {
	T mgl32.Vec3
	R mgl32.Quat
	S mgl32.Vec3
}

// Mat4 returns T·R·S.
func (x TRS) Mat4() mgl32.Mat4 {
	return mgl32.Translate3D(x.T[0], x.T[1], x.T[2]).Mul4(x.R.Mat4()).Mul4(mgl32.Scale3D(x.S[0], x.S[1], x.S[2]))
}

// An Animation is a glTF animation: channels that each drive one node's
// translation, rotation or scale from a sampler's keyframes.
type Animation struct {
	Name     string
	Channels []Channel
	// Start and End are the earliest and the latest keyframe time of all
	// channels, in seconds.
	Start, End float32
}

// Path is the property a channel animates.
type Path uint8

const (
	Translation Path = iota
	Rotation
	Scale
	// Weights drives the morph weights of the node's mesh (one value a
	// target per keyframe; Animation.SampleWeights).
	Weights
)

func (p Path) String() string {
	switch p {
	case Translation:
		return "translation"
	case Rotation:
		return "rotation"
	case Scale:
		return "scale"
	case Weights:
		return "weights"
	}
	return fmt.Sprintf("Path(%d)", int(p))
}

// Interpolation is a sampler's interpolation between keyframes.
type Interpolation uint8

const (
	// InterpLinear interpolates linearly; rotations by slerp along the
	// shorter arc.
	InterpLinear Interpolation = iota
	// InterpStep holds each keyframe's value until the next.
	InterpStep
	// InterpCubicSpline is a cubic Hermite spline with an in- and an
	// out-tangent per keyframe, scaled by the keyframe interval;
	// rotations are normalised afterwards.
	InterpCubicSpline
)

func (i Interpolation) String() string {
	switch i {
	case InterpLinear:
		return "LINEAR"
	case InterpStep:
		return "STEP"
	case InterpCubicSpline:
		return "CUBICSPLINE"
	}
	return fmt.Sprintf("Interpolation(%d)", int(i))
}

// A Channel drives one property of one node.
type Channel struct {
	Node   int
	Path   Path
	Interp Interpolation
	// Times are the keyframe times in seconds, increasing. Values holds
	// per keyframe the value (3 floats for a translation or a scale, 4
	// for a rotation as x, y, z, w, one a morph target for weights), or
	// for InterpCubicSpline the in-tangent, the value and the
	// out-tangent.
	Times  []float32
	Values []float32
}

// RestPose writes every node's local transform in the file into pose,
// which must have one entry per node (len(m.Nodes)). Nodes with a matrix
// are left as they are in pose: WorldPose uses their matrix.
func (m *Model) RestPose(pose []TRS) {
	for i := range m.Nodes {
		pose[i] = m.Nodes[i].Rest
	}
}

// Sample writes the animation's values at time t seconds into pose (one
// entry per node), for the nodes and properties its channels drive;
// before a channel's first keyframe it holds the first value, after its
// last the last. It does not allocate.
func (a *Animation) Sample(t float32, pose []TRS) {
	for i := range a.Channels {
		c := &a.Channels[i]
		if c.Path == Weights {
			continue // SampleWeights
		}
		n := 3
		if c.Path == Rotation {
			n = 4
		}
		var v [4]float32
		c.sample(t, n, v[:])
		x := &pose[c.Node]
		switch c.Path {
		case Translation:
			x.T = mgl32.Vec3{v[0], v[1], v[2]}
		case Scale:
			x.S = mgl32.Vec3{v[0], v[1], v[2]}
		case Rotation:
			q := mgl32.Quat{W: v[3], V: mgl32.Vec3{v[0], v[1], v[2]}}
			if l := q.Len(); l > 0 && isFinite(l) {
				q = q.Scale(1 / l)
			} else {
				q = mgl32.QuatIdent()
			}
			x.R = q
		}
	}
}

// sample evaluates the channel at t into v's first n components.
func (c *Channel) sample(t float32, n int, v []float32) {
	times := c.Times
	stride, off := n, 0 // floats per keyframe, and the value's place in it
	if c.Interp == InterpCubicSpline {
		stride, off = 3*n, n
	}
	at := func(k int) []float32 { return c.Values[k*stride+off : k*stride+off+n] }
	last := len(times) - 1
	switch {
	case !(t > times[0]): // also NaN
		copy(v[:n], at(0))
		return
	case t >= times[last]:
		copy(v[:n], at(last))
		return
	}
	// The keyframe interval [k, k+1) holding t: a binary search.
	lo, hi := 0, last
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if times[mid] <= t {
			lo = mid
		} else {
			hi = mid
		}
	}
	k := lo
	td := times[k+1] - times[k]
	s := (t - times[k]) / td
	a, b := at(k), at(k+1)
	switch c.Interp {
	case InterpStep:
		copy(v[:n], a)
	case InterpLinear:
		if c.Path == Rotation {
			qa := mgl32.Quat{W: a[3], V: mgl32.Vec3{a[0], a[1], a[2]}}
			qb := mgl32.Quat{W: b[3], V: mgl32.Vec3{b[0], b[1], b[2]}}
			if qa.Dot(qb) < 0 {
				qb = qb.Scale(-1) // the shorter arc
			}
			q := mgl32.QuatSlerp(qa.Normalize(), qb.Normalize(), s)
			v[0], v[1], v[2], v[3] = q.V[0], q.V[1], q.V[2], q.W
			return
		}
		for j := range n {
			v[j] = a[j] + (b[j]-a[j])*s
		}
	case InterpCubicSpline:
		outA := c.Values[k*stride+2*n : k*stride+3*n]  // a_k's out-tangent
		inB := c.Values[(k+1)*stride : (k+1)*stride+n] // b's in-tangent
		s2, s3 := s*s, s*s*s
		h00, h10 := 2*s3-3*s2+1, s3-2*s2+s
		h01, h11 := -2*s3+3*s2, s3-s2
		for j := range n {
			v[j] = h00*a[j] + h10*td*outA[j] + h01*b[j] + h11*td*inB[j]
		}
	}
}

// WorldPose writes the world (model-space) transform of every node the
// scene places into world (one entry per node), from the local
// transforms in pose: a node's parent's world times its own local. Nodes
// the scene does not place are left as they are. It does not allocate.
func (m *Model) WorldPose(pose []TRS, world []mgl32.Mat4) {
	for _, i := range m.order {
		nd := &m.Nodes[i]
		local := nd.Matrix
		if !nd.HasMatrix {
			local = pose[i].Mat4()
		}
		if nd.Parent < 0 {
			world[i] = local
		} else {
			world[i] = world[nd.Parent].Mul4(local)
		}
	}
}

// animated reports, for each node, whether animation a moves it: it or
// one of its ancestors is the target of one of a's channels.
func (m *Model) animated(a *Animation) []bool {
	moved := make([]bool, len(m.Nodes))
	for i := range a.Channels {
		moved[a.Channels[i].Node] = true
	}
	for _, i := range m.order { // parents first
		if p := m.Nodes[i].Parent; p >= 0 && moved[p] {
			moved[i] = true
		}
	}
	return moved
}

// animation decodes animation i.
func (d *decoder) animation(i int, m *Model) (Animation, error) {
	ap := fmt.Sprintf("animations[%d]", i)
	src := &d.doc.Animations[i]
	a := Animation{Name: src.Name}
	first := true
	targets := map[[2]int]int{} // node and path: the channel animating it
	for j := range src.Channels {
		cp := fmt.Sprintf("%s.channels[%d]", ap, j)
		ch := &src.Channels[j]
		if ch.Target.Node == nil {
			continue // the specification: a channel without a node is ignored
		}
		var path Path
		switch ch.Target.Path {
		case "translation":
			path = Translation
		case "rotation":
			path = Rotation
		case "scale":
			path = Scale
		case "weights":
			path = Weights
		default:
			return a, d.refuse(cp+".target.path", "path %s is not one glTF 2.0 lists", quote(ch.Target.Path))
		}
		node := *ch.Target.Node
		if node < 0 || node >= len(m.Nodes) {
			return a, d.errorf(cp+".target.node", "node %d does not exist (%d nodes)", node, len(m.Nodes))
		}
		if m.Nodes[node].HasMatrix {
			return a, d.errorf(cp+".target.node", "node %d has a matrix, which an animation may not target", node)
		}
		if ch.Sampler < 0 || ch.Sampler >= len(src.Samplers) {
			return a, d.errorf(cp+".sampler", "sampler %d does not exist (%d samplers)", ch.Sampler, len(src.Samplers))
		}
		sp := fmt.Sprintf("%s.samplers[%d]", ap, ch.Sampler)
		smp := &src.Samplers[ch.Sampler]
		c := Channel{Node: node, Path: path}
		switch smp.Interpolation {
		case "", "LINEAR":
		case "STEP":
			c.Interp = InterpStep
		case "CUBICSPLINE":
			c.Interp = InterpCubicSpline
		default:
			return a, d.refuse(sp+".interpolation", "interpolation %s is not one glTF 2.0 lists", quote(smp.Interpolation))
		}
		var err error
		if c.Times, err = d.floats(smp.Input, 1, sp+".input"); err != nil {
			return a, err
		}
		if t := c.Times[0]; t < 0 {
			return a, d.errorf(sp+".input", "keyframe time 0 is %g s: negative", t)
		}
		for k, t := range c.Times {
			if k > 0 && !(t > c.Times[k-1]) {
				return a, d.errorf(sp+".input", "keyframe time %d (%g s) does not follow %g s", k, t, c.Times[k-1])
			}
		}
		n, comps := 3, 3 // floats a keyframe, and an output element's
		switch path {
		case Rotation:
			n, comps = 4, 4
		case Weights:
			if n, err = d.nodeTargets(node, cp+".target.node"); err != nil {
				return a, err
			}
			comps = 1
		}
		if c.Values, err = d.floats(smp.Output, comps, sp+".output"); err != nil {
			return a, err
		}
		want := len(c.Times) * n
		if c.Interp == InterpCubicSpline {
			want *= 3
		}
		if len(c.Values) != want {
			return a, d.errorf(sp+".output", "%d values for %d keyframes of %s %s: want %d",
				len(c.Values)/n, len(c.Times), c.Interp, path, want/n)
		}
		if path == Weights {
			for k, x := range c.Values {
				if math.Abs(float64(x)) > maxWeight {
					return a, d.limit(sp+".output", "weight %d is %g: more than %d in magnitude", k, x, maxWeight)
				}
			}
		}
		if path == Rotation {
			// The keyframes' values (a cubic spline's tangents may be
			// zero): unit quaternions, which a zero one cannot be made.
			stride, off := 4, 0
			if c.Interp == InterpCubicSpline {
				stride, off = 12, 4
			}
			for k := range c.Times {
				q := c.Values[k*stride+off : k*stride+off+4]
				if q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0 {
					return a, d.errorf(sp+".output", "keyframe %d is the zero quaternion, not a rotation", k)
				}
			}
		}
		target := [2]int{node, int(path)}
		if k, ok := targets[target]; ok {
			return a, d.errorf(cp+".target", "channel %d already animates node %d's %s", k, node, path)
		}
		targets[target] = j
		if first || c.Times[0] < a.Start {
			a.Start = c.Times[0]
		}
		if first || c.Times[len(c.Times)-1] > a.End {
			a.End = c.Times[len(c.Times)-1]
		}
		first = false
		a.Channels = append(a.Channels, c)
	}
	return a, nil
}

// floats reads a float accessor of n components per element (SCALAR for
// 1) as a flat slice of finite values.
func (d *decoder) floats(acc, n int, path string) ([]float32, error) {
	e, err := d.accessor(acc, path)
	if err != nil {
		return nil, err
	}
	if e.comp != typeFloat || e.n != n {
		want := "SCALAR"
		if n > 1 {
			want = fmt.Sprintf("VEC%d", n)
		}
		if e.comp != typeFloat {
			return nil, d.refuse(path, "accessor %d is %s: only float %s keyframes are supported", acc, typeName(e), want)
		}
		return nil, d.errorf(path, "accessor %d is %s, want float %s", acc, typeName(e), want)
	}
	out := make([]float32, e.count*n)
	for k := range e.count {
		b := e.at(k)
		for j := range n {
			bits := le.Uint32(b[4*j:])
			if !finiteBits(bits) {
				return nil, d.errorf(path, "accessor %d element %d is not finite", acc, k)
			}
			out[k*n+j] = math.Float32frombits(bits)
		}
	}
	return out, nil
}

// Decompose returns the translation, rotation and scale whose T·R·S is m:
// exact where m is one (every world transform of a tree of TRS nodes
// whose scaled parents do not rotate their children, the common case),
// else the rotation nearest m's columns once they are normalised and the
// columns' lengths. A mirroring m (negative determinant) gets a negative
// x scale. It does not allocate.
func Decompose(m mgl32.Mat4) TRS {
	x, y, z := m.Col(0).Vec3(), m.Col(1).Vec3(), m.Col(2).Vec3()
	s := mgl32.Vec3{x.Len(), y.Len(), z.Len()}
	if x.Cross(y).Dot(z) < 0 {
		s[0] = -s[0]
	}
	var r mgl32.Mat3
	for c, v := range [3]mgl32.Vec3{x, y, z} {
		if s[c] != 0 {
			v = v.Mul(1 / s[c])
		}
		r[3*c], r[3*c+1], r[3*c+2] = v[0], v[1], v[2]
	}
	q := mgl32.Mat4ToQuat(r.Mat4())
	if l := q.Len(); l > 0 && isFinite(l) {
		q = q.Scale(1 / l)
	} else {
		q = mgl32.QuatIdent()
	}
	return TRS{T: m.Col(3).Vec3(), R: q, S: s}
}

// checkReach refuses animation a (at JSON path ap) where it could move a
// vertex of m more than maxCoord from the origin. The bound is
// conservative (it is a bound of the sampled poses, not their maximum):
// down the tree, a node's world scale is at most its parent's times its
// own largest scale, and its world translation at most its parent's plus
// its parent's scale times its own translation's length; reach is its
// mesh's farthest vertex placed so. reach holds each mesh's farthest
// vertex from its own origin.
func (d *decoder) checkReach(m *Model, a *Animation, ap string, reach []float64) error {
	n := len(m.Nodes)
	tb, sb := make([]float64, n), make([]float64, n)
	for i := range m.Nodes {
		nd := &m.Nodes[i]
		if nd.HasMatrix {
			x := nd.Matrix
			tb[i] = math.Sqrt(sq(x[12]) + sq(x[13]) + sq(x[14]))
			// The Frobenius norm bounds the 3×3's largest stretch.
			for _, v := range x.Mat3() {
				sb[i] += sq(v)
			}
			sb[i] = math.Sqrt(sb[i])
			continue
		}
		tb[i] = math.Sqrt(sq(nd.Rest.T[0]) + sq(nd.Rest.T[1]) + sq(nd.Rest.T[2]))
		sb[i] = max(math.Abs(float64(nd.Rest.S[0])), math.Abs(float64(nd.Rest.S[1])), math.Abs(float64(nd.Rest.S[2])))
	}
	for i := range a.Channels {
		c := &a.Channels[i]
		switch c.Path {
		case Translation:
			tb[c.Node] = max(tb[c.Node], math.Sqrt(3)*c.reach(3))
		case Scale:
			sb[c.Node] = max(sb[c.Node], c.reach(3))
		}
	}
	wt, ws := make([]float64, n), make([]float64, n)
	for _, i := range m.order { // parents first
		if p := m.Nodes[i].Parent; p >= 0 {
			wt[i], ws[i] = wt[p]+ws[p]*tb[i], ws[p]*sb[i]
		} else {
			wt[i], ws[i] = tb[i], sb[i]
		}
	}
	for k := range m.Meshes {
		if me := &m.Meshes[k]; me.Joints != nil {
			// A skinned vertex is a blend of its joints' placings of it
			// (weights sum to 1): bounded by the farthest joint's.
			sk := &m.Skins[me.Skin]
			for j, nd := range sk.Joints {
				ib := sk.InverseBind[j]
				var f float64
				for _, v := range ib.Mat3() {
					f += sq(v)
				}
				r := wt[nd] + ws[nd]*(math.Sqrt(sq(ib[12])+sq(ib[13])+sq(ib[14]))+math.Sqrt(f)*reach[k])
				if !(r <= maxCoord) {
					return d.limit(ap, "can move joint node %d's vertices up to %g from the origin: more than %g", nd, r, maxCoord)
				}
			}
			continue
		}
		nd := m.Meshes[k].NodeIndex
		if r := wt[nd] + ws[nd]*reach[k]; !(r <= maxCoord) {
			return d.limit(ap, "can move node %d's vertices up to %g from the origin: more than %g", nd, r, maxCoord)
		}
	}
	return nil
}

// reach bounds the largest absolute value any component of the channel's
// n-component value takes between its keyframes: the largest value, and
// for a cubic spline its tangents' largest overshoot (a Hermite basis
// function for a tangent is at most 4/27 in magnitude, times the
// interval).
func (c *Channel) reach(n int) float64 {
	var v, tan float64
	stride := n
	if c.Interp == InterpCubicSpline {
		stride = 3 * n
	}
	for k := range c.Times {
		key := c.Values[k*stride : (k+1)*stride]
		for j, x := range key {
			if c.Interp == InterpCubicSpline && (j < n || j >= 2*n) {
				tan = max(tan, math.Abs(float64(x)))
			} else {
				v = max(v, math.Abs(float64(x)))
			}
		}
	}
	if c.Interp == InterpCubicSpline {
		var td float64
		for k := 1; k < len(c.Times); k++ {
			td = max(td, float64(c.Times[k])-float64(c.Times[k-1]))
		}
		v += 2 * 4.0 / 27 * td * tan
	}
	return v
}

func sq(v float32) float64 { return float64(v) * float64(v) }
