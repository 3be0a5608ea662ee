package sched

import "strconv"

func osBackground(n int) string { return "nice " + strconv.Itoa(n) }
