package models

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/stagnb/stagnb/internal/enum"
)

// A Variant is a set of changed settings that turns a row of a paper table into an ablation: the
// row run with another learning rate, say, or with a setting of the authors' code that the
// paper's table did not use. A variant's config is the row's followed by "+name=value" for each
// option, sorted by name: "vi:rec+reg=0.5" is Table 3's STAG-VI ℝ^|E|×C row with its regulariser
// weighted 0.5. Its records are kept beside the row's, in a folder of their own
// (table3/cora/layers=2/vi-rec+reg=0.5/), where no paper table and no coverage count reads them.
// The options are VariantOptions' names; the zero Variant changes nothing.
type Variant map[string]float64

// VariantOption is a setting that a Variant may change.
type VariantOption struct {
	Name, Doc string
	// Integer options take whole numbers only, Positive ones numbers > 0 (the others ≥ 0).
	Integer, Positive bool
}

// VariantOptions are the settings a Variant may change.
var VariantOptions = []VariantOption{
	{Name: "epochs", Doc: "training epochs", Integer: true, Positive: true},
	{Name: "lr", Doc: "Adam's learning rate", Positive: true},
	{Name: "reg", Doc: "weight of STAG-VI's regulariser (Tables 3 and 4; the submitted scripts: 1, the authors' earlier Cora ℝ^|E|×C script: 0.5)", Positive: true},
	{Name: "wd", Doc: "L2 penalty on the first layer"},
}

// ParseVariant reads a variant's options, "name=value" items separated by commas or "+"
// ("reg=0.5,lr=1e-2"; so a value takes no "+", as in 1e+6: write 1e6); "" is the zero Variant.
// Values are finite numbers, > 0 for the Positive options and ≥ 0 for the others; epochs is a
// whole number.
func ParseVariant(s string) (Variant, error) {
	v := Variant{}
	if strings.TrimSpace(s) == "" {
		return v, nil
	}
	if plusExponent.MatchString(s) {
		return nil, fmt.Errorf("variant %q: write an exponent without \"+\" (1e6, not 1e+6): \"+\" separates the options", s)
	}
	for item := range strings.FieldsFuncSeq(s, func(r rune) bool { return r == ',' || r == '+' }) {
		name, value, ok := strings.Cut(strings.TrimSpace(item), "=")
		name = strings.ToLower(strings.TrimSpace(name))
		i := slices.IndexFunc(VariantOptions, func(o VariantOption) bool { return o.Name == name })
		switch {
		case !ok:
			return nil, fmt.Errorf("variant %q: item %q: want name=value", s, item)
		case i < 0:
			return nil, fmt.Errorf("variant %q: unknown option %q (want %s)", s, name, variantOptionNames())
		}
		if _, dup := v[name]; dup {
			return nil, fmt.Errorf("variant %q: option %s given twice", s, name)
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		switch {
		case err != nil || math.IsInf(x, 0) || math.IsNaN(x) || x < 0:
			return nil, fmt.Errorf("variant %q: %s=%s: want a finite number ≥ 0", s, name, value)
		case VariantOptions[i].Positive && x == 0:
			return nil, fmt.Errorf("variant %q: %s=%s: want a number > 0", s, name, value)
		case VariantOptions[i].Integer && x != math.Trunc(x):
			return nil, fmt.Errorf("variant %q: %s=%s: want a whole number", s, name, value)
		}
		v[name] = x
	}
	return v, nil
}

// plusExponent matches a number's exponent written with "+", as in 1e+6.
var plusExponent = regexp.MustCompile(`[0-9.][eE]\+`)

// variantOptionNames lists the option names, "epochs, lr, reg or wd".
func variantOptionNames() string {
	var names []string
	for _, o := range VariantOptions {
		names = append(names, o.Name)
	}
	return enum.OrList(names)
}

// String is the variant's suffix of a config, "+name=value" per option sorted by name, the value
// in decimal without an exponent ("+epochs=1000000+lr=0.00001"), or "" for the zero Variant.
func (v Variant) String() string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(v)) {
		b.WriteString("+" + name + "=" + strconv.FormatFloat(v[name], 'f', -1, 64))
	}
	return b.String()
}

// Row is the paper table's row of a spec's config: the config without its variant's options
// ("vi:rec" for "vi:rec+reg=0.5").
func (s RunSpec) Row() string {
	row, _, _ := strings.Cut(s.Config, "+")
	return row
}

// Variant reads the options of a spec's config ("+reg=0.5"); an error names the config.
func (s RunSpec) Variant() (Variant, error) {
	_, opts, ok := strings.Cut(s.Config, "+")
	if !ok {
		return Variant{}, nil
	}
	v, err := ParseVariant(opts)
	if err != nil {
		return nil, fmt.Errorf("%s: config %q: %w", s.Table, s.Config, err)
	}
	return v, nil
}

// WithVariant is the spec with its row's config followed by v's options: the run of v.
func (s RunSpec) WithVariant(v Variant) RunSpec {
	s.Config = s.Row() + v.String()
	return s
}

// ValidateSpec reports, without loading data or building graphs, whether Reproduce can train a
// spec: its row is one of its table's and its variant's options apply to that row (reg to
// STAG-VI rows only).
func ValidateSpec(spec RunSpec) error {
	if IsMoleculeDataset(spec.Dataset) {
		_, err := GraphModelFor(spec)
		return err
	}
	_, err := ModelFor(spec)
	return err
}

// applyProtocol changes a protocol as the variant's epochs, lr and wd say.
func (v Variant) applyProtocol(cfg TrainConfig) TrainConfig {
	if x, ok := v["epochs"]; ok {
		cfg.Epochs = int(x)
	}
	if x, ok := v["lr"]; ok {
		cfg.LearningRate = x
	}
	if x, ok := v["wd"]; ok {
		cfg.WeightDecayFirst = x
	}
	return cfg
}

// variantModel builds the model of a spec's row with build, then sets the weight of its
// regulariser, which regScale points to (nil when it has none), to the variant's reg, if set.
func variantModel[M any](spec RunSpec, build func(RunSpec) (M, error), regScale func(M) *float64) (M, error) {
	var none M
	v, err := spec.Variant()
	if err != nil {
		return none, err
	}
	row := spec
	row.Config = spec.Row()
	m, err := build(row)
	if err != nil {
		return none, err
	}
	if x, ok := v["reg"]; ok {
		w := regScale(m)
		if w == nil {
			return none, fmt.Errorf("%s: config %q: option reg weights STAG-VI's regulariser, and this row has none", spec.Table, spec.Config)
		}
		*w = x
	}
	return m, nil
}
