package models

import (
	"fmt"
	"math"
	"time"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train"
	"github.com/gomlx/gomlx/ml/train/optimizer"
)

// trainStep is one compiled full-batch training step: a graph without inputs (the batch is part
// of it) that computes the loss, adds the regularisation terms and applies the optimizer. It is
// compiled once and can train several seeds one after the other: reseed puts every variable back
// where a fresh store would start, so that a seed trains exactly as it would alone, without
// compiling anything but the small initialisation graph again. On a GPU, compiling is most of a
// short run's time (results/README.md).
type trainStep struct {
	backend compute.Backend
	store   *model.Store
	exec    *model.Exec
	checked bool // the step checks that the variables stayed finite (checkedOptimizer)
	// initial holds the values with which variables were created at graph building (optimizer
	// counters, learning rate, constants of the model); they do not depend on the seed. The other
	// variables come from their initializers and the seed's random state.
	initial snapshot
}

// newTrainStep builds and compiles the training step of lossGraph, whose scalar result is the
// main loss (the model may add regularisation terms with train.AddRegularizationLoss), on a new
// store seeded with seed. With a checkedOptimizer, every step also checks that the trainable
// variables stayed finite.
func newTrainStep(backend compute.Backend, seed int64, lossGraph func(scope *model.Scope, g *Graph) *Node, opt optimizer.Interface) (*trainStep, error) {
	store := model.NewStore()
	_, checked := opt.(checkedOptimizer)
	s := &trainStep{backend: backend, store: store, checked: checked}
	if err := s.seed(seed); err != nil {
		store.Finalize()
		return nil, err
	}
	var err error
	s.exec, err = model.NewExec(backend, store, func(scope *model.Scope, g *Graph) *Node {
		// As train.Trainer builds its step, without its loss metrics: the model (which may add
		// regularisation), its main loss, then the optimizer on the total.
		g = g.WithName("TrainStep")
		store.SetTraining(g, true)
		train.AddMainLoss(lossGraph(scope, g))
		loss := train.TotalLoss(g)
		opt.UpdateGraph(scope, g, loss)
		train.ExecPerStepUpdateGraphFn(g)
		if checked {
			// One scalar comes back per step: the loss, or NaN when the update left a
			// trainable variable non-finite (step then reads which).
			ok := store.GetVariable(finitePath).NodeValue(g)
			loss = Where(Equal(ok, OnesLike(ok)), loss, Scalar(g, loss.DType(), math.NaN()))
		}
		return loss
	})
	if err == nil {
		_, err = s.exec.Compile()
	}
	if err != nil {
		s.Finalize()
		return nil, fmt.Errorf("compiling the training step: %w", err)
	}
	// Right after building, the variables that have a value were created with it; the others
	// wait for their initializers (run at the first step).
	if s.initial, err = s.snapshot(); err != nil {
		s.Finalize()
		return nil, fmt.Errorf("keeping the initial values: %w", err)
	}
	return s, nil
}

// rngStatePath is the store path of GoMLX's random state.
var rngStatePath = model.JoinPath("/", model.RNGStateVariableName)

// seed sets the store's random state (and the initializers' seed parameter) to seed's.
func (s *trainStep) seed(seed int64) error {
	s.store.SetParam(model.ParamInitialSeed, seed)
	return s.store.SetRNGStateFromSeed(seed)
}

// reseed makes the store what a fresh one seeded with seed is after the first step's graph is
// built: the variables created with a value get it back, the others are initialized again from
// the seed's random state, in the order in which the first initialisation drew them.
func (s *trainStep) reseed(seed int64) error {
	for v := range s.store.IterVariables() {
		if v.Path() == rngStatePath || s.initial[v.Path()] != nil {
			continue
		}
		if err := v.Reset(); err != nil {
			return fmt.Errorf("resetting %s: %w", v.Path(), err)
		}
	}
	if err := s.restore(s.initial); err != nil {
		return err
	}
	if err := s.seed(seed); err != nil {
		return err
	}
	return s.store.InitializeVariables(s.backend, nil)
}

// step runs one training step and returns its loss; a NaN or infinite loss is an error, and so
// are non-finite variables after the update when the optimizer is a checkedOptimizer: the error
// then names them. Only the loss comes back from the device.
func (s *trainStep) step() (float64, error) {
	outs, err := s.exec.Call()
	if err != nil {
		return 0, err
	}
	var l float64
	switch v := outs[0].Value().(type) {
	case float32:
		l = float64(v)
	case float64:
		l = v
	default:
		err = fmt.Errorf("the loss is a %s, want a float scalar", outs[0].Shape())
	}
	for _, t := range outs {
		t.FinalizeAll()
	}
	if err != nil {
		return 0, err
	}
	if math.IsNaN(l) || math.IsInf(l, 0) {
		if s.checked {
			if err := checkFinite(s.store); err != nil {
				return 0, err
			}
		}
		return 0, fmt.Errorf("the loss is %v", l)
	}
	return l, nil
}

