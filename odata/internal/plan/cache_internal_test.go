package plan

import (
	"fmt"
	"sync"
	"testing"
)

func TestLRUEvictsLeastRecentlyUsed(t *testing.T) {
	c := newLRU(lruShards) // one entry per shard
	k := func(i int) cacheKey { return cacheKey{query: fmt.Sprint(i)} }
	plans := map[int]*compiledRead{}
	for i := 0; i < 200; i++ {
		plans[i] = &compiledRead{}
		c.put(k(i), plans[i])
		if got := c.get(k(i)); got != plans[i] {
			t.Fatalf("get(%d) after put = %p, want %p", i, got, plans[i])
		}
	}
	if n := c.len(); n > lruShards {
		t.Errorf("len = %d, want at most %d", n, lruShards)
	}
	// The most recent key of each shard is kept.
	if c.get(k(199)) != plans[199] {
		t.Errorf("most recent entry was evicted")
	}
}

func TestLRUKeepsRecentlyRead(t *testing.T) {
	c := newLRU(2 * lruShards)
	s := c.shard(cacheKey{query: "a"})
	// Find three keys of the same shard.
	var keys []cacheKey
	for i := 0; len(keys) < 3; i++ {
		k := cacheKey{query: fmt.Sprint("k", i)}
		if c.shard(k) == s {
			keys = append(keys, k)
		}
	}
	a, b, d := &compiledRead{}, &compiledRead{}, &compiledRead{}
	c.put(keys[0], a)
	c.put(keys[1], b)
	c.get(keys[0]) // keys[0] is now more recent than keys[1]
	c.put(keys[2], d)
	if c.get(keys[1]) != nil {
		t.Errorf("least recently used entry was kept")
	}
	if c.get(keys[0]) != a || c.get(keys[2]) != d {
		t.Errorf("recent entries were evicted")
	}
}

func TestLRUConcurrent(t *testing.T) {
	c := newLRU(64)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				k := cacheKey{query: fmt.Sprint((i * (g + 1)) % 100)}
				if c.get(k) == nil {
					c.put(k, &compiledRead{})
				}
			}
		}(g)
	}
	wg.Wait()
	if n := c.len(); n > 64+lruShards {
		t.Errorf("len = %d, want at most about 64", n)
	}
}
