// Command stag is the project's command-line tool: everything a notebook shows can also be
// produced from here.
//
// Usage:
//
//	stag data stats <dataset> [flags]                        statistics of cora, citeseer, esol, freesolv, rgg or multisets as one JSON object
//	stag backend                                             the backend and device in use, checked with a tiny computation
//	stag featurize [FILE|-]                                  RDKit-compatible atom features of SMILES, one JSON object per line
//	stag bench [flags]                                       training-step speed of STAG and baselines, one JSON line per method
//	stag reproduce <table> [flags]                           train a paper table's grid, one JSON record per run (resumable)
//	stag reproduce <item> [-quick] [-plots DIR] [-html FILE] compute Table 1, Figure 2, Theorem 1, Figure 3, Figure 4, Theorem 2, Table 9 or STAG-VI's learned noise live: Markdown tables, SVG plots
//	stag reproduce coverage [-out DIR]                       how much of each table's full-protocol grid is recorded, on the CPU and on each GPU
//	stag reproduce jumps <table> [-rows|-seeds] [flags]      the training-loss jumps in a table's node-classification records
//
// Datasets are found through the resolver of package datasets: $STAGNB_DATA, then the user
// cache, then a download. Errors go to stderr and give exit code 1; a command-line mistake gives 2,
// with the usage of the command it concerns (stag <command> -h prints it in full).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/stagnb/stagnb/experiments"
	"github.com/stagnb/stagnb/models"
)

var usage = `usage: stag <command> [arguments]

commands:
  data stats <dataset>                       print the statistics of cora, citeseer, esol, freesolv, rgg or multisets (JSON)
  backend                                    print the backend and device in use as JSON
  featurize [FILE|-]                         featurize SMILES (one per line) as JSON lines
  bench                                      time training steps and Monte-Carlo inference (JSON lines)
  reproduce <table2|3|4|5|6|7|8|figure5> [flags]  train a paper table's grid and record the results (resumable)
  reproduce <` + strings.Join(experiments.AnalysisItems, "|") + `> [-quick] [-plots DIR] [-html FILE]  compute a notebook's tables and plots live
  reproduce coverage [-out DIR]              print how much of each table's full-protocol grid is recorded (Markdown)
  reproduce jumps <table> [-rows|-seeds]     print the training-loss jumps in a table's records (Markdown)

Run "stag <command> -h" (for reproduce, "stag reproduce <item> -h") for a command's flags.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line args and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "data":
		err = runData(args[1:], stdout, stderr)
	case "backend":
		err = runBackend(args[1:], stdout, stderr)
	case "featurize":
		err = runFeaturize(args[1:], stdin, stdout, stderr)
	case "bench":
		err = runBench(args[1:], stdout, stderr)
	case "reproduce":
		err = runReproduce(args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "stag: unknown command %q\n%s", args[0], usage)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0 // -h: the command's usage is printed
	}
	var fe flagError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &fe):
		return 2 // the flag package has printed the mistake and the command's usage
	}
	fmt.Fprintf(stderr, "stag: %v\n", err)
	if _, ok := err.(usageError); !ok {
		return 1
	}
	fmt.Fprintf(stderr, "Run \"stag %s -h\" for its usage.\n", commandOf(args))
	return 2
}

// commandOf returns the command that args name, with its item where it has one ("data stats",
// "reproduce table3").
func commandOf(args []string) string {
	if len(args) > 1 && (args[0] == "data" && args[1] == "stats" || args[0] == "reproduce" && isReproducible(args[1])) {
		return args[0] + " " + args[1]
	}
	return args[0]
}

// usageError is a command-line mistake: it is reported with exit code 2 and a pointer to the
// command's usage.
type usageError string

func (e usageError) Error() string { return string(e) }

// flagError is a mistake that the flag package found and has already reported, with the command's
// usage: run exits with code 2 without a word more.
type flagError struct{ err error }

func (e flagError) Error() string { return e.err.Error() }

// parseFlags parses args into fs. A help flag (-h, -help) returns flag.ErrHelp, after fs has printed
// its usage, which run answers with exit code 0; any other mistake is a flagError, which fs has
// reported with its usage.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return flagError{err}
}

// isHelp reports whether arg asks for help, as the flag package reads it.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--h", "--help":
		return true
	}
	return false
}

// usageFunc returns a flag.FlagSet Usage that prints line, then fs's flags.
func usageFunc(fs *flag.FlagSet, line string) func() {
	return func() {
		fmt.Fprintf(fs.Output(), "usage: %s\n", line)
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprint(fs.Output(), "\nflags:\n")
			fs.PrintDefaults()
		}
	}
}

// writeJSON writes v as one line of JSON.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// recordRevision is the commit that records made by this run will name (models.SourceRevision);
// when it is unknown, it says so on stderr with the fix, before any work is done.
func recordRevision(command string, stderr io.Writer) string {
	rev := models.SourceRevision()
	if rev == models.UnknownRevision {
		fmt.Fprintf(stderr, "stag %s: warning: what it writes will name no commit: this binary has no VCS stamp and the working directory is not in a git checkout; build it in the checkout with `go build -buildvcs=true`, or run it from inside the checkout\n", command)
	}
	return rev
}
