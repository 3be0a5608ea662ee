//go:build windows

package present

import (
	"encoding/binary"
	"errors"
	"syscall"
	"time"
	"unsafe"
)

var (
	dwmapi         = syscall.NewLazyDLL("dwmapi.dll")
	procTimingInfo = dwmapi.NewProc("DwmGetCompositionTimingInfo")
	procComposed   = dwmapi.NewProc("DwmIsCompositionEnabled")
	kernel32       = syscall.NewLazyDLL("kernel32.dll")
	procQPC        = kernel32.NewProc("QueryPerformanceCounter")
	procQPF        = kernel32.NewProc("QueryPerformanceFrequency")
)

// DWM_TIMING_INFO is packed (pshpack1.h): its fields are read at their
// byte offsets, measured with the Windows SDK's own header.
const (
	dwmTimingSize = 292
	dwmPeriodOff  = 12  // qpcRefreshPeriod
	dwmVBlankOff  = 28  // qpcVBlank
	dwmRefreshOff = 36  // cRefresh
	dwmDroppedOff = 212 // cFramesDropped
)

// platform is the Windows side of a Tracker: the compositor's timing.
type platform struct {
	freq    int64
	offset  time.Duration // QPC time minus the caller's clock
	buf     [dwmTimingSize]byte
	dropped uint64
}

func qpc() int64 {
	var c int64
	procQPC.Call(uintptr(unsafe.Pointer(&c)))
	return c
}

func (p *platform) qpcTime(c int64) time.Duration {
	return time.Duration(c/p.freq)*time.Second + time.Duration(c%p.freq)*time.Second/time.Duration(p.freq)
}

func (p *platform) open(t *Tracker, o Options) error {
	if err := dwmapi.Load(); err != nil {
		return errors.New("present: no dwmapi.dll: " + err.Error())
	}
	var on int32
	if r, _, _ := procComposed.Call(uintptr(unsafe.Pointer(&on))); r != 0 || on == 0 {
		return errors.New("present: the desktop is not composed (DWM off)")
	}
	procQPF.Call(uintptr(unsafe.Pointer(&p.freq)))
	if p.freq <= 0 {
		return errors.New("present: no performance counter")
	}
	best := time.Duration(1 << 62)
	for range 16 {
		a := p.qpcTime(qpc())
		c := t.now()
		b := p.qpcTime(qpc())
		if b-a < best {
			best, p.offset = b-a, (a+b)/2-c
		}
	}
	if !p.read(t) {
		return errors.New("present: DwmGetCompositionTimingInfo failed")
	}
	t.grid.SetSource(VblankDWM)
	t.source = SourceDWM
	return nil
}

// read takes the compositor's last vblank into the grid.
func (p *platform) read(t *Tracker) bool {
	if p.freq <= 0 {
		return false // not opened
	}
	binary.LittleEndian.PutUint32(p.buf[0:], dwmTimingSize) // cbSize
	if r, _, _ := procTimingInfo.Call(0, uintptr(unsafe.Pointer(&p.buf[0]))); r != 0 {
		return false
	}
	vblank := int64(binary.LittleEndian.Uint64(p.buf[dwmVBlankOff:]))
	refresh := binary.LittleEndian.Uint64(p.buf[dwmRefreshOff:])
	p.dropped = binary.LittleEndian.Uint64(p.buf[dwmDroppedOff:])
	t.grid.Observe(p.qpcTime(vblank)-p.offset, refresh)
	return true
}

func (p *platform) roundTrip() {}

func (p *platform) stamp(uint32) {}

// swapped reads the compositor's timing after a swap: the frame is
// composed at the next vblank after the swap returned.
func (p *platform) swapped(t *Tracker, id uint64, swapAt time.Duration) {
	if !p.read(t) {
		return
	}
	landed := t.now()
	f := Frame{ID: id, Swap: swapAt, Landed: landed, Display: landed, Mode: ModeCopy}
	if at, msc, ok := t.grid.Next(landed); ok {
		f.Display, f.MSC = at, msc
	}
	t.emit(f)
}

func (p *platform) close() error { return nil }

// pump and flush read asynchronous feedback where it is the platform's
// to read (Wayland's); here there is none.
func (p *platform) pump(*Tracker) {}

func (p *platform) flush(*Tracker, time.Duration) {}

// Monotonic reads the performance counter (the clock of DWM's times).
func Monotonic() time.Duration {
	var f int64
	procQPF.Call(uintptr(unsafe.Pointer(&f)))
	p := platform{freq: max(f, 1)}
	return p.qpcTime(qpc())
}

// MonotonicOffset measures Monotonic minus now().
func MonotonicOffset(now func() time.Duration) time.Duration {
	a := Monotonic()
	c := now()
	b := Monotonic()
	return (a+b)/2 - c
}

// FindWindow is X11's.
func FindWindow(display, name string) (x, y, w, h int, err error) {
	return 0, 0, 0, 0, errors.New("present: FindWindow needs X11")
}
