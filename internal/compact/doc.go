// Package compact prints a value in one short line that still holds all
// of it, for the GoString and String methods of the types that property
// tests draw: rapid prints a drawn value with %#v, and Go's own %#v spells
// out a resource.Quantity field by field and prints a pointer as its
// address, so that the one field a failing property is about cannot be
// read.
//
// Sprint writes a struct as Type{Field:value ...} with its unset (zero)
// fields left out, a pointer as the value it points to, a quantity as
// kubectl writes it, a time in RFC 3339, a duration as time.Duration
// prints it, an address or prefix of net/netip as written, a map with its
// keys sorted, and a function as "func" (which one cannot be printed).
// A nested value whose type has a GoString method prints as that method
// says. Unexported fields (a type's internal state) are left out.
package compact
