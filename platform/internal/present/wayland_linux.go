//go:build linux && wayland

package present

// The protocol's glue, wayland_presentation.c and .h, is generated from
// wayland-protocols' stable/presentation-time/presentation-time.xml:
//
//	wayland-scanner private-code presentation-time.xml wayland_presentation.c
//	wayland-scanner client-header presentation-time.xml wayland_presentation.h
//
// with the build constraint and a header added to the .c file.

/*
#cgo LDFLAGS: -lwayland-client
#include <errno.h>
#include <malloc.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>
#include "wayland_presentation.h"

typedef struct {
	uint64_t swap;
	int discarded;
	uint64_t sec;
	uint32_t nsec, refresh, flags;
	uint64_t seq;
} tf_wl_event;

#define TF_WL_EVENTS 256

typedef struct tf_wl tf_wl;

// tf_fb is one feedback asked for: the swap whose commit it follows.
typedef struct {
	struct wl_list link;
	tf_wl *w;
	struct wp_presentation_feedback *fb;
	uint64_t swap;
} tf_fb;

struct tf_wl {
	struct wl_display *d;
	struct wl_event_queue *q;
	struct wl_display *wrapper; // the display, its new objects on q
	struct wl_registry *reg;
	struct wp_presentation *pres;
	uint32_t clock;
	int have_clock;
	struct wl_list pending; // tf_fb, oldest first
	int npending;
	tf_wl_event ev[TF_WL_EVENTS];
	int nev;
	uint64_t lost;
	uint64_t dropped; // feedback given up unanswered (tf_feedback's bound)
};

static void tf_push(tf_wl *w, tf_wl_event e) {
	if (w->nev == TF_WL_EVENTS) {
		w->lost++;
		return;
	}
	w->ev[w->nev++] = e;
}

static void tf_done(tf_fb *f) {
	wl_list_remove(&f->link);
	f->w->npending--;
	wp_presentation_feedback_destroy(f->fb);
	free(f);
}

static void tf_sync_output(void *data, struct wp_presentation_feedback *fb, struct wl_output *out) {}

static void tf_presented(void *data, struct wp_presentation_feedback *fb, uint32_t sec_hi, uint32_t sec_lo,
		uint32_t nsec, uint32_t refresh, uint32_t seq_hi, uint32_t seq_lo, uint32_t flags) {
	tf_fb *f = data;
	tf_wl_event e = {f->swap, 0, ((uint64_t)sec_hi << 32) | sec_lo, nsec, refresh, flags, ((uint64_t)seq_hi << 32) | seq_lo};
	tf_push(f->w, e);
	tf_done(f);
}

static void tf_discarded(void *data, struct wp_presentation_feedback *fb) {
	tf_fb *f = data;
	tf_wl_event e = {f->swap, 1, 0, 0, 0, 0, 0};
	tf_push(f->w, e);
	tf_done(f);
}

static const struct wp_presentation_feedback_listener tf_fb_listener = {tf_sync_output, tf_presented, tf_discarded};

static void tf_clock(void *data, struct wp_presentation *p, uint32_t clk) {
	tf_wl *w = data;
	w->clock = clk;
	w->have_clock = 1;
}

static const struct wp_presentation_listener tf_pres_listener = {tf_clock};

static void tf_global(void *data, struct wl_registry *reg, uint32_t name, const char *iface, uint32_t version) {
	tf_wl *w = data;
	if (w->pres == NULL && strcmp(iface, wp_presentation_interface.name) == 0) {
		w->pres = wl_registry_bind(reg, name, &wp_presentation_interface, 1);
		wp_presentation_add_listener(w->pres, &tf_pres_listener, w);
	}
}

static void tf_global_remove(void *data, struct wl_registry *reg, uint32_t name) {}

static const struct wl_registry_listener tf_reg_listener = {tf_global, tf_global_remove};

static void tf_close(tf_wl *w) {
	while (!wl_list_empty(&w->pending)) {
		tf_fb *f = wl_container_of(w->pending.next, f, link);
		tf_done(f);
	}
	if (w->pres)
		wp_presentation_destroy(w->pres);
	if (w->reg)
		wl_registry_destroy(w->reg);
	if (w->wrapper)
		wl_proxy_wrapper_destroy(w->wrapper);
	if (w->q)
		wl_event_queue_destroy(w->q);
	free(w);
}

// tf_open binds wp_presentation on a queue of its own, so that GLFW's
// dispatch of the default queue never sees its events. 0: no such
// global; -1: the connection failed.
static int tf_open(struct wl_display *d, tf_wl **out) {
	tf_wl *w = calloc(1, sizeof *w);
	if (!w)
		return -1;
	w->d = d;
	wl_list_init(&w->pending);
	w->q = wl_display_create_queue(d);
	w->wrapper = wl_proxy_create_wrapper(d);
	if (!w->q || !w->wrapper) {
		tf_close(w);
		return -1;
	}
	wl_proxy_set_queue((struct wl_proxy *)w->wrapper, w->q);
	w->reg = wl_display_get_registry(w->wrapper);
	wl_registry_add_listener(w->reg, &tf_reg_listener, w);
	// Two round trips: the globals, then the clock_id of the bound one.
	for (int i = 0; i < 2; i++) {
		if (wl_display_roundtrip_queue(d, w->q) < 0) {
			tf_close(w);
			return -1;
		}
	}
	if (!w->pres || !w->have_clock) {
		tf_close(w);
		return 0;
	}
	*out = w;
	return 1;
}

// tf_feedback asks for the presentation of the surface's next commit, for
// swap number swap. Its listener is set before anything dispatches the
// queue (the same thread does both). Past max pending, the oldest are
// destroyed unanswered and counted (dropped): their events, should they
// come, are never dispatched.
static int tf_feedback(tf_wl *w, struct wl_surface *s, uint64_t swap, int max) {
	tf_fb *f = malloc(sizeof *f);
	if (!f)
		return 0;
	f->w = w;
	f->swap = swap;
	f->fb = wp_presentation_feedback(w->pres, s);
	if (!f->fb) {
		free(f);
		return 0;
	}
	wp_presentation_feedback_add_listener(f->fb, &tf_fb_listener, f);
	wl_list_insert(w->pending.prev, &f->link);
	w->npending++;
	while (w->npending > max) {
		tf_fb *old = wl_container_of(w->pending.next, old, link);
		tf_done(old);
		w->dropped++;
	}
	return 1;
}

// tf_open_unanswered is tf_open on connection fd whose peer never
// answers (tests): wp_presentation and wl_compositor are bound by the
// names a compositor would have given them, without asking, and a
// surface is made to ask feedback for.
static tf_wl *tf_open_unanswered(int fd, struct wl_surface **surf) {
	struct wl_display *d = wl_display_connect_to_fd(fd);
	if (!d)
		return NULL;
	tf_wl *w = calloc(1, sizeof *w);
	if (!w) {
		wl_display_disconnect(d);
		return NULL;
	}
	w->d = d;
	wl_list_init(&w->pending);
	w->q = wl_display_create_queue(d);
	w->wrapper = wl_proxy_create_wrapper(d);
	wl_proxy_set_queue((struct wl_proxy *)w->wrapper, w->q);
	w->reg = wl_display_get_registry(w->wrapper);
	w->pres = wl_registry_bind(w->reg, 1, &wp_presentation_interface, 1);
	w->clock = CLOCK_MONOTONIC;
	w->have_clock = 1;
	struct wl_compositor *c = wl_registry_bind(w->reg, 2, &wl_compositor_interface, 1);
	*surf = wl_compositor_create_surface(c);
	wl_compositor_destroy(c);
	return w;
}

// tf_commit commits w's surface and sends the requests waiting (tests).
static void tf_commit(tf_wl *w, struct wl_surface *s) {
	wl_surface_commit(s);
	wl_display_flush(w->d);
}

// tf_close_unanswered closes what tf_open_unanswered opened.
static void tf_close_unanswered(tf_wl *w, struct wl_surface *s) {
	struct wl_display *d = w->d;
	wl_surface_destroy(s);
	tf_close(w);
	wl_display_disconnect(d);
}

// tf_heap is the C heap's bytes in use (glibc's mallinfo2; tests).
static uint64_t tf_heap(void) { return mallinfo2().uordblks; }

// tf_dispatch reads what the compositor has sent, without waiting, and
// dispatches the queue's events into w->ev. It returns how many there
// are, or -1 when the connection failed.
static int tf_dispatch(tf_wl *w) {
	w->nev = 0;
	while (wl_display_prepare_read_queue(w->d, w->q) != 0) {
		if (wl_display_dispatch_queue_pending(w->d, w->q) < 0)
			return -1;
	}
	wl_display_flush(w->d);
	struct pollfd p = {wl_display_get_fd(w->d), POLLIN, 0};
	if (poll(&p, 1, 0) > 0 && (p.revents & POLLIN)) {
		if (wl_display_read_events(w->d) < 0)
			return -1;
	} else {
		wl_display_cancel_read(w->d);
	}
	if (wl_display_dispatch_queue_pending(w->d, w->q) < 0)
		return -1;
	return w->nev;
}

static tf_wl_event *tf_event(tf_wl *w, int i) { return &w->ev[i]; }

static int64_t tf_clock_read(clockid_t c) {
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
*/
import "C"

