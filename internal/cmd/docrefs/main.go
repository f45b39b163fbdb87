package main

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

func main() {
	roots := os.Args[1:]
	if len(roots) == 0 {
		roots = []string{"."}
	}
	found, err := check(roots...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docrefs:", err)
		os.Exit(2)
	}
	for _, f := range found {
		fmt.Println(f)
	}
	if len(found) > 0 {
		fmt.Fprintf(os.Stderr, "docrefs: %d problem(s) above: a reference that names nothing that exists, or a config whose zero value is not documented\n", len(found))
		os.Exit(1)
	}
}

// zeroRule matches the sentence every Config and Options type's doc holds.
var zeroRule = regexp.MustCompile(`(?i)zero\s+value`)

// undocumentedZero returns "file:line: Type: no zero value" for every
// exported struct type of a non-test file named ...Config or ...Options
// whose doc does not say what its zero value is (DESIGN rule 6), outside
// internal/ and examples/.
func undocumentedZero(fset *token.FileSet, pkgs map[string]*pkgInfo) []string {
	var found []string
	for _, p := range pkgs {
		if strings.Contains(p.path, "/internal/") || strings.HasSuffix(p.path, "/internal") || strings.Contains(p.path, "/examples") {
			continue
		}
		for _, f := range p.files {
			if strings.HasSuffix(f.path, "_test.go") {
				continue
			}
			for _, d := range f.file.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.TYPE {
					continue
				}
				for _, sp := range g.Specs {
					ts := sp.(*ast.TypeSpec)
					name := ts.Name.Name
					if _, isStruct := ts.Type.(*ast.StructType); !isStruct || !ts.Name.IsExported() ||
						!(strings.HasSuffix(name, "Config") || strings.HasSuffix(name, "Options")) {
						continue
					}
					doc := ts.Doc
					if doc == nil && len(g.Specs) == 1 {
						doc = g.Doc
					}
					if doc == nil || !zeroRule.MatchString(doc.Text()) {
						pos := fset.Position(ts.Pos())
						found = append(found, fmt.Sprintf("%s:%d: %s: its doc does not say what its zero value is", pos.Filename, pos.Line, name))
					}
				}
			}
		}
	}
	return found
}

// pkgInfo is what a package declares: its top-level names, and per type
// its members (nil members for a type whose members are not all known).
type pkgInfo struct {
	name    string
	path    string
	top     map[string]bool
	members map[string]map[string]bool
	open    map[string]bool // types that embed another: members unchecked
	files   []*parsedFile
}

type parsedFile struct {
	path string
	file *ast.File
}

