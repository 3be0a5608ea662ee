//go:build linux && !wayland

// Package xpresent is a test client of the X Present extension: a window
// of its own whose pixmaps it presents, as a DRI3 driver does, so that
// package present's completion path can be tested against a real X server
// that has no DRI3 (Xvfb).
package xpresent

/*
#cgo LDFLAGS: -lX11 -lXpresent
#include <stdlib.h>
#include <X11/Xlib.h>
#include <X11/extensions/Xpresent.h>

static Display *xp_open(const char *name) { return XOpenDisplay(name); }

static Window xp_window(Display *d, int w, int h, Pixmap *pix) {
	Window win = XCreateSimpleWindow(d, DefaultRootWindow(d), 0, 0, w, h, 0, 0, 0);
	XMapWindow(d, win);
	*pix = XCreatePixmap(d, win, w, h, DefaultDepth(d, DefaultScreen(d)));
	XSync(d, False);
	return win;
}

static void xp_present(Display *d, Window w, Pixmap p, unsigned serial, unsigned long long msc) {
	XPresentPixmap(d, w, p, serial, None, None, 0, 0, None, None, None, 0, msc, 0, 0, NULL, 0);
	XFlush(d);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Client is a connection with one mapped window and one pixmap.
type Client struct {
	dpy *C.Display
	win C.Window
	pix C.Pixmap
}

// Open connects to display name and maps a w×h window.
func Open(name string, w, h int) (*Client, error) {
	cn := C.CString(name)
	defer C.free(unsafe.Pointer(cn))
	d := C.xp_open(cn)
	if d == nil {
		return nil, fmt.Errorf("xpresent: cannot open display %q", name)
	}
	c := &Client{dpy: d}
	c.win = C.xp_window(d, C.int(w), C.int(h), &c.pix)
	return c, nil
}

// Window returns the window's id.
func (c *Client) Window() uint64 { return uint64(c.win) }

// Present presents the pixmap on the window with the given serial, at
// target MSC msc (0: as soon as possible).
func (c *Client) Present(serial uint32, msc uint64) {
	C.xp_present(c.dpy, c.win, c.pix, C.uint(serial), C.ulonglong(msc))
}

// Close closes the connection.
func (c *Client) Close() { C.XCloseDisplay(c.dpy) }
