// Package present says when each swapped frame reached the display, from
// the display system itself wherever the platform can tell, and where the
// display's vblanks fall.
//
// A Tracker is opened on the render thread after the window, and picks its
// source at run time (Tracker.Source names it):
//
//   - SourceComplete: X11 with DRI3/Present (Mesa on a real GPU). The
//     swap is a PresentPixmap; the tracker selects PresentCompleteNotify on
//     the app's window from a connection of its own and reads, per swap,
//     the UST and MSC the server reports and the mode (copy, flip, skip:
//     a skipped frame was never shown). Completions are matched to swaps
//     in order of their serials.
//   - SourceRoundTrip: the software path (Mesa's drisw under Xvfb, VNC,
//     remote desktops), where the swap copies the image into the X server
//     with a PutImage and no Present event follows. An X round trip on the
//     app's own connection right after the swap returns once the server
//     has processed every request before it, the image included: the
//     frame is in the server's framebuffer by then, and shown at the next
//     vblank after.
//   - SourceDWM (Windows, a composed desktop), a model and named so
//     ("model: dwm vblank after swap"): DwmGetCompositionTimingInfo's
//     last vblank and refresh period, read after each swap; the frame is
//     taken as shown at the first vblank after the swap returned. Nothing
//     per present is read, so a queued frame shown a vblank or two later
//     is reported early, and Tracker.WaitReported never waits.
//   - SourceWayland (the -tags wayland build): the compositor's
//     wp_presentation feedback, asked for each swap's commit on the
//     window's own wl_surface and read on the render thread from a
//     private event queue. Each feedback names the swap whose commit it
//     follows; presented gives the frame's display time on the clock the
//     compositor names (converted by an offset measured every 100 ms,
//     Tracker.Clock), its refresh and vblank counter (the grid), and
//     flags the source's name carries; discarded is a frame never shown
//     (ModeSkip); a refresh of 0 is a variable-rate output.
//   - SourceModel, only where none of these exists: the caller's own
//     estimate, which it must label as a model.
//
// The vblanks come, where the display system gives them, from the same
// place: on X11 from PresentNotifyMSC completions on the window's CRTC (on
// Xvfb its fake CRTC, whose rate -fakescreenfps sets), each with the UST
// and MSC of one vblank. Grid holds them; its rate is measured from the
// USTs, not taken from a mode line. MSC gaps between frames are missed
// vblanks, counted from the display's own counter, unless the counter
// jumped (Discontinuous: another output's): the grid then starts again on
// the new count.
//
// Times are on the caller's clock (Options.Now): the X server's UST is
// CLOCK_MONOTONIC in microseconds, which the tracker maps onto that clock
// once, at Open.
package present
