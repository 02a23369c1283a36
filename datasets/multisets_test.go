package datasets

import (
	"fmt"
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
