package renderer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tickframe/tickframe/simthread"
)

// testPass is a bodyPass with a registry of meshes (mesh k has parts[k]
// parts, each with material k%materials) and materials, and no GL.
func testPass(parts []int, materials, probe int) *bodyPass {
	b := &bodyPass{probeBody: probe}
	b.materials = make([]material, materials)
	for k, n := range parts {
		b.meshes = append(b.meshes, [2]int32{int32(len(b.parts)), int32(n)})
		for range n {
			b.parts = append(b.parts, part{material: uint16(k % materials)})
		}
	}
	return b
}

// TestGroup checks group on random snapshots against its definition: the
// order is a permutation of the bodies, stable, with resolved (mesh,
// material) keys non-decreasing; the items cover it with one item per
// part of each run's mesh, in order, with the part's material where the
// bodies name 0; the probe body is found where it landed. Snapshots
// already in order are not permuted.
func TestGroup(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 300 {
		meshes, materials := 1+rng.IntN(6), 1+rng.IntN(5)
		parts := make([]int, meshes)
		for k := range parts {
			parts[k] = 1 + rng.IntN(3)
		}
		n := rng.IntN(200)
		b := testPass(parts, materials, rng.IntN(n+2)-1)
		bodies := make([]simthread.Body, n)
		for i := range bodies {
			// Unknown ids now and then.
			bodies[i].Mesh, bodies[i].Material = simthread.MeshID(rng.IntN(meshes+1)), simthread.MaterialID(rng.IntN(materials+1))
			if rng.IntN(20) == 0 {
				bodies[i].Mesh = 0xFFFF
			}
		}
		if round%3 == 0 { // some in order already
			sortBodies(b, bodies)
		}
		// Twice: the scratch memory is reused.
		var s slot
		for range 2 {
			b.group(&s, bodies)
			if err := checkGroup(b, &s, bodies); err != nil {
				t.Fatalf("round %d (%d meshes %v, %d materials, %d bodies, probe %d): %v", round, meshes, parts, materials, n, b.probeBody, err)
			}
		}
	}
}

func resolved(b *bodyPass, body simthread.Body) (mesh, mat int) {
	mesh, mat = int(body.Mesh), int(body.Material)
	if mesh >= len(b.meshes) {
		mesh = 0
	}
	if mat >= len(b.materials) {
		mat = 0
	}
	return mesh, mat
}

func sortBodies(b *bodyPass, bodies []simthread.Body) {
	for i := 1; i < len(bodies); i++ {
		for j := i; j > 0; j-- {
			m0, t0 := resolved(b, bodies[j-1])
			m1, t1 := resolved(b, bodies[j])
			if m0 < m1 || m0 == m1 && t0 <= t1 {
				break
			}
			bodies[j-1], bodies[j] = bodies[j], bodies[j-1]
		}
	}
}

func checkGroup(b *bodyPass, s *slot, bodies []simthread.Body) error {
	n := len(bodies)
	order := make([]int, n)
	for j := range order {
		order[j] = j
		if !s.sorted {
			order[j] = int(s.perm[j])
		}
	}
	seen := make([]bool, n)
	for j, i := range order {
		if i < 0 || i >= n || seen[i] {
			return fmt.Errorf("order %v is not a permutation", order)
		}
		seen[i] = true
		if j > 0 {
			pm, pt := resolved(b, bodies[order[j-1]])
			m, mt := resolved(b, bodies[i])
			if pm > m || pm == m && (pt > mt || pt == mt && order[j-1] > i) {
				return fmt.Errorf("position %d: body %d after body %d: not in (mesh, material) order, stably", j, i, order[j-1])
			}
		}
		if i == b.probeBody && s.probeAt != j {
			return fmt.Errorf("probe body %d is at %d, probeAt %d", i, j, s.probeAt)
		}
	}
	if (b.probeBody < 0 || b.probeBody >= n) && s.probeAt != -1 {
		return fmt.Errorf("probeAt %d for an absent probe body", s.probeAt)
	}
	if s.sorted {
		for j := 1; j < n; j++ {
			pm, pt := resolved(b, bodies[j-1])
			m, mt := resolved(b, bodies[j])
			if pm > m || pm == m && pt > mt {
				return fmt.Errorf("marked sorted, but body %d comes before %d out of order", j-1, j)
			}
		}
	}
	// Rebuild the items from the order and compare.
	var want []drawItem
	for start := 0; start < n; {
		m, mt := resolved(b, bodies[order[start]])
		end := start
		for end < n {
			m2, mt2 := resolved(b, bodies[order[end]])
			if m2 != m || mt2 != mt {
				break
			}
			end++
		}
		first, count := b.meshes[m][0], b.meshes[m][1]
		for p := first; p < first+count; p++ {
			mat := uint16(mt)
			if mat == 0 {
				mat = b.parts[p].material
			}
			want = append(want, drawItem{part: p, mat: mat, first: int32(start), count: int32(end - start)})
		}
		start = end
	}
	if fmt.Sprint(want) != fmt.Sprint(s.items) {
		return fmt.Errorf("items %v, want %v", s.items, want)
	}
	return nil
}

// BenchmarkGroup measures group per snapshot: one mesh (a scan), eight
// meshes interleaved (the counting sort).
func BenchmarkGroup(b *testing.B) {
	for _, meshes := range []int{1, 8} {
		for _, n := range []int{1_000, 10_000, 100_000} {
			b.Run(fmt.Sprintf("meshes=%d/bodies=%d", meshes, n), func(b *testing.B) {
				parts := make([]int, meshes)
				for k := range parts {
					parts[k] = 1
				}
				bp := testPass(parts, 3, 0)
				bodies := make([]simthread.Body, n)
				for i := range bodies {
					bodies[i].Mesh = simthread.MeshID(i % meshes)
				}
				var s slot
				b.ReportAllocs()
				for b.Loop() {
					bp.group(&s, bodies)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/body")
			})
		}
	}
}
