package gltf

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
)

// prim is a decoded mesh primitive, before a node places it.
type prim struct {
	pos, nrm []mgl32.Vec3
	uv, uv1  []mgl32.Vec2
	color    []mgl32.Vec4
	tan      []mgl32.Vec4
	idx      []uint32
	material int
	min, max mgl32.Vec3 // bounds of pos
	// weld, where flatten gave every triangle its own vertices, is the
	// file's vertex each vertex came from (nil: the file's own), so that
	// attributes read later (a skin's joints and weights) follow.
	weld []uint32
	// targets are the morph targets' displacements, one slice a vertex
	// each (nil where the target has none).
	targets []Target
}

// mesh returns the primitives of mesh i, decoding them on first use.
func (d *decoder) mesh(i int, path string) ([]prim, error) {
	if i < 0 || i >= len(d.doc.Meshes) {
		return nil, d.errorf(path, "mesh %d does not exist (%d meshes)", i, len(d.doc.Meshes))
	}
	if d.meshes[i] != nil {
		return d.meshes[i], nil
	}
	src := d.doc.Meshes[i].Primitives
	if len(src) == 0 {
		return nil, d.errorf(fmt.Sprintf("meshes[%d].primitives", i), "mesh has no primitives")
	}
	out := make([]prim, len(src))
	for j := range src {
		var err error
		if out[j], err = d.primitive(&src[j], fmt.Sprintf("meshes[%d].primitives[%d]", i, j)); err != nil {
			return nil, err
		}
	}
	d.meshes[i] = out
	return out, nil
}

// primitive decodes one mesh primitive at JSON path pp.
func (d *decoder) primitive(src *primitive, pp string) (prim, error) {
	p := prim{material: -1}
	if src.Mode != nil && *src.Mode != modeTriangles {
		if m := *src.Mode; m >= 0 && m < len(modeNames) {
			return p, d.refuse(pp+".mode", "mode %d (%s) is not supported (only TRIANGLES)", m, modeNames[m])
		}
		return p, d.errorf(pp+".mode", "unknown mode %d", *src.Mode)
	}
	if src.Material != nil {
		if m := *src.Material; m < 0 || m >= len(d.doc.Materials) {
			return p, d.errorf(pp+".material", "material %d does not exist (%d materials)", m, len(d.doc.Materials))
		}
		p.material = *src.Material
	}
	ap := pp + ".attributes."
	acc, ok := src.Attributes["POSITION"]
	if !ok {
		// Valid (the specification says to skip drawing it), but refused.
		return p, d.refuse(pp+".attributes", "a primitive without POSITION is not supported")
	}
	var err error
	if p.pos, err = d.vec3s(acc, ap+"POSITION"); err != nil {
		return p, err
	}
	n := len(p.pos)
	if acc, ok := src.Attributes["NORMAL"]; ok {
		if p.nrm, err = d.normals(acc, ap+"NORMAL"); err != nil {
			return p, err
		}
		if len(p.nrm) != n {
			return p, d.errorf(ap+"NORMAL", "%d normals for %d positions", len(p.nrm), n)
		}
	}
	for _, set := range []struct {
		name string
		dst  *[]mgl32.Vec2
	}{{"TEXCOORD_0", &p.uv}, {"TEXCOORD_1", &p.uv1}} {
		if acc, ok := src.Attributes[set.name]; ok {
			if *set.dst, err = d.vec2s(acc, ap+set.name); err != nil {
				return p, err
			}
			if len(*set.dst) != n {
				return p, d.errorf(ap+set.name, "%d texture coordinates for %d positions", len(*set.dst), n)
			}
		}
	}
	if acc, ok := src.Attributes["COLOR_0"]; ok {
		if p.color, err = d.colors(acc, ap+"COLOR_0"); err != nil {
			return p, err
		}
		if len(p.color) != n {
			return p, d.errorf(ap+"COLOR_0", "%d colours for %d positions", len(p.color), n)
		}
	}
	if acc, ok := src.Attributes["TANGENT"]; ok {
		if p.tan, err = d.tangents(acc, ap+"TANGENT"); err != nil {
			return p, err
		}
		if len(p.tan) != n {
			return p, d.errorf(ap+"TANGENT", "%d tangents for %d positions", len(p.tan), n)
		}
	}
	if src.Indices != nil {
		ix, err := d.indices(*src.Indices, pp+".indices")
		if err != nil {
			return p, err
		}
		if int(ix.max) >= n {
			return p, d.errorf(pp+".indices", "index %d is out of range for %d vertices", ix.max, n)
		}
		p.idx = ix.idx
	} else {
		// An incomplete last triangle is left out, as OpenGL leaves it.
		p.idx = make([]uint32, n-n%3)
		for k := range p.idx {
			p.idx[k] = uint32(k)
		}
	}
	if p.targets, err = d.targets(src, pp, n); err != nil {
		return p, err
	}
	switch {
	case p.nrm == nil && len(p.idx) == 0:
		// No whole triangle: nothing is drawn, and nothing to flatten.
		p.nrm = make([]mgl32.Vec3, n)
	case p.nrm == nil:
		p.flatten()
	}
	p.min, p.max = bounds(p.pos)
	return p, nil
}

