// Package doccheck holds the module's docs to its code: every Go name the
// README and docs/*.md write in backquotes (`app.Main`, `Config.Scene`,
// `renderer.Options.ShadowMap`, `sched.Criticals()`) must exist. Its test
// runs the check over the module in make test.
//
// A name is checked when its first element is one of the module's
// package names (then the next element must be declared at that
// package's top level) or a type the module declares (then the next
// element must be a field or method of a type of that name). Every later
// element must be a field or method of the type the element before it
// has (its declared type's name), or, where that type is not the
// module's, of some type the module declares. Other spans (files, the
// standard library's names, a variable like `r.AddMesh`) are not names
// of the module and are left alone.
package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Index is what the module declares, by name.
type Index struct {
	pkgs    map[string]map[string]string // package name → top-level name → its type's name ("" if none)
	members map[string]map[string]string // type name → field or method → its type's name
	types   map[string]bool              // every type name the module declares
}

// Load indexes the non-test Go files under root, testdata and hidden
// directories excluded.
func Load(root string) (*Index, error) {
	ix := &Index{pkgs: map[string]map[string]string{}, members: map[string]map[string]string{}, types: map[string]bool{}}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || strings.HasPrefix(n, ".")) {
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
		ix.file(f)
		return nil
	})
	return ix, err
}

func (ix *Index) member(typ, name, of string) {
	if ix.members[typ] == nil {
		ix.members[typ] = map[string]string{}
	}
	ix.members[typ][name] = of
}

func (ix *Index) file(f *ast.File) {
	pkg := ix.pkgs[f.Name.Name]
	if pkg == nil {
		pkg = map[string]string{}
		ix.pkgs[f.Name.Name] = pkg
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				pkg[d.Name.Name] = ""
				continue
			}
			ix.member(typeName(d.Recv.List[0].Type), d.Name.Name, "")
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					pkg[s.Name.Name] = s.Name.Name
					ix.types[s.Name.Name] = true
					ix.typeMembers(s.Name.Name, s.Type)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						pkg[n.Name] = typeName(s.Type)
					}
				}
			}
		}
	}
}

// typeMembers records t's fields (embedded ones by their type's name) and
// an interface's methods as members of the type named name.
func (ix *Index) typeMembers(name string, t ast.Expr) {
	switch t := t.(type) {
	case *ast.StructType:
		for _, f := range t.Fields.List {
			if len(f.Names) == 0 {
				emb := typeName(f.Type)
				ix.member(name, emb, emb)
				ix.member(name, "\x00embeds", emb) // looked through by has
				continue
			}
			for _, n := range f.Names {
				ix.member(name, n.Name, typeName(f.Type))
				if st, ok := f.Type.(*ast.StructType); ok { // an anonymous struct field
					ix.typeMembers(name+"."+n.Name, st)
					ix.member(name, n.Name, name+"."+n.Name)
					ix.types[name+"."+n.Name] = true
				}
			}
		}
	case *ast.InterfaceType:
		for _, m := range t.Methods.List {
			for _, n := range m.Names {
				ix.member(name, n.Name, "")
			}
		}
	}
}

// typeName is the name of the type t names, without its package,
// pointer, slice, array or type arguments: "" for others.
func typeName(t ast.Expr) string {
	switch t := t.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return typeName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.ArrayType:
		return typeName(t.Elt)
	case *ast.IndexExpr:
		return typeName(t.X)
	case *ast.IndexListExpr:
		return typeName(t.X)
	}
	return ""
}

// has reports whether the type named typ has member m, through its
// embedded types too, and the member's type's name.
func (ix *Index) has(typ, m string, depth int) (string, bool) {
	ms := ix.members[typ]
	if of, ok := ms[m]; ok {
		return of, true
	}
	if depth < 4 {
		for name, of := range ms {
			if name == "\x00embeds" || (len(name) > 0 && name == of) {
				if t, ok := ix.has(of, m, depth+1); ok {
					return t, true
				}
			}
		}
	}
	return "", false
}

// span is a backquoted Go name: dotted identifiers, maybe called.
var span = regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)+)(?:\\([^`]*\\))?`")

// Check returns what is wrong with the names in the markdown text of
// file: one line per name that does not exist.
func (ix *Index) Check(file, text string) []string {
	var out []string
	for i, line := range strings.Split(text, "\n") {
		for _, m := range span.FindAllStringSubmatch(line, -1) {
			if err := ix.name(strings.Split(m[1], ".")); err != nil {
				out = append(out, fmt.Sprintf("%s:%d: `%s`: %v", file, i+1, m[1], err))
			}
		}
	}
	return out
}

// files are the extensions that make a span a file's name (`tickframe.exe`).
var files = map[string]bool{"exe": true, "json": true, "png": true, "csv": true, "md": true, "go": true,
	"glb": true, "gltf": true, "svg": true, "txt": true, "sh": true, "glsl": true, "xwd": true, "pprof": true}

// name checks one dotted name.
func (ix *Index) name(parts []string) error {
	if files[parts[len(parts)-1]] {
		return nil
	}
	var typ string
	switch pkg, isPkg := ix.pkgs[parts[0]]; {
	case isPkg && parts[0] != "main":
		of, ok := pkg[parts[1]]
		if !ok {
			return fmt.Errorf("package %s declares no %s", parts[0], parts[1])
		}
		typ, parts = of, parts[2:]
	case ix.types[parts[0]]:
		typ, parts = parts[0], parts[1:]
	default:
		return nil // not a name of the module's
	}
	for _, p := range parts {
		if typ == "" || !ix.types[typ] {
			// The type is not the module's (or not known): any of the
			// module's types may have the member.
			found := false
			for t := range ix.types {
				if _, ok := ix.has(t, p, 0); ok {
					found = true
					break
				}
			}
			if !found {
				return fmt.Errorf("no type of the module has a %s", p)
			}
			typ = ""
			continue
		}
		of, ok := ix.has(typ, p, 0)
		if !ok {
			return fmt.Errorf("%s has no field or method %s", typ, p)
		}
		typ = of
	}
	return nil
}

// CheckFiles checks README.md and docs/*.md under root, sorted.
func CheckFiles(root string) ([]string, error) {
	ix, err := Load(root)
	if err != nil {
		return nil, err
	}
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, f)
		out = append(out, ix.Check(rel, string(b))...)
	}
	sort.Strings(out)
	return out, nil
}
