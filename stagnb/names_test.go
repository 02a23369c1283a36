package stagnb_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/stagnb"
)

// checkNames checks one string-named enum: each value reads back from its String, also in upper
// case with spaces around it, and from each alias; an unknown name is an error that quotes it and
// lists the names; String of an out-of-range value names the type instead of panicking.
func checkNames[T interface {
	comparable
	fmt.Stringer
}](t *testing.T, typeName string, parse func(string) (T, error), aliases map[string]T, invalid T, values ...T) {
	t.Helper()
	seen := map[string]bool{}
	for _, v := range values {
		name := v.String()
		if seen[name] {
			t.Errorf("%s: two values are called %q", typeName, name)
		}
		seen[name] = true
		for _, in := range []string{name, " " + strings.ToUpper(name) + "\t"} {
			if got, err := parse(in); err != nil || got != v {
				t.Errorf("%s: parse(%q) = %v, %v; want %v", typeName, in, got, err, v)
			}
		}
	}
	for in, want := range aliases {
		if got, err := parse(in); err != nil || got != want {
			t.Errorf("%s: parse(%q) = %v, %v; want %v", typeName, in, got, err, want)
		}
	}
	for _, bad := range []string{"", "sums", "both,left"} {
		_, err := parse(bad)
		if err == nil {
			t.Errorf("%s: parse(%q): no error", typeName, bad)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, fmt.Sprintf("%q", bad)) {
			t.Errorf("%s: parse(%q): error %q does not quote the input", typeName, bad, msg)
		}
		for _, v := range values {
			if !strings.Contains(msg, v.String()) {
				t.Errorf("%s: parse(%q): error %q does not list %q", typeName, bad, msg, v.String())
			}
		}
	}
	if got, want := invalid.String(), typeName+"("; !strings.HasPrefix(got, want) {
		t.Errorf("%s: String of an out-of-range value = %q, want %q…", typeName, got, want)
	}
}

// TestEnumNames covers the enums that hyperparameters and command lines name by string.
func TestEnumNames(t *testing.T) {
	checkNames(t, "Aggregator", stagnb.ParseAggregator, nil, stagnb.Aggregator(99),
		stagnb.AggSum, stagnb.AggMean, stagnb.AggMax, stagnb.AggMin, stagnb.AggStd)
	checkNames(t, "Norm", stagnb.ParseNorm, nil, stagnb.Norm(-1),
		stagnb.NormBoth, stagnb.NormRight, stagnb.NormLeft, stagnb.NormNone)
	checkNames(t, "Placement", stagnb.ParsePlacement, nil, stagnb.Placement(3),
		stagnb.AggregateFirst, stagnb.TransformFirst, stagnb.DGLOrder)
	checkNames(t, "MCReduce", stagnb.ParseMCReduce, map[string]stagnb.MCReduce{"logits": stagnb.MCMean}, stagnb.MCReduce(3),
		stagnb.MCMean, stagnb.MCProbs, stagnb.MCVote)
}
