// Package cthread starts threads that Go did not create, as a C library
// starts its workers, for the tests of platform/sched (Linux with cgo).
package cthread