// vec3s reads a float VEC3 accessor of finite values.
func (d *decoder) vec3s(acc int, path string) ([]mgl32.Vec3, error) {
	if v, ok := d.vec3Cache[acc]; ok {
		return v, nil
	}
	e, err := d.accessor(acc, path)
	if err != nil {
		return nil, err
	}
	if e.comp != typeFloat || e.n != 3 {
		return nil, d.errorf(path, "accessor %d is %s, want float VEC3", acc, typeName(e))
	}
	out := make([]mgl32.Vec3, e.count)
	for k := range out {
		b := e.at(k)[:12]
		x, y, z := le.Uint32(b), le.Uint32(b[4:]), le.Uint32(b[8:])
		if !finiteBits(x) || !finiteBits(y) || !finiteBits(z) {
			return nil, d.errorf(path, "accessor %d element %d is not finite", acc, k)
		}
		out[k] = mgl32.Vec3{math.Float32frombits(x), math.Float32frombits(y), math.Float32frombits(z)}
	}
	d.vec3Cache[acc] = out
	return out, nil
}

// normals reads a NORMAL accessor (float VEC3), renormalized where a
// normal's length is off 1 (the specification asks for unit normals; a
// writer rounds, a damaged file can hold anything): the direction is what
// the file means. A zero normal stays zero, as a flat normal of a
// triangle without area is.
func (d *decoder) normals(acc int, path string) ([]mgl32.Vec3, error) {
	if v, ok := d.nrmCache[acc]; ok {
		return v, nil
	}
	vs, err := d.vec3s(acc, path)
	if err != nil {
		return nil, err
	}
	out := vs
	for k, v := range vs {
		if l2 := sq(v[0]) + sq(v[1]) + sq(v[2]); math.Abs(l2-1) > 1e-3 {
			if &out[0] == &vs[0] {
				out = slices.Clone(vs) // the accessor's values may be positions too
			}
			out[k] = unit(v)
		}
	}
	d.nrmCache[acc] = out
	return out, nil
}

// vec2s reads a texture coordinate accessor: float, or normalized unsigned
// byte or short, VEC2.
func (d *decoder) vec2s(acc int, path string) ([]mgl32.Vec2, error) {
	if v, ok := d.vec2Cache[acc]; ok {
		return v, nil
	}
	e, err := d.accessor(acc, path)
	if err != nil {
		return nil, err
	}
	ok := e.n == 2 && (e.comp == typeFloat || e.norm && (e.comp == typeUnsignedByte || e.comp == typeUnsignedShort))
	if !ok {
		return nil, d.errorf(path, "accessor %d is %s, want float or normalized unsigned byte or short VEC2", acc, typeName(e))
	}
	out := make([]mgl32.Vec2, e.count)
	for k := range out {
		b := e.at(k)
		switch e.comp {
		case typeFloat:
			b = b[:8]
			u, v := le.Uint32(b), le.Uint32(b[4:])
			if !finiteBits(u) || !finiteBits(v) {
				return nil, d.errorf(path, "accessor %d element %d is not finite", acc, k)
			}
			out[k] = mgl32.Vec2{math.Float32frombits(u), math.Float32frombits(v)}
		case typeUnsignedByte:
			out[k] = mgl32.Vec2{float32(b[0]) / 255, float32(b[1]) / 255}
		case typeUnsignedShort:
			b = b[:4]
			out[k] = mgl32.Vec2{float32(le.Uint16(b)) / 65535, float32(le.Uint16(b[2:])) / 65535}
		}
	}
	d.vec2Cache[acc] = out
	return out, nil
}

