package schedule

import "time"

// entry is a terminal's next operation, waiting in the due-time heap.
type entry struct {
	at   time.Duration // intended start, as an offset from the run's start
	seq  uint64        // push order: equal intended starts leave in the order they arrived
	term int32
	op   int32
}

func (a entry) before(b entry) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// dueHeap is a binary min-heap of entries by intended start (then push order). Popping its due
// entries is the FIFO by intended start that work waiting for a free worker keeps.
type dueHeap []entry

func (h *dueHeap) push(e entry) {
	*h = append(*h, e)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[i].before(s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *dueHeap) pop() entry {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s[r].before(s[l]) {
			m = r
		}
		if !s[m].before(s[i]) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}
