package models

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/internal/stagtest"
)

// TestTrainersReuseMatchFreshRuns checks that a NodeTrainer or GraphTrainer that trains several
// seeds one after the other, on its once-compiled graphs, gives each seed exactly the result of a
// fresh run: every variable (weights, optimizer state, learned noise, the random state) starts
// again where a new store would.
func TestTrainersReuseMatchFreshRuns(t *testing.T) {
	backend := stagtest.Backend(t)
	cfg := QuickTrainConfig()
	cfg.Epochs, cfg.EvalEvery, cfg.MCSamples = 6, 3, 3
	seeds := []int64{2, 1, 2}
	for _, spec := range []RunSpec{
		{Table: "table2", Config: "deterministic", Layers: 2},
		{Table: "table2", Config: "normal(1,0.8)", Layers: 3},
		{Table: "table2", Config: "gdc(0.2)", Layers: 2},
		{Table: "table3", Dataset: "cora", Config: "vi:rec", Layers: 2},
		{Table: "table3", Dataset: "cora", Config: "vi:r", Layers: 2},
		{Table: "table3", Config: "bbgdc", Layers: 2},
		{Table: "table7", Config: "normal(1,0.4)", Layers: 2},
		{Table: "table8", Config: "bbb", Layers: 2},
	} {
		t.Run(spec.Table+"/"+spec.Config, func(t *testing.T) {
			task := toyWideTask(t)
			m, err := ModelFor(spec)
			if err != nil {
				t.Fatal(err)
			}
			trainer, err := NewNodeTrainer(backend, task, m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer trainer.Finalize()
			compareSeeds(t, cfg, seeds, func(c TrainConfig) (*NodeResult, error) { return TrainNodeClassifier(backend, task, m, c) },
				trainer.Train, func(r *NodeResult) { r.WallSeconds = 0 })
		})
	}
	for _, spec := range []RunSpec{
		{Table: "table2", Dataset: "esol", Config: "normal(1,0.8)", Layers: 2},
		{Table: "table4", Dataset: "esol", Config: "vi:rec", Layers: 2},
	} {
		t.Run("graph/"+spec.Table+"/"+spec.Config, func(t *testing.T) {
			task := toyGraphTask(t)
			m, err := GraphModelFor(spec)
			if err != nil {
				t.Fatal(err)
			}
			trainer, err := NewGraphTrainer(backend, task, m, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer trainer.Finalize()
			compareSeeds(t, cfg, seeds, func(c TrainConfig) (*GraphResult, error) { return TrainGraphRegressor(backend, task, m, c) },
				trainer.Train, func(r *GraphResult) { r.WallSeconds = 0 })
		})
	}
}

// compareSeeds trains each seed with fresh and with reused, and reports where their results,
// cleared of wall times by clearTime, differ.
func compareSeeds[R any](t *testing.T, cfg TrainConfig, seeds []int64, fresh, reused func(TrainConfig) (*R, error), clearTime func(*R)) {
	t.Helper()
	for i, seed := range seeds {
		c := cfg
		c.Seed = seed
		want, err := fresh(c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := reused(c)
		if err != nil {
			t.Fatal(err)
		}
		clearTime(want)
		clearTime(got)
		if !reflect.DeepEqual(want, got) {
			t.Errorf("run %d (seed %d): the reused trainer gives\n%+v\na fresh run\n%+v", i+1, seed, got, want)
		}
	}
}

// TestTrainerRejectsOtherGraphs checks that a trainer refuses a protocol whose graphs differ
// from the ones it compiled, naming the fields.
func TestTrainerRejectsOtherGraphs(t *testing.T) {
	backend := stagtest.Backend(t)
	task := toyWideTask(t)
	cfg := QuickTrainConfig()
	cfg.Epochs, cfg.EvalEvery, cfg.MCSamples = 2, 1, 2
	trainer, err := NewNodeTrainer(backend, task, &GCN{Layers: 2, Hidden: 8, Activation: "relu"}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer trainer.Finalize()
	for _, tc := range []struct {
		name string
		edit func(*TrainConfig)
	}{
		{"LearningRate", func(c *TrainConfig) { c.LearningRate /= 10 }},
		{"WeightDecayFirst", func(c *TrainConfig) { c.WeightDecayFirst = 0 }},
		{"MCSamples", func(c *TrainConfig) { c.MCSamples = 4 }},
		{"MCVote", func(c *TrainConfig) { c.MCVote = true }},
	} {
		c := cfg
		tc.edit(&c)
		if _, err := trainer.Train(c); err == nil || !strings.Contains(err.Error(), tc.name) {
			t.Errorf("%s changed: error %v, want one naming it", tc.name, err)
		}
	}
	if _, err := trainer.Train(cfg); err != nil {
		t.Errorf("the trainer's own protocol: %v", err)
	}
}