import (
	"errors"
	"time"
	"unsafe"

	"github.com/go-gl/glfw/v3.3/glfw"
)

// platform is the Wayland side of a Tracker: wp_presentation feedback on
// the window's own surface, read on the render thread from a private
// event queue.
type platform struct {
	w    *C.tf_wl
	surf *C.struct_wl_surface
	m    wlMatcher
	lost uint64 // events that did not fit the C side's buffer, counted
	// dropped is the feedback given up unanswered past wlPendingMax,
	// counted.
	dropped uint64
	err     error // the connection failed
	own     bool  // the connection is the tracker's own (openUnanswered)
	// asked is the swap whose feedback Tracker.Swapping asked for
	// last, plus one (0: none).
	asked uint64
}

// wlPendingMax bounds the feedback asked for and not answered yet: a
// second's worth at 360 Hz. A compositor answers each within a few
// refreshes; one that never answers (a window it never maps) would
// otherwise hold about 130 bytes a frame for ever. Past it the oldest
// are destroyed, and the compositor never reports their frames: the
// tracker counts them lost (Stats.Lost); the fallback, where the tracker
// has fallen back (Tracker.Fallback), reports them by its model, and
// otherwise the caller, which hears nothing of them, counts them
// unknown.
const wlPendingMax = 360

