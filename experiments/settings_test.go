package experiments_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/experiments"
)

func TestDefaultSettings(t *testing.T) {
	cases := []struct {
		env   string
		quick bool
	}{
		{"", false},
		{"0", false},
		{"1", true},
		{"yes", true},
	}
	for _, c := range cases {
		t.Setenv(experiments.QuickEnv, c.env)
		s := experiments.DefaultSettings()
		if s.Quick != c.quick {
			t.Errorf("%s=%q: quick %v, want %v", experiments.QuickEnv, c.env, s.Quick, c.quick)
		}
		want := experiments.FullSettings()
		if c.quick {
			want = experiments.QuickSettings()
		}
		if s != want {
			t.Errorf("%s=%q: %+v, want %+v", experiments.QuickEnv, c.env, s, want)
		}
	}
	q, f := experiments.QuickSettings(), experiments.FullSettings()
	if q.Table1Samples >= f.Table1Samples || q.HistogramSamples >= f.HistogramSamples || q.Mode() != "quick" || f.Mode() != "full" {
		t.Errorf("quick %+v is not smaller than full %+v", q, f)
	}
}

func TestSessionProvenance(t *testing.T) {
	t.Setenv(experiments.QuickEnv, "1")
	s, err := experiments.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	p := s.Provenance()
	t.Log("\n" + p)
	// Test binaries record no dependency versions, so only the main module is listed here; the
	// notebooks show the others.
	for _, want := range []string{"go:", "modules:  github.com/stagnb/stagnb", "backend:", "device:", "mode:     quick", experiments.QuickNote} {
		if !strings.Contains(p, want) {
			t.Errorf("provenance lacks %q:\n%s", want, p)
		}
	}
}

func TestMust(t *testing.T) {
	if got := experiments.Must(3, nil); got != 3 {
		t.Errorf("Must(3, nil) = %d", got)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(error).Error(), "boom") {
			t.Errorf("Must with an error: recovered %v", r)
		}
	}()
	experiments.Must(0, errors.New("boom"))
}

func TestCheck(t *testing.T) {
	experiments.Check(nil)
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(error).Error(), "boom") {
			t.Errorf("Check with an error: recovered %v", r)
		}
	}()
	experiments.Check(errors.New("boom"))
}
