package experiments

import (
	"slices"
	"testing"
)

// TestGroupByValue checks the numeric grouping: values within 1e-9 (relative, at least absolute
// 1e-9) of their sorted neighbour share a group, numbered in sorted order.
func TestGroupByValue(t *testing.T) {
	cases := []struct {
		v    []float64
		want []int
	}{
		{[]float64{3, 1, 2}, []int{2, 0, 1}},
		{[]float64{1, 1 + 1e-12, 2}, []int{0, 0, 1}},
		{[]float64{1e6, 1e6 + 1e-4, 1e6 + 1}, []int{0, 0, 1}}, // 1e-4 is 1e-10 relative
		{[]float64{0, 1e-10, 1e-8}, []int{0, 0, 1}},
		{[]float64{-5, -5, -5}, []int{0, 0, 0}},
	}
	for _, c := range cases {
		if got := groupByValue(c.v, 1e-9); !slices.Equal(got, c.want) {
			t.Errorf("groupByValue(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}

// TestKSDistance checks the two-sample Kolmogorov–Smirnov distance on hand-worked samples.
func TestKSDistance(t *testing.T) {
	cases := []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 2, 3}, []float64{3, 2, 1}, 0},
		{[]float64{1, 2}, []float64{3, 4}, 1},
		// F_a − F_b at 1, 2, 2.5, 3: 1/3, 2/3, 2/3 − 1, 0.
		{[]float64{1, 2, 3}, []float64{2.5}, 2.0 / 3},
		// Ties across samples: at 1 both jump, F_a = 1/2, F_b = 1/3.
		{[]float64{1, 2}, []float64{1, 2, 2}, 1.0 / 6},
	}
	for _, c := range cases {
		if got := ksDistance(c.a, c.b); got != c.want && !(got-c.want < 1e-15 && c.want-got < 1e-15) {
			t.Errorf("ksDistance(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
