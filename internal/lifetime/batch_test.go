package lifetime

import (
	"runtime"
	"strconv"
	"sync"
	"testing"
)

// Kills that ask while a pass over /proc runs share the next pass, and
// each gets the count of its own labels: with many calls cancelled at
// once (the end of input), a search per call took half the server's CPU.
func TestOverlappingKillsShareAPass(t *testing.T) {
	const later = 40
	inFirst := make(chan struct{})
	release := make(chan struct{})
	var passes [][]string // appended under the batch's pass lock
	b := &labelBatch{scan: func(labels [][]byte) []int {
		names := make([]string, len(labels))
		killed := make([]int, len(labels))
		for i, l := range labels {
			names[i] = string(l)
			killed[i], _ = strconv.Atoi(string(l)) // label n kills n processes
		}
		passes = append(passes, names)
		if len(passes) == 1 {
			close(inFirst)
			<-release
		}
		return killed
	}}

	got := make([]int, later+1)
	var wg sync.WaitGroup
	wg.Go(func() { got[0] = b.kill([][]byte{[]byte("0")}) })
	<-inFirst
	for i := 1; i <= later; i++ {
		wg.Go(func() { got[i] = b.kill([][]byte{[]byte(strconv.Itoa(i))}) })
	}
	// The first pass runs on until every later kill has joined the next.
	for joined := 0; joined < later; runtime.Gosched() {
		b.mu.Lock()
		if b.next != nil {
			joined = len(b.next.labels)
		}
		b.mu.Unlock()
	}
	close(release)
	wg.Wait()

	if len(passes) != 2 {
		t.Fatalf("%d kills made %d passes, want 2 (the one running and one for the rest): %v", later+1, len(passes), passes)
	}
	if len(passes[1]) != later {
		t.Errorf("the second pass searched %d labels, want %d", len(passes[1]), later)
	}
	for i, n := range got {
		if n != i {
			t.Errorf("kill %d was told %d processes were killed, want its own %d", i, n, i)
		}
	}
}

// A kill that asks after a pass ended gets a pass of its own: it is never
// served by a search that started before it asked.
func TestAKillAfterAPassSearchesAgain(t *testing.T) {
	passes := 0
	b := &labelBatch{scan: func(labels [][]byte) []int {
		passes++
		return make([]int, len(labels))
	}}
	for range 3 {
		b.kill([][]byte{[]byte("x")})
	}
	if passes != 3 {
		t.Errorf("3 kills one after another made %d passes, want 3", passes)
	}
}
