// Package memprobe measures the memory a piece of code takes, for the
// benchmarks that report it per byte of input (peak-B/file-B): the Go
// runtime keeps no high-water mark of its heap, so it is sampled.
package memprobe

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// interval is how often the heap is sampled while the code runs: often
// enough to catch a buffer that lives a few milliseconds, rarely enough
// that the stop-the-world of each sample does not dominate the run.
const interval = 2 * time.Millisecond

// Measure runs f and returns the highest heap in use while it ran, above
// what was in use before it started, and the bytes it allocated in all.
func Measure(f func()) (peak, allocated uint64) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > before.HeapInuse && m.HeapInuse-before.HeapInuse > peak {
				peak = m.HeapInuse - before.HeapInuse
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	return peak, after.TotalAlloc - before.TotalAlloc
}

// Recorder keeps the highest figures of the runs it measures, for a
// benchmark to report.
type Recorder struct {
	peak, allocated uint64
}

// Measure runs f under Measure and keeps its figures when they are the
// highest yet.
func (r *Recorder) Measure(f func()) {
	peak, allocated := Measure(f)
	r.peak, r.allocated = max(r.peak, peak), max(r.allocated, allocated)
}

// Report reports the figures per byte of an input of size bytes, as
// peak-B/<unit>-B and alloc-B/<unit>-B.
func (r *Recorder) Report(b *testing.B, size int, unit string) {
	b.ReportMetric(float64(r.peak)/float64(size), "peak-B/"+unit+"-B")
	b.ReportMetric(float64(r.allocated)/float64(size), "alloc-B/"+unit+"-B")
}
