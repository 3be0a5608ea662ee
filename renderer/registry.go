package renderer

import (
	"errors"
	"fmt"
	"sync"

	"github.com/tickframe/tickframe/renderer/gltf"

	"github.com/tickframe/tickframe/simthread"
)

// Registry hands out mesh and material ids and queues what they name for
// the renderer, from any goroutine: the world in its Step (a spawn that
// wants a material of its own), the app, a loader. The ids come back at
// once, each the next of its kind, and never change or move whatever else
// is registered, before or after (a model's materials included); the
// render thread uploads what was queued at the start of its next Draw,
// in the order it was queued. A body that names an id is drawn with what
// it names from the first frame whose snapshots were published after the
// registration (a snapshot's publication, the triple buffer's release,
// orders the registration before the Draw that draws it); an id whose
// upload failed is drawn as 0, and Draw reports the failure once.
//
// A Registry belongs to one renderer (Options.Registry, or the one New
// makes: Renderer.Registry). Its zero value is not usable: call
// NewRegistry. It is safe for concurrent use.
type Registry struct {
	mu        sync.Mutex
	meshes    int       // mesh ids handed out, the default cube's included
	materials int       // material ids handed out, the default's included
	queue     []request // in the order queued
	spare     []request // the other queue buffer, so that draining does not allocate
	bound     bool      // a renderer drains it
}

// request is one queued registration.
type request struct {
	kind   requestKind
	id     uint16
	parts  []Part
	mat    gltf.Material
	bodies []simthread.Body
}

type requestKind uint8

const (
	addMesh requestKind = iota + 1
	addMaterial
	addStatic
	clearStatic
)

// NewRegistry returns a registry that knows only the defaults, mesh 0 and
// material 0: the first AddMesh returns 1, the first AddMaterial 1.
func NewRegistry() *Registry { return &Registry{meshes: 1, materials: 1} }

// AddMesh queues a mesh made of parts and returns its id. It copies the
// parts' slices, so the caller may reuse them. The parts' materials must
// have been handed out already (by this registry, or 0). Errors: no parts,
// a material not handed out, every id taken; what only an upload can
// find (a part's counts and values, the driver's errors) Draw reports.
func (g *Registry) AddMesh(parts ...Part) (simthread.MeshID, error) {
	if len(parts) == 0 {
		return 0, errors.New("renderer: add mesh: no parts")
	}
	own := make([]Part, len(parts))
	for i, p := range parts {
		p.Positions = cloneOrNil(p.Positions)
		p.Normals = cloneOrNil(p.Normals)
		p.UVs = cloneOrNil(p.UVs)
		p.UVs1 = cloneOrNil(p.UVs1)
		p.Colors = cloneOrNil(p.Colors)
		p.Tangents = cloneOrNil(p.Tangents)
		p.Indices = cloneOrNil(p.Indices)
		own[i] = p
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.meshes > maxIDs {
		return 0, fmt.Errorf("renderer: add mesh: all %d mesh ids are taken", maxIDs+1)
	}
	for i := range own {
		if int(own[i].Material) >= g.materials {
			return 0, fmt.Errorf("renderer: add mesh: part %d: material %d is not registered", i, own[i].Material)
		}
	}
	id := uint16(g.meshes)
	g.meshes++
	g.queue = append(g.queue, request{kind: addMesh, id: id, parts: own})
	return simthread.MeshID(id), nil
}

// AddMaterial queues a material and returns its id. Its texture image, if
// any, must not change until it is uploaded. Errors: every id taken;
// what only an upload can find (values out of range, a shader that does
// not compile: a *ShaderError) Draw reports.
func (g *Registry) AddMaterial(m gltf.Material) (simthread.MaterialID, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.materials > maxIDs {
		return 0, fmt.Errorf("renderer: add material: all %d material ids are taken", maxIDs+1)
	}
	id := uint16(g.materials)
	g.materials++
	g.queue = append(g.queue, request{kind: addMaterial, id: id, mat: m})
	return simthread.MaterialID(id), nil
}

// AddStatic queues static bodies: bodies that never move, drawn every
// frame at the pose given, as a snapshot's bodies are, until ClearStatic,
// without being published in any snapshot (walls, a floor, scenery). It
// copies them. Their Vel, AngVel and Epoch mean nothing.
func (g *Registry) AddStatic(bodies ...simthread.Body) {
	if len(bodies) == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.queue = append(g.queue, request{kind: addStatic, bodies: append([]simthread.Body(nil), bodies...)})
}

// ClearStatic queues the removal of every static body queued before it.
func (g *Registry) ClearStatic() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.queue = append(g.queue, request{kind: clearStatic})
}

