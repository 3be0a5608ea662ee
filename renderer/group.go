package renderer

import (
	"slices"

	"github.com/tickframe/tickframe/simthread"
)

// group derives a slot's draw items from its snapshot's bodies, once per
// snapshot, when it is uploaded. Each body's mesh and material are
// resolved (an unknown id counts as 0) into a key. If the keys are in
// order already (every body of one mesh, or an app that sorts its
// bodies), one scan finds the runs. Else a counting sort orders the body
// indices by key: a first pass gives each body its key's bucket (a small
// hash table finds it) and counts the buckets, the buckets are sorted by
// key (there are few), a second pass scatters the indices. Each run, or
// bucket, of one (mesh, material) becomes one draw item per part of the
// mesh. It allocates only when the snapshot or the number of distinct
// keys outgrows the scratch memory of the snapshots before.
func (b *bodyPass) group(s *slot, bodies []simthread.Body) {
	s.items = s.items[:0]
	s.probeAt = -1
	s.sorted = true
	n := len(bodies)
	if n == 0 {
		return
	}
	meshes, materials := uint32(len(b.meshes)), uint32(len(b.materials))
	key := func(body *simthread.Body) uint32 {
		m, mat := uint32(body.Mesh), uint32(body.Material)
		if m >= meshes {
			m = 0
		}
		if mat >= materials {
			mat = 0
		}
		return m<<16 | mat
	}
	prev, start := key(&bodies[0]), 0
	for i := 1; i < n; i++ {
		k := key(&bodies[i])
		if k == prev {
			continue
		}
		if k < prev {
			s.sorted = false
			break
		}
		b.addItems(s, prev, start, i-start)
		prev, start = k, i
	}
	if s.sorted {
		b.addItems(s, prev, start, n-start)
		if b.probeBody >= 0 && b.probeBody < n {
			s.probeAt = b.probeBody
		}
		return
	}

	s.items = s.items[:0]
	g := &b.grouper
	g.reset(n)
	last, lastBucket := ^uint32(0), uint32(0)
	of := g.of[:n]
	for i := range bodies {
		k := key(&bodies[i])
		if k != last {
			// The table's first probe, inline; bucket for the rest.
			if j := g.slot(k); g.table[j] == 1<<32|uint64(k) {
				lastBucket = g.tableID[j]
			} else {
				lastBucket = g.bucket(k)
			}
			last = k
		}
		of[i] = lastBucket
		g.count[lastBucket]++
	}
	// The buckets in key order, each with its first position.
	g.sorted = g.sorted[:0]
	for bk, k := range g.bucketKey {
		g.sorted = append(g.sorted, uint64(k)<<32|uint64(bk))
	}
	slices.Sort(g.sorted)
	pos := uint32(0)
	for _, e := range g.sorted {
		bk := uint32(e)
		c := g.count[bk]
		b.addItems(s, uint32(e>>32), int(pos), int(c))
		g.count[bk] = pos
		pos += c
	}
	s.perm = slices.Grow(s.perm[:0], n)[:n]
	perm, count := s.perm, g.count
	for i, bk := range of {
		p := count[bk]
		perm[p] = uint32(i)
		count[bk] = p + 1
	}
	if b.probeBody >= 0 && b.probeBody < n {
		// Its bucket's counter has moved past every index of the bucket;
		// the probe body's place is found among the bucket's.
		bk := g.of[b.probeBody]
		for p := int(g.count[bk]) - 1; p >= 0 && g.of[s.perm[p]] == bk; p-- {
			if int(s.perm[p]) == b.probeBody {
				s.probeAt = p
				break
			}
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

// grouper is group's scratch memory for the counting sort, reused from
// snapshot to snapshot: an open-addressing hash table from key to bucket,
// and per bucket its key and count.
type grouper struct {
	table     []uint64 // 1<<32 | key of each slot, 0: empty; a power of two long
	tableID   []uint32 // the bucket of each slot
	shift     uint32   // 32 − log2(len(table))
	bucketKey []uint32
	count     []uint32
	sorted    []uint64 // key<<32 | bucket, sorted
	of        []uint32 // the bucket of each body
}

// reset empties the table and the buckets and makes room for n bodies.
func (g *grouper) reset(n int) {
	if len(g.table) == 0 {
		g.alloc(64)
	}
	clear(g.table)
	g.bucketKey, g.count = g.bucketKey[:0], g.count[:0]
	g.of = slices.Grow(g.of[:0], n)[:n]
}

// alloc gives the table size slots, a power of two.
func (g *grouper) alloc(size int) {
	g.table, g.tableID = make([]uint64, size), make([]uint32, size)
	g.shift = 32
	for s := size; s > 1; s >>= 1 {
		g.shift--
	}
}

// slot returns where key's probe starts: Fibonacci hashing, whose
// multiply spreads keys that differ in their high (mesh) or low
// (material) bits over the top bits it keeps.
func (g *grouper) slot(key uint32) uint32 { return key * 0x9E3779B1 >> g.shift }

// bucket returns key's bucket, adding one for a key not seen yet.
func (g *grouper) bucket(key uint32) uint32 {
	mask := uint32(len(g.table) - 1)
	want := 1<<32 | uint64(key)
	for i := g.slot(key); ; i = (i + 1) & mask {
		switch g.table[i] {
		case want:
			return g.tableID[i]
		case 0:
			id := uint32(len(g.bucketKey))
			g.bucketKey = append(g.bucketKey, key)
			g.count = append(g.count, 0)
			g.table[i], g.tableID[i] = want, id
			if 2*len(g.bucketKey) > len(g.table) {
				g.grow()
			}
			return id
		}
	}
}

// grow doubles the table, keeping its load at most a half.
func (g *grouper) grow() {
	old, oldID := g.table, g.tableID
	g.alloc(2 * len(old))
	mask := uint32(len(g.table) - 1)
	for j, e := range old {
		if e == 0 {
			continue
		}
		i := g.slot(uint32(e))
		for g.table[i] != 0 {
			i = (i + 1) & mask
		}
		g.table[i], g.tableID[i] = e, oldID[j]
	}
}
