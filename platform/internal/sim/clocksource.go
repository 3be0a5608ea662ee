package sim

// ClockSource names the clock RealClock reads, for reports: "qpc"
// (QueryPerformanceCounter) on Windows, "mach_absolute_time" on macOS,
// "clock_monotonic" elsewhere.
func ClockSource() string { return clockSource() }
