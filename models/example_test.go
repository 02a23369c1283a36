package models_test

import (
	"fmt"
	"log"

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
