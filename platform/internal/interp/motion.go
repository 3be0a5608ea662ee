package interp

import (
	"math"
	"time"
)

// Extrapolation tuning.
const (
	// MaxAhead is the least reach of Extrapolate, in ticks: how far past
	// its basis it predicts before it holds. The reach is the longer of
	// MaxAhead ticks and the render delay Lerp would use plus a tick: the
	// adaptive delay is a tick plus the largest publish delay of late, so
	// a basis younger than that is not overdue, and the tick more lets a
	// wake come a tick late without the pose stopping. At 30 Hz on a calm
	// machine the reach is two ticks (67 ms); at 1000 Hz, where a wake
	// 2 ms late is two ticks, it is the delay and a tick (about 5 ms).
	MaxAhead = 2
	// CorrectionTime is how long Extrapolate takes to blend a correction
	// in: the offset decays exponentially with time constant
	// CorrectionTime/3, so 95 % of it is gone after 50 ms. Long enough
	// that the kick of a body moving 5 m/s (a 20 cm correction at 30 Hz)
	// moves it less than 4 m/s extra, short enough that the body is back
	// on its predicted path within three frames at 60 Hz. Exponential
	// decay composes: corrections that come faster than they blend (every
	// tick at 120 Hz) simply add, and a follower that missed some (a meter
	// started late) converges to the renderer's state within a few time
	// constants.
	CorrectionTime = 50 * time.Millisecond
)

// blendTau is the correction's time constant, in seconds.
const blendTau = float64(CorrectionTime) / 3 / float64(time.Second)

// decay returns how much of a correction is left after d: exp(−d/τ), 1
// for d ≤ 0.
func decay(d time.Duration) float32 {
	if d <= 0 {
		return 1
	}
	return float32(math.Exp(-d.Seconds() / blendTau))
}
