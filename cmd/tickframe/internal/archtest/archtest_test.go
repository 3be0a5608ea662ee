package archtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// root finds the module's directory above the test's.
func root(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for !isModule(dir) {
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
	return dir
}

// plant returns a new directory for a planted module and a function
// that writes a file into it, making its folders.
func plant(t *testing.T) (dir string, write func(rel, src string)) {
	t.Helper()
	dir = t.TempDir()
	return dir, func(rel, src string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestModuleKeepsItsImportRules is the check make test runs.
func TestModuleKeepsItsImportRules(t *testing.T) {
	g, err := Load(root(t))
	if err != nil {
		t.Fatal(err)
	}
	// The walk saw the module: the packages every rule is about.
	for _, p := range []string{"simthread", "platform/internal/sim", "sync/waitfree", "renderer", "platform/internal/interp", "platform", "platform/app"} {
		if _, ok := g[Module+"/"+p]; !ok {
			t.Fatalf("package %s not found under %s", p, root(t))
		}
	}
	for _, v := range Check(g, Rules) {
		t.Errorf("forbidden import: %v", v)
	}
}

// TestPlantedImportsAreCaught plants forbidden imports in a copy of the
// module's layout, direct and through another package, and checks that
// each is reported with its chain, and that nothing else is.
func TestPlantedImportsAreCaught(t *testing.T) {
	dir, write := plant(t)
	imp := func(pkg string, imports ...string) string {
		src := "package " + filepath.Base(pkg) + "\n\nimport (\n"
		for _, i := range imports {
			src += "\t_ \"" + i + "\"\n"
		}
		return src + ")\n"
	}
	// use is a file of pkg that names waitfree.<name> (the triple buffer's
	// API, or the package's queue).
	use := func(pkg, name string) string {
		return "package " + filepath.Base(pkg) + "\n\nimport \"" + Module + "/sync/waitfree\"\n\nvar _ = waitfree." + name + "\n"
	}
	m := Module + "/"
	write("go.mod", "module "+Module+"\n")
	write("platform/input.go", imp("platform", "strconv"))
	write("platform/internal/window/window.go", imp("window", "github.com/go-gl/glfw/v3.3/glfw", m+"platform"))
	write("platform/internal/loop/loop.go", imp("loop", m+"platform/internal/window", m+"renderer", m+"platform/internal/interp"))
	write("platform/app/app.go", imp("app", m+"platform", m+"platform/internal/loop", m+"simthread"))
	write("renderer/renderer.go", imp("renderer", "github.com/go-gl/gl/v4.1-core/gl", m+"simthread"))
	write("renderer/internal/gltest/gltest.go", imp("gltest", "github.com/go-gl/glfw/v3.3/glfw"))
	write("renderer/x_test.go", imp("renderer", m+"renderer/internal/gltest"))
	write("platform/internal/interp/planner.go", imp("interp", m+"renderer", m+"simthread", m+"sync/waitfree"))
	write("platform/internal/interp/history.go", use("interp", "NewTripleBuffer[int]"))
	write("simthread/sim.go", imp("simthread", m+"sync/waitfree", m+"simthread/debug"))
	write("platform/internal/sim/sim.go", imp("sim", m+"simthread", m+"sync/waitfree", m+"platform/internal/stats"))
	write("platform/internal/stats/histogram.go", imp("stats", "sync/atomic")) // the simulation may use the histogram
	write("platform/internal/sim/publish.go", use("sim", "NewTripleBuffer[int]"))
	write("platform/internal/sched/sched.go", imp("sched", "golang.org/x/sys/unix"))
	write("sync/waitfree/buf.go", imp("waitfree", "sync/atomic"))
	write("platform/app/queue.go", use("app", "NewQueue[int]"))  // the queue is not the history
	write("simthread/x_test.go", imp("simthread", m+"platform")) // tests may
	g, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v := Check(g, Rules); len(v) != 0 {
		t.Fatalf("the clean layout breaks rules: %v", v)
	}

	// Planted: the simulation reaching the window through a package of
	// its own, its goroutine reaching the window, the contract and the
	// app reading the history, scheduling knowing the simulation, the
	// renderer importing the window and the planner, sync/ knowing what
	// it carries, the planner calling GL, a package of the renderer
	// using the tests' window, the app's events reaching GLFW, and the
	// histogram the simulation may use reaching the window.
	write("simthread/debug/debug.go", imp("debug", m+"platform/internal/window"))
	write("platform/internal/sim/window.go", imp("sim", m+"platform/internal/window"))
	write("simthread/history.go", use("simthread", "Consumer[int]"))
	write("platform/internal/sched/sim.go", imp("sched", m+"platform/internal/sim"))
	write("renderer/window.go", imp("renderer", m+"platform"))
	write("platform/keys.go", imp("platform", "github.com/go-gl/glfw/v3.3/glfw"))
	write("platform/app/history.go", use("app", "Consumer[int]"))
	write("sync/waitfree/snap.go", imp("waitfree", m+"simthread"))
	write("platform/internal/instrument/log.go", imp("instrument", m+"platform/internal/observe"))
	write("platform/internal/observe/watch.go", imp("observe", m+"platform"))
	write("renderer/plan.go", imp("renderer", m+"platform/internal/interp"))
	write("platform/internal/interp/gl.go", imp("interp", "github.com/go-gl/gl/v4.1-core/gl"))
	write("renderer/gltf/view.go", imp("gltf", m+"renderer/internal/gltest"))
	write("platform/internal/stats/window.go", imp("stats", m+"platform/internal/window"))
	if g, err = Load(dir); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range Check(g, Rules) {
		got = append(got, v.String())
	}
	for _, want := range []string{
		"the simulation knows no screen, window or app: " + m + "simthread -> " + m + "simthread/debug -> " + m + "platform/internal/window",
		"the simulation knows no screen, window or app: " + m + "simthread/debug -> " + m + "platform/internal/window",
		"the simulation knows no screen, window or app: " + m + "platform/internal/sim -> " + m + "platform/internal/window",
		"the histogram knows nothing of what it records (the simulation may use it): " + m + "platform/internal/stats -> " + m + "platform/internal/window",
		"only the planner reads the snapshot history (the simulation writes it; the verifier's broken renderers read it on purpose): " + m + "simthread -> " + TripleBuffer,
		"scheduling and present feedback know no simulation or renderer: " + m + "platform/internal/sched -> " + m + "platform/internal/sim",
		"the renderer knows no window (its tests open theirs with renderer/internal/gltest): " + m + "renderer -> " + m + "platform",
		"the events an app reads know no window system: the window that makes them is internal: " + m + "platform -> github.com/go-gl/glfw/v3.3/glfw",
		"the renderer knows no window (its tests open theirs with renderer/internal/gltest): " + m + "renderer/gltf -> " + m + "renderer/internal/gltest -> github.com/go-gl/glfw/v3.3/glfw",
		"only the renderer's tests open a window of their own: " + m + "renderer/gltf -> " + m + "renderer/internal/gltest",
		"the planner does its maths without GL: it reads the renderer's Plan and pose maths, and calls no GL itself: " + m + "platform/internal/interp -> github.com/go-gl/gl/v4.1-core/gl",
		"only the planner reads the snapshot history",
		"sync/ knows nothing of what it carries: " + m + "sync/waitfree -> " + m + "simthread",
		"an app's import graph holds none of the lab's tools: the observer's harness, the verifier, the commands: " + m + "platform/internal/instrument -> " + m + "platform/internal/observe",
	} {
		found := false
		for _, g := range got {
			found = found || strings.HasPrefix(g, want) || (strings.Contains(want, "history") && strings.Contains(g, want) && strings.Contains(g, "platform/app ->"))
		}
		if !found {
			t.Errorf("planted import not reported: %q\ngot:\n%s", want, strings.Join(got, "\n"))
		}
	}
}
