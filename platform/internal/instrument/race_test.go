//go:build race

package instrument

const raceEnabled = true