func (p *platform) open(t *Tracker, o Options) error {
	if o.VblanksOnly {
		return errors.New("present: on Wayland the vblanks come with a window's frames: there is no feed of them alone")
	}
	d, s := glfwWayland()
	if d == nil || s == nil {
		return errors.New("present: no GLFW window on Wayland is current")
	}
	var w *C.tf_wl
	switch C.tf_open(d, &w) {
	case 0:
		return errors.New("present: the compositor has no wp_presentation")
	case -1:
		return errors.New("present: the Wayland connection failed")
	}
	p.w, p.surf = w, s
	id := C.clockid_t(w.clock)
	p.m = wlMatcher{clockID: uint32(w.clock), clock: newClockMap(func() time.Duration { return time.Duration(C.tf_clock_read(id)) }, t.now)}
	t.wl = &p.m
	t.source = SourceWayland
	t.grid.SetSource(VblankWayland)
	return nil
}

func init() {
	wlFeedback = func(t *Tracker) {
		t.plat.feedback(t)
		t.plat.asked = nextCommit(t) + 1
	}
}

// feedback asks for the presentation feedback of the surface's next
// commit, for swap nextCommit(t).
func (p *platform) feedback(t *Tracker) {
	if p.w != nil {
		C.tf_feedback(p.w, p.surf, C.uint64_t(nextCommit(t)), wlPendingMax)
	}
}

func (p *platform) roundTrip() {}

func (p *platform) stamp(uint32) {}

