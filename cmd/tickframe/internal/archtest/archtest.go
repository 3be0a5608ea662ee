// Package archtest checks the import rules of the module's architecture
// (docs/ARCHITECTURE.md): what must never depend on what. Its test runs
// the check over the module in make test and fails on a forbidden import,
// direct or through other packages of the module.
package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Module is the module's import path.
const Module = "github.com/tickframe/tickframe"

// Graph maps each of the module's packages (import paths) to what its
// non-test files import directly, the module's packages and others alike.
type Graph map[string][]string

// Load parses the imports of every package under root, the module's
// directory, whatever its build constraints (a rule holds on every
// platform): every .go file but tests, in every directory but testdata,
// hidden ones and nested modules.
func Load(root string) (Graph, error) {
	g := Graph{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || isModule(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		pkg := Module
		if rel != "." {
			pkg += "/" + filepath.ToSlash(rel)
		}
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: %v", path, err)
			}
			g[pkg] = append(g[pkg], p)
			if p == Module+"/sync/waitfree" {
				uses, err := tripleBufferUses(fset, path, imp)
				if err != nil {
					return err
				}
				if uses {
					g[pkg] = append(g[pkg], TripleBuffer)
				}
			}
		}
		if _, ok := g[pkg]; !ok {
			g[pkg] = nil
		}
		return nil
	})
	return g, err
}

// TripleBuffer stands in the graph for the triple buffer's API in package
// sync/waitfree (NewTripleBuffer, Producer, Consumer): a package that
// names one of them "imports" it, so that a rule can hold who touches the
// snapshot history apart from who uses the package's queue.
const TripleBuffer = Module + "/sync/waitfree#triplebuffer"

// tripleBufferNames are the names that make a file a TripleBuffer user.
var tripleBufferNames = map[string]bool{"NewTripleBuffer": true, "Producer": true, "Consumer": true}

// tripleBufferUses reports whether the file at path, which has the import
// imp of sync/waitfree, names the triple buffer's API through it.
func tripleBufferUses(fset *token.FileSet, path string, imp *ast.ImportSpec) (bool, error) {
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		return false, err
	}
	local := "waitfree"
	if imp.Name != nil {
		local = imp.Name.Name
	}
	found := false
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == local && tripleBufferNames[sel.Sel.Name] {
				found = true
			}
		}
		return !found
	})
	return found, nil
}

