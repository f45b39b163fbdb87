package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/nodelife/nodelife/sim"
)

// The -json output is sim.Result with its fields under their Go names
// (Totals, Pods, Workloads, Events, Timeline, Settings, ...; the fields
// tagged omitempty left out when empty, as encoding/json does) and one
// difference: every duration is a Go duration string as metav1.Duration
// writes it ("1m45s", "0s", "11m30.6s"), and a time that never came (a
// negative one in sim.Result: GoneAt or ReplacedAt of a pod still there,
// or never replaced) is null. Times are since the start of the run.

var durationType = reflect.TypeOf(time.Duration(0))

// MarshalResult encodes res as the replay's -json output (indented).
func MarshalResult(res sim.Result) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", " ")
	if err := enc.Encode(toJSON(reflect.ValueOf(res))); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// UnmarshalResult decodes the replay's -json output into res.
func UnmarshalResult(data []byte, res *sim.Result) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	return fromJSON(v, reflect.ValueOf(res).Elem(), "result")
}

// object is a JSON object that keeps its keys in order.
type object []member

type member struct {
	key   string
	value any
}

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// field returns a struct field's JSON key and whether it is omitempty.
func field(f reflect.StructField) (key string, omitEmpty bool) {
	name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		name = f.Name
	}
	return name, opts == "omitempty"
}

func toJSON(v reflect.Value) any {
	if v.Type() == durationType {
		if v.Int() < 0 {
			return nil
		}
		return time.Duration(v.Int()).String()
	}
	switch v.Kind() {
	case reflect.Struct:
		var o object
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() || f.Type.Kind() == reflect.Func {
				continue
			}
			key, omit := field(f)
			if omit && v.Field(i).IsZero() || omit && v.Field(i).Kind() == reflect.Slice && v.Field(i).Len() == 0 {
				continue
			}
			o = append(o, member{key, toJSON(v.Field(i))})
		}
		return o
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = toJSON(v.Index(i))
		}
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return toJSON(v.Elem())
	}
	return v.Interface()
}

func fromJSON(in any, v reflect.Value, path string) error {
	bad := func() error { return fmt.Errorf("replay: JSON %s: cannot use %v as %s", path, in, v.Type()) }
	if v.Type() == durationType {
		switch x := in.(type) {
		case nil:
			v.SetInt(-1)
			return nil
		case string:
			d, err := time.ParseDuration(x)
			if err != nil {
				return fmt.Errorf("replay: JSON %s: %w", path, err)
			}
			v.SetInt(int64(d))
			return nil
		}
		return bad()
	}
	if in == nil {
		v.SetZero()
		return nil
	}
	switch v.Kind() {
	case reflect.Struct:
		m, ok := in.(map[string]any)
		if !ok {
			return bad()
		}
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() || f.Type.Kind() == reflect.Func {
				continue
			}
			key, _ := field(f)
			x, ok := m[key]
			if !ok {
				continue
			}
			if err := fromJSON(x, v.Field(i), path+"."+key); err != nil {
				return err
			}
		}
	case reflect.Slice:
		xs, ok := in.([]any)
		if !ok {
			return bad()
		}
		s := reflect.MakeSlice(v.Type(), len(xs), len(xs))
		for i, x := range xs {
			if err := fromJSON(x, s.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if err := fromJSON(in, p.Elem(), path); err != nil {
			return err
		}
		v.Set(p)
	case reflect.String:
		s, ok := in.(string)
		if !ok {
			return bad()
		}
		v.SetString(s)
	case reflect.Bool:
		b, ok := in.(bool)
		if !ok {
			return bad()
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := in.(json.Number)
		i, err := n.Int64()
		if !ok || err != nil {
			return bad()
		}
		v.SetInt(i)
	case reflect.Float32, reflect.Float64:
		n, ok := in.(json.Number)
		f, err := n.Float64()
		if !ok || err != nil {
			return bad()
		}
		v.SetFloat(f)
	default:
		return bad()
	}
	return nil
}
