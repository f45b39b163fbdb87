package compact

import (
	"fmt"
	"net/netip"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// maxDepth bounds nesting, so that a cyclic value prints "…" instead of
// running forever.
const maxDepth = 32

// Sprint prints v on one line, as the package comment says. The top-level
// value is printed field by field even when its type has a GoString
// method, so that a GoString method can be written as a call to Sprint.
func Sprint(v any) string {
	var b strings.Builder
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return "nil"
	}
	write(&b, rv, 0, true)
	return b.String()
}

var (
	quantityType = reflect.TypeOf(resource.Quantity{})
	timeType     = reflect.TypeOf(time.Time{})
	durationType = reflect.TypeOf(time.Duration(0))
	prefixType   = reflect.TypeOf(netip.Prefix{})
	addrType     = reflect.TypeOf(netip.Addr{})
	goStringer   = reflect.TypeOf((*fmt.GoStringer)(nil)).Elem()
)

// write prints v; top says v is the value Sprint was given.
func write(b *strings.Builder, v reflect.Value, depth int, top bool) {
	if depth > maxDepth {
		b.WriteString("…")
		return
	}
	t := v.Type()
	switch t {
	case quantityType:
		q := v.Interface().(resource.Quantity)
		b.WriteString(q.String())
		return
	case timeType:
		b.WriteString(v.Interface().(time.Time).Format(time.RFC3339Nano))
		return
	case durationType:
		b.WriteString(time.Duration(v.Int()).String())
		return
	case prefixType:
		b.WriteString(v.Interface().(netip.Prefix).String())
		return
	case addrType:
		b.WriteString(v.Interface().(netip.Addr).String())
		return
	}
	if !top && t.Implements(goStringer) && v.CanInterface() && (t.Kind() != reflect.Pointer || !v.IsNil()) {
		b.WriteString(v.Interface().(fmt.GoStringer).GoString())
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		write(b, v.Elem(), depth+1, top)
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		write(b, v.Elem(), depth+1, false)
	case reflect.Struct:
		if top {
			b.WriteString(t.String())
		}
		b.WriteString("{")
		first := true
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() || v.Field(i).IsZero() {
				continue
			}
			if !first {
				b.WriteString(" ")
			}
			first = false
			if !f.Anonymous {
				b.WriteString(f.Name + ":")
			}
			write(b, v.Field(i), depth+1, false)
		}
		b.WriteString("}")
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && v.IsNil() {
			b.WriteString("nil")
			return
		}
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			b.WriteString(strconv.Quote(string(v.Bytes())))
			return
		}
		b.WriteString("[")
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			write(b, v.Index(i), depth+1, false)
		}
		b.WriteString("]")
	case reflect.Map:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		type entry struct{ k, v string }
		entries := make([]entry, 0, v.Len())
		it := v.MapRange()
		for it.Next() {
			var k, e strings.Builder
			if it.Key().Kind() == reflect.String {
				k.WriteString(it.Key().String())
			} else {
				write(&k, it.Key(), depth+1, false)
			}
			write(&e, it.Value(), depth+1, false)
			entries = append(entries, entry{k.String(), e.String()})
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].k < entries[j].k })
		b.WriteString("{")
		for i, e := range entries {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(e.k + ":" + e.v)
		}
		b.WriteString("}")
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()))
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		b.WriteString(strconv.FormatFloat(v.Float(), 'g', -1, t.Bits()))
	case reflect.Complex64, reflect.Complex128:
		b.WriteString(strconv.FormatComplex(v.Complex(), 'g', -1, t.Bits()))
	case reflect.Func:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteString("func")
	case reflect.Chan, reflect.UnsafePointer:
		if v.IsNil() {
			b.WriteString("nil")
			return
		}
		b.WriteString(t.String())
	default:
		b.WriteString(t.String())
	}
}
