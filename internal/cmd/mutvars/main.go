package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	found, err := check(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mutvars:", err)
		os.Exit(2)
	}
	for _, f := range found {
		fmt.Println(f)
	}
	if len(found) > 0 {
		fmt.Fprintf(os.Stderr, "mutvars: %d exported package variable(s) above; make each a constant, a function or an unexported variable\n", len(found))
		os.Exit(1)
	}
}

// check returns "file:line: package.Name" for every exported package
// variable under root that is not a sentinel error, sorted.
func check(root string) ([]string, error) {
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == root {
				return nil
			}
			name := d.Name()
			if name == "examples" || name == "internal" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		found = append(found, exportedVars(fset, file)...)
		return nil
	})
	sort.Strings(found)
	return found, err
}

// exportedVars returns the offending variables of one file.
func exportedVars(fset *token.FileSet, file *ast.File) []string {
	var found []string
	for _, decl := range file.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !name.IsExported() {
					continue
				}
				if i < len(vs.Values) && isSentinelError(vs.Values[i]) {
					continue
				}
				found = append(found, fmt.Sprintf("%s: %s.%s", fset.Position(name.Pos()), file.Name.Name, name.Name))
			}
		}
	}
	return found
}

// isSentinelError reports whether e is errors.New(...) or fmt.Errorf(...).
func isSentinelError(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	return (pkg.Name == "errors" && sel.Sel.Name == "New") || (pkg.Name == "fmt" && sel.Sel.Name == "Errorf")
}
