package archtest

import (
	"slices"
	"testing"
)

// TestEveryExportIsReachable is the check make test runs: no library
// package exports a type that no caller can hold.
func TestEveryExportIsReachable(t *testing.T) {
	u, err := Unreachable(root(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range u {
		t.Errorf("%s is exported, but no exported API reaches it: unexport it, or move it where a caller can hold it", name)
	}
}

// TestUnreachableFindsPlantedTypes plants a module with each kind of
// exported type and checks that exactly the ones no caller can hold are
// reported.
func TestUnreachableFindsPlantedTypes(t *testing.T) {
	dir, write := plant(t)
	m := Module + "/"
	write("go.mod", "module "+Module+"\n")
	write("a/a.go", `package a

import "`+m+`b"

type Returned struct{ F Field; g Hidden }  // reached: New returns it
type Field struct{}                        // reached: an exported field of a reached type
type Hidden struct{}                       // not: only an unexported field names it
type Param int                             // reached: a parameter of a method of a reached type
type Orphan struct{}                       // not: nothing names it
type ViaVar struct{}                       // reached: an exported var's value
type ViaOther b.Other                      // not: its definition names b.Other, but nothing names it
type Contract interface{ Do() }            // reached: a caller implements it
type Fail struct{}                         // reached: an error type
func (Fail) Error() string { return "" }

// Ready is ready to use at its zero value.
type Ready struct{}

type alias = Orphan

func New() *Returned { return nil }
func (r *Returned) Set(p Param) {}
func (o Orphan) Method() Orphan { return o }
var V = makeViaVar()
func makeViaVar() ViaVar { return ViaVar{} }
func Remote() b.Used { return 0 }
`)
	write("b/b.go", "package b\n\ntype Used int\ntype Other int\n")
	write("cmd/tool/main.go", "package main\n\ntype Unused int\n\nfunc main() {}\n")
	write("a/internal/x/x.go", "package x\n\ntype Unused int\n")
	write("a/a_test.go", "package a\n\ntype TestOnly int\n")
	got, err := Unreachable(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{m + "a.Hidden", m + "a.Orphan", m + "a.ViaOther", m + "b.Other"}
	if !slices.Equal(got, want) {
		t.Errorf("unreachable %v, want %v", got, want)
	}
}

// The public surface's bounds (issue 35): at most 8 library packages
// exporting at most 400 names, methods and key constants included. Lower
// the ceiling as names go; a name added past it must send another out.
const (
	maxPublicPackages = 8
	maxPublicNames    = 400
)

// TestPublicSurfaceStaysSmall is the check make test runs.
func TestPublicSurfaceStaysSmall(t *testing.T) {
	counts, err := Surface(root(t))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if len(counts) > maxPublicPackages || total > maxPublicNames {
		t.Errorf("%d public packages exporting %d names, want at most %d and %d: %v",
			len(counts), total, maxPublicPackages, maxPublicNames, counts)
	}
}

// TestSurfaceCounts counts a planted package: its types, functions,
// constants, variables and exported types' methods, and nothing of an
// internal package, an unexported type's methods or a test file.
func TestSurfaceCounts(t *testing.T) {
	dir, write := plant(t)
	write("go.mod", "module "+Module+"\n")
	write("lib/lib.go", `package lib
type T struct{ Field int }
type hidden struct{}
func New() T { return T{} }
func (T) M() {}
func (hidden) N() {}
const A, b = 1, 2
var V = 3
`)
	write("lib/lib_test.go", "package lib\nfunc TestX() {}\n")
	write("lib/internal/x/x.go", "package x\nfunc Y() {}\n")
	counts, err := Surface(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) != 1 || counts["lib"] != 5 { // T, New, T.M, A, V
		t.Errorf("Surface = %v, want lib: 5", counts)
	}
}