// colors reads a COLOR_n accessor: float, or normalized unsigned byte or
// short, VEC3 (alpha 1) or VEC4, linear RGBA in [0, 1].
func (d *decoder) colors(acc int, path string) ([]mgl32.Vec4, error) {
	if v, ok := d.vec4Cache[acc]; ok {
		return v, nil
	}
	e, err := d.accessor(acc, path)
	if err != nil {
		return nil, err
	}
	ok := (e.n == 3 || e.n == 4) && (e.comp == typeFloat || e.norm && (e.comp == typeUnsignedByte || e.comp == typeUnsignedShort))
	if !ok {
		return nil, d.errorf(path, "accessor %d is %s, want float or normalized unsigned byte or short VEC3 or VEC4", acc, typeName(e))
	}
	out := make([]mgl32.Vec4, e.count)
	for k := range out {
		b := e.at(k)
		c := mgl32.Vec4{0, 0, 0, 1}
		for j := range e.n {
			switch e.comp {
			case typeFloat:
				bits := le.Uint32(b[4*j:])
				v := math.Float32frombits(bits)
				if !finiteBits(bits) || v < 0 || v > 1 {
					return nil, d.errorf(path, "accessor %d element %d is %v, outside [0, 1]", acc, k, v)
				}
				c[j] = v
			case typeUnsignedByte:
				c[j] = float32(b[j]) / 255
			case typeUnsignedShort:
				c[j] = float32(le.Uint16(b[2*j:])) / 65535
			}
		}
		out[k] = c
	}
	d.vec4Cache[acc] = out
	return out, nil
}

// tangents reads a TANGENT accessor: float VEC4, XYZ a unit vector and W
// the handedness, ±1.
func (d *decoder) tangents(acc int, path string) ([]mgl32.Vec4, error) {
	if v, ok := d.tanCache[acc]; ok {
		return v, nil
	}
	e, err := d.accessor(acc, path)
	if err != nil {
		return nil, err
	}
	if e.comp != typeFloat || e.n != 4 {
		return nil, d.errorf(path, "accessor %d is %s, want float VEC4", acc, typeName(e))
	}
	out := make([]mgl32.Vec4, e.count)
	for k := range out {
		b := e.at(k)[:16]
		var t mgl32.Vec4
		for j := range 4 {
			bits := le.Uint32(b[4*j:])
			if !finiteBits(bits) {
				return nil, d.errorf(path, "accessor %d element %d is not finite", acc, k)
			}
			t[j] = math.Float32frombits(bits)
		}
		// The specification asks for a unit XYZ; its direction is
		// what the file means (a zero one stays zero).
		if l2 := sq(t[0]) + sq(t[1]) + sq(t[2]); math.Abs(l2-1) > 1e-3 {
			xyz := unit(t.Vec3())
			t[0], t[1], t[2] = xyz[0], xyz[1], xyz[2]
		}
		// Writers round W; only its sign is meaningful.
		if t[3] < 0 {
			t[3] = -1
		} else {
			t[3] = 1
		}
		out[k] = t
	}
	d.tanCache[acc] = out
	return out, nil
}

// indexData is a decoded index accessor and its largest index.
type indexData struct {
	idx []uint32
	max uint32
}

