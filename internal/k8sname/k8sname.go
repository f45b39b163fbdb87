// Package k8sname checks label keys and values as apimachinery's validation
// does, without its regular expressions and without allocating: the fast
// paths of every package that validates or matches labels on a hot path
// (taints, admission). The property test in this package compares them with
// apimachinery on generated strings.
package k8sname

import "strings"

func alnum(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' }

// LabelName reports whether s is a non-empty label value or the name part of
// a qualified name: at most 63 characters, alphanumeric at both ends,
// alphanumerics, '-', '_' and '.' between.
func LabelName(s string) bool {
	if len(s) == 0 || len(s) > 63 || !alnum(s[0]) || !alnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// LabelValue reports whether s is a valid label value (apimachinery's
// IsValidLabelValue): empty, or a LabelName.
func LabelValue(s string) bool { return s == "" || LabelName(s) }

// DNSSubdomain reports whether s is a DNS-1123 subdomain: at most 253
// characters, labels of lower-case alphanumerics and '-' separated by '.',
// each label starting and ending alphanumeric.
func DNSSubdomain(s string) bool {
	if len(s) == 0 || len(s) > 253 {
		return false
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
			continue
		}
		if i == start || s[start] == '-' || s[i-1] == '-' {
			return false // an empty label, or one starting or ending with '-'
		}
		start = i + 1
	}
	return true
}

// QualifiedName reports whether s is a qualified name (apimachinery's
// IsQualifiedName): an optional DNS-1123 subdomain and '/', then a
// LabelName.
func QualifiedName(s string) bool {
	i := strings.IndexByte(s, '/')
	if i < 0 {
		return LabelName(s)
	}
	return strings.IndexByte(s[i+1:], '/') < 0 && DNSSubdomain(s[:i]) && LabelName(s[i+1:])
}
