package main

import (
	"strings"
	"testing"
)

func TestReproduceErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"reproduce"}, "name a table"},
		{[]string{"reproduce", "table99"}, `unknown table "table99"`},
		{[]string{"reproduce", "table2", "-datasets", "pubmed"}, `unknown dataset "pubmed"`},
		{[]string{"reproduce", "table2", "extra"}, "unexpected arguments"},
		{[]string{"reproduce", "table2", "-configs", "normal(9,9)"}, "select no run"},
		{[]string{"reproduce", "table4", "-datasets", "cora"}, "table4 has the molecule datasets"},
		{[]string{"reproduce", "table2", "-jobs", "0"}, "-jobs 0: want at least 1"},
		{[]string{"reproduce", "table3", "-datasets", "esol"}, "esol is in table2 and table4 only"},
	} {
		code, _, stderr := stag(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("stag %v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

func TestSplitList(t *testing.T) {
	got := splitList("deterministic, normal(1,0.8),de(0.2)")
	want := []string{"deterministic", "normal(1,0.8)", "de(0.2)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("splitList: %q, want %q", got, want)
	}
}
