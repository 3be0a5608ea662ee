package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// DocNames checks the Go names that the module's Markdown (README.md and
// docs/*.md) writes in backquotes: a qualified name, `pkg.Name`,
// `pkg.Type.Member`, `Type.Member` or any of them with `()`, must exist in
// the module. The first part is the last element of a package's path
// (the module's libraries, internal ones included) or, failing that, a type of
// the module; anything else (a standard library name, a variable, a file
// name) is not checked. A member is a field or a method, promoted through
// embedded fields too. Each problem is "file:line: `name`: why", in the
// order of the files and their lines.
func DocNames(root string) ([]string, error) {
	idx, err := indexNames(root)
	if err != nil {
		return nil, err
	}
	files := []string{filepath.Join(root, "README.md")}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	files = append(files, more...)
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, f)
		for _, n := range codeNames(string(data)) {
			if why := idx.check(n.name); why != "" {
				out = append(out, fmt.Sprintf("%s:%d: `%s`: %s", filepath.ToSlash(rel), n.line, n.name, why))
			}
		}
	}
	return out, nil
}

// docName is a name in backquotes and the line it is on.
type docName struct {
	name string
	line int
}

var (
	codeSpan  = regexp.MustCompile("`([^`\n]+)`")
	qualified = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$`)
)

// fileExt are the extensions of the file names the docs write
// (`tickframe.exe`, `main.go`): not Go names.
var fileExt = map[string]bool{"exe": true, "go": true, "md": true, "json": true, "png": true, "svg": true,
	"glb": true, "gltf": true, "csv": true, "txt": true, "sh": true, "log": true, "rec": true, "tfr": true,
	"mod": true, "sum": true, "c": true, "h": true, "glsl": true, "vert": true, "frag": true, "xwd": true, "pprof": true}

// codeNames returns the qualified names in md's code spans, outside
// fenced blocks.
func codeNames(md string) []docName {
	var out []docName
	fenced := false
	for i, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			s := strings.TrimSuffix(m[1], "()")
			if qualified.MatchString(s) && !fileExt[s[strings.LastIndexByte(s, '.')+1:]] {
				out = append(out, docName{s, i + 1})
			}
		}
	}
	return out
}

// nameIndex is what DocNames checks against: the module's packages by
// their last path element, each with its top-level names and its types'
// members.
type nameIndex struct {
	pkgs  map[string][]*pkgNames // by last path element
	types map[string][]*typeNames
}

type pkgNames struct {
	top   map[string]bool
	types map[string]*typeNames
}

type typeNames struct {
	members  map[string]bool
	embedded []string // the embedded fields' type names, unqualified
	pkg      *pkgNames
}

func indexNames(root string) (*nameIndex, error) {
	idx := &nameIndex{pkgs: map[string][]*pkgNames{}, types: map[string][]*typeNames{}}
	byDir := map[string]*pkgNames{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || isModule(path)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil // a command: its name is a file's (`tickframe.exe`)
		}
		dir := filepath.Dir(path)
		p := byDir[dir]
		if p == nil {
			p = &pkgNames{top: map[string]bool{}, types: map[string]*typeNames{}}
			byDir[dir] = p
			idx.pkgs[filepath.Base(dir)] = append(idx.pkgs[filepath.Base(dir)], p)
		}
		p.add(f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, p := range byDir {
		for name, t := range p.types {
			idx.types[name] = append(idx.types[name], t)
		}
	}
	return idx, nil
}

func (p *pkgNames) typ(name string) *typeNames {
	t := p.types[name]
	if t == nil {
		t = &typeNames{members: map[string]bool{}, pkg: p}
		p.types[name] = t
	}
	return t
}

func (p *pkgNames) add(f *ast.File) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				p.top[d.Name.Name] = true
				continue
			}
			if r := typeName(d.Recv.List[0].Type); r != "" {
				p.typ(r).members[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						p.top[n.Name] = true
					}
				case *ast.TypeSpec:
					p.top[s.Name.Name] = true
					t := p.typ(s.Name.Name)
					switch st := s.Type.(type) {
					case *ast.StructType:
						for _, fl := range st.Fields.List {
							for _, n := range fl.Names {
								t.members[n.Name] = true
							}
							if len(fl.Names) == 0 {
								if e := typeName(fl.Type); e != "" {
									t.members[e] = true
									t.embedded = append(t.embedded, e)
								}
							}
						}
					case *ast.InterfaceType:
						for _, m := range st.Methods.List {
							for _, n := range m.Names {
								t.members[n.Name] = true
							}
							if len(m.Names) == 0 {
								if e := typeName(m.Type); e != "" {
									t.embedded = append(t.embedded, e)
								}
							}
						}
					}
				}
			}
		}
	}
}

// typeName is the type name of a receiver or an embedded field: T, *T,
// pkg.T, T[P].
func typeName(e ast.Expr) string {
	if sel, ok := e.(*ast.SelectorExpr); ok {
		return sel.Sel.Name
	}
	if st, ok := e.(*ast.StarExpr); ok {
		if sel, ok := st.X.(*ast.SelectorExpr); ok {
			return sel.Sel.Name
		}
	}
	return recvName(e)
}

// has reports whether a type named like t has member m, itself or
// through its embedded fields (any of the module's types of that name).
func (idx *nameIndex) has(t *typeNames, m string, depth int) bool {
	if t.members[m] {
		return true
	}
	if depth > 4 {
		return false
	}
	for _, e := range t.embedded {
		cands := idx.types[e]
		if local := t.pkg.types[e]; local != nil {
			cands = []*typeNames{local}
		}
		for _, c := range cands {
			if idx.has(c, m, depth+1) {
				return true
			}
		}
	}
	return false
}

// check returns why name does not exist ("" if it does, or if its first
// part is neither a package nor a type of the module).
func (idx *nameIndex) check(name string) string {
	parts := strings.Split(name, ".")
	if pkgs := idx.pkgs[parts[0]]; len(pkgs) > 0 {
		var types []*typeNames
		for _, p := range pkgs {
			if p.top[parts[1]] {
				if t := p.types[parts[1]]; t != nil {
					types = append(types, t)
				} else if len(parts) == 2 {
					return ""
				}
			}
		}
		if len(types) == 0 {
			if len(parts) > 2 && slices.ContainsFunc(pkgs, func(p *pkgNames) bool { return p.top[parts[1]] }) {
				return "" // a member of a variable or a function's result: not checked
			}
			return fmt.Sprintf("package %s has no %s", parts[0], parts[1])
		}
		return idx.members(parts[0]+"."+parts[1], types, parts[2:])
	}
	if types := idx.types[parts[0]]; len(types) > 0 {
		return idx.members(parts[0], types, parts[1:])
	}
	return ""
}

// members checks the chain of members after a type: the first must be a
// member of one of types; what follows is not checked (its type would
// need the checker).
func (idx *nameIndex) members(what string, types []*typeNames, rest []string) string {
	if len(rest) == 0 {
		return ""
	}
	for _, t := range types {
		if idx.has(t, rest[0], 0) {
			return ""
		}
	}
	return fmt.Sprintf("%s has no field or method %s", what, rest[0])
}
