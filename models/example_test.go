package models_test

import (
	"fmt"
	"log"
	"os"

	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"
	"github.com/stagnb/stagnb/datasets"
	"github.com/stagnb/stagnb/models"
	"github.com/stagnb/stagnb/stagnb"
)

// Trains the paper's two-layer STAG GCN with Normal(1, 0.8) noise on Cora, with the quick protocol
// (QuickTrainConfig; DefaultTrainConfig is the paper's), and prints the test accuracy at the best
// validation accuracy. The datasets come from $STAGNB_DATA, the user cache or a download; the
// backend is XLA on an NVIDIA GPU when one and its PJRT plugin are there, else pure Go. Compiled
// by the tests, not run (TestTrainCoraQuick trains a model like it).
func Example_trainCora() {
	backend, err := stagnb.NewBackend(log.Printf)
	if err != nil {
		log.Fatal(err)
	}
	cora, err := datasets.LoadPlanetoid(datasets.NewResolver(), "cora")
	if err != nil {
		log.Fatal(err)
	}
	task, err := models.NewNodeTask(cora, false, stagnb.NormBoth) // no added self-loops, as the paper's code
	if err != nil {
		log.Fatal(err)
	}
	noise, err := models.NoiseForConfig("normal(1,0.8)") // a Table 2 row: σ is the standard deviation
	if err != nil {
		log.Fatal(err)
	}
	res, err := models.TrainNodeClassifier(backend, task, models.Table2Model(2, noise), models.QuickTrainConfig())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("test accuracy %.1f %% at epoch %d\n", 100*res.TestAcc, res.BestEpoch)
}

