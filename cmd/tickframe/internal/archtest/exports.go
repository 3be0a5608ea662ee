package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Unreachable lists the exported types of the module's library packages
// (not main, not internal) that no exported API reaches: no exported
// function, method, variable, constant or field of a reached type names
// them, directly or through another. Such a type is noise in go doc: a
// caller can never hold one. A caller can hold three kinds of type that
// nothing returns, and they are reached by themselves: an interface (a
// caller implements it or asserts it), an error type (errors.As finds
// it), and a type whose doc says its zero value is ready to use (a caller
// declares one). Every build constraint is read at once, as the import
// rules are. The names are "path.Type", sorted.
func Unreachable(root string) ([]string, error) {
	pkgs, err := parseLibrary(root)
	if err != nil {
		return nil, err
	}
	r := exportWalk{pkgs: pkgs, seen: map[typeRef]bool{}}
	for _, p := range pkgs {
		for name, spec := range p.types {
			if holdable(p, name, spec) {
				r.mark(p.path, name)
			}
		}
		for _, f := range p.funcs {
			r.expr(p, f.Type)
		}
		for _, v := range p.values {
			r.value(p, v)
		}
	}
	for len(r.todo) > 0 {
		t := r.todo[len(r.todo)-1]
		r.todo = r.todo[:len(r.todo)-1]
		p := pkgs[t.pkg]
		r.typeSpec(p, p.types[t.name])
		for _, m := range p.methods[t.name] {
			r.expr(p, m.Type)
		}
	}
	var out []string
	for path, p := range pkgs {
		for name := range p.types {
			if !r.seen[typeRef{path, name}] {
				out = append(out, path+"."+name)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

type typeRef struct{ pkg, name string }

// holdable reports whether a caller can hold a value of an exported type
// that no API hands out: an interface, an error, or a type documented as
// ready at its zero value.
func holdable(p *libPkg, name string, s *ast.TypeSpec) bool {
	if _, ok := s.Type.(*ast.InterfaceType); ok {
		return true
	}
	for _, m := range p.methods[name] {
		if m.Name.Name == "Error" {
			return true
		}
	}
	doc := strings.ToLower(p.docs[s])
	return strings.Contains(doc, "zero") &&
		(strings.Contains(doc, "ready") || strings.Contains(doc, "usable") || strings.Contains(doc, "useful") ||
			strings.Contains(doc, "valid"))
}

// libPkg is what the walk needs of one package's files.
type libPkg struct {
	path    string
	types   map[string]*ast.TypeSpec   // exported types
	methods map[string][]*ast.FuncDecl // exported methods by receiver type
	funcs   []*ast.FuncDecl            // exported functions
	values  []*ast.ValueSpec           // exported vars and consts
	results map[string][]ast.Expr      // every function's result types, by name
	docs    map[*ast.TypeSpec]string   // each type's doc comment
	imports map[*ast.File]map[string]string
	fileOf  map[ast.Node]*ast.File
}

func parseLibrary(root string) (map[string]*libPkg, error) {
	pkgs := map[string]*libPkg{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "internal" ||
				name == "cmd" || name == "examples" || name == "docs") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		ip := Module + "/" + filepath.ToSlash(rel)
		p := pkgs[ip]
		if p == nil {
			p = &libPkg{path: ip, types: map[string]*ast.TypeSpec{}, methods: map[string][]*ast.FuncDecl{},
				results: map[string][]ast.Expr{}, docs: map[*ast.TypeSpec]string{}, imports: map[*ast.File]map[string]string{}, fileOf: map[ast.Node]*ast.File{}}
			pkgs[ip] = p
		}
		p.add(f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("archtest: no library package under %s", root)
	}
	return pkgs, nil
}

func (p *libPkg) add(f *ast.File) {
	imps := map[string]string{}
	for _, s := range f.Imports {
		path, _ := strconv.Unquote(s.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if s.Name != nil {
			name = s.Name.Name
		}
		imps[name] = path
	}
	p.imports[f] = imps
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			p.fileOf[d] = f
			if d.Recv == nil {
				if d.Type.Results != nil {
					for _, r := range d.Type.Results.List {
						p.results[d.Name.Name] = append(p.results[d.Name.Name], r.Type)
					}
				}
				if d.Name.IsExported() {
					p.funcs = append(p.funcs, d)
				}
				continue
			}
			if recv := recvName(d.Recv.List[0].Type); d.Name.IsExported() && recv != "" {
				p.methods[recv] = append(p.methods[recv], d)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					p.fileOf[s] = f
					if s.Name.IsExported() {
						p.types[s.Name.Name] = s
						doc := s.Doc
						if doc == nil && len(d.Specs) == 1 {
							doc = d.Doc
						}
						p.docs[s] = doc.Text()
					}
				case *ast.ValueSpec:
					p.fileOf[s] = f
					for _, n := range s.Names {
						if n.IsExported() {
							p.values = append(p.values, s)
							break
						}
					}
				}
			}
		}
	}
}

// recvName is the type name of a method's receiver (T, *T, T[P]).
func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

type exportWalk struct {
	pkgs map[string]*libPkg
	seen map[typeRef]bool
	todo []typeRef
}

func (r *exportWalk) mark(pkg, name string) {
	p := r.pkgs[pkg]
	if p == nil || p.types[name] == nil || r.seen[typeRef{pkg, name}] {
		return
	}
	r.seen[typeRef{pkg, name}] = true
	r.todo = append(r.todo, typeRef{pkg, name})
}

// expr marks every type an expression of p names: identifiers of p's own
// types and pkg.Name selectors of the module's packages.
func (r *exportWalk) expr(p *libPkg, e ast.Node) {
	if e == nil {
		return
	}
	f := r.file(p, e)
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && f != nil {
				if path, ok := p.imports[f][id.Name]; ok {
					r.mark(path, x.Sel.Name)
					return false
				}
			}
		case *ast.Ident:
			r.mark(p.path, x.Name)
		}
		return true
	})
}

