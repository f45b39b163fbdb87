package release_test

import (
	"fmt"

	"github.com/nodelife/nodelife/release"
)

func ExampleParse() {
	v, err := release.Parse("v1.36.3")
	fmt.Println(v, err, v.AtLeast(release.V1_37))
	_, err = release.Parse("1.26")
	fmt.Println(err)
	// Output:
	// 1.36 <nil> false
	// release: no preset for version "1.26": presets cover 1.27 to 1.37
}

func ExampleVersion_Clamp() {
	fmt.Println(release.Version(40).Clamp(), release.Current)
	// Output: 1.37 1.37
}
