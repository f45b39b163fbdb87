// Command docrefs checks that the library's comments name only identifiers
// that exist, so that a rename cannot leave a stale reference behind, and
// that every config says what its zero value is.
//
// It reads every Go file of a module (tests and examples included, nested
// modules and testdata left out) and looks in every comment for two forms:
//
//   - pkg.Name and pkg.Name.Member, where pkg is a package of the module
//     (or the name the file imports it under) and Name starts with a capital
//     letter: Name must be a top-level identifier of that package, and
//     Member a method, field or interface method of it;
//   - Type.Member inside the package that declares Type: Member must exist.
//
// A qualifier the file imports from outside the module (time.Duration,
// metav1.Time) is not checked, nor is a word that follows "/" or "."
// (k8s.io/api/core/v1.Pod), nor a member of a type that embeds another
// (its promoted members are not followed). Lower-case words after a dot
// (memory.available, cpu.weight) are cgroup files and signals, not
// identifiers, and are skipped.
//
// It also checks DESIGN's rule that every config documents its zero
// value: an exported struct type named ...Config or ...Options, outside
// internal/, examples/ and tests, must say "zero value" in its doc.
//
// Usage:
//
//	go run ./internal/cmd/docrefs [module-dir]
//
// It prints "file:line: name" for every reference that does not resolve,
// "file:line: Type: ..." for every config without its zero value, and
// exits 1 when there is one.
package main
