//go:build linux && !wayland

package observe

/*
#cgo LDFLAGS: -lX11 -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <X11/Xlib.h>
#include <X11/keysym.h>

// XTEST's two calls, from libXtst at run time (dlopen): the library is
// on every X11 desktop (and Xvfb's dependencies), its headers are not
// needed to build.
typedef int (*tf_key_fn)(Display *, unsigned int, int, unsigned long);
typedef int (*tf_motion_fn)(Display *, int, int, int, unsigned long);
static tf_key_fn tf_xt_key;
static tf_motion_fn tf_xt_motion;

static int tf_xt_load(void) {
	if (tf_xt_key)
		return 1;
	void *h = dlopen("libXtst.so.6", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return 0;
	tf_xt_key = (tf_key_fn)dlsym(h, "XTestFakeKeyEvent");
	tf_xt_motion = (tf_motion_fn)dlsym(h, "XTestFakeMotionEvent");
	return tf_xt_key && tf_xt_motion;
}

static int tf_xt_has(Display *d) {
	int op, ev, err;
	return XQueryExtension(d, "XTEST", &op, &ev, &err);
}

static int tf_xt_press(Display *d, unsigned int code, int down) {
	return tf_xt_key(d, code, down, CurrentTime);
}

static int tf_xt_move(Display *d, int x, int y) {
	return tf_xt_motion(d, DefaultScreen(d), x, y, CurrentTime);
}
*/
import "C"

import (
	"fmt"
	"time"
	"unsafe"
)

// reactKeysym is the key the observer presses, XK_i: the one the app
// counts (instrument.ReactKey, the I key).
const reactKeysym = C.XK_i

// xtest presses keys through XTEST on a connection of its own.
type xtest struct {
	dpy  *C.Display
	code C.uint
	now  func() time.Duration
}

// openPresser connects to display, moves the pointer into the window at
// x, y (w×h) so that its key presses go there (an X server without a
// window manager gives the keyboard to the window under the pointer),
// and finds the key's code.
func openPresser(display string, x, y, w, h int) (presser, error) {
	if C.tf_xt_load() == 0 {
		return nil, fmt.Errorf("observe: cannot load libXtst.so.6 (XTEST)")
	}
	var cd *C.char
	if display != "" {
		cd = C.CString(display)
		defer C.free(unsafe.Pointer(cd))
	}
	dpy := C.XOpenDisplay(cd)
	if dpy == nil {
		return nil, fmt.Errorf("observe: cannot open X display %q", display)
	}
	if C.tf_xt_has(dpy) == 0 {
		C.XCloseDisplay(dpy)
		return nil, fmt.Errorf("observe: the X server %q has no XTEST extension", display)
	}
	code := C.XKeysymToKeycode(dpy, reactKeysym)
	if code == 0 {
		C.XCloseDisplay(dpy)
		return nil, fmt.Errorf("observe: the X server's keyboard has no key for 'i'")
	}
	C.tf_xt_move(dpy, C.int(x+w/2), C.int(y+h/2))
	C.XSync(dpy, C.False)
	return &xtest{dpy: dpy, code: C.uint(code), now: monotonic}, nil
}

// press sends a press and a release: sent is stamped just before the
// press is flushed to the server, synced once a round trip after it has
// returned (the server had processed the press by then).
func (x *xtest) press() (sent, synced time.Duration, err error) {
	C.tf_xt_press(x.dpy, x.code, C.True)
	sent = x.now()
	C.XSync(x.dpy, C.False)
	synced = x.now()
	C.tf_xt_press(x.dpy, x.code, C.False)
	C.XFlush(x.dpy)
	return sent, synced, nil
}

func (x *xtest) close() { C.XCloseDisplay(x.dpy) }
