// Package observe watches a display from outside the app, as a capture
// card would, and reports what was on it and when.
//
// The app draws a per-frame marker (renderer.DrawMarker: a column of one
// of 16 colours down the window's left edge, frame n in colour n mod 16).
// A Session reads the X server's framebuffer (Xvfb's -fbdir file, memory
// mapped: the server's own pixels, not a copy the app made) at a few
// kilohertz, at real-time priority where the system allows, and records
// every change of the marker with its time. Analyze joins those changes
// with the app's per-frame log (LogFrame: frame id → swap time, the
// simulated time the frame shows, the app's own verdict) and the display's
// vblank grid (package present), and reports what a viewer saw: frames
// displayed, dropped (drawn, never on screen), repeated (vblanks that
// showed the previous frame again), frame times as seen and PresentMon's
// animation error between consecutive displayed frames.
//
// What it cannot see: a framebuffer is not a panel's scanout. It sees when
// the server put a frame into its framebuffer; the scanout of a real
// display (and a compositor between the two) comes after, at a vblank the
// observer can only take from the display system's grid. Its own
// precision is its polling interval (Config.Interval) plus its wake-up
// latency, both reported.
//
// Times are CLOCK_MONOTONIC (present.Monotonic), shared by every process
// on the machine, so the app's log and the observer's changes compare
// directly.
package observe
