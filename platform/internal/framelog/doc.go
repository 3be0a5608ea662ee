// Package framelog is the frame log: what an app knows of each frame it
// drew (its id, when it was swapped, when the display system says it was
// shown, the simulated time it shows), collected in memory allocated once
// and written when the run ends, for an observer outside the app to
// compare with what it saw (platform/internal/observe) and for the tools players
// use. Its formats are a stable contract, documented in docs/framelog.md:
// tickframe's own text, which Read reads back; PresentMon's CSV columns
// (a path ending in .csv); MangoHud's CSV log (.mangohud.csv), which
// keeps no frame ids and is written only.
package framelog
