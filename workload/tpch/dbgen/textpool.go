package dbgen

import (
	"sync"
	"unsafe"
)

// The text pool (clause 4.2.2.10, dbgen's text.c): 300 MB of sentences made by the grammar of
// dists.dss from one stream (seed 933588178), from which every comment is a substring. It is made
// once per process (a few seconds) and kept: 300 MB of memory while the process lives.

const (
	textPoolSize   = 300 * 1024 * 1024
	textPoolSeed   = 933588178
	maxSentenceLen = 256
)

type textPool struct{ text []byte }

// slice is the pool's bytes [a, b) as a string sharing the pool's memory (never written again).
func (p *textPool) slice(a, b int32) string {
	if b <= a {
		return ""
	}
	return unsafe.String(&p.text[a], int(b-a))
}

var (
	poolOnce sync.Once
	thePool  *textPool
)

// pool is the process's text pool, made on first use.
func pool() *textPool {
	poolOnce.Do(func() { thePool = newTextPool(textPoolSize, loadDists()) })
	return thePool
}

// Prepare makes the text pool now, if it is not made yet (the first Generate would): a load calls
// it on a goroutine before its DDL, so the pool's few seconds of one CPU overlap the database's
// work instead of holding back the first rows.
func Prepare() { pool() }

func newTextPool(size int, d *dists) *textPool {
	r := newRowRand(textPoolSeed, 1<<31-1)
	b := make([]byte, 0, size+maxSentenceLen)
	for len(b) < size {
		b = sentence(d, b, &r)
	}
	return &textPool{text: b[:size]}
}

// sentence appends one sentence of the grammar: noun phrases (N), verb phrases (V), prepositional
// phrases (P: a preposition, "the", a noun phrase) and a terminator (T) that replaces the last space.
func sentence(d *dists, b []byte, r *rowRand) []byte {
	syntax := d.grammar.random(r)
	for i := 0; i < len(syntax); i += 2 {
		switch syntax[i] {
		case 'V':
			b = verbPhrase(d, b, r)
		case 'N':
			b = nounPhrase(d, b, r)
		case 'P':
			b = append(b, d.prepositions.random(r)...)
			b = append(b, " the "...)
			b = nounPhrase(d, b, r)
		case 'T':
			b = b[:len(b)-1]
			b = append(b, d.terminators.random(r)...)
		default:
			panic("dbgen: unknown grammar token " + string(syntax[i]))
		}
		if b[len(b)-1] != ' ' {
			b = append(b, ' ')
		}
	}
	return b
}

func verbPhrase(d *dists, b []byte, r *rowRand) []byte {
	syntax := d.vp.random(r)
	for i := 0; i < len(syntax); i += 2 {
		var src *dist
		switch syntax[i] {
		case 'D':
			src = d.adverbs
		case 'V':
			src = d.verbs
		case 'X':
			src = d.auxiliaries
		default:
			panic("dbgen: unknown verb phrase token " + string(syntax[i]))
		}
		b = append(b, src.random(r)...)
		b = append(b, ' ')
	}
	return b
}

func nounPhrase(d *dists, b []byte, r *rowRand) []byte {
	syntax := d.np.random(r)
	for i := 0; i < len(syntax); i++ {
		var src *dist
		switch syntax[i] {
		case 'A':
			src = d.articles
		case 'J':
			src = d.adjectives
		case 'D':
			src = d.adverbs
		case 'N':
			src = d.nouns
		case ',':
			b = append(b[:len(b)-1], ", "...)
			continue
		case ' ':
			continue
		default:
			panic("dbgen: unknown noun phrase token " + string(syntax[i]))
		}
		b = append(b, src.random(r)...)
		b = append(b, ' ')
	}
	return b
}
