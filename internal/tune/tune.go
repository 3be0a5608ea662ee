// Package tune holds the defaults of the frame pipeline that the app and
// the verifier share (interp.NewPipeline). They are variables so that a
// test can change one and see both programs follow; nothing else may
// change them, and never while a pipeline is being built.
package tune

import "time"

// MeterWarmup is how long after the first frame the animation-error
// meter's figures start over: the adaptive render delay starts from a
// guess and needs about a second to learn the publish jitter.
var MeterWarmup = time.Second