func isModule(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// Rule is one thing that must never depend on another: no package under
// one of From may reach (import, or import a package of the module that
// reaches) a package under one of To, unless it is under one of Except
// or the package reached is under one of Allow (and then it is not
// followed further).
// Paths are relative to the module ("simthread" is simthread and every
// package below it); a To outside the module is an import path prefix
// ("github.com/go-gl/glfw").
type Rule struct {
	Why        string
	From, To   []string
	Except     []string
	Allow      []string
	DirectOnly bool // only direct imports count
}

// Rules are the module's: docs/ARCHITECTURE.md explains each.
var Rules = []Rule{
	{Why: "the simulation knows no screen, window or app",
		From: []string{"simthread", "platform/internal/sim"}, To: []string{"platform", "renderer", "cmd", "examples", "github.com/go-gl/glfw", "github.com/go-gl/gl"},
		Allow: []string{"platform/internal/stats"}},
	{Why: "the histogram knows nothing of what it records (the simulation may use it)",
		From: []string{"platform/internal/stats"}, To: []string{"simthread", "renderer", "platform", "sync", "cmd", "examples", "github.com/go-gl"},
	},
	{Why: "sync/ knows nothing of what it carries",
		From: []string{"sync"}, To: []string{"simthread", "renderer", "platform", "cmd", "examples", "internal"}},
	{Why: "the renderer knows no window (its tests open theirs with renderer/internal/gltest)",
		From: []string{"renderer"}, To: []string{"platform", "cmd", "examples", "github.com/go-gl/glfw"},
		Except: []string{"renderer/internal/gltest"}},
	{Why: "the events an app reads know no window system: the window that makes them is internal",
		From: []string{"platform"}, Except: []string{"platform/app", "platform/internal", "platform/lab"},
		To: []string{"platform/internal/window", "github.com/go-gl/glfw", "github.com/go-gl/gl"}},
	{Why: "only the renderer's tests open a window of their own",
		From: []string{""}, To: []string{"renderer/internal/gltest"}, Except: []string{"renderer/internal/gltest"}},
	{Why: "the planner does its maths without GL: it reads the renderer's Plan and pose maths, and calls no GL itself",
		From: []string{"platform/internal/interp"}, To: []string{"github.com/go-gl/gl", "github.com/go-gl/glfw", "renderer/gltf", "renderer/internal", "platform/internal/marker"}, DirectOnly: true},
	{Why: "only the planner reads the snapshot history (the simulation writes it; the verifier's broken renderers read it on purpose)",
		From: []string{""}, To: []string{"sync/waitfree#triplebuffer"}, DirectOnly: true,
		Except: []string{"sync/waitfree", "platform/internal/sim", "platform/internal/interp", "platform/internal/verify"}},
	{Why: "scheduling and present feedback know no simulation or renderer",
		From: []string{"platform/internal/sched", "platform/internal/present"}, To: []string{"simthread", "platform/internal/sim", "renderer", "platform/app", "platform/internal/loop", "platform/internal/instrument"}},
	{Why: "the runtime knows none of its instruments: package app attaches them (package instrument) at the loop's seams, as loop.Hooks",
		From: []string{"platform/internal/loop"}, To: []string{"platform/app", "platform/internal/instrument", "platform/internal/observe", "gonum.org/v1/plot"}},
	{Why: "an app's import graph holds none of the lab's tools: the observer's harness, the verifier, the commands",
		From: []string{"platform/app", "platform/internal/instrument", "platform/internal/loop", "platform/internal/framelog", "examples"}, To: []string{"platform/internal/observe", "cmd", "platform/lab", "platform/internal/tickframe", "platform/internal/verify"}},
}

// under reports whether pkg is the module package rel or below it; rel ""
// is the whole module. A rel with a dot in its first element is an
// import path outside the module.
func under(pkg, rel string) bool {
	p := Module
	if rel != "" {
		p += "/" + rel
	}
	if first, _, _ := strings.Cut(rel, "/"); strings.Contains(first, ".") {
		p = rel
	}
	return pkg == p || strings.HasPrefix(pkg, p+"/")
}

// Violation is a forbidden dependency and the chain of imports that makes
// it.
type Violation struct {
	Rule  *Rule
	Chain []string // from the offending package to the forbidden one
}

func (v Violation) String() string {
	return fmt.Sprintf("%s: %s", v.Rule.Why, strings.Join(v.Chain, " -> "))
}

// Check returns every violation of rules in g, one per offending package
// and rule (the shortest chain), sorted.
func Check(g Graph, rules []Rule) []Violation {
	pkgs := make([]string, 0, len(g))
	for p := range g {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	var out []Violation
	for i := range rules {
		r := &rules[i]
		for _, p := range pkgs {
			if !anyUnder(p, r.From) || anyUnder(p, r.Except) {
				continue
			}
			if chain := reach(g, p, r); chain != nil {
				out = append(out, Violation{Rule: r, Chain: chain})
			}
		}
	}
	return out
}

func anyUnder(p string, rels []string) bool {
	for _, r := range rels {
		if under(p, r) {
			return true
		}
	}
	return false
}

// reach returns the shortest import chain from p to a package r forbids,
// through the module's packages (breadth first), or nil.
func reach(g Graph, p string, r *Rule) []string {
	prev := map[string]string{p: ""}
	queue := []string{p}
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		for _, imp := range g[q] {
			if _, seen := prev[imp]; seen {
				continue
			}
			prev[imp] = q
			if anyUnder(imp, r.Allow) {
				continue
			}
			if anyUnder(imp, r.To) {
				var chain []string
				for x := imp; x != ""; x = prev[x] {
					chain = append([]string{x}, chain...)
				}
				return chain
			}
			if _, inModule := g[imp]; inModule && !r.DirectOnly {
				queue = append(queue, imp)
			}
		}
	}
	return nil
}
