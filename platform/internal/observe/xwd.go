package observe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// Framebuffer is an X Window Dump image held in memory that another
// process keeps writing (Xvfb's -fbdir screen file, memory-mapped):
// reading a pixel reads what the server holds now.
type Framebuffer struct {
	data          []byte
	unmap         func() error
	Width, Height int
	stride, off   int
	bpp           int
	lsb           bool
	// Masks of the red, green and blue bits in a pixel, and their shifts.
	rm, gm, bm uint32
	rs, gs, bs uint
}

// xwdHeader is the size of an XWD file's fixed header: 25 CARD32s.
const xwdHeader = 100

// parseXWD reads an XWD (version 7) header from data, which must hold the
// whole image.
func parseXWD(data []byte) (*Framebuffer, error) {
	if len(data) < xwdHeader {
		return nil, errors.New("observe: not an XWD file: too short")
	}
	be := binary.BigEndian
	h := func(i int) uint32 { return be.Uint32(data[4*i:]) }
	headerSize, version := int(h(0)), h(1)
	if version != 7 {
		return nil, fmt.Errorf("observe: not an XWD version 7 file (version %d)", version)
	}
	if h(2) != 2 { // ZPixmap
		return nil, fmt.Errorf("observe: XWD pixmap format %d, want ZPixmap (2)", h(2))
	}
	fb := &Framebuffer{Width: int(h(4)), Height: int(h(5)), lsb: h(7) == 0, bpp: int(h(11)),
		stride: int(h(12)), rm: h(14), gm: h(15), bm: h(16)}
	ncolors := int(h(19))
	if fb.bpp != 32 && fb.bpp != 24 {
		return nil, fmt.Errorf("observe: XWD with %d bits per pixel, want 24 or 32", fb.bpp)
	}
	if fb.rm == 0 || fb.gm == 0 || fb.bm == 0 {
		return nil, errors.New("observe: XWD without colour masks (not TrueColor)")
	}
	fb.off = headerSize + 12*ncolors // each XWDColor is 12 bytes
	if fb.Width <= 0 || fb.Height <= 0 || fb.stride < fb.Width*fb.bpp/8 || fb.off+fb.stride*fb.Height > len(data) {
		return nil, fmt.Errorf("observe: XWD %dx%d (stride %d) does not fit its %d bytes", fb.Width, fb.Height, fb.stride, len(data))
	}
	fb.rs, fb.gs, fb.bs = shift(fb.rm), shift(fb.gm), shift(fb.bm)
	fb.data = data
	return fb, nil
}

func shift(m uint32) uint {
	var s uint
	for m&1 == 0 {
		m >>= 1
		s++
	}
	return s
}

// OpenFramebuffer maps the XWD file at path, read-only and shared, so that
// the server's writes show.
func OpenFramebuffer(path string) (*Framebuffer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("observe: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("observe: %w", err)
	}
	data, unmap, err := mapFile(f, int(st.Size()))
	if err != nil {
		return nil, fmt.Errorf("observe: map %s: %w", path, err)
	}
	fb, err := parseXWD(data)
	if err != nil {
		_ = unmap()
		return nil, fmt.Errorf("%w (%s)", err, path)
	}
	fb.unmap = unmap
	return fb, nil
}

// RGB returns the pixel at x, y as 8-bit red, green and blue.
func (fb *Framebuffer) RGB(x, y int) (r, g, b uint8) {
	i := fb.off + y*fb.stride + x*fb.bpp/8
	p := fb.data[i : i+fb.bpp/8]
	var v uint32
	if fb.bpp == 32 {
		if fb.lsb {
			v = binary.LittleEndian.Uint32(p)
		} else {
			v = binary.BigEndian.Uint32(p)
		}
	} else if fb.lsb {
		v = uint32(p[0]) | uint32(p[1])<<8 | uint32(p[2])<<16
	} else {
		v = uint32(p[2]) | uint32(p[1])<<8 | uint32(p[0])<<16
	}
	return uint8((v & fb.rm) >> fb.rs), uint8((v & fb.gm) >> fb.gs), uint8((v & fb.bm) >> fb.bs)
}

// Close unmaps the file.
func (fb *Framebuffer) Close() error {
	if fb.unmap == nil {
		return nil
	}
	err := fb.unmap()
	fb.unmap, fb.data = nil, nil
	return err
}
