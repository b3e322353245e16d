package lifetime

import (
	"os"
	"slices"
	"sync"
)

// labelKills is the one search by label of this process: kills of scopes
// that overlap in time share a pass over /proc instead of making one each.
// When input ends with two hundred searches in flight, each cancelled
// command's kill searched every process's environment on its own, and
// those searches took half the server's CPU; now the kills that ask while
// a pass runs are served together by the next one.
var labelKills labelBatch

// labelBatch batches kills by label into passes over /proc. A kill is
// served by a pass that starts after it asked, so every process that
// carried its label when it asked is found.
type labelBatch struct {
	// pass is held for the whole of a pass: one runs at a time.
	pass sync.Mutex

	// scan runs a pass (killEach; tests replace it).
	scan func(labels [][]byte) []int

	// mu guards next.
	mu sync.Mutex
	// next is the pass not started yet, which a kill that asks joins.
	next *labelPass
}

// labelPass is one search for the labels of the kills that joined it.
type labelPass struct {
	labels [][]byte
	// killed counts, per label, the processes killed; set before done
	// is closed.
	killed []int
	done   chan struct{}
}

// kill kills the processes whose environment holds one of labels (exact
// variables), in the next pass, and returns how many it killed.
func (b *labelBatch) kill(labels [][]byte) int {
	b.mu.Lock()
	if b.next == nil {
		b.next = &labelPass{done: make(chan struct{})}
	}
	p := b.next
	first := len(p.labels)
	p.labels = append(p.labels, labels...)
	b.mu.Unlock()

	b.pass.Lock()
	select {
	case <-p.done:
		// Another kill that joined the same pass ran it.
	default:
		b.mu.Lock()
		b.next = nil // kills that ask from now on wait for the pass after it
		b.mu.Unlock()
		scan := b.scan
		if scan == nil {
			scan = killEach
		}
		p.killed = scan(p.labels)
		close(p.done)
	}
	b.pass.Unlock()

	n := 0
	for _, k := range p.killed[first : first+len(labels)] {
		n += k
	}
	return n
}

// killEach is killMatching for exact labels that counts the processes it
// killed per label.
func killEach(labels [][]byte) []int {
	self := os.Getpid()
	others := func() []int {
		return slices.DeleteFunc(pids(), func(pid int) bool { return pid == self })
	}
	// which holds the label each process killed was judged to carry.
	which := map[int]int{}
	judge := func(pid int) labelState {
		state, i := labelIndex(pid, labels, false)
		if state == labelled {
			which[pid] = i
		}
		return state
	}
	killed := make([]int, len(labels))
	for _, pid := range killRounds(others, judge, labelled, false) {
		killed[which[pid]]++
	}
	return killed
}
