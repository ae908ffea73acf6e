package plan

import (
	"hash/maphash"
	"sync"
)

// lru is a bounded least-recently-used cache of compiled plans, safe for concurrent use. It is split into shards,
// each with its own lock and its share of the capacity, so that concurrent requests rarely wait for each other.
type lru struct {
	seed   maphash.Seed
	shards [lruShards]lruShard
}

const lruShards = 16

type lruShard struct {
	mu    sync.Mutex
	cap   int
	items map[cacheKey]*lruEntry
	head  lruEntry // sentinel: head.next is the most recently used
}

type lruEntry struct {
	key        cacheKey
	value      *compiledRead
	prev, next *lruEntry
}

func newLRU(size int) *lru {
	c := &lru{seed: maphash.MakeSeed()}
	perShard := (size + lruShards - 1) / lruShards
	for i := range c.shards {
		s := &c.shards[i]
		s.cap = perShard
		s.items = make(map[cacheKey]*lruEntry)
		s.head.next, s.head.prev = &s.head, &s.head
	}
	return c
}

func (c *lru) shard(key cacheKey) *lruShard {
	return &c.shards[maphash.String(c.seed, key.query)%lruShards]
}

func (c *lru) get(key cacheKey) *compiledRead {
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.items[key]
	if !ok {
		return nil
	}
	s.moveFront(e)
	return e.value
}

func (c *lru) put(key cacheKey, v *compiledRead) {
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.items[key]; ok {
		e.value = v
		s.moveFront(e)
		return
	}
	e := &lruEntry{key: key, value: v}
	s.items[key] = e
	s.insertFront(e)
	for len(s.items) > s.cap {
		old := s.head.prev
		old.prev.next, old.next.prev = old.next, old.prev
		delete(s.items, old.key)
	}
}

func (c *lru) len() int {
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		n += len(s.items)
		s.mu.Unlock()
	}
	return n
}

func (s *lruShard) insertFront(e *lruEntry) {
	e.prev, e.next = &s.head, s.head.next
	s.head.next.prev = e
	s.head.next = e
}

func (s *lruShard) moveFront(e *lruEntry) {
	if s.head.next == e {
		return
	}
	e.prev.next, e.next.prev = e.next, e.prev
	s.insertFront(e)
}
