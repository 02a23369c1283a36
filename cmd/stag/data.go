package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/stagnb/stagnb/datasets"
)

// runData implements "stag data stats <name>".
func runData(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("data stats", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = usageFunc(fs, "stag data stats <cora|citeseer|esol|freesolv|rgg|multisets> [flags]")
	n := fs.Int("n", 200, "rgg: number of nodes")
	radius := fs.Float64("radius", 0.125, "rgg: connection radius in the unit square")
	seed := fs.Uint64("seed", 0, "rgg: random seed")
	maxMult := fs.Int("max-multiplicity", datasets.ToyMaxMultiplicity, "multisets: largest multiplicity of an element")
	switch {
	case len(args) > 0 && isHelp(args[0]):
		return parseFlags(fs, args[:1])
	case len(args) == 0 || args[0] != "stats":
		return usageError("data: want \"data stats <cora|citeseer|esol|freesolv|rgg|multisets>\"")
	}
	rest := args[1:]
	if len(rest) == 0 || isHelp(rest[0]) {
		if err := parseFlags(fs, rest); err != nil {
			return err
		}
		return usageError("data stats: name a dataset: cora, citeseer, esol, freesolv, rgg or multisets")
	}
	name := rest[0]
	if err := parseFlags(fs, rest[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError(fmt.Sprintf("data stats: unexpected arguments %q", fs.Args()))
	}
	switch name {
	case "cora", "citeseer":
		p, err := datasets.LoadPlanetoid(datasets.NewResolver(), name)
		if err != nil {
			return err
		}
		return writeJSON(stdout, p.Stats())
	case "esol", "freesolv":
		ds, err := datasets.LoadMolecules(datasets.NewResolver(), name, datasets.MoleculeOptions{})
		if err != nil {
			return err
		}
		return writeJSON(stdout, ds.Stats())
	case "rgg":
		g, err := datasets.RandomGeometricGraph(*n, *radius, *seed)
		if err != nil {
			return err
		}
		return writeJSON(stdout, struct {
			datasets.Stats
			Radius float64 `json:"radius"`
			Seed   uint64  `json:"seed"`
		}{g.Stats(), g.Radius, g.Seed})
	case "multisets":
		st, err := datasets.ComputeMultisetStats(datasets.ToyElements, *maxMult)
		if err != nil {
			return err
		}
		return writeJSON(stdout, st)
	default:
		return usageError(fmt.Sprintf("data stats: unknown dataset %q (want cora, citeseer, esol, freesolv, rgg or multisets)", name))
	}
}
