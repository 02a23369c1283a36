package models

import (
	"strings"
	"testing"
)

func TestParseVariant(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want: the config suffix, or the error's text
		fails    bool
	}{
		{in: "", want: ""},
		{in: "reg=0.5", want: "+reg=0.5"},
		{in: " lr=1e-2 , reg=0.50", want: "+lr=0.01+reg=0.5"},
		{in: "reg=0.5+epochs=200", want: "+epochs=200+reg=0.5"},
		{in: "WD=0", want: "+wd=0"},
		{in: "epochs=1e6,lr=1e-5", want: "+epochs=1000000+lr=0.00001"}, // no exponent: a "+" would split it
		{in: "lr=1e+3", fails: true, want: `write an exponent without "+" (1e6, not 1e+6)`},
		{in: "reg", fails: true, want: `item "reg": want name=value`},
		{in: "dropout=0.5", fails: true, want: `unknown option "dropout" (want epochs, lr, reg or wd)`},
		{in: "reg=-1", fails: true, want: "reg=-1: want a finite number ≥ 0"},
		{in: "lr=NaN", fails: true, want: "lr=NaN: want a finite number ≥ 0"},
		{in: "reg=0", fails: true, want: "reg=0: want a number > 0"},
		{in: "epochs=1.5", fails: true, want: "epochs=1.5: want a whole number"},
		{in: "reg=0.5,reg=1", fails: true, want: "option reg given twice"},
	} {
		v, err := ParseVariant(tc.in)
		switch {
		case tc.fails && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("ParseVariant(%q): error %v, want one containing %q", tc.in, err, tc.want)
		case !tc.fails && err != nil:
			t.Errorf("ParseVariant(%q): %v", tc.in, err)
		case !tc.fails && v.String() != tc.want:
			t.Errorf("ParseVariant(%q) = %q, want %q", tc.in, v, tc.want)
		}
	}
}

// TestVariantSpecs checks what a variant changes in a run: its record's file, its protocol and its
// model, and that an option a row cannot take is an error naming both.
func TestVariantSpecs(t *testing.T) {
	v, err := ParseVariant("reg=0.5")
	if err != nil {
		t.Fatal(err)
	}
	spec := RunSpec{Table: "table3", Dataset: "cora", Config: "vi:rec", Layers: 2, Seed: 3}.WithVariant(v)
	if spec.Config != "vi:rec+reg=0.5" || spec.Row() != "vi:rec" {
		t.Errorf("WithVariant: config %q, row %q", spec.Config, spec.Row())
	}
	if got, want := spec.Path(), "table3/cora/layers=2/vi-rec+reg=0.5/seed=3.json"; got != want {
		t.Errorf("Path() = %q, want %q", got, want)
	}
	if got := spec.WithVariant(Variant{}).Config; got != "vi:rec" {
		t.Errorf("WithVariant(zero) = %q, want the row", got)
	}
	m, err := ModelFor(spec)
	if err != nil {
		t.Fatal(err)
	}
	if vi, ok := m.(*VIGCN); !ok || vi.RegScale != 0.5 || !strings.Contains(vi.String(), "legacy×0.5") {
		t.Errorf("ModelFor(%s) = %v, want STAG-VI with RegScale 0.5", spec.Config, m)
	}
	if d := ProtocolDiff(ProtocolFor(spec), ProtocolFor(RunSpec{Table: "table3", Dataset: "cora", Config: "vi:rec", Layers: 2, Seed: 3})); d != "" {
		t.Errorf("reg changed the protocol: %s", d)
	}

	row := RunSpec{Table: "table3", Dataset: "citeseer", Config: "bbgdc", Layers: 2, Seed: 2}
	tuned := row
	tuned.Config = "bbgdc+epochs=500+lr=0.01+wd=0.001"
	want := ProtocolFor(row)
	want.Epochs, want.LearningRate, want.WeightDecayFirst = 500, 0.01, 0.001
	if d := ProtocolDiff(ProtocolFor(tuned), want); d != "" {
		t.Errorf("ProtocolFor(%s) differs from the row's with the variant's settings: %s", tuned.Config, d)
	}
	if d := ProtocolDiff(ProtocolFor(row), want); d != "epochs 2000 → 500, learning_rate 0.005 → 0.01, weight_decay_first 0 → 0.001" {
		t.Errorf("the variant changed %q", d)
	}
	if !RawFeatures(tuned) {
		t.Error("RawFeatures: a BBGDC variant trains on the raw features, as its row")
	}
	if err := ValidateSpec(tuned); err != nil {
		t.Errorf("ValidateSpec(%s): %v", tuned.Config, err)
	}

	g, err := GraphModelFor(RunSpec{Table: "table4", Dataset: "freesolv", Config: "vi:r+reg=2", Layers: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if vi, ok := g.(*VIGraphRegressor); !ok || vi.RegScale != 2 {
		t.Errorf("GraphModelFor(table4 vi:r+reg=2) = %v, want RegScale 2", g)
	}

	for _, bad := range []struct {
		spec RunSpec
		want string
	}{
		{RunSpec{Table: "table2", Dataset: "cora", Config: "normal(1,0.8)+reg=0.5", Layers: 2}, `table2: config "normal(1,0.8)+reg=0.5": option reg weights STAG-VI's regulariser`},
		{RunSpec{Table: "table3", Dataset: "cora", Config: "bbgdc+reg=0.5", Layers: 2}, "option reg"},
		{RunSpec{Table: "table4", Dataset: "esol", Config: "deterministic+reg=0.5", Layers: 2}, "option reg"},
		{RunSpec{Table: "table3", Dataset: "cora", Config: "vi:rec+mc=8", Layers: 2}, `table3: config "vi:rec+mc=8": variant "mc=8": unknown option "mc"`},
		{RunSpec{Table: "table3", Dataset: "cora", Config: "vi:nope+reg=0.5", Layers: 2}, `"vi:nope"`},
	} {
		if err := ValidateSpec(bad.spec); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ValidateSpec(%s %s): error %v, want one containing %q", bad.spec.Table, bad.spec.Config, err, bad.want)
		}
	}
}