// indices reads an unsigned byte, short or int SCALAR accessor of whole
// triangles.
func (d *decoder) indices(acc int, path string) (indexData, error) {
	if v, ok := d.indexCache[acc]; ok {
		return v, nil
	}
	e, err := d.accessor(acc, path)
	if err != nil {
		return indexData{}, err
	}
	if e.n != 1 || e.comp != typeUnsignedByte && e.comp != typeUnsignedShort && e.comp != typeUnsignedInt {
		return indexData{}, d.errorf(path, "accessor %d is %s, want unsigned byte, short or int SCALAR", acc, typeName(e))
	}
	out := indexData{idx: make([]uint32, e.count)}
	var hi uint32
	switch e.comp {
	case typeUnsignedByte:
		for k := range out.idx {
			v := uint32(e.data[k*e.stride])
			out.idx[k], hi = v, max(hi, v)
		}
	case typeUnsignedShort:
		for k := range out.idx {
			v := uint32(le.Uint16(e.at(k)))
			out.idx[k], hi = v, max(hi, v)
		}
	case typeUnsignedInt:
		for k := range out.idx {
			v := le.Uint32(e.at(k))
			out.idx[k], hi = v, max(hi, v)
		}
	}
	out.max = hi
	// An incomplete last triangle is left out, as OpenGL leaves it (the
	// validator only warns of it).
	out.idx = out.idx[:len(out.idx)-len(out.idx)%3]
	d.indexCache[acc] = out
	return out, nil
}

// flatten gives every triangle its own three vertices and its face normal,
// which is what the specification asks for when a primitive has no normals.
func (p *prim) flatten() {
	n := len(p.idx)
	pos := make([]mgl32.Vec3, n)
	nrm := make([]mgl32.Vec3, n)
	idx := make([]uint32, n)
	for k := 0; k+2 < n; k += 3 {
		a, b, c := p.pos[p.idx[k]], p.pos[p.idx[k+1]], p.pos[p.idx[k+2]]
		// In float64 so that small but visible triangles do not underflow
		// to a zero normal.
		e1 := [3]float64{float64(b[0]) - float64(a[0]), float64(b[1]) - float64(a[1]), float64(b[2]) - float64(a[2])}
		e2 := [3]float64{float64(c[0]) - float64(a[0]), float64(c[1]) - float64(a[1]), float64(c[2]) - float64(a[2])}
		cr := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
		var f mgl32.Vec3
		if l := math.Sqrt(cr[0]*cr[0] + cr[1]*cr[1] + cr[2]*cr[2]); l > 0 && !math.IsInf(l, 0) {
			f = mgl32.Vec3{float32(cr[0] / l), float32(cr[1] / l), float32(cr[2] / l)}
		}
		pos[k], pos[k+1], pos[k+2] = a, b, c
		nrm[k], nrm[k+1], nrm[k+2] = f, f, f
		idx[k], idx[k+1], idx[k+2] = uint32(k), uint32(k+1), uint32(k+2)
	}
	p.uv, p.uv1 = unweld(p.uv, p.idx), unweld(p.uv1, p.idx)
	p.color, p.tan = unweld(p.color, p.idx), unweld(p.tan, p.idx)
	for i := range p.targets {
		t := &p.targets[i]
		t.Positions, t.Normals, t.Tangents = unweld(t.Positions, p.idx), unweld(t.Normals, p.idx), unweld(t.Tangents, p.idx)
	}
	p.pos, p.nrm, p.idx, p.weld = pos, nrm, idx, p.idx
}

// unweld returns the values of the vertices idx names, one per index (nil
// for nil).
func unweld[T any](vs []T, idx []uint32) []T {
	if vs == nil {
		return nil
	}
	out := make([]T, len(idx))
	for k, i := range idx {
		out[k] = vs[i]
	}
	return out
}

// bounds returns the bounding box of pos, which is not empty.
func bounds(pos []mgl32.Vec3) (lo, hi mgl32.Vec3) {
	lo, hi = pos[0], pos[0]
	for _, p := range pos[1:] {
		for c := range 3 {
			lo[c] = min(lo[c], p[c])
			hi[c] = max(hi[c], p[c])
		}
	}
	return lo, hi
}

var le = binary.LittleEndian

// finiteBits reports whether the float32 with these bits is finite.
func finiteBits(b uint32) bool { return b&0x7f800000 != 0x7f800000 }
