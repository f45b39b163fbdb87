package replay

import (
	"errors"
	"testing"

	"github.com/nodelife/nodelife/shutdown"
	"github.com/nodelife/nodelife/sim"
)

// FuzzSpecs feeds the replay's scenario grammars (-shutdown SEL@AT[/OOS],
// -pressure NODE@FROM-TO:AVAILABLE, -cloud-delete SEL@AT, -outage) and
// -kubernetes-version arbitrary strings on the shipped sample: no panic,
// and every error wraps ErrSpec (ErrSetting for the version).
func FuzzSpecs(f *testing.F) {
	for _, s := range []string{"w-1a2@2m/7m30s", "w-1a1@1m-5m:50Mi", "eu-1b@1m-11m", "eu-1b/1@30s", "w-1a1+w-1b2@1m", "1.31", "v1.28.3", "@", "x@-1m", "w-1a1@1m-2m:-5"} {
		f.Add(s)
	}
	c := sample(f)
	f.Fuzz(func(t *testing.T, spec string) {
		check := func(err error, want error) {
			if err != nil && !errors.Is(err, want) {
				t.Fatalf("%q: %v does not wrap %v", spec, err, want)
			}
		}
		_, err := ParseShutdown(c, spec, shutdown.Config{})
		check(err, ErrSpec)
		_, err = ParsePressure(c, spec, 1)
		check(err, ErrSpec)
		_, err = ParseCloudDeletion(c, spec)
		check(err, ErrSpec)
		_, err = ParseOutage(c, spec)
		check(err, ErrSpec)
		var cfg sim.Config
		_, err = Preset(&cfg, spec)
		check(err, ErrSetting)
	})
}
