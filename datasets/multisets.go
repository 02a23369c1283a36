package datasets

import "fmt"

// ToyElements is the underlying set of the paper's Figure 3 multiset experiment.
var ToyElements = []float64{-4, -2, -1, 1, 2, 4}

// ToyMaxMultiplicity is the largest multiplicity of an element in Figure 3's multisets.
const ToyMaxMultiplicity = 4

// Multiset is a finite multiset over an underlying set: Counts[i] copies of element i.
type Multiset struct {
	// Counts holds the multiplicity of every element of the underlying set.
	Counts []int
	// Class is the multiset's identity, its index in the enumeration (see Multisets).
	Class int
}

// Size is the number of elements counted with multiplicity.
func (m Multiset) Size() int {
	n := 0
	for _, c := range m.Counts {
		n += c
	}
	return n
}

// Values lists the elements with multiplicity, in the order of the underlying set,
// e.g. {−4, −4, 1} for counts (2,0,0,1,0,0) over ToyElements. It panics if elements is
// shorter than m.Counts.
func (m Multiset) Values(elements []float64) []float64 {
	if len(elements) < len(m.Counts) {
		panic(fmt.Sprintf("datasets.Multiset.Values: len(elements) = %d, want at least len(m.Counts) = %d",
			len(elements), len(m.Counts)))
	}
	vals := make([]float64, 0, m.Size())
	for i, c := range m.Counts {
		for range c {
			vals = append(vals, elements[i])
		}
	}
	return vals
}

// Multisets enumerates every non-empty multiset over numElements distinct elements in which
// each element occurs at most maxMultiplicity times: (maxMultiplicity+1)^numElements − 1
// multisets (15,624 for Figure 3's 6 elements and multiplicity ≤ 4).
//
// How they are counted and what a class is: a multiset is its vector of multiplicities
// (c_1, …, c_k) with 0 ≤ c_i ≤ maxMultiplicity, read as a number in base maxMultiplicity+1
// with c_1 as the least significant digit. The empty multiset (all zeros) is left out, since
// it has no elements to aggregate. Each multiset is its own class — the task of Figure 3 is to
// tell every multiset from every other one — and Class is the multiset's number minus one,
// so classes run from 0 to len−1 in enumeration order.
func Multisets(numElements, maxMultiplicity int) ([]Multiset, error) {
	if numElements <= 0 || maxMultiplicity <= 0 {
		return nil, fmt.Errorf("multisets: numElements=%d maxMultiplicity=%d, want both ≥ 1", numElements, maxMultiplicity)
	}
	// Check the limit before each multiplication, so that neither maxMultiplicity+1 nor
	// the running product can overflow.
	const limit = 1 << 24
	total := 1
	for range numElements {
		if maxMultiplicity >= limit || total > limit/(maxMultiplicity+1) {
			return nil, fmt.Errorf("multisets: (%d+1)^%d multisets is too many (limit 2^24)", maxMultiplicity, numElements)
		}
		total *= maxMultiplicity + 1
	}
	sets := make([]Multiset, 0, total-1)
	for code := 1; code < total; code++ {
		counts := make([]int, numElements)
		for i, rest := 0, code; i < numElements; i++ {
			counts[i] = rest % (maxMultiplicity + 1)
			rest /= maxMultiplicity + 1
		}
		sets = append(sets, Multiset{Counts: counts, Class: code - 1})
	}
	return sets, nil
}

// MultisetStats are the statistics printed by `stag data stats multisets`.
type MultisetStats struct {
	Dataset         string    `json:"dataset"`
	Elements        []float64 `json:"elements"`
	MaxMultiplicity int       `json:"max_multiplicity"`
	NumMultisets    int       `json:"num_multisets"`
	NumClasses      int       `json:"num_classes"`
	MinSize         int       `json:"min_size"`
	MaxSize         int       `json:"max_size"`
	// SizeCounts[s] is the number of multisets with s elements.
	SizeCounts []int `json:"size_counts"`
}

// ComputeMultisetStats summarises the multisets of Multisets(len(elements), maxMultiplicity).
func ComputeMultisetStats(elements []float64, maxMultiplicity int) (MultisetStats, error) {
	sets, err := Multisets(len(elements), maxMultiplicity)
	if err != nil {
		return MultisetStats{}, err
	}
	st := MultisetStats{
		Dataset: "multisets", Elements: elements, MaxMultiplicity: maxMultiplicity,
		NumMultisets: len(sets), NumClasses: len(sets), MinSize: -1,
		SizeCounts: make([]int, len(elements)*maxMultiplicity+1),
	}
	for _, m := range sets {
		s := m.Size()
		st.SizeCounts[s]++
		st.MaxSize = max(st.MaxSize, s)
		if st.MinSize < 0 || s < st.MinSize {
			st.MinSize = s
		}
	}
	return st, nil
}
