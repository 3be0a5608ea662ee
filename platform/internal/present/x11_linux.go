//go:build linux && !wayland

package present

/*
#cgo LDFLAGS: -lX11 -lXpresent -lXext
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <time.h>
#include <X11/Xlib.h>
#include <X11/Xlibint.h>
#include <X11/Xutil.h>
#include <X11/extensions/Xpresent.h>
#include <X11/Xatom.h>
#include <X11/extensions/sync.h>

// Frame sync (the _NET_WM_SYNC_REQUEST_COUNTER extension, as Mutter
// implements it): the window's extended counter, set to an even value
// after each frame, and the compositing manager's answer for each value,
// _NET_WM_FRAME_DRAWN (the value, and when it drew the frame, CLOCK_MONOTONIC
// microseconds) and _NET_WM_FRAME_TIMINGS (the value, the presentation
// time's offset from the drawn time, the refresh interval). The messages
// come to the window's own connection (GLFW's), and are taken off its queue
// before GLFW's event loop reads them (tf_fs_take).
typedef struct {
	int64_t value;
	int64_t drawn_us; // _NET_WM_FRAME_DRAWN's time
	int32_t offset_us, refresh_us; // _NET_WM_FRAME_TIMINGS'
	int kind; // 0: drawn, 1: timings, 2: a _NET_WM_SYNC_REQUEST for value
} tf_fs_msg;

typedef struct {
	Window win;
	Atom drawn, timings, protocols, request;
} tf_fs_match;

static int tf_ignore(Display *d, XErrorEvent *e);

// tf_wm_check returns the window window w's _NET_SUPPORTING_WM_CHECK
// names (None: none, or w is gone).
static Window tf_wm_check(Display *d, Window w, Atom check) {
	Atom type;
	int format;
	unsigned long n, after;
	unsigned char *data = NULL;
	Window r = None;
	if (XGetWindowProperty(d, w, check, 0, 1, False, XA_WINDOW, &type, &format, &n, &after, &data) == Success && data) {
		if (type == XA_WINDOW && format == 32 && n == 1)
			r = *(Window *)data;
		XFree(data);
	}
	return r;
}

// tf_wm_alive reports whether a window manager runs on connection d, as
// GTK tells (gdkscreen-x11.c, fetch_net_wm_check_window): the root's
// _NET_SUPPORTING_WM_CHECK names a window whose own names itself. A
// window manager that died left its _NET_SUPPORTED on the root, and its
// check window went with it.
static int tf_wm_alive(Display *d) {
	Atom check = XInternAtom(d, "_NET_SUPPORTING_WM_CHECK", True);
	if (check == None)
		return 0;
	Window w = tf_wm_check(d, DefaultRootWindow(d), check);
	if (w == None)
		return 0;
	XSync(d, False);
	XErrorHandler old = XSetErrorHandler(tf_ignore); // w may be gone
	Window self = tf_wm_check(d, w, check);
	XSync(d, False);
	XSetErrorHandler(old);
	return self == w;
}

// tf_fs_supported reports whether the window manager of connection d
// sends frame timings: one runs (tf_wm_alive), and its _NET_SUPPORTED
// names _NET_WM_FRAME_DRAWN.
static int tf_fs_supported(void *dv) {
	Display *d = dv;
	if (!tf_wm_alive(d))
		return 0;
	Atom sup = XInternAtom(d, "_NET_SUPPORTED", True), drawn = XInternAtom(d, "_NET_WM_FRAME_DRAWN", True);
	if (sup == None || drawn == None)
		return 0;
	Atom type;
	int format;
	unsigned long n, after;
	unsigned char *data = NULL;
	if (XGetWindowProperty(d, DefaultRootWindow(d), sup, 0, 4096, False, XA_ATOM, &type, &format, &n, &after, &data) != Success || !data)
		return 0;
	int ok = 0;
	if (type == XA_ATOM && format == 32)
		for (unsigned long i = 0; i < n && !ok; i++)
			ok = ((Atom *)data)[i] == drawn;
	XFree(data);
	return ok;
}

// tf_fs_init takes part in frame sync on window w of connection d: two
// counters (the basic one, never asked for, since the window does not
// list _NET_WM_SYNC_REQUEST in WM_PROTOCOLS and so gets no request to
// answer during a resize; and the extended one), named on the window.
static int tf_fs_init(void *dv, Window w, XSyncCounter *ext, tf_fs_match *m) {
	Display *d = dv;
	int ev, er, maj, min;
	if (!XSyncQueryExtension(d, &ev, &er) || !XSyncInitialize(d, &maj, &min))
		return 0;
	XSyncValue zero;
	XSyncIntToValue(&zero, 0);
	XSyncCounter basic = XSyncCreateCounter(d, zero);
	*ext = XSyncCreateCounter(d, zero);
	long cs[2] = {(long)basic, (long)*ext};
	XChangeProperty(d, w, XInternAtom(d, "_NET_WM_SYNC_REQUEST_COUNTER", False), XA_CARDINAL, 32, PropModeReplace, (unsigned char *)cs, 2);
	m->win = w;
	m->drawn = XInternAtom(d, "_NET_WM_FRAME_DRAWN", False);
	m->timings = XInternAtom(d, "_NET_WM_FRAME_TIMINGS", False);
	m->protocols = XInternAtom(d, "WM_PROTOCOLS", False);
	m->request = XInternAtom(d, "_NET_WM_SYNC_REQUEST", False);
	XFlush(d);
	return 1;
}

// tf_fs_set sets the extended counter to value (even: a frame complete).
// Sent with the swap's own requests (the round trip or flush after it).
static void tf_fs_set(void *dv, XSyncCounter c, int64_t value) {
	Display *d = dv;
	XSyncValue v;
	XSyncIntsToValue(&v, (unsigned)(value & 0xffffffff), (int)(value >> 32));
	XSyncSetCounter(d, c, v);
	XFlush(d);
}

static Bool tf_fs_pred(Display *d, XEvent *e, XPointer arg) {
	tf_fs_match *m = (tf_fs_match *)arg;
	if (e->type != ClientMessage || e->xclient.window != m->win)
		return False;
	Atom t = e->xclient.message_type;
	return t == m->drawn || t == m->timings || (t == m->protocols && (Atom)e->xclient.data.l[0] == m->request);
}

// tf_fs_take takes the frame messages waiting on connection d (reading
// what the socket has first) off its queue, up to max, leaving every
// other event where it was.
static int tf_fs_take(void *dv, tf_fs_match *m, tf_fs_msg *out, int max) {
	Display *d = dv;
	XEventsQueued(d, QueuedAfterReading);
	int n = 0;
	XEvent e;
	while (n < max && XCheckIfEvent(d, &e, tf_fs_pred, (XPointer)m)) {
		long *l = e.xclient.data.l;
		tf_fs_msg *o = &out[n++];
		memset(o, 0, sizeof *o);
		o->value = (int64_t)(uint32_t)l[0] | ((int64_t)(uint32_t)l[1] << 32);
		if (e.xclient.message_type == m->protocols) {
			// The window manager waits (a second at most) for the
			// extended counter to reach this value: a resize.
			o->kind = 2;
			o->value = (int64_t)(uint32_t)l[2] | ((int64_t)(uint32_t)l[3] << 32);
		} else if (e.xclient.message_type == m->drawn) {
			o->kind = 0;
			o->drawn_us = (int64_t)(uint32_t)l[2] | ((int64_t)(uint32_t)l[3] << 32);
		} else {
			o->kind = 1;
			o->offset_us = (int32_t)l[2];
			o->refresh_us = (int32_t)l[3];
		}
	}
	return n;
}

typedef struct {
	uint32_t serial;
	uint64_t ust, msc;
	int kind, mode;
} tf_complete;

static Display *tf_open(const char *name) { return XOpenDisplay(name); }

// tf_quiet_hook takes every X error on a tracker's own connection: its
// requests name only the window it follows, and an error means the
// window went away (its client's connection closed: the app is on its
// way out through Xlib's I/O error exit). Xlib's default handler would
// exit the process from the tracker's thread while the app's main
// thread exits through the other connection's I/O error: two exits at
// once, which crashed inside glfwPollEvents (SIGSEGV, exit 2 instead of
// 1; once in a make test beside a build loop).
static int tf_quiet_hook(Display *d, xError *e, XExtCodes *c, int *ret) {
	*ret = 0;
	return 1;
}

// tf_missing_window asks, on connection d, for a vblank notification of a
// window no client has, and waits for the server's answer: an error.
static void tf_missing_window(Display *d) {
	XPresentNotifyMSC(d, 0x1fffff01, 0, 0, 0, 0);
	XSync(d, False);
}

// tf_quiet suppresses the X errors of connection d alone: an extension
// error hook is the display's own, where XSetErrorHandler is the
// process's, which GLFW sets and resets for its connection.
static int tf_quiet(Display *d) {
	XExtCodes *c = XAddExtension(d);
	if (!c)
		return 0;
	XESetError(d, c->extension, tf_quiet_hook);
	return 1;
}

static int tf_present(Display *d, int *opcode) {
	int ev, err;
	return XPresentQueryExtension(d, opcode, &ev, &err);
}

static Window tf_root(Display *d) { return DefaultRootWindow(d); }

static void tf_watch(Display *d, Window w, uint32_t serial) {
	XPresentSelectInput(d, w, PresentCompleteNotifyMask);
	// Target 0, divisor 0: completes at once with the current MSC.
	XPresentNotifyMSC(d, w, serial, 0, 0, 0);
	XFlush(d);
}

static void tf_notify(Display *d, Window w, uint32_t serial, uint64_t msc) {
	XPresentNotifyMSC(d, w, serial, msc, 0, 0);
	XFlush(d);
}

// tf_wait blocks until the connection has an event (1), stopfd is
// readable (-1) or the server went away (-2).
static int tf_wait(Display *d, int stopfd) {
	for (;;) {
		if (XPending(d) > 0)
			return 1;
		struct pollfd p[2] = {{ConnectionNumber(d), POLLIN, 0}, {stopfd, POLLIN, 0}};
		if (poll(p, 2, -1) < 0)
			continue;
		if (p[1].revents)
			return -1;
		if (p[0].revents & (POLLERR | POLLHUP))
			return -2;
	}
}

// tf_next takes the next event and reports whether it was a Present
// completion, filling c.
static int tf_next(Display *d, int opcode, tf_complete *c) {
	XEvent ev;
	XNextEvent(d, &ev);
	if (ev.type != GenericEvent || ev.xcookie.extension != opcode)
		return 0;
	if (!XGetEventData(d, &ev.xcookie))
		return 0;
	int ok = 0;
	if (ev.xcookie.evtype == PresentCompleteNotify) {
		XPresentCompleteNotifyEvent *e = ev.xcookie.data;
		c->serial = e->serial_number;
		c->ust = e->ust;
		c->msc = e->msc;
		c->kind = e->kind;
		c->mode = e->mode;
		ok = 1;
	}
	XFreeEventData(d, &ev.xcookie);
	return ok;
}

static void tf_sync(void *d) { XSync((Display *)d, False); }

// tf_synced reports whether every request sent on connection d has been
// processed by the server, as far as Xlib knows from the replies read: a
// swap that ended with a round trip (Mesa's drisw: XShmPutImage, XSync)
// leaves it so.
static int tf_synced(void *d) {
	Display *dpy = d;
	return XLastKnownRequestProcessed(dpy) + 1 == XNextRequest(dpy);
}

// tf_stamp asks, on connection d, for a completion at once: the server
// answers it when it processes the request, after every earlier one.
static void tf_stamp(void *d, Window w, uint32_t serial) { XPresentNotifyMSC((Display *)d, w, serial, 0, 0, 0); }

static int64_t tf_mono(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

// tf_net_name reports whether window w's _NET_WM_NAME is name (a client
// that sets no WM_NAME, as Weston's x11 backend, names its window so).
static int tf_net_name(Display *d, Window w, const char *name) {
	Atom net = XInternAtom(d, "_NET_WM_NAME", True), utf8 = XInternAtom(d, "UTF8_STRING", True);
	if (net == None || utf8 == None)
		return 0;
	Atom type;
	int format;
	unsigned long n, after;
	unsigned char *data = NULL;
	if (XGetWindowProperty(d, w, net, 0, 1024, False, utf8, &type, &format, &n, &after, &data) != Success || !data)
		return 0;
	int ok = type == utf8 && format == 8 && strlen(name) == n && memcmp(data, name, n) == 0;
	XFree(data);
	return ok;
}

// tf_ignore is an X error handler that ignores: a window may go away
// between the query of the tree and the read of its name.
static int tf_ignore(Display *d, XErrorEvent *e) { return 0; }

// tf_find looks for a top-level window (a child of the root, or the child
// of one, as a window manager's frame holds it) named name and shown (an
// unmapped or input-only window of that name is passed over: Mutter's
// nested backend keeps one of the screen's size beside its output), and
// gives its position on the root and its size.
static int tf_find_in(Display *d, Window parent, const char *name, int depth, Window *found) {
	Window root, par, *kids = NULL;
	unsigned n = 0;
	if (!XQueryTree(d, parent, &root, &par, &kids, &n))
		return 0;
	int ok = 0;
	for (unsigned i = n; i-- > 0 && !ok;) {
		XWindowAttributes wa;
		if (!XGetWindowAttributes(d, kids[i], &wa) || wa.map_state != IsViewable || wa.class == InputOnly)
			continue;
		char *wn = NULL;
		if (XFetchName(d, kids[i], &wn) && wn) {
			if (strcmp(wn, name) == 0) {
				*found = kids[i];
				ok = 1;
			}
			XFree(wn);
		}
		if (!ok && tf_net_name(d, kids[i], name)) {
			*found = kids[i];
			ok = 1;
		}
		if (!ok && depth > 0)
			ok = tf_find_in(d, kids[i], name, depth - 1, found);
	}
	if (kids)
		XFree(kids);
	return ok;
}

static int tf_find(Display *d, const char *name, int *x, int *y, int *w, int *h) {
	Window win, child;
	XSync(d, False);
	XErrorHandler old = XSetErrorHandler(tf_ignore);
	int ok = 0;
	XWindowAttributes a;
	if (tf_find_in(d, DefaultRootWindow(d), name, 1, &win) && XGetWindowAttributes(d, win, &a)) {
		XTranslateCoordinates(d, win, DefaultRootWindow(d), 0, 0, x, y, &child);
		*w = a.width;
		*h = a.height;
		ok = 1;
	}
	XSync(d, False);
	XSetErrorHandler(old);
	return ok;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"
	"unsafe"

	"github.com/go-gl/glfw/v3.3/glfw"
	"golang.org/x/sys/unix"
)

// mscSerial marks the tracker's own PresentNotifyMSC requests, so that
// another client's on the same window (Mesa's glXWaitForMscOML) are not
// taken for its vblanks.
const mscSerial = 0x7ace0000

// x11 is the tracker's own connection to the X server and the thread that
// reads its events.
type x11 struct {
	dpy    *C.Display
	opcode C.int
	win    C.Window
	stop   [2]int // a pipe: closing stop[1] ends the event thread
	done   chan struct{}
	offset time.Duration // CLOCK_MONOTONIC minus the caller's clock
	grid   *Grid
	ring   *ring
	stamps *ring
	// Written by the event thread only, read after done.
	err error
}

// openX11 connects to display name ("" means $DISPLAY), checks for
// Present and starts following window win's vblanks and presents (0: the
// root window's vblanks).
func openX11(name string, win uint64, now func() time.Duration, g *Grid, r, stamps *ring) (*x11, error) {
	var cname *C.char
	if name != "" {
		cname = C.CString(name)
		defer C.free(unsafe.Pointer(cname))
	} else if os.Getenv("DISPLAY") == "" {
		return nil, errors.New("present: no X display (DISPLAY is not set)")
	}
	dpy := C.tf_open(cname)
	if dpy == nil {
		return nil, fmt.Errorf("present: cannot open X display %q", name)
	}
	x := &x11{dpy: dpy, win: C.Window(win), done: make(chan struct{}), grid: g, ring: r, stamps: stamps}
	if C.tf_quiet(dpy) == 0 {
		C.XCloseDisplay(dpy)
		return nil, errors.New("present: cannot hook the X errors of its connection")
	}
	if C.tf_present(dpy, &x.opcode) == 0 {
		C.XCloseDisplay(dpy)
		return nil, errors.New("present: the X server has no Present extension")
	}
	if x.win == 0 {
		x.win = C.tf_root(dpy)
	}
	x.offset = monoOffset(now)
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		C.XCloseDisplay(dpy)
		return nil, fmt.Errorf("present: %w", err)
	}
	x.stop = p
	g.SetSource(VblankPresentMSC)
	C.tf_watch(dpy, x.win, mscSerial)
	go x.loop()
	return x, nil
}

// monoOffset measures CLOCK_MONOTONIC minus now(): the reading whose two
// CLOCK_MONOTONIC samples around now() lie closest.
func monoOffset(now func() time.Duration) time.Duration {
	best, off := time.Duration(1<<62), time.Duration(0)
	for range 16 {
		a := time.Duration(C.tf_mono())
		c := now()
		b := time.Duration(C.tf_mono())
		if b-a < best {
			best, off = b-a, (a+b)/2-c
		}
	}
	return off
}

// monotonic reads CLOCK_MONOTONIC.
func monotonic() time.Duration { return time.Duration(C.tf_mono()) }

// loop reads the connection's events until stop: it re-arms a
// PresentNotifyMSC for the next vblank at each one, so that every vblank
// is reported, and queues the completions of presented pixmaps.
func (x *x11) loop() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(x.done)
	var c C.tf_complete
	armed := false // a NotifyMSC after the first, for a vblank to come
	var off int64  // added to the server's MSC: see mscOffset
	for {
		switch C.tf_wait(x.dpy, C.int(x.stop[0])) {
		case -1:
			return
		case -2:
			x.err = errors.New("present: the X server closed the connection")
			return
		}
		if C.tf_next(x.dpy, x.opcode, &c) == 0 {
			continue
		}
		at := time.Duration(c.ust)*time.Microsecond - x.offset
		switch c.kind {
		case C.PresentCompleteKindNotifyMSC:
			if uint32(c.serial)&0xffff0000 == stampSerial {
				x.stamps.push(completion{serial: uint32(c.serial), at: at})
				continue
			}
			if uint32(c.serial) != mscSerial {
				continue // another client's
			}
			// The first completion is immediate, with the current time
			// rather than a vblank's; the ones after it are vblanks.
			if !armed {
				off = x.mscOffset(at, uint64(c.msc))
			} else {
				x.grid.Observe(at, uint64(int64(c.msc)+off))
			}
			armed = true
			C.tf_notify(x.dpy, x.win, mscSerial, c.msc+1)
		case C.PresentCompleteKindPixmap:
			mode := ModeCopy
			switch c.mode {
			case C.PresentCompleteModeFlip:
				mode = ModeFlip
			case C.PresentCompleteModeSkip:
				mode = ModeSkip
			}
			x.ring.push(completion{serial: uint32(c.serial), at: at, msc: uint64(c.msc), mode: mode})
		}
	}
}

// mscOffset returns what to add to the server's MSC, read at at, so that
// its vblanks go on from the count of the grid's earlier source (frame
// timings, before a fallback to the X server: Tracker.Fallback): a Grid
// takes only a count that grows. 0 on a grid with no vblanks yet.
func (x *x11) mscOffset(at time.Duration, msc uint64) int64 {
	if !x.grid.Known() {
		return 0
	}
	_, n, _ := x.grid.Next(at - x.grid.Period()/2)
	return int64(n) - int64(msc)
}

func (x *x11) close() error {
	if x.stop[1] >= 0 {
		unix.Close(x.stop[1])
	}
	<-x.done
	unix.Close(x.stop[0])
	C.XCloseDisplay(x.dpy)
	return x.err
}

// missingWindow stops the tracker's event thread and sends, on its
// connection, a request naming a window that does not exist, as the
// tracker's next one does once the app's window is gone: the tests'
// check that its X errors stay its own (tf_quiet). The tracker must be
// closed after it.
func (x *x11) missingWindow() {
	unix.Close(x.stop[1])
	<-x.done
	x.stop[1] = -1
	C.tf_missing_window(x.dpy)
}

// glfwX11 returns GLFW's X connection and the window of the current GL
// context, or nil when GLFW has none (not initialised, or not on X11).
// It must be called on the main thread.
func glfwX11() (unsafe.Pointer, uint64) {
	defer func() { _ = recover() }() // go-gl panics when GLFW is not initialised
	w := glfw.GetCurrentContext()
	if w == nil {
		return nil, 0
	}
	d := unsafe.Pointer(glfw.GetX11Display())
	if d == nil {
		return nil, 0
	}
	return d, uint64(w.GetX11Window())
}

// roundTrip makes an X round trip on connection d: it returns once the
// server has processed every request sent on it before.
func roundTrip(d unsafe.Pointer) { C.tf_sync(d) }

// synced reports whether the server has processed every request sent on
// connection d (Xlib's count of the replies read says so).
func synced(d unsafe.Pointer) bool { return C.tf_synced(d) != 0 }

// stamp asks for a completion on window win from connection d, processed
// after every request sent on d before it (not flushed: the round trip
// after it sends it).
func stamp(d unsafe.Pointer, win uint64, serial uint32) {
	C.tf_stamp(d, C.Window(win), C.uint32_t(serial))
}

// frameSync is the window's part in frame sync: its extended counter on
// GLFW's connection, and the messages the compositor sends back.
type frameSync struct {
	ext   C.XSyncCounter
	match C.tf_fs_match
	msgs  [64]C.tf_fs_msg
	f     fsMatcher
	m     wlMatcher
}

// openFrameSync takes part in frame sync on window win of GLFW's
// connection d where the window manager sends frame timings, and makes
// them t's source; nil where it does not, or where
// TICKFRAME_NO_FRAME_SYNC is set (to compare with the X server's own
// figures under the same compositor).
func openFrameSync(d unsafe.Pointer, win uint64, t *Tracker) *frameSync {
	if os.Getenv("TICKFRAME_NO_FRAME_SYNC") != "" || C.tf_fs_supported(d) == 0 {
		return nil
	}
	fs := &frameSync{}
	if C.tf_fs_init(d, C.Window(win), &fs.ext, &fs.match) == 0 {
		return nil
	}
	fs.m = wlMatcher{clockID: 1, name: SourceFrameTimings, clock: newClockMap(monotonic, t.now)}
	t.wl = &fs.m
	t.source = SourceFrameTimings
	t.grid.SetSource(VblankFrameTimings)
	return fs
}

// swapped marks swap n complete: the counter's value for it.
func (fs *frameSync) swapped(d unsafe.Pointer, n uint64) {
	C.tf_fs_set(d, fs.ext, C.int64_t(fs.f.value(n)))
}

// pump takes the compositor's frame messages off GLFW's queue (before
// its event loop drops them) into t's frames. It does not allocate.
func (fs *frameSync) pump(d unsafe.Pointer, t *Tracker) {
	for {
		n := int(C.tf_fs_take(d, &fs.match, &fs.msgs[0], C.int(len(fs.msgs))))
		for i := range n {
			c := &fs.msgs[i]
			fs.f.take(t, &fs.m, fsMsg{value: int64(c.value), drawnUs: int64(c.drawn_us),
				offsetUs: int32(c.offset_us), refreshUs: int32(c.refresh_us), kind: fsKind(c.kind)})
		}
		if n < len(fs.msgs) {
			break
		}
	}
	fs.m.clock.maybeMeasure()
}

// FindWindow returns the position on the root window and the size of the
// top-level window titled name on X display display ("" means $DISPLAY).
func FindWindow(display, name string) (x, y, w, h int, err error) {
	var cd *C.char
	if display != "" {
		cd = C.CString(display)
		defer C.free(unsafe.Pointer(cd))
	}
	dpy := C.tf_open(cd)
	if dpy == nil {
		return 0, 0, 0, 0, fmt.Errorf("present: cannot open X display %q", display)
	}
	defer C.XCloseDisplay(dpy)
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	var cx, cy, cw, ch C.int
	if C.tf_find(dpy, cn, &cx, &cy, &cw, &ch) == 0 {
		return 0, 0, 0, 0, fmt.Errorf("present: no window titled %q on the display", name)
	}
	return int(cx), int(cy), int(cw), int(ch), nil
}
