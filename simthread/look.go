package simthread

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// LookRotation returns the unit quaternion q that turns a camera, or a
// body, to look along forward: q·(0, 0, −1) is forward's direction and
// q·(0, 1, 0) is as near up as a direction at right angles to it can be
// (the CameraPose convention: OpenGL's and glTF's cameras look along −z
// with +y up). Where forward is along up, against it, or up is zero, the
// view's up is the world's +z looking up (−z looking down): the view a
// level camera facing −z has once pitched straight up or down. A zero or
// non-finite forward gives the identity. For a body, it turns the mesh's
// −z towards forward: a glTF model, which faces +z, wants
// LookRotation(forward.Mul(-1), up).
func LookRotation(forward, up mgl32.Vec3) mgl32.Quat {
	f := vec64(forward)
	fl := math.Sqrt(f[0]*f[0] + f[1]*f[1] + f[2]*f[2])
	if !(fl > 0) || math.IsInf(fl, 0) {
		return mgl32.QuatIdent()
	}
	for i := range f {
		f[i] /= fl
	}
	u := vec64(up)
	right := cross(f, u)
	if rl := length(right); !(rl > 1e-6*length(u)) {
		// forward is along up (or up is zero): take the up a level view
		// has once pitched straight up (+z) or down (−z).
		alt := [3]float64{0, 0, 1}
		if d := dot(f, u); d < 0 || (d == 0 && f[1] < 0) {
			alt = [3]float64{0, 0, -1}
		}
		right = cross(f, alt)
		if length(right) < 1e-6 { // forward along z too
			right = cross(f, [3]float64{0, 1, 0})
		}
	}
	rl := length(right)
	for i := range right {
		right[i] /= rl
	}
	trueUp := cross(right, f)
	// The rotation's columns are where the camera's x, y and z go: right,
	// up and −forward.
	m := [3][3]float64{right, trueUp, {-f[0], -f[1], -f[2]}} // m[col][row]
	return quatFromColumns(m)
}

// LookAt turns the camera at eye to look at target, with up as its up
// (see LookRotation), and makes the pose Valid. Boom, FOV, Epoch and Look
// are kept: a third-person camera whose subject is target sets Boom to
// target's distance from eye.
func (p *CameraPose) LookAt(eye, target, up mgl32.Vec3) {
	p.Valid = true
	p.Pos = eye
	p.Rot = LookRotation(target.Sub(eye), up)
}

// LookAt turns the body about its Pos so that its mesh's −z points at
// target, with its +y as near up as can be (see LookRotation).
func (b *Body) LookAt(target, up mgl32.Vec3) {
	b.Rot = LookRotation(target.Sub(b.Pos), up)
}

func vec64(v mgl32.Vec3) [3]float64 { return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])} }

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

func length(a [3]float64) float64 { return math.Sqrt(dot(a, a)) }

// quatFromColumns returns the unit quaternion of the rotation matrix whose
// columns are m[0], m[1], m[2] (Shepperd's method: the largest of the
// four squared components is taken from the diagonal, the others from
// off-diagonal differences and sums, so that nothing is divided by a
// small number).
func quatFromColumns(m [3][3]float64) mgl32.Quat {
	// r(i, j) is row i, column j.
	r := func(i, j int) float64 { return m[j][i] }
	tr := r(0, 0) + r(1, 1) + r(2, 2)
	var w, x, y, z float64
	switch {
	case tr > r(0, 0) && tr > r(1, 1) && tr > r(2, 2):
		s := 2 * math.Sqrt(1+tr)
		w, x, y, z = s/4, (r(2, 1)-r(1, 2))/s, (r(0, 2)-r(2, 0))/s, (r(1, 0)-r(0, 1))/s
	case r(0, 0) > r(1, 1) && r(0, 0) > r(2, 2):
		s := 2 * math.Sqrt(1+r(0, 0)-r(1, 1)-r(2, 2))
		w, x, y, z = (r(2, 1)-r(1, 2))/s, s/4, (r(0, 1)+r(1, 0))/s, (r(0, 2)+r(2, 0))/s
	case r(1, 1) > r(2, 2):
		s := 2 * math.Sqrt(1+r(1, 1)-r(0, 0)-r(2, 2))
		w, x, y, z = (r(0, 2)-r(2, 0))/s, (r(0, 1)+r(1, 0))/s, s/4, (r(1, 2)+r(2, 1))/s
	default:
		s := 2 * math.Sqrt(1+r(2, 2)-r(0, 0)-r(1, 1))
		w, x, y, z = (r(1, 0)-r(0, 1))/s, (r(0, 2)+r(2, 0))/s, (r(1, 2)+r(2, 1))/s, s/4
	}
	if w < 0 { // one sign for one rotation: w ≥ 0
		w, x, y, z = -w, -x, -y, -z
	}
	l := math.Sqrt(w*w + x*x + y*y + z*z)
	return mgl32.Quat{W: float32(w / l), V: mgl32.Vec3{float32(x / l), float32(y / l), float32(z / l)}}
}
