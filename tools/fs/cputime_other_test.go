//go:build !unix

package fs

import "time"

// processCPU is not measured here: benchmarks report no CPU figure.
func processCPU() time.Duration { return 0 }