// snapshot holds host copies of variables' values, by path; restore puts them back. A trainStep
// keeps the values its variables were created with (initial), and TrainConfig.RestoreBest those
// of the best evaluation so far.
type snapshot map[string]*tensors.Tensor

// snapshot copies the current values of the store's variables that have one, but the random state.
func (s *trainStep) snapshot() (snapshot, error) {
	snap := snapshot{}
	for v := range s.store.IterVariables() {
		if v.Path() == rngStatePath || !v.HasValue() {
			continue
		}
		t, err := v.Value()
		if err == nil {
			snap[v.Path()], err = t.LocalClone()
		}
		if err != nil {
			snap.Finalize()
			return nil, fmt.Errorf("copying %s: %w", v.Path(), err)
		}
	}
	return snap, nil
}

// restore sets the store's variables to the values in snap (copies: snap stays valid).
func (s *trainStep) restore(snap snapshot) error {
	for v := range s.store.IterVariables() {
		t := snap[v.Path()]
		if t == nil {
			continue
		}
		c, err := t.LocalClone()
		if err == nil {
			err = v.SetValue(c)
		}
		if err != nil {
			return fmt.Errorf("restoring %s: %w", v.Path(), err)
		}
	}
	return nil
}

// Finalize frees the snapshot's tensors.
func (snap snapshot) Finalize() {
	for _, t := range snap {
		t.FinalizeAll()
	}
}

// Finalize frees the compiled step and the variables' buffers.
func (s *trainStep) Finalize() {
	if s.exec != nil {
		s.exec.Finalize()
	}
	s.store.Finalize()
	s.initial.Finalize()
}

// trainerCore is what NodeTrainer and GraphTrainer share: the compiled training step and
// evaluation, and the protocol they were built with.
type trainerCore struct {
	step    *trainStep
	eval    *model.Exec
	cfg     TrainConfig // the parts that shape the graphs: LearningRate, WeightDecayFirst, MCSamples, MCChunk, MCVote
	fresh   bool        // no seed trained yet: the store is as newTrainStep left it
	created time.Time   // when the trainer began to build
}

// begin checks cfg against the trainer's graphs and puts the variables where a fresh run seeded
// with cfg.Seed starts. It returns the run's start: the first run's includes building the trainer.
func (c *trainerCore) begin(cfg TrainConfig) (start time.Time, err error) {
	if cfg.Epochs < 1 || cfg.EvalEvery < 1 {
		return start, fmt.Errorf("the protocol's Epochs=%d and EvalEvery=%d must be ≥ 1", cfg.Epochs, cfg.EvalEvery)
	}
	if diff := graphConfigDiff(c.cfg, cfg); diff != "" {
		return start, fmt.Errorf("%s differs from the trainer's", diff)
	}
	if !c.fresh {
		if err := c.step.reseed(cfg.Seed); err != nil {
			return start, fmt.Errorf("seed %d: %w", cfg.Seed, err)
		}
		return time.Now(), nil
	}
	c.fresh = false
	return c.created, c.step.seed(cfg.Seed)
}

// evaluate calls the evaluation as many times as the protocol's MCChunk splits its samples into
// (mcCalls) and returns each call's outputs in host memory, outs[call][output].
func (c *trainerCore) evaluate() ([][][]float32, error) {
	_, calls := mcCalls(c.cfg.MCSamples, c.cfg.MCChunk)
	outs := make([][][]float32, calls)
	for k := range outs {
		ts, err := c.eval.Call()
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			outs[k] = append(outs[k], tensors.MustCopyFlatData[float32](t))
			t.FinalizeAll()
		}
	}
	return outs, nil
}

// keepBest, when cfg.RestoreBest, replaces *best with a snapshot of the current variables: the
// run's selected evaluation so far.
func (c *trainerCore) keepBest(cfg TrainConfig, best *snapshot) error {
	if !cfg.RestoreBest {
		return nil
	}
	snap, err := c.step.snapshot()
	if err != nil {
		return fmt.Errorf("keeping the variables of the best evaluation: %w", err)
	}
	best.Finalize()
	*best = snap
	return nil
}

// finish ends a run: when cfg.RestoreBest it puts back the variables of the selected evaluation
// (best), then it hands the store to cfg.Inspect, if set.
func (c *trainerCore) finish(cfg TrainConfig, best snapshot) error {
	if cfg.RestoreBest {
		if err := c.step.restore(best); err != nil {
			return fmt.Errorf("restoring the best evaluation's variables: %w", err)
		}
	}
	if cfg.Inspect != nil {
		if err := cfg.Inspect(c.step.store); err != nil {
			return fmt.Errorf("inspecting the trained model: %w", err)
		}
	}
	return nil
}

// Finalize frees the compiled graphs and the variables.
func (c *trainerCore) Finalize() {
	if c.eval != nil {
		c.eval.Finalize()
	}
	c.step.Finalize()
}
