package experiments

import (
	"strings"
	"testing"

	"github.com/stagnb/stagnb/models"
)

// gainRecords are synthetic Table 2 records: Cora's Deterministic and Normal(1, 0.8) at two seeds
// each, close to the paper, Uniform(0.2, 1.8) far above it, and one Citeseer seed without a
// Deterministic row (paper: Cora 79.34 ± 0.22, 80.34 ± 0.45, 79.86 ± 0.34; Citeseer Normal(1, 0.8)
// 66.92 ± 1.99).
func gainRecords() []models.Record {
	rec := func(dataset, config string, seed int64, acc float64) models.Record {
		return models.Record{Spec: models.RunSpec{Table: "table2", Dataset: dataset, Config: config, Layers: 2, Seed: seed},
			Result: &models.NodeResult{TestAcc: acc}}
	}
	return []models.Record{
		rec("cora", "deterministic", 1, 0.790), rec("cora", "deterministic", 2, 0.800),
		rec("cora", "normal(1,0.8)", 1, 0.800), rec("cora", "normal(1,0.8)", 2, 0.810),
		rec("cora", "uniform(0.2,1.8)", 1, 0.900), rec("cora", "uniform(0.2,1.8)", 2, 0.900),
		rec("citeseer", "normal(1,0.8)", 1, 0.600),
	}
}

func TestAgreement(t *testing.T) {
	got := Agreement(gainRecords())
	// Δ/σ: Deterministic (79.50 − 79.34)/√(0.22² + 0.5²) = +0.29, Normal(1, 0.8) +0.24,
	// Uniform (90 − 79.86)/0.34 = +29.82, Citeseer (60 − 66.92)/1.99 = −3.48 (one seed).
	want := "**Agreement:** of 4 cells with a Δ/σ: 2 within |Δ/σ| ≤ 1 of the paper, 2 within 2 (1 of one seed, whose Δ/σ has only the paper's spread); " +
		"beyond 2: Cora Uniform(0.2, 1.8), 2 layers (+29.82); Citeseer Normal(1, 0.8), 2 layers (-3.48).\n"
	if got != want {
		t.Errorf("Agreement:\n got %q\nwant %q", got, want)
	}
	if got := Agreement(nil); !strings.Contains(got, "no cell") {
		t.Errorf("Agreement(nil) = %q", got)
	}
	if got := Agreement(gainRecords()[:4]); !strings.HasSuffix(got, "2 within 2, none beyond 2.\n") {
		t.Errorf("Agreement of two close cells = %q", got)
	}
}

func TestGainsOverDeterministic(t *testing.T) {
	got := GainsOverDeterministic("Gains", gainRecords())
	for _, want := range []string{
		"### Gains\n",
		"| dataset | config | paper − paper's Deterministic | ours − our Deterministic | seeds |",
		"| Cora | Normal(1, 0.8), 2 layers | +1.00 | +1.00 | 2 |",
		"| Cora | Uniform(0.2, 1.8), 2 layers | +0.52 | +10.50 | 2 |",
		"a negative difference is a gain",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("GainsOverDeterministic lacks %q:\n%s", want, got)
		}
	}
	for _, absent := range []string{"Citeseer", "| Cora | Deterministic"} {
		if strings.Contains(got, absent) {
			t.Errorf("GainsOverDeterministic shows %q (no Deterministic of its own, or the reference row itself):\n%s", absent, got)
		}
	}
	if got := GainsOverDeterministic("", gainRecords()[6:]); !strings.Contains(got, "No row to compare") {
		t.Errorf("without a Deterministic row: %q", got)
	}
}