// ref matches a dotted word: two or three identifiers.
var ref = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?`)

// check returns "file:line: reference" for every reference in the modules
// at roots that does not resolve, sorted. A reference from one of them to a
// package of another is checked too.
func check(roots ...string) ([]string, error) {
	fset := token.NewFileSet()
	pkgs := map[string]*pkgInfo{} // by directory
	for _, root := range roots {
		if err := load(fset, root, pkgs); err != nil {
			return nil, err
		}
	}
	found := append(resolveAll(fset, pkgs), undocumentedZero(fset, pkgs)...)
	sort.Strings(found)
	return found, nil
}

// load parses the Go files of the module at root into pkgs.
func load(fset *token.FileSet, root string, pkgs map[string]*pkgInfo) error {
	modPath, err := modulePath(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == root {
				return nil
			}
			name := d.Name()
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		p := pkgs[dir]
		if p == nil {
			rel, err := filepath.Rel(root, dir)
			if err != nil {
				return err
			}
			ip := modPath
			if rel != "." {
				ip += "/" + filepath.ToSlash(rel)
			}
			p = &pkgInfo{path: ip, top: map[string]bool{}, members: map[string]map[string]bool{}, open: map[string]bool{}}
			pkgs[dir] = p
		}
		p.files = append(p.files, &parsedFile{path, file})
		// An external test package (x_test) declares into its own scope;
		// the package's name is the one of its non-test files.
		if !strings.HasSuffix(file.Name.Name, "_test") {
			p.name = file.Name.Name
			declare(p, file)
		}
		return nil
	})
}

// resolveAll returns every reference in pkgs that does not resolve.
func resolveAll(fset *token.FileSet, pkgs map[string]*pkgInfo) []string {
	byPath := map[string]*pkgInfo{}
	byName := map[string][]*pkgInfo{}
	for _, p := range pkgs {
		if p.name == "" || p.name == "main" {
			continue
		}
		byPath[p.path] = p
		byName[p.name] = append(byName[p.name], p)
	}
	var found []string
	for _, p := range pkgs {
		for _, f := range p.files {
			imports := map[string]string{} // name -> path
			for _, im := range f.file.Imports {
				ip, _ := strconv.Unquote(im.Path.Value)
				name := ip[strings.LastIndex(ip, "/")+1:]
				if im.Name != nil {
					name = im.Name.Name
				}
				imports[name] = ip
			}
			self := p
			if p.name == "" || strings.HasSuffix(f.file.Name.Name, "_test") {
				self = nil // an external test package declares nothing checked here
			}
			for _, cg := range f.file.Comments {
				text, lines := groupText(cg)
				for _, m := range refsIn(text) {
					r := text[m[0]:m[1]]
					if !resolves(r, self, imports, byPath, byName) {
						pos := fset.Position(lines[strings.Count(text[:m[0]], "\n")])
						found = append(found, fmt.Sprintf("%s:%d: %s", pos.Filename, pos.Line, r))
					}
				}
			}
		}
	}
	sort.Strings(found)
	return found
}

// groupText returns a comment group's text, one line per line of source
// (the comment markers left in place, so that offsets stay simple), and the
// position each line starts at.
func groupText(cg *ast.CommentGroup) (string, []token.Pos) {
	var b strings.Builder
	var lines []token.Pos
	for _, c := range cg.List {
		for i, l := range strings.Split(c.Text, "\n") {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(l)
			lines = append(lines, c.Pos()+token.Pos(i)) // a line of a /* */ comment: near enough
		}
	}
	return b.String(), lines
}

// refsIn returns the offsets of the dotted words of a comment that are
// candidates: not after "/", "." or another joining character, not
// followed by "/" or "-" (a path or a label key), the part after the first
// dot starting with a capital letter, and not naming upstream's code (a
// word after "upstream's", across a line break too).
func refsIn(text string) [][]int {
	var out [][]int
	for _, m := range ref.FindAllStringIndex(text, -1) {
		if m[0] > 0 && strings.ContainsAny(text[m[0]-1:m[0]], "/.-:@$%") {
			continue
		}
		if m[1] < len(text) && strings.ContainsAny(text[m[1]:m[1]+1], "/-") {
			continue
		}
		w := text[m[0]:m[1]]
		parts := strings.Split(w, ".")
		if parts[1][0] < 'A' || parts[1][0] > 'Z' {
			continue
		}
		before := strings.TrimRight(text[:m[0]], " \t\n/(")
		if strings.HasSuffix(before, "upstream's") || strings.HasSuffix(before, "Upstream's") {
			continue
		}
		out = append(out, m)
	}
	return out
}

// resolves reports whether the reference r names something, or is not
// one this check judges.
func resolves(r string, self *pkgInfo, imports map[string]string, byPath map[string]*pkgInfo, byName map[string][]*pkgInfo) bool {
	parts := strings.Split(r, ".")
	// Type.Member in its own package.
	if self != nil {
		if ms, ok := self.members[parts[0]]; ok {
			if self.open[parts[0]] || len(parts) == 3 {
				return true
			}
			return ms[parts[1]]
		}
	}
	var cands []*pkgInfo
	if ip, ok := imports[parts[0]]; ok {
		p, ok := byPath[ip]
		if !ok {
			return true // a package from outside the module
		}
		cands = []*pkgInfo{p}
	} else {
		cands = byName[parts[0]]
		if len(cands) == 0 {
			return true // not a package of the module: not judged
		}
	}
	for _, p := range cands {
		if !p.top[parts[1]] {
			continue
		}
		if len(parts) == 2 {
			return true
		}
		ms, isType := p.members[parts[1]]
		if !isType || p.open[parts[1]] || ms[parts[2]] {
			return true
		}
	}
	return false
}

// declare records the file's top-level names, methods and fields.
func declare(p *pkgInfo, f *ast.File) {
	member := func(typ, name string) {
		if p.members[typ] == nil {
			p.members[typ] = map[string]bool{}
		}
		p.members[typ][name] = true
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				p.top[d.Name.Name] = true
				continue
			}
			if t := recvType(d.Recv.List[0].Type); t != "" {
				member(t, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						p.top[n.Name] = true
					}
				case *ast.TypeSpec:
					name := s.Name.Name
					p.top[name] = true
					if p.members[name] == nil {
						p.members[name] = map[string]bool{}
					}
					// A struct's fields and an interface's methods are its
					// members; an embedded one leaves the type open.
					fields := func(l *ast.FieldList) {
						for _, f := range l.List {
							if len(f.Names) == 0 {
								p.open[name] = true
							}
							for _, n := range f.Names {
								member(name, n.Name)
							}
						}
					}
					switch t := s.Type.(type) {
					case *ast.StructType:
						fields(t.Fields)
					case *ast.InterfaceType:
						fields(t.Methods)
					default:
						if s.Assign.IsValid() {
							p.open[name] = true // an alias: its members are elsewhere
						}
						if _, ok := t.(*ast.Ident); !ok {
							// A named type over another package's type
							// (pkg.T) keeps none of its methods but all its
							// fields: not followed.
							p.open[name] = true
						}
					}
				}
			}
		}
	}
}

// recvType returns the receiver's type name.
func recvType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

// modulePath reads the module line of a go.mod.
func modulePath(gomod string) (string, error) {
	f, err := os.Open(gomod)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s: no module line", gomod)
}
