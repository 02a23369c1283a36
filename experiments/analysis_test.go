package experiments_test

import (
	"strings"
	"testing"

	"github.com/stagnb/stagnb/experiments"
	"github.com/stagnb/stagnb/internal/stagtest"
)

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"FastGCN (node sampling)", "fastgcn-node-sampling"},
		{"Graph DropConnect", "graph-dropconnect"},
		{"  --Table 2 — ours (accuracy)--  ", "table-2-ours-accuracy"},
		{"μ ± σ of layer 0", "of-layer-0"},
		{"a__b..c", "a-b-c"},
		{"—", ""},
	} {
		if got := experiments.Slug(tc.in); got != tc.want {
			t.Errorf("Slug(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestAnalysisUnknownItem checks that an item outside AnalysisItems is an error that names it and
// lists the items. (The items themselves run through `stag reproduce` in cmd/stag's tests.)
func TestAnalysisUnknownItem(t *testing.T) {
	_, err := experiments.Analysis(stagtest.Backend(t), "table2", experiments.QuickSettings(), nil)
	if err == nil || !strings.Contains(err.Error(), `unknown item "table2"`) || !strings.Contains(err.Error(), strings.Join(experiments.AnalysisItems, ", ")) {
		t.Errorf("error %v, want one naming the item and listing %v", err, experiments.AnalysisItems)
	}
}
