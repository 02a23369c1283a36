package models

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"
	"github.com/stagnb/stagnb/internal/stagtest"
)

// storeValues copies the values of the variables in store, but its random state, keyed by path.
func storeValues(t *testing.T, store *model.Store) map[string]any {
	t.Helper()
	values := map[string]any{}
	for v := range store.IterVariables() {
		if v.Path() == rngStatePath {
			continue
		}
		x, err := v.Value()
		if err != nil {
			t.Fatal(err)
		}
		values[v.Path()] = x.Value()
	}
	return values
}

// TestRestoreBest checks that with RestoreBest the store that Inspect sees holds the variables of
// the selected evaluation: exactly those of a run of the same seed stopped at that epoch, and not
// the last epoch's (which Inspect sees without it).
func TestRestoreBest(t *testing.T) {
	backend := stagtest.Backend(t)
	cfg := QuickTrainConfig()
	cfg.Epochs, cfg.EvalEvery, cfg.MCSamples, cfg.Seed = 40, 5, 2, 3
	// inspectAt trains with train for epochs and returns the best epoch and the variables
	// Inspect saw.
	inspectAt := func(t *testing.T, train func(TrainConfig) (int, error), epochs int, restore bool) (int, map[string]any) {
		t.Helper()
		c := cfg
		c.Epochs, c.RestoreBest = epochs, restore
		var values map[string]any
		c.Inspect = func(store *model.Store) error {
			values = storeValues(t, store)
			return nil
		}
		best, err := train(c)
		if err != nil {
			t.Fatal(err)
		}
		return best, values
	}
	check := func(t *testing.T, train func(TrainConfig) (int, error)) {
		best, restored := inspectAt(t, train, cfg.Epochs, true)
		if best >= cfg.Epochs {
			t.Fatalf("the best evaluation is the last (epoch %d): the test does not exercise RestoreBest", best)
		}
		_, last := inspectAt(t, train, cfg.Epochs, false)
		_, stopped := inspectAt(t, train, best, false)
		if len(restored) == 0 || !reflect.DeepEqual(restored, stopped) {
			t.Errorf("with RestoreBest, Inspect's variables differ from those of a run stopped at the best epoch %d", best)
		}
		if reflect.DeepEqual(last, stopped) {
			t.Errorf("without RestoreBest, Inspect's variables are those of the best epoch %d, want the last epoch's", best)
		}
	}
	t.Run("node", func(t *testing.T) {
		task := toyWideTask(t)
		noise, err := NoiseForConfig("normal(1,0.8)")
		if err != nil {
			t.Fatal(err)
		}
		m := Table2Model(2, noise)
		check(t, func(c TrainConfig) (int, error) {
			res, err := TrainNodeClassifier(backend, task, m, c)
			if err != nil {
				return 0, err
			}
			return res.BestEpoch, nil
		})
	})
	t.Run("reused", func(t *testing.T) {
		// A trainer that restored one run's best variables starts the next seed afresh: the
		// same seed twice gives the same result and the same restored variables.
		task := toyWideTask(t)
		noise, err := NoiseForConfig("normal(1,0.8)")
		if err != nil {
			t.Fatal(err)
		}
		trainer, err := NewNodeTrainer(backend, task, Table2Model(2, noise), cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer trainer.Finalize()
		var results []*NodeResult
		var values []map[string]any
		for range 2 {
			c := cfg
			c.RestoreBest = true
			c.Inspect = func(store *model.Store) error {
				values = append(values, storeValues(t, store))
				return nil
			}
			res, err := trainer.Train(c)
			if err != nil {
				t.Fatal(err)
			}
			res.WallSeconds = 0
			results = append(results, res)
		}
		if !reflect.DeepEqual(results[0], results[1]) || !reflect.DeepEqual(values[0], values[1]) {
			t.Errorf("the second run of seed %d on the reused trainer differs from the first", cfg.Seed)
		}
	})
	t.Run("graph", func(t *testing.T) {
		task := heldOutGraphTask(t)
		m, err := GraphModelFor(RunSpec{Table: "table2", Dataset: "esol", Config: "normal(1,0.8)", Layers: 2})
		if err != nil {
			t.Fatal(err)
		}
		check(t, func(c TrainConfig) (int, error) {
			res, err := TrainGraphRegressor(backend, task, m, c)
			if err != nil {
				return 0, err
			}
			return res.BestEpoch, nil
		})
	})
}

// heldOutGraphTask is toyGraphTask with validation and test labels the reverse of the training
// ones, so that fitting the training set soon makes the validation RMSE worse.
func heldOutGraphTask(t *testing.T) *GraphTask {
	task := toyGraphTask(t)
	held := *task.Train
	held.Labels = []float32{task.Train.Labels[1], task.Train.Labels[0]}
	task.Val, task.Test = &held, &held
	return task
}

// TestPredictRestoredModel checks that PredictNodes and PredictGraphs on the store that Inspect
// sees with RestoreBest give the metrics the trainer reported, for a deterministic model, where
// one sample is the prediction; and that a model saved there with GoMLX's checkpoint package
// and loaded into a new store predicts the same.
func TestPredictRestoredModel(t *testing.T) {
	backend := stagtest.Backend(t)
	cfg := QuickTrainConfig()
	cfg.Epochs, cfg.EvalEvery, cfg.MCSamples, cfg.RestoreBest = 40, 5, 1, true
	t.Run("node", func(t *testing.T) {
		task := toyWideTask(t)
		m := Table2Model(2, nil)
		dir := t.TempDir()
		var inspected *NodePredictions
		c := cfg
		c.Inspect = func(store *model.Store) error {
			var err error
			if inspected, err = PredictNodes(backend, store, task, m, 1); err != nil {
				return err
			}
			h, err := checkpoint.Build(store).Dir(dir).Done()
			if err != nil {
				return err
			}
			return h.Save()
		}
		res, err := TrainNodeClassifier(backend, task, m, c)
		if err != nil {
			t.Fatal(err)
		}
		if res.BestEpoch >= c.Epochs {
			t.Fatalf("the best evaluation is the last (epoch %d): the test does not exercise RestoreBest", res.BestEpoch)
		}
		for _, s := range []struct {
			name     string
			nodes    []int32
			reported float64
		}{{"train", task.Split.Train, res.TrainAcc}, {"validation", task.Split.Val, res.ValAcc}, {"test", task.Split.Test, res.TestAcc}} {
			if got := inspected.Accuracy(task, s.nodes); got != s.reported {
				t.Errorf("%s accuracy of the restored model %v, the trainer reported %v", s.name, got, s.reported)
			}
		}
		nll, _ := nllAndECE(inspected.Mean, task.NumClasses, task.Labels, task.Split.Test, 15)
		if math.Abs(nll-res.TestNLL) > 1e-6 {
			t.Errorf("test NLL of the restored model %v, the trainer reported %v", nll, res.TestNLL)
		}
		for i, s := range inspected.Std {
			if s != 0 {
				t.Fatalf("a deterministic model's probabilities vary over samples: std[%d] = %v", i, s)
			}
		}
		store := model.NewStore()
		defer store.Finalize()
		if _, err := checkpoint.Load(store).Dir(dir).Done(); err != nil {
			t.Fatal(err)
		}
		loaded, err := PredictNodes(backend, store, task, m, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(loaded.Mean, inspected.Mean) {
			t.Errorf("the model loaded from the checkpoint predicts\n%v\nthe saved one\n%v", loaded.Mean, inspected.Mean)
		}
	})
	t.Run("graph", func(t *testing.T) {
		task := heldOutGraphTask(t)
		m, err := GraphModelFor(RunSpec{Table: "table2", Dataset: "esol", Config: "deterministic", Layers: 2})
		if err != nil {
			t.Fatal(err)
		}
		var val, test []float32
		c := cfg
		c.Epochs = 300 // the molecule protocol's learning rate is 10⁻³: the fit needs longer to pass the validation optimum
		c.Inspect = func(store *model.Store) error {
			var err error
			if val, _, err = PredictGraphs(backend, store, task.Val, task.NumFeatures, m, 1); err != nil {
				return err
			}
			test, _, err = PredictGraphs(backend, store, task.Test, task.NumFeatures, m, 1)
			return err
		}
		res, err := TrainGraphRegressor(backend, task, m, c)
		if err != nil {
			t.Fatal(err)
		}
		if res.BestEpoch >= c.Epochs {
			t.Fatalf("the best evaluation is the last (epoch %d): the test does not exercise RestoreBest", res.BestEpoch)
		}
		if got := rmse(val, task.Val.Labels); math.Abs(got-res.ValRMSE) > 1e-6 {
			t.Errorf("validation RMSE of the restored model %v, the trainer reported %v", got, res.ValRMSE)
		}
		if got := rmse(test, task.Test.Labels); math.Abs(got-res.TestRMSE) > 1e-6 {
			t.Errorf("test RMSE of the restored model %v, the trainer reported %v", got, res.TestRMSE)
		}
	})
}

// TestPredictRejectsNoSamples checks that asking for no Monte-Carlo sample is an error naming it.
func TestPredictRejectsNoSamples(t *testing.T) {
	backend := stagtest.Backend(t)
	task := toyWideTask(t)
	if _, err := PredictNodes(backend, model.NewStore(), task, Table2Model(2, nil), 0); err == nil || !strings.Contains(err.Error(), "samples=0") {
		t.Errorf("PredictNodes with 0 samples: error %v, want one naming samples=0", err)
	}
	g := toyGraphTask(t)
	if _, _, err := PredictGraphs(backend, model.NewStore(), g.Val, g.NumFeatures, &GraphRegressor{Layers: 1, Hidden: 4}, 0); err == nil || !strings.Contains(err.Error(), "samples=0") {
		t.Errorf("PredictGraphs with 0 samples: error %v, want one naming samples=0", err)
	}
}

// TestPredictRejectsUntrainedStore checks that predicting from a store that lacks the model's
// variables (an empty one, or another model's) is an error naming one, not a prediction of a model
// initialized at random.
func TestPredictRejectsUntrainedStore(t *testing.T) {
	backend := stagtest.Backend(t)
	task := toyWideTask(t)
	noise, err := NoiseForConfig("normal(1,0.4)")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []NodeClassifier{Table2Model(2, nil), Table2Model(2, noise)} {
		store := model.NewStore()
		_, err := PredictNodes(backend, store, task, m, 2)
		store.Finalize()
		if err == nil || !strings.Contains(err.Error(), "has no variable /layer_0/") {
			t.Errorf("PredictNodes on an empty store: error %v, want one naming a variable of layer_0", err)
		}
	}
	g := toyGraphTask(t)
	store := model.NewStore()
	defer store.Finalize()
	if _, _, err := PredictGraphs(backend, store, g.Val, g.NumFeatures, &GraphRegressor{Layers: 1, Hidden: 4, Activation: "relu"}, 1); err == nil || !strings.Contains(err.Error(), "has no variable /layer_0/") {
		t.Errorf("PredictGraphs on an empty store: error %v, want one naming a variable of layer_0", err)
	}
}