// Trains five seeds of one model with a NodeTrainer, which compiles the training and evaluation
// graphs once (on a GPU, compiling takes seconds a graph) and gives each seed the result that
// TrainNodeClassifier would. Compiled by the tests, not run (TestTrainersReuseMatchFreshRuns
// checks the trainer).
func ExampleNodeTrainer() {
	backend, err := stagnb.NewBackend(log.Printf)
	if err != nil {
		log.Fatal(err)
	}
	cora, err := datasets.LoadPlanetoid(datasets.NewResolver(), "cora")
	if err != nil {
		log.Fatal(err)
	}
	task, err := models.NewNodeTask(cora, false, stagnb.NormBoth)
	if err != nil {
		log.Fatal(err)
	}
	noise, err := models.NoiseForConfig("normal(1,0.8)")
	if err != nil {
		log.Fatal(err)
	}
	cfg := models.QuickTrainConfig()
	trainer, err := models.NewNodeTrainer(backend, task, models.Table2Model(2, noise), cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer trainer.Finalize()
	for seed := int64(1); seed <= 5; seed++ {
		cfg.Seed = seed
		res, err := trainer.Train(cfg)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("seed %d: test accuracy %.1f %%\n", seed, 100*res.TestAcc)
	}
}

// Trains the paper's two-layer STAG GCN with Normal(1, 0.2) noise on FreeSolv (hydration free
// energies, parsed from SMILES and featurized in Go), quickly, and prints the test RMSE beside
// the RMSE of predicting the training mean. GraphModelFor and ProtocolFor give a Table 2 row's
// model (a GraphRegressor) and protocol as the original code ran them. Compiled by the tests, not
// run (TestTrainESOLQuick trains models like it).
func Example_trainFreeSolv() {
	backend, err := stagnb.NewBackend(log.Printf)
	if err != nil {
		log.Fatal(err)
	}
	freesolv, err := datasets.LoadFreeSolv(datasets.NewResolver())
	if err != nil {
		log.Fatal(err)
	}
	task, err := models.NewGraphTask(freesolv) // the paper's 80/10/10 split, batched per split
	if err != nil {
		log.Fatal(err)
	}
	spec := models.RunSpec{Table: "table2", Dataset: "freesolv", Config: "normal(1,0.2)", Layers: 2, Seed: 1}
	m, err := models.GraphModelFor(spec)
	if err != nil {
		log.Fatal(err)
	}
	cfg := models.ProtocolFor(spec)
	cfg.Epochs = 300 // the paper trains 3000
	res, err := models.TrainGraphRegressor(backend, task, m, cfg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("test RMSE %.3f (the training mean: %.3f), predictive spread %.3f\n", res.TestRMSE, res.MeanBaselineRMSE, res.TestPredStd)
}

// Trains STAG-VI with the ℝ posterior (one learned noise law q = Normal(μ, σ) shared by all
// layers, edges and features; Table 9's hyperparameters for Cora) quickly, and reads the q it
// learned before the trained variables are freed: every layer reports the same μ and σ.
// Compiled by the tests, not run (TestVILearnedNoise and notebook 07 train it).
func ExampleVIGCN() {
	backend, err := stagnb.NewBackend(log.Printf)
	if err != nil {
		log.Fatal(err)
	}
	cora, err := datasets.LoadPlanetoid(datasets.NewResolver(), "cora")
	if err != nil {
		log.Fatal(err)
	}
	task, err := models.NewNodeTask(cora, false, stagnb.NormBoth)
	if err != nil {
		log.Fatal(err)
	}
	hyper, err := models.VIHyperparameters("cora", models.PosteriorR)
	if err != nil {
		log.Fatal(err)
	}
	vi := models.NewVIGCN(models.PosteriorR, models.VILegacy, hyper)
	cfg := models.QuickVIProtocol()
	var learned []models.LearnedNoise
	cfg.Inspect = func(store *model.Store) error {
		learned, err = vi.LearnedNoise(backend, store, task)
		return err
	}
	res, err := models.TrainNodeClassifier(backend, task, vi, cfg)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("test accuracy %.1f %%\n", 100*res.TestAcc)
	for _, n := range learned {
		fmt.Printf("layer %d: μ = %.3f, σ = %.3f\n", n.Layer, n.Mu[0], n.Sigma[0])
	}
}

// Trains the STAG GCN on Cora, quickly, keeps the model of its best validation accuracy
// (RestoreBest), and uses it before the trained variables are freed: PredictNodes gives every
// node's class probabilities as the mean of 32 noisy samples with their spread, the model's
// uncertainty, and GoMLX's checkpoint package saves it (checkpoint.Load into a new store and
// PredictNodes predict with it later). Compiled by the tests, not run (TestPredictRestoredModel
// checks the same steps on a toy graph).
func ExamplePredictNodes() {
	backend, err := stagnb.NewBackend(log.Printf)
	if err != nil {
		log.Fatal(err)
	}
	cora, err := datasets.LoadPlanetoid(datasets.NewResolver(), "cora")
	if err != nil {
		log.Fatal(err)
	}
	task, err := models.NewNodeTask(cora, false, stagnb.NormBoth)
	if err != nil {
		log.Fatal(err)
	}
	noise, err := models.NoiseForConfig("normal(1,0.8)")
	if err != nil {
		log.Fatal(err)
	}
	m := models.Table2Model(2, noise)
	cfg := models.QuickTrainConfig()
	cfg.RestoreBest = true
	var pred *models.NodePredictions
	cfg.Inspect = func(store *model.Store) error {
		if pred, err = models.PredictNodes(backend, store, task, m, 32); err != nil {
			return err
		}
		// A new directory: checkpoint.Build on one that holds a checkpoint loads it into the store,
		// over the trained variables.
		dir, err := os.MkdirTemp("", "stag-cora-")
		if err != nil {
			return err
		}
		saver, err := checkpoint.Build(store).Dir(dir).Done()
		if err != nil {
			return err
		}
		fmt.Println("saved in", dir)
		return saver.Save()
	}
	res, err := models.TrainNodeClassifier(backend, task, m, cfg)
	if err != nil {
		log.Fatal(err)
	}
	// PredictNodes draws fresh noise, and classifies by the mean probabilities rather than the mean
	// logits: its accuracy is within a few tenths of a point of the reported one.
	fmt.Printf("best epoch %d: test accuracy %.1f %% (reported), %.1f %% (predicted again)\n",
		res.BestEpoch, 100*res.TestAcc, 100*pred.Accuracy(task, task.Split.Test))
	for _, v := range task.Split.Test[:3] {
		mean, std := pred.Probs(int(v))
		c := pred.Class(int(v))
		fmt.Printf("node %d: class %d with probability %.2f ± %.2f (label %d)\n", v, c, mean[c], std[c], task.Labels[v])
	}
}

// Trains the two-layer Cora rows of Table 2 that have no record under results/ yet, in the
// paper's protocol, and prints each run's test accuracy. Reproduce writes a record per run as
// soon as it ends, so that a second call after an interruption trains only what is missing, and
// trains a run whose training failed once more (Retries). `stag reproduce table2 -datasets cora
// -layers 2` does the same from the command line. Compiled by the tests, not run
// (TestReproduceResumes and TestReproduceRetries check Reproduce).
func ExampleReproduce() {
	backend, err := stagnb.NewBackend(log.Printf)
	if err != nil {
		log.Fatal(err)
	}
	var specs []models.RunSpec
	for _, s := range models.Table2Specs([]string{"cora"}, false) {
		if s.Layers == 2 {
			specs = append(specs, s)
		}
	}
	prov := models.Provenance{Command: "my experiment", Commit: "v1"} // stored in every record
	trained, skipped, err := models.Reproduce(backend, datasets.NewResolver(), specs, "results", prov,
		models.ReproduceOptions{Progress: os.Stderr, Retries: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d runs trained, %d recorded before\n", trained, skipped)
	for _, s := range specs {
		rec, _, err := models.FindRecord("results", s)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s seed %d: test accuracy %.1f %%\n", s.Config, s.Seed, 100*rec.Result.TestAcc)
	}
}
