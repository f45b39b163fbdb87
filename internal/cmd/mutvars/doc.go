// Command mutvars fails when a library package of the root module exports a
// package variable other than a sentinel error.
//
// An exported variable is shared by every importer of the package: one of
// them can change a default, a list or a table and so change the decisions
// another importer gets. nodelife exports constants, functions returning a
// fresh value, or types instead; sentinel errors (a variable set from
// errors.New or fmt.Errorf, compared with errors.Is) are the one accepted
// form, as in the standard library.
//
// Usage, from the repository's root:
//
//	go run ./internal/cmd/mutvars [dir]
//
// It walks dir (default "."), skipping examples/, internal/, testdata and
// nested modules, reads every non-test Go file and prints one line per
// offending variable, file:line: name; it exits with status 1 when it
// printed any.
package main
