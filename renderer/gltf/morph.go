package gltf

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// MaxTargets is the most morph targets a mesh may have: a mesh with more
// is refused (ErrLimit). A renderer applies them all in its vertex
// shader, so the bound is fixed.
const MaxTargets = 8

// The morph limits (ErrLimit): a weight, at rest or in a keyframe, of
// more than maxWeight in magnitude, and a target moving a vertex farther
// than maxDisplacement. Together they bound how far a morph can move a
// vertex (MaxTargets·maxWeight·maxDisplacement = 8e16 m, below maxCoord).
const (
	maxWeight       = 1000
	maxDisplacement = 1e13
)

// A Target is one morph target of a mesh: per vertex, the displacement of
// its position, normal and tangent (XYZ) that weight 1 adds; a slice is
// nil where the file gives none. A morphed vertex is the mesh's plus the
// sum of each target's displacement times its weight; normals and
// tangents are renormalized after.
type Target struct {
	Positions, Normals, Tangents []mgl32.Vec3
}

// targets decodes primitive src's morph targets (at JSON path pp; n
// vertices): POSITION, NORMAL and TANGENT displacements, float VEC3.
// Other attributes a target names are not read.
func (d *decoder) targets(src *primitive, pp string, n int) ([]Target, error) {
	if len(src.Targets) == 0 {
		return nil, nil
	}
	if len(src.Targets) > MaxTargets {
		return nil, d.limit(pp+".targets", "%d morph targets: more than %d", len(src.Targets), MaxTargets)
	}
	out := make([]Target, len(src.Targets))
	for i, attrs := range src.Targets {
		for _, a := range []struct {
			name string
			dst  *[]mgl32.Vec3
		}{{"POSITION", &out[i].Positions}, {"NORMAL", &out[i].Normals}, {"TANGENT", &out[i].Tangents}} {
			acc, ok := attrs[a.name]
			if !ok {
				continue
			}
			ap := fmt.Sprintf("%s.targets[%d].%s", pp, i, a.name)
			v, err := d.vec3s(acc, ap)
			if err != nil {
				return nil, err
			}
			if len(v) != n {
				return nil, d.errorf(ap, "%d displacements for %d positions", len(v), n)
			}
			if a.name == "POSITION" {
				for k, x := range v {
					if !(x.Len() <= maxDisplacement) {
						return nil, d.limit(ap, "displacement %d is %g long: more than %g", k, x.Len(), float64(maxDisplacement))
					}
				}
			}
			*a.dst = v
		}
	}
	return out, nil
}

// defaultWeights returns the morph weights node nd (at JSON path np)
// gives its mesh mi of targets targets: the node's weights, else the
// mesh's, else zeros.
func (d *decoder) defaultWeights(nd *node, np string, mi, targets int) ([]float32, error) {
	w, wp := nd.Weights, np+".weights"
	if w == nil {
		w, wp = d.doc.Meshes[mi].Weights, fmt.Sprintf("meshes[%d].weights", mi)
	}
	if w == nil {
		return make([]float32, targets), nil
	}
	if len(w) != targets {
		return nil, d.errorf(wp, "%d weights for %d morph targets", len(w), targets)
	}
	for k, x := range w {
		if !isFinite(x) {
			return nil, d.errorf(wp, "weight %d is not finite", k)
		}
		if math.Abs(float64(x)) > maxWeight {
			return nil, d.limit(wp, "weight %d is %g: more than %d in magnitude", k, x, maxWeight)
		}
	}
	return append([]float32(nil), w...), nil
}

// checkTargets checks that every primitive of mesh mi has as many morph
// targets, and returns how many.
func (d *decoder) checkTargets(mi int, prims []prim) (int, error) {
	n := len(prims[0].targets)
	for j := range prims {
		if len(prims[j].targets) != n {
			return 0, d.errorf(fmt.Sprintf("meshes[%d].primitives[%d].targets", mi, j),
				"%d morph targets where primitive 0 has %d: every primitive of a mesh has as many", len(prims[j].targets), n)
		}
	}
	return n, nil
}

