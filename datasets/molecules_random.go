package datasets

// This file reproduces Python's random module as far as the paper's split needs it: the
// Mersenne Twister MT19937 with Python's seeding from an integer (init_by_array over the
// 32-bit words of the seed), getrandbits, _randbelow_with_getrandbits and shuffle. The
// algorithms are those of CPython's Modules/_randommodule.c and Lib/random.py, unchanged
// from Python 3.2 to 3.13.

import "fmt"

const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff
)

// PythonRandom is Python's random.Random: a Mersenne Twister seeded like random.seed(int).
type PythonRandom struct {
	mt  [mtN]uint32
	idx int
}

// NewPythonRandom returns the generator of Python's random.Random(seed) for a non-negative
// integer seed.
func NewPythonRandom(seed uint64) *PythonRandom {
	key := []uint32{uint32(seed)}
	if hi := uint32(seed >> 32); hi != 0 {
		key = append(key, hi)
	}
	r := &PythonRandom{}
	r.initByArray(key)
	return r
}

// initGenrand is MT19937's init_genrand.
func (r *PythonRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < mtN; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.idx = mtN
}

// initByArray is MT19937's init_by_array, which Python's seed() uses.
func (r *PythonRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := max(mtN, len(key))
	for ; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = mtN - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

// Uint32 is MT19937's genrand_uint32: the next 32 random bits.
func (r *PythonRandom) Uint32() uint32 {
	if r.idx >= mtN {
		var k int
		for k = 0; k < mtN-mtM; k++ {
			y := (r.mt[k] & mtUpperMask) | (r.mt[k+1] & mtLowerMask)
			r.mt[k] = r.mt[k+mtM] ^ (y >> 1) ^ (-(y & 1) & mtMatrixA)
		}
		for ; k < mtN-1; k++ {
			y := (r.mt[k] & mtUpperMask) | (r.mt[k+1] & mtLowerMask)
			r.mt[k] = r.mt[k+(mtM-mtN)] ^ (y >> 1) ^ (-(y & 1) & mtMatrixA)
		}
		y := (r.mt[mtN-1] & mtUpperMask) | (r.mt[0] & mtLowerMask)
		r.mt[mtN-1] = r.mt[mtM-1] ^ (y >> 1) ^ (-(y & 1) & mtMatrixA)
		r.idx = 0
	}
	y := r.mt[r.idx]
	r.idx++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// GetRandBits is random.getrandbits(k) for 0 ≤ k ≤ 64: a uniform integer in [0, 2^k).
// It panics if k is negative or above 64 (Python raises ValueError for k < 0 and returns
// more bits than a uint64 holds for k > 64).
func (r *PythonRandom) GetRandBits(k int) uint64 {
	if k < 0 || k > 64 {
		panic(fmt.Sprintf("datasets.PythonRandom.GetRandBits: k = %d, want 0 ≤ k ≤ 64", k))
	}
	if k == 0 {
		return 0
	}
	if k <= 32 {
		return uint64(r.Uint32() >> (32 - k))
	}
	lo := uint64(r.Uint32())
	hi := uint64(r.Uint32() >> (64 - k))
	return lo | hi<<32
}

// RandBelow is random.Random._randbelow(n) (the getrandbits variant): a uniform integer in
// [0, n), by rejection sampling over bit_length(n) bits. It panics if n is not positive
// (Python raises ValueError for n ≤ 0; without the check n = 0 would loop forever).
func (r *PythonRandom) RandBelow(n int) int {
	if n <= 0 {
		panic(fmt.Sprintf("datasets.PythonRandom.RandBelow: n = %d, want n ≥ 1", n))
	}
	k := 0
	for v := uint64(n); v > 0; v >>= 1 {
		k++
	}
	v := r.GetRandBits(k)
	for v >= uint64(n) {
		v = r.GetRandBits(k)
	}
	return int(v)
}

// ShuffleInts shuffles x in place exactly as random.shuffle(x) does.
func (r *PythonRandom) ShuffleInts(x []int) {
	for i := len(x) - 1; i >= 1; i-- {
		j := r.RandBelow(i + 1)
		x[i], x[j] = x[j], x[i]
	}
}

// PythonShuffle returns list(range(n)) after random.Random(seed).shuffle: for n = 10 and
// seed 2666 that is [0 9 3 5 2 1 6 7 8 4]. It panics if n is negative.
func PythonShuffle(n int, seed uint64) []int {
	if n < 0 {
		panic(fmt.Sprintf("datasets.PythonShuffle: n = %d, want n ≥ 0", n))
	}
	x := make([]int, n)
	for i := range x {
		x[i] = i
	}
	NewPythonRandom(seed).ShuffleInts(x)
	return x
}