// swapped reads the compositor's feedback. A caller that did not ask for
// the swap's feedback right before it (Tracker.Swapping) gets the next
// swap's asked for now, after this one: a commit of the surface between
// the two takes it.
func (p *platform) swapped(t *Tracker, _ uint64, _ time.Duration) {
	if p.w == nil {
		return
	}
	if p.asked != t.nSwaps {
		p.feedback(t)
	}
	p.pump(t)
}

// pump reads the compositor's feedback, without waiting, into the
// tracker's frames.
func (p *platform) pump(t *Tracker) {
	if p.w == nil || p.err != nil {
		return
	}
	n := int(C.tf_dispatch(p.w))
	if n < 0 {
		p.err = errors.New("present: the Wayland connection failed")
		return
	}
	for i := range n {
		e := C.tf_event(p.w, C.int(i))
		p.m.take(t, wlEvent{swap: uint64(e.swap), discarded: e.discarded != 0, sec: uint64(e.sec), nsec: uint32(e.nsec),
			refresh: uint32(e.refresh), seq: uint64(e.seq), flags: uint32(e.flags)})
	}
	if l := uint64(p.w.lost); l > p.lost {
		t.stats.Lost += l - p.lost
		p.lost = l
	}
	if d := uint64(p.w.dropped); d > p.dropped {
		t.stats.Lost += d - p.dropped
		p.dropped = d
	}
	p.m.clock.maybeMeasure()
}

// flush waits up to timeout for the feedback of the swaps made so far.
func (p *platform) flush(t *Tracker, timeout time.Duration) {
	if p.w == nil {
		return
	}
	for start := t.now(); p.err == nil && int(p.w.npending) > 1 && t.now()-start < timeout; {
		p.pump(t)
		time.Sleep(200 * time.Microsecond)
	}
	p.pump(t)
}

func (p *platform) close() error {
	if p.w == nil {
		return nil
	}
	if p.own {
		C.tf_close_unanswered(p.w, p.surf)
	} else {
		C.tf_close(p.w)
	}
	p.w = nil
	return p.err
}

// openUnanswered opens t's platform on the client end fd of a
// connection whose peer never answers (tests: a compositor that never
// maps the window); close closes fd.
func (p *platform) openUnanswered(t *Tracker, fd int) error {
	var s *C.struct_wl_surface
	w := C.tf_open_unanswered(C.int(fd), &s)
	if w == nil {
		return errors.New("present: cannot open the test's wayland connection")
	}
	p.w, p.surf, p.own = w, s, true
	p.m = wlMatcher{clockID: uint32(w.clock), clock: newClockMap(Monotonic, t.now)}
	t.wl = &p.m
	t.source = SourceWayland
	return nil
}

// commit commits the surface and sends what waits (tests: a swap's
// commit, or one of GLFW's between swaps).
func (p *platform) commit() { C.tf_commit(p.w, p.surf) }

// cHeap is the C heap's bytes in use (tests).
func cHeap() uint64 { return uint64(C.tf_heap()) }

// glfwWayland returns GLFW's Wayland display and the surface of the
// window whose context is current, or nils. It must be called on the main
// thread.
func glfwWayland() (*C.struct_wl_display, *C.struct_wl_surface) {
	defer func() { _ = recover() }() // go-gl panics when GLFW is not initialised
	w := glfw.GetCurrentContext()
	if w == nil {
		return nil, nil
	}
	d := glfw.GetWaylandDisplay()
	s := w.GetWaylandWindow()
	return (*C.struct_wl_display)(unsafe.Pointer(d)), (*C.struct_wl_surface)(unsafe.Pointer(s))
}

// Monotonic reads CLOCK_MONOTONIC, the clock of Go's monotonic time.
func Monotonic() time.Duration { return time.Duration(C.tf_clock_read(C.CLOCK_MONOTONIC)) }

// MonotonicOffset measures CLOCK_MONOTONIC minus now().
func MonotonicOffset(now func() time.Duration) time.Duration {
	c := newClockMap(Monotonic, now)
	return c.offset
}

// FindWindow is X11's: a Wayland client cannot see other windows.
func FindWindow(display, name string) (x, y, w, h int, err error) {
	return 0, 0, 0, 0, errors.New("present: FindWindow needs X11")
}