// file finds the file a node of p was declared in, for its imports.
func (r *exportWalk) file(p *libPkg, n ast.Node) *ast.File {
	if f, ok := p.fileOf[n]; ok {
		return f
	}
	for f := range p.imports {
		if f.Pos() <= n.Pos() && n.End() <= f.End() {
			p.fileOf[n] = f
			return f
		}
	}
	return nil
}

// value marks the types of an exported variable or constant: its declared
// type, or the types its value names and the results of the functions it
// calls.
func (r *exportWalk) value(p *libPkg, v *ast.ValueSpec) {
	r.expr(p, v.Type)
	for _, e := range v.Values {
		r.expr(p, e)
		ast.Inspect(e, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if id, ok := c.Fun.(*ast.Ident); ok {
					for _, res := range p.results[id.Name] {
						r.expr(p, res)
					}
				}
			}
			return true
		})
	}
}

// typeSpec marks what a reached type shows a caller: an alias's target,
// a struct's exported and embedded fields, an interface's methods, any
// other definition's underlying type.
func (r *exportWalk) typeSpec(p *libPkg, s *ast.TypeSpec) {
	st, ok := s.Type.(*ast.StructType)
	if !ok {
		r.expr(p, s.Type)
		return
	}
	for _, fl := range st.Fields.List {
		exported := len(fl.Names) == 0 // embedded
		for _, n := range fl.Names {
			exported = exported || n.IsExported()
		}
		if exported {
			r.expr(p, fl.Type)
		}
	}
}

// Surface counts the module's public surface: its library packages (not
// main, not internal, not under cmd, examples or docs) and, for each,
// its exported names: types, functions, constants and variables, and the
// methods of exported types (struct fields and interface methods are
// not counted). Every build constraint is read at once.
func Surface(root string) (map[string]int, error) {
	pkgs, err := parseLibrary(root)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for path, p := range pkgs {
		n := len(p.types) + len(p.funcs)
		for _, s := range p.values {
			for _, name := range s.Names {
				if name.IsExported() {
					n++
				}
			}
		}
		for recv, ms := range p.methods {
			if ast.IsExported(recv) {
				n += len(ms)
			}
		}
		out[strings.TrimPrefix(path, Module+"/")] = n
	}
	return out, nil
}
