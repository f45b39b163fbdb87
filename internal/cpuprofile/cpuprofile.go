// Package cpuprofile starts the CPU profile the commands' -cpuprofile flag
// asks for.
package cpuprofile

import (
	"os"
	"runtime/pprof"
)

// Start writes a CPU profile to path until the returned stop is called;
// an empty path profiles nothing and stop does nothing.
func Start(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