// Registry returns the renderer's registry, for the world or the app to
// queue meshes, materials and static bodies from any goroutine.
func (r *Renderer) Registry() *Registry { return r.reg }

// bind makes g r's registry.
func (g *Registry) bind() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.bound {
		return errors.New("renderer: the registry belongs to another renderer")
	}
	if g.meshes < 1 || g.materials < 1 {
		return errors.New("renderer: a zero Registry: use NewRegistry")
	}
	g.bound = true
	return nil
}

// drain uploads everything queued, in order, on the render thread, and
// returns the failures, each of which leaves its id drawn as 0. The
// registry's lock is not held while uploading, so a goroutine that
// queues more never waits for the GPU. It does not allocate when nothing
// is queued.
func (r *Renderer) drain() error {
	g := r.reg
	g.mu.Lock()
	if len(g.queue) == 0 {
		g.mu.Unlock()
		return nil
	}
	q := g.queue
	g.queue, g.spare = g.spare[:0], nil
	g.mu.Unlock()
	var errs []error
	for i := range q {
		if err := r.apply(&q[i]); err != nil {
			errs = append(errs, err)
		}
		q[i] = request{} // let go of the parts and images
	}
	g.mu.Lock()
	g.spare = q[:0]
	g.mu.Unlock()
	return errors.Join(errs...)
}

// apply uploads one queued registration. A failed mesh or material
// still takes its id, as a copy of the default, so that the ids after it
// keep naming what they were handed out for.
func (r *Renderer) apply(q *request) error {
	s := &r.bodies.scene
	switch q.kind {
	case addMesh:
		id, err := s.addMesh(q.parts)
		if err != nil {
			s.meshes = append(s.meshes, s.meshes[0])
			return fmt.Errorf("%w (mesh %d is drawn as the default cube)", err, q.id)
		}
		if id != q.id {
			return fmt.Errorf("renderer: queued mesh %d registered as %d", q.id, id)
		}
	case addMaterial:
		id, err := s.addMaterial(q.mat)
		if err != nil {
			if _, derr := s.addMaterial(DefaultMaterial()); derr != nil {
				return errors.Join(err, derr)
			}
			err = fmt.Errorf("%w (material %d is drawn as the default)", err, q.id)
		} else if id != q.id {
			err = fmt.Errorf("renderer: queued material %d registered as %d", q.id, id)
		}
		r.bodies.gen++ // the draw items' vertex arrays name the old material buffer
		return err
	case addStatic:
		r.static.add(q.bodies)
	case clearStatic:
		r.static.clear()
	}
	return nil
}

// addNow registers a mesh or material on the render thread at once (the
// models' meshes and materials): what is queued goes first, so
// the ids stay in the order handed out, and the registry's lock is held
// while this one uploads, so that a failure takes no id.
func (r *Renderer) addNow(q request) (uint16, error) {
	qerr := r.drain()
	g := r.reg
	g.mu.Lock()
	defer g.mu.Unlock()
	// Anything queued since the drain goes first too; its failures wait
	// for the next Draw.
	for len(g.queue) > 0 {
		pending := g.queue
		g.queue = nil
		for i := range pending {
			if err := r.apply(&pending[i]); err != nil {
				qerr = errors.Join(qerr, err)
			}
		}
	}
	if qerr != nil {
		r.regErr = errors.Join(r.regErr, qerr)
	}
	s := &r.bodies.scene
	switch q.kind {
	case addMesh:
		if len(s.meshes) > maxIDs {
			return 0, fmt.Errorf("renderer: add mesh: all %d mesh ids are taken", maxIDs+1)
		}
		id, err := s.addMesh(q.parts)
		if err == nil {
			g.meshes = len(s.meshes)
		}
		return id, err
	default:
		id, err := s.addMaterial(q.mat)
		if err == nil {
			g.materials = len(s.materials)
			r.bodies.gen++
		}
		return id, err
	}
}

// registrationErr returns, once, the failures of queued registrations
// found since the last call.
func (r *Renderer) registrationErr() error {
	err := errors.Join(r.regErr, r.drain())
	r.regErr = nil
	return err
}

func cloneOrNil[T any](s []T) []T {
	if s == nil {
		return nil
	}
	return append([]T(nil), s...)
}
