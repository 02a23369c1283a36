package datasets

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

func TestMultisetsFigure3(t *testing.T) {
	sets, err := Multisets(len(ToyElements), ToyMaxMultiplicity)
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) != 5*5*5*5*5*5-1 { // 15,624: every count in 0..4 for 6 elements, minus the empty multiset
		t.Fatalf("%d multisets, want 15624", len(sets))
	}
	seen := map[string]bool{}
	for i, m := range sets {
		if m.Class != i {
			t.Fatalf("multiset %d has class %d", i, m.Class)
		}
		if s := m.Size(); s < 1 || s > 24 {
			t.Fatalf("multiset %v has size %d", m.Counts, s)
		}
		for _, c := range m.Counts {
			if c < 0 || c > ToyMaxMultiplicity {
				t.Fatalf("multiset %v: multiplicity out of range", m.Counts)
			}
		}
		key := fmt.Sprint(m.Counts)
		if seen[key] {
			t.Fatalf("multiset %v enumerated twice", m.Counts)
		}
		seen[key] = true
	}
	// The enumeration is base-5 with the first element least significant.
	if got := sets[0].Values(ToyElements); !slices.Equal(got, []float64{-4}) {
		t.Errorf("class 0 = %v, want {-4}", got)
	}
	if got := sets[5+2-1].Values(ToyElements); !slices.Equal(got, []float64{-4, -4, -2}) { // code 7 = (2,1,0,…)
		t.Errorf("class 6 = %v, want {-4,-4,-2}", got)
	}
	if got := sets[len(sets)-1]; got.Size() != 24 {
		t.Errorf("last class has size %d, want 24", got.Size())
	}
}

func TestComputeMultisetStats(t *testing.T) {
	st, err := ComputeMultisetStats([]float64{1, 2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Over {1,2} with multiplicity ≤ 2: sizes 1:{1},{2}; 2:{1,1},{1,2},{2,2}; 3:{1,1,2},{1,2,2}; 4:{1,1,2,2}.
	if st.NumMultisets != 8 || st.NumClasses != 8 || st.MinSize != 1 || st.MaxSize != 4 ||
		!slices.Equal(st.SizeCounts, []int{0, 2, 3, 2, 1}) {
		t.Errorf("ComputeMultisetStats = %+v", st)
	}
}

func TestMultisetsBadInput(t *testing.T) {
	for _, c := range [][2]int{{0, 4}, {6, 0}, {-1, 2}, {30, 4}} {
		if _, err := Multisets(c[0], c[1]); err == nil {
			t.Errorf("Multisets(%d, %d) gave no error", c[0], c[1])
		}
	}
}

func TestMultisetsTooMany(t *testing.T) {
	for _, c := range [][2]int{
		{1, math.MaxInt},     // maxMultiplicity+1 overflows
		{2, math.MaxInt / 2}, // the product overflows
		{1, 1 << 24},         // 2^24+1 multisets, one over the limit
		{3, 1 << 12},
		{25, 1},
		{math.MaxInt, 1},
		{math.MaxInt, math.MaxInt},
	} {
		_, err := Multisets(c[0], c[1])
		t.Run(fmt.Sprint(c), func(t *testing.T) { wantError(t, err, "multisets: ", "too many", "limit 2^24") })
	}
	if _, err := ComputeMultisetStats([]float64{1}, math.MaxInt); err == nil {
		t.Error("ComputeMultisetStats([1], MaxInt) gave no error")
	}
}

func TestMultisetValues(t *testing.T) {
	m := Multiset{Counts: []int{2, 0, 1}}
	for _, c := range []struct {
		elements []float64
		want     []float64
	}{
		{[]float64{1, 2, 3}, []float64{1, 1, 3}},
		{[]float64{1, 2, 3, 4}, []float64{1, 1, 3}}, // extra elements are not used
	} {
		if got := m.Values(c.elements); !slices.Equal(got, c.want) {
			t.Errorf("Values(%v) = %v, want %v", c.elements, got, c.want)
		}
	}
	for _, elements := range [][]float64{nil, {1, 2}} {
		t.Run(fmt.Sprint(len(elements)), func(t *testing.T) {
			wantPanic(t, func() { m.Values(elements) }, "Multiset.Values",
				fmt.Sprintf("len(elements) = %d", len(elements)), "len(m.Counts) = 3")
		})
	}
}
