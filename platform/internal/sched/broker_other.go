//go:build !linux

package sched

// The brokers (the xdg desktop portal, RealtimeKit) are Linux's.

func brokerNice(*ThreadPriority, Config) {}

func brokerRT(*ThreadPriority, Config) {}

func guardRT(*ThreadPriority) bool { return false }

func unwatchXCPU(int) {}
