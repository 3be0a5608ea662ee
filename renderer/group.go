package renderer

import (
	"slices"

	"github.com/tickframe/tickframe/simthread"
)

// group derives a slot's draw items from its snapshot's bodies, once per
// snapshot, when it is uploaded: it resolves each body's mesh and material
// (an unknown id counts as 0), and if the bodies are not already in order
// of (mesh, material), sorts their indices into that order with a stable
// two-pass counting sort (O(n + meshes + materials), no comparisons). Each
// run of one (mesh, override) becomes one draw item per part of the mesh.
// It allocates only when the snapshot or the registries outgrow the
// scratch memory of the snapshots before.
func (b *bodyPass) group(s *slot, bodies []simthread.Body) {
	n := len(bodies)
	s.items = s.items[:0]
	s.probeAt = -1
	s.sorted = true
	if n == 0 {
		return
	}
	meshes, materials := uint32(len(b.meshes)), uint32(len(b.materials))
	b.keys = slices.Grow(b.keys[:0], n)[:n]
	keys := b.keys
	prev := uint32(0)
	for i := range bodies {
		m, mat := uint32(bodies[i].Mesh), uint32(bodies[i].Material)
		if m >= meshes {
			m = 0
		}
		if mat >= materials {
			mat = 0
		}
		k := m<<16 | mat
		keys[i] = k
		if k < prev {
			s.sorted = false
		}
		prev = k
	}
	if s.sorted {
		if b.probeBody >= 0 && b.probeBody < n {
			s.probeAt = b.probeBody
		}
		start := 0
		for i := 1; i <= n; i++ {
			if i == n || keys[i] != keys[start] {
				b.addItems(s, keys[start], start, i-start)
				start = i
			}
		}
		return
	}

	// Least significant digit first: by material, then stably by mesh.
	b.tmp = slices.Grow(b.tmp[:0], n)[:n]
	s.perm = slices.Grow(s.perm[:0], n)[:n]
	b.materialCount = counts(b.materialCount, int(materials))
	for _, k := range keys {
		b.materialCount[k&0xFFFF+1]++
	}
	prefix(b.materialCount)
	for i, k := range keys {
		c := &b.materialCount[k&0xFFFF]
		b.tmp[*c] = uint32(i)
		*c++
	}
	b.meshCount = counts(b.meshCount, int(meshes))
	for _, k := range keys {
		b.meshCount[k>>16+1]++
	}
	prefix(b.meshCount)
	for _, i := range b.tmp {
		c := &b.meshCount[keys[i]>>16]
		s.perm[*c] = i
		*c++
	}
	start := 0
	for j := 0; j <= n; j++ {
		if j < n && int(s.perm[j]) == b.probeBody {
			s.probeAt = j
		}
		if j == n || keys[s.perm[j]] != keys[s.perm[start]] {
			b.addItems(s, keys[s.perm[start]], start, j-start)
			start = j
		}
	}
}

// addItems appends the draw items of a run of count bodies from first
// whose resolved mesh and material are key: one per part of the mesh,
// with the part's own material unless the bodies name one.
func (b *bodyPass) addItems(s *slot, key uint32, first, count int) {
	mesh, override := b.meshes[key>>16], uint16(key)
	for p := mesh[0]; p < mesh[0]+mesh[1]; p++ {
		mat := override
		if mat == 0 {
			mat = b.parts[p].material
		}
		s.items = append(s.items, drawItem{part: p, mat: mat, first: int32(first), count: int32(count)})
	}
}

// counts returns c with n+1 zeroed counters.
func counts(c []uint32, n int) []uint32 {
	c = slices.Grow(c[:0], n+1)[:n+1]
	clear(c)
	return c
}

// prefix turns counts shifted by one (c[k+1] is key k's count) into each
// key's first position.
func prefix(c []uint32) {
	for k := 1; k < len(c); k++ {
		c[k] += c[k-1]
	}
}