// Morph writes the mesh's vertices morphed by weights w (one per target)
// into pos, nrm and tan (each nil, or as long as the mesh's positions):
// positions displaced, normals and tangents displaced and renormalized
// (a tangent keeps its W). It does not allocate.
func (me *Mesh) Morph(w []float32, pos, nrm []mgl32.Vec3, tan []mgl32.Vec4) {
	for v := range me.Positions {
		p, n := me.Positions[v], me.Normals[v]
		var t mgl32.Vec4
		if me.Tangents != nil {
			t = me.Tangents[v]
		}
		for i := range me.Targets {
			tg := &me.Targets[i]
			if i >= len(w) || w[i] == 0 {
				continue
			}
			if tg.Positions != nil {
				p = p.Add(tg.Positions[v].Mul(w[i]))
			}
			if tg.Normals != nil {
				n = n.Add(tg.Normals[v].Mul(w[i]))
			}
			if tg.Tangents != nil {
				t = t.Add(tg.Tangents[v].Vec4(0).Mul(w[i]))
			}
		}
		if pos != nil {
			pos[v] = p
		}
		if nrm != nil {
			if l := n.Len(); l > 0 {
				n = n.Mul(1 / l)
			}
			nrm[v] = n
		}
		if tan != nil && me.Tangents != nil {
			if l := t.Vec3().Len(); l > 0 {
				t = t.Vec3().Mul(1 / l).Vec4(t[3])
			}
			tan[v] = t
		}
	}
}

// bakeMorph replaces mesh me's positions, normals and tangents by copies
// morphed by weights w, for a mesh drawn as it rests; it leaves them as
// they are (shared) when every weight is 0.
func bakeMorph(me *Mesh, w []float32) {
	zero := true
	for _, x := range w {
		zero = zero && x == 0
	}
	if zero {
		return
	}
	pos, nrm := make([]mgl32.Vec3, len(me.Positions)), make([]mgl32.Vec3, len(me.Positions))
	var tan []mgl32.Vec4
	if me.Tangents != nil {
		tan = make([]mgl32.Vec4, len(me.Positions))
	}
	me.Morph(w, pos, nrm, tan)
	me.Positions, me.Normals, me.Tangents = pos, nrm, tan
}

// morphReach bounds how far targets can move a vertex: each target's
// longest displacement times the largest weight allowed.
func morphReach(targets []Target) float64 {
	var r float64
	for i := range targets {
		var l float64
		for _, x := range targets[i].Positions {
			l = max(l, math.Sqrt(sq(x[0])+sq(x[1])+sq(x[2])))
		}
		r += maxWeight * l
	}
	return r
}

// SampleWeights writes the morph weights the animation's channels give
// node at time t into w (as many as the node's mesh has targets) and
// reports whether a channel drives them. It does not allocate.
func (a *Animation) SampleWeights(t float32, node int, w []float32) bool {
	for i := range a.Channels {
		c := &a.Channels[i]
		if c.Path == Weights && c.Node == node {
			c.sample(t, len(w), w)
			return true
		}
	}
	return false
}

// nodeTargets returns how many morph targets node i's mesh has, for a
// channel animating its weights (at JSON path path): an error where it
// has no mesh or no targets.
func (d *decoder) nodeTargets(i int, path string) (int, error) {
	nd := &d.doc.Nodes[i]
	if nd.Mesh == nil {
		return 0, d.errorf(path, "node %d animates morph weights but has no mesh", i)
	}
	prims, err := d.mesh(*nd.Mesh, fmt.Sprintf("nodes[%d].mesh", i))
	if err != nil {
		return 0, err
	}
	n, err := d.checkTargets(*nd.Mesh, prims)
	if err == nil && n == 0 {
		err = d.errorf(path, "node %d animates morph weights but mesh %d has no morph targets", i, *nd.Mesh)
	}
	return n, err
}
