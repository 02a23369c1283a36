package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/experiments"
	"github.com/stagnb/stagnb/models"
)

func TestReproduceErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"reproduce"}, "name a table"},
		{[]string{"reproduce", "table99"}, `unknown table "table99"`},
		{[]string{"reproduce", "table2", "-datasets", "pubmed"}, `unknown dataset "pubmed"`},
		{[]string{"reproduce", "table2", "extra"}, "unexpected arguments"},
		{[]string{"reproduce", "table2", "-configs", "normal(9,9)"}, `-configs item "normal(9,9)" matches no run`},
		{[]string{"reproduce", "table2", "-configs", "normal(1,0.8),nromal(1,0.4)"}, `-configs item "nromal(1,0.4)" matches no run`},
		{[]string{"reproduce", "table4", "-datasets", "cora"}, "table4 has the molecule datasets"},
		{[]string{"reproduce", "table2", "-jobs", "0"}, "-jobs 0: want at least 1"},
		{[]string{"reproduce", "table2", "-retries", "-1"}, "-retries -1: want 0 or more"},
		{[]string{"reproduce", "table2", "-mc-chunk", "-2"}, "-mc-chunk -2: want 0 or more"},
		{[]string{"reproduce", "table8", "-seeds", "1,9"}, `-seeds item "9" matches no run`},
		{[]string{"reproduce", "table2", "-layers", "3"}, "layers 2, 4; seeds 1, 2, 3, 4, 5)"},
		{[]string{"reproduce", "table8", "-configs", "bbb(1)"}, "the selected datasets have the configs bbb, bbb(10), bbb(100);"},
		{[]string{"reproduce", "table3", "-datasets", "esol"}, "esol is in table2 and table4 only"},
		{[]string{"reproduce", "table2", "-variant", "reg=0.5"}, `-variant: table2: config "deterministic+reg=0.5": option reg weights STAG-VI's regulariser, and this row has none`},
		{[]string{"reproduce", "table3", "-variant", "lr=0"}, `-variant "lr=0": lr=0: want a number > 0`},
		{[]string{"reproduce", "table3", "-variant", "mc=8"}, `unknown option "mc" (want epochs, lr, reg or wd)`},
	} {
		code, _, stderr := stag(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("stag %v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

func TestSplitList(t *testing.T) {
	got := splitList("deterministic, normal(1,0.8),de(0.2)")
	want := []string{"deterministic", "normal(1,0.8)", "de(0.2)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("splitList: %q, want %q", got, want)
	}
}

// TestReproduceComparison resumes the committed full-protocol records of Table 2's Cora
// deterministic cell (copied to a temp dir): nothing is trained, and the paper-vs-ours table of
// the five seeds is printed, and written as HTML.
func TestReproduceComparison(t *testing.T) {
	needData(t)
	out := t.TempDir()
	copyCommittedRecords(t, out, filepath.Join("table2", "cora", "layers=2", "deterministic"))
	html := filepath.Join(out, "table2.html")
	var stdout, stderr bytes.Buffer
	plots := filepath.Join(out, "plots")
	args := []string{"table2", "-datasets", "cora", "-configs", "deterministic", "-layers", "2", "-out", out, "-html", html, "-plots", plots}
	if err := runReproduce(args, &stdout, &stderr); err != nil {
		t.Fatalf("stag reproduce %v: %v\n%s", args, err, stderr.String())
	}
	got := stdout.String()
	t.Logf("\n%s", got)
	for _, want := range []string{"0 runs trained, 5 already recorded", "; wall time 0s\n", "79.34 ± 0.22", "| 5 |",
		"**Agreement:** of 1 cell with a Δ/σ: 1 within |Δ/σ| ≤ 1 of the paper", "### Against the Deterministic row: table2", "No row to compare"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	b, err := os.ReadFile(html)
	if err != nil || !strings.Contains(string(b), "<table") || !strings.Contains(string(b), "79.34") {
		t.Errorf("-html file: %v\n%s", err, b)
	}
	svg := filepath.Join(plots, "paper-vs-ours-table2-accuracy.svg")
	if b, err := os.ReadFile(svg); err != nil || !bytes.Contains(b, []byte("<svg")) || !strings.Contains(got, "saved as "+svg) {
		t.Errorf("-plots: %s: %v, %d bytes; want the accuracy plot, named in the output", svg, err, len(b))
	}
}

// TestReproduceFigure5Plots saves Figure 5's plots from committed Cora records in a dry run: one
// plot, Cora's, since Citeseer has no records under -out.
func TestReproduceFigure5Plots(t *testing.T) {
	out := t.TempDir()
	for _, config := range []string{"dropout(0.5)", "normal(1,1)"} {
		copyCommittedRecords(t, out, filepath.Join("figure5", "cora", "layers=2", config))
	}
	plots := filepath.Join(out, "plots")
	args := []string{"figure5", "-dry-run", "-out", out, "-plots", plots}
	var stdout, stderr bytes.Buffer
	if err := runReproduce(args, &stdout, &stderr); err != nil {
		t.Fatalf("stag reproduce %v: %v\n%s", args, err, stderr.String())
	}
	svgs, err := filepath.Glob(filepath.Join(plots, "*.svg"))
	if err != nil || len(svgs) != 1 || !strings.Contains(svgs[0], "cora") {
		t.Fatalf("-plots saved %q (%v), want Cora's plot alone\n%s", svgs, err, stdout.String())
	}
	if b, err := os.ReadFile(svgs[0]); err != nil || !bytes.Contains(b, []byte("STAG N(1, 1)")) || !strings.Contains(stdout.String(), "saved as "+svgs[0]) {
		t.Errorf("%s: %v, %d bytes; want both curves, named in the output", svgs[0], err, len(b))
	}
}

// copyCommittedRecords copies the five committed records of one cell, sub (a folder under
// results/, e.g. table2/cora/layers=2/deterministic), to the same folder under out.
func copyCommittedRecords(t *testing.T, out, sub string) {
	t.Helper()
	src := filepath.Join("..", "..", "results", sub)
	entries, err := os.ReadDir(src)
	if err != nil || len(entries) < 5 {
		t.Fatalf("committed records in %s: %d (%v), want 5", src, len(entries), err)
	}
	dst := filepath.Join(out, sub)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestReproduceTable5AgainstTable2 reprints Table 5's committed Cora two-layer Normal(1, 0.8) row:
// the output sets the paper's Table 5 against its Table 2, and, with Table 2's row recorded beside
// ours, our one against the other; without, it leaves that section out. With two layers this row is Table 2's runs, bit for bit (no Normal
// noise on the last layer: models.TestTable5AgainstTable2), so ours differ by exactly 0.
func TestReproduceTable5AgainstTable2(t *testing.T) {
	needData(t)
	out := t.TempDir()
	copyCommittedRecords(t, out, filepath.Join("table5", "cora", "layers=2", "normal(1,0.8)"))
	args := []string{"table5", "-datasets", "cora", "-configs", "normal(1,0.8)", "-layers", "2", "-out", out}
	var stdout, stderr bytes.Buffer
	if err := runReproduce(args, &stdout, &stderr); err != nil {
		t.Fatalf("stag reproduce %v: %v\n%s", args, err, stderr.String())
	}
	if got := stdout.String(); !strings.Contains(got, "0 runs trained, 5 already recorded") ||
		!strings.Contains(got, "### The paper's Table 5 against its Table 2, row by row") || strings.Contains(got, "against a draw per layer") {
		t.Errorf("without Table 2's records: want the comparison and the paper's Table 5 against its Table 2, not ours:\n%s", got)
	}
	copyCommittedRecords(t, out, filepath.Join("table2", "cora", "layers=2", "normal(1,0.8)"))
	stdout.Reset()
	if err := runReproduce(args, &stdout, &stderr); err != nil {
		t.Fatalf("stag reproduce %v: %v\n%s", args, err, stderr.String())
	}
	got := stdout.String()
	t.Logf("\n%s", got)
	for _, want := range []string{"### One draw for all layers (table5) against a draw per layer (table2)",
		"| dataset | config | paper: Table 5 − Table 2 | ours: Table 5 − Table 2 | seeds | ours, seed by seed: better / worse (range) |",
		"| Cora | Normal(1, 0.8), 2 layers | +0.34 (+0.51σ) | 0.00 (+0.00σ) | 5 / 5 | 0 / 0 of 5 (0.00 to 0.00) |",
		"- Cora, rows compared: 1. Table 5 does better than Table 2 in 1 of them in the paper and worse in 0; in ours better in 0 and worse in 0.\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestReproduceVariant trains a variant of Table 2's Cora two-layer Deterministic row, five
// epochs instead of 3000, for seed 1, beside the row's five committed records: its record goes
// to a folder of its own with the variant's protocol, the table shows it under the row's seed 1,
// and the coverage of the paper's grid does not count it.
func TestReproduceVariant(t *testing.T) {
	needData(t)
	out := t.TempDir()
	copyCommittedRecords(t, out, filepath.Join("table2", "cora", "layers=2", "deterministic"))
	args := []string{"table2", "-datasets", "cora", "-configs", "deterministic", "-layers", "2", "-seeds", "1", "-variant", "epochs=5", "-out", out}
	var stdout, stderr bytes.Buffer
	if err := runReproduce(args, &stdout, &stderr); err != nil {
		t.Fatalf("stag reproduce %v: %v\n%s", args, err, stderr.String())
	}
	got := stdout.String()
	t.Logf("\n%s", got)
	for _, want := range []string{"table2: 1 runs trained, 0 already recorded",
		"| Cora | Deterministic, 2 layers | 79.34 ± 0.22 | 79.00 | 1 |", // the row's selected seed
		"| Cora | Deterministic, 2 layers, variant epochs=5 | 79.34 ± 0.22 |"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	rec, err := models.ReadRecord(filepath.Join(out, "table2", "cora", "layers=2", "deterministic+epochs=5", "seed=1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Spec.Config != "deterministic+epochs=5" || rec.Protocol.Epochs != 5 || rec.Protocol.LearningRate != models.DefaultTrainConfig().LearningRate {
		t.Errorf("record: config %q, protocol %+v; want the row's protocol with 5 epochs", rec.Spec.Config, rec.Protocol)
	}
	cov, err := experiments.Coverage(out)
	if err != nil {
		t.Fatal(err)
	}
	if md := cov.Markdown(); !strings.Contains(md, "| Table 2 | ") || !strings.Contains(md, "| 5 of 640 | 1 of 128 | 1 |") {
		t.Errorf("coverage counts the variant's run, or lost the row's:\n%s", md)
	}
}

// TestReproduceMCChunk trains a run whose evaluation draws its samples in calls (-mc-chunk): its
// record keeps the protocol's samples and says how they were drawn, and the committed records,
// evaluated in one graph, are kept without a word about another protocol.
func TestReproduceMCChunk(t *testing.T) {
	needData(t)
	out := t.TempDir()
	copyCommittedRecords(t, out, filepath.Join("table2", "cora", "layers=2", "deterministic"))
	args := []string{"table2", "-datasets", "cora", "-configs", "deterministic,normal(1,0.8)", "-layers", "2", "-seeds", "1", "-variant", "epochs=5", "-mc-chunk", "8", "-out", out}
	var stdout, stderr bytes.Buffer
	if err := runReproduce(args, &stdout, &stderr); err != nil {
		t.Fatalf("stag reproduce %v: %v\n%s", args, err, stderr.String())
	}
	rec, err := models.ReadRecord(filepath.Join(out, "table2", "cora", "layers=2", "normal(1,0.8)+epochs=5", "seed=1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Protocol.MCSamples != 32 || rec.Protocol.MCChunk != 8 {
		t.Errorf("record's protocol: %d samples in calls of %d, want 32 in calls of 8", rec.Protocol.MCSamples, rec.Protocol.MCChunk)
	}
	args = []string{"table2", "-datasets", "cora", "-configs", "deterministic", "-layers", "2", "-mc-chunk", "4", "-out", out}
	stdout.Reset()
	stderr.Reset()
	if err := runReproduce(args, &stdout, &stderr); err != nil {
		t.Fatalf("stag reproduce %v: %v\n%s", args, err, stderr.String())
	}
	if got := stdout.String() + stderr.String(); !strings.Contains(got, "0 runs trained, 5 already recorded") || strings.Contains(got, "another protocol") {
		t.Errorf("stag reproduce %v over records evaluated in one graph: want them kept, and no other protocol named:\n%s", args, got)
	}
}

// TestReproduceDryRun plans Table 2's Cora two-layer Deterministic and Normal(1, 0.8) rows over a
// folder that holds the five committed Deterministic records and one Normal(1, 0.8) record: it
// must train nothing, list the four missing seeds and a record of another protocol, print the
// recorded rows beside the paper, and name a corrupt record.
func TestReproduceDryRun(t *testing.T) {
	out := t.TempDir()
	copyRecords := func(config string, names ...string) {
		src := filepath.Join("..", "..", "results", "table2", "cora", "layers=2", config)
		dst := filepath.Join(out, "table2", "cora", "layers=2", config)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			b, err := os.ReadFile(filepath.Join(src, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	copyRecords("deterministic", "seed=1.json", "seed=2.json", "seed=3.json", "seed=4.json", "seed=5.json")
	copyRecords("normal(1,0.8)", "seed=2.json")
	// One record made under another protocol (here edited to 2000 epochs) is named.
	edited := filepath.Join(out, "table2", "cora", "layers=2", "deterministic", "seed=4.json")
	b, err := os.ReadFile(edited)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(edited, bytes.Replace(b, []byte(`"epochs": 3000`), []byte(`"epochs": 2000`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"table2", "-dry-run", "-datasets", "cora", "-configs", "deterministic,normal(1,0.8)", "-layers", "2", "-out", out}
	var stdout, stderr bytes.Buffer
	if err := runReproduce(args, &stdout, &stderr); err != nil {
		t.Fatalf("stag reproduce %v: %v\n%s", args, err, stderr.String())
	}
	got := stdout.String()
	for _, want := range []string{
		"table2 (dry run): 6 of 10 runs recorded in " + out + "; 4 would be trained\n",
		"  to train: cora layers=2 normal(1,0.8), seeds 1,3,4,5\n",
		"  recorded with another protocol than this code's: " + edited + " (epochs 2000 → 3000)\n",
		"| Cora | Deterministic, 2 layers | 79.34 ± 0.22 | 79.30 ± 0.42 | 5 |",
		"| Cora | Normal(1, 0.8), 2 layers | 80.34 ± 0.45 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "to train: cora layers=2 deterministic") || strings.Contains(stderr.String(), "backend") {
		t.Errorf("dry run lists a recorded row, or started a backend:\n%s\n%s", got, stderr.String())
	}
	corrupt := filepath.Join(out, "table2", "cora", "layers=2", "deterministic", "seed=3.json")
	if err := os.WriteFile(corrupt, []byte(`{"spec":`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runReproduce(args, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), corrupt) {
		t.Errorf("dry run over a corrupt record: error %v, want one naming %s", err, corrupt)
	}
}

// TestReproduceCoverage counts the records of a results folder that holds one complete cell of
// Table 6, two seeds of another, a GPU folder with one cell of Table 7 and quick records: each
// table gets a row for the top folder, the GPU folder one for Table 7 only, quick/ none, and a
// corrupt record is named.
func TestReproduceCoverage(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results")
	copyCommittedRecords(t, out, filepath.Join("table6", "cora", "layers=2", "deterministic"))
	copyCommittedRecords(t, out, filepath.Join("table6", "cora", "layers=2", "normal(1,0.8)"))
	for _, seed := range []string{"seed=3.json", "seed=4.json", "seed=5.json"} {
		if err := os.Remove(filepath.Join(out, "table6", "cora", "layers=2", "normal(1,0.8)", seed)); err != nil {
			t.Fatal(err)
		}
	}
	copyCommittedRecords(t, filepath.Join(out, "h200"), filepath.Join("table7", "cora", "layers=2", "deterministic"))
	copyCommittedRecords(t, filepath.Join(out, "quick"), filepath.Join("table2", "cora", "layers=2", "deterministic"))
	var stdout, stderr bytes.Buffer
	if err := runReproduce([]string{"coverage", "-out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("stag reproduce coverage: %v\n%s", err, stderr.String())
	}
	got := stdout.String()
	t.Logf("\n%s", got)
	for _, want := range []string{
		"| Table 2 | GCN: STAG, DropEdge and GDC | results/ | 0 of 640 | 0 of 128 | 0 | — | — |\n",
		"| Table 6 | GraphSAGE | results/ | 7 of 200 | 2 of 40 | 1 | 2 of 2 | 2 of 2 |\n",
		"| Table 7 | GIN | results/ | 0 of 200 | 0 of 40 | 0 | — | — |\n",
		"| Table 7 | GIN | results/h200/ | 5 of 200 | 1 of 40 | 1 | 1 of 1 | 1 of 1 |\n",
		"| Figure 5 | accuracy against depth | results/ | 0 of 140 | 0 of 28 | 0 | — | — |\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(got, "quick") || strings.Contains(got, "| Table 6 | GraphSAGE | results/h200/") {
		t.Errorf("a row for quick/, or for a table the GPU folder has no record of")
	}
	corrupt := filepath.Join(out, "h200", "table7", "cora", "layers=2", "deterministic", "seed=2.json")
	if err := os.WriteFile(corrupt, []byte(`{"spec":`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runReproduce([]string{"coverage", "-out", out}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), corrupt) {
		t.Errorf("coverage over a corrupt record: error %v, want one naming %s", err, corrupt)
	}
}

// TestReproduceJumps counts the loss jumps of the committed four-layer Citeseer Deterministic
// records of Table 6, whose five seeds each jump once between epochs 700 and 1800, and prints
// their first jumps seed by seed.
func TestReproduceJumps(t *testing.T) {
	out := filepath.Join(t.TempDir(), "results")
	copyCommittedRecords(t, out, filepath.Join("table6", "citeseer", "layers=4", "deterministic"))
	var stdout, stderr bytes.Buffer
	if err := runReproduce([]string{"jumps", "table6", "-rows", "-out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("stag reproduce jumps: %v\n%s", err, stderr.String())
	}
	if want := "| results/ | citeseer | 4 | deterministic | 5 | 5 | 700–1800 |\n"; !strings.Contains(stdout.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, stdout.String())
	}
	stdout.Reset()
	if err := runReproduce([]string{"jumps", "table6", "-loss-above", "10", "-out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("stag reproduce jumps -loss-above 10: %v", err)
	}
	if want := "| results/ | citeseer | 4 | all | 5 | 0 | — |\n"; !strings.Contains(stdout.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, stdout.String())
	}
	stdout.Reset()
	if err := runReproduce([]string{"jumps", "table6", "-seeds", "-out", out}, &stdout, &stderr); err != nil {
		t.Fatalf("stag reproduce jumps -seeds: %v", err)
	}
	// Seed 1 selects its model at epoch 500 and jumps once, at epoch 700, from a loss of 0.00159.
	if want := "| results/ | citeseer | 4 | deterministic | 1 | 500 | 0.00199 | 700: 5.85 | 0.00159 → 5.85 | 68.4 → 47.6 | 5.85 | 0.00159 |\n"; !strings.Contains(stdout.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, stdout.String())
	}
	if err := runReproduce([]string{"jumps", "table6", "-seeds", "-rows", "-out", out}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "-seeds") {
		t.Errorf("stag reproduce jumps -seeds -rows: error %v, want one naming -seeds", err)
	}
}

func TestFilterSpecs(t *testing.T) {
	specs := models.Table8Specs([]string{"cora"}, false) // 3 configs × 5 seeds
	for _, tc := range []struct {
		configs, layers, seeds string
		want                   int
	}{
		{"", "", "", 15},
		{"bbb(10)", "", "", 5},
		{"bbb,bbb(100)", "2", "1,3", 4},
		{"", "", "5", 3},
		{"BBB(10), bbb", "", "2", 2}, // case and spaces do not matter
	} {
		got, err := filterSpecs(specs, tc.configs, tc.layers, tc.seeds)
		if err != nil || len(got) != tc.want {
			t.Errorf("configs %q layers %q seeds %q: %d specs (%v), want %d", tc.configs, tc.layers, tc.seeds, len(got), err, tc.want)
		}
	}
}

// TestReproduceAnalysis runs `stag reproduce <item> -quick -plots DIR -html FILE` for every item
// computed live (the tables and plots of notebooks 01–04 and 07): each must print its provenance line and
// its tables as Markdown, including the paper-vs-ours table where the notebook has one, save each
// plot as an SVG file carrying its title, and write the tables as HTML.
func TestReproduceAnalysis(t *testing.T) {
	want := map[string]struct {
		tables, plots int
		text          string // a heading the output must contain
	}{
		"table1":   {3, 2, "### Table 1: paper vs ours"},
		"figure2":  {1, 6, "### Which axes share a draw"},
		"theorem1": {1, 2, "### Theorem 1 with q = Uniform(0, 1)"},
		"figure3":  {3, 1, `### §6 "STAG Increases Expressiveness": paper vs ours`},
		"figure4":  {2, 2, "### Figure 4: paper vs ours"},
		"theorem2": {1, 1, "### Theorem 2, one step"},
		"table9":   {1, 0, "### Table 9 — VI hyperparameters: paper vs ours"},
		// Trains STAG-VI(ℝ^C) on Cora: needs the data.
		"learned-noise": {1, 2, "### STAG-VI(rc) on cora: learned q(z) = Normal(μ, σ) per layer"},
	}
	if len(want) != len(experiments.AnalysisItems) {
		t.Fatalf("the test covers %d items, experiments.AnalysisItems has %d", len(want), len(experiments.AnalysisItems))
	}
	for _, item := range experiments.AnalysisItems {
		t.Run(item, func(t *testing.T) {
			w, ok := want[item]
			if !ok {
				t.Fatalf("no expectation for %s", item)
			}
			if item == "learned-noise" {
				needData(t)
			}
			dir := t.TempDir()
			plots, html := filepath.Join(dir, "plots"), filepath.Join(dir, item+".html")
			code, stdout, stderr := stag(t, "reproduce", item, "-quick", "-plots", plots, "-html", html)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if first := strings.SplitN(stdout, "\n", 2)[0]; !strings.HasPrefix(first, "stag reproduce "+item+" -quick") || !strings.Contains(first, "quick settings") || !strings.Contains(first, "backend ") {
				t.Errorf("first line %q: want the command, the settings and the backend", first)
			}
			if got := strings.Count(stdout, "\n### "); got != w.tables {
				t.Errorf("%d Markdown tables, want %d:\n%s", got, w.tables, stdout)
			}
			if !strings.Contains(stdout, w.text) {
				t.Errorf("output lacks %q:\n%s", w.text, stdout)
			}
			files, err := filepath.Glob(filepath.Join(plots, item+"-*.svg"))
			if err != nil || len(files) != w.plots {
				t.Fatalf("plots %v (%v), want %d SVG files", files, err, w.plots)
			}
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil || !bytes.Contains(b, []byte("<svg")) || !strings.Contains(stdout, "saved as "+f) {
					t.Errorf("%s: %v, %d bytes; want an SVG that the output names", f, err, len(b))
				}
			}
			if b, err := os.ReadFile(html); err != nil || bytes.Count(b, []byte("<table")) != w.tables {
				t.Errorf("-html: %v, %d tables, want %d", err, bytes.Count(b, []byte("<table")), w.tables)
			}
		})
	}
	if code, _, stderr := stag(t, "reproduce", "figure4", "-datasets", "cora"); code != 2 || !strings.Contains(stderr, "-datasets") {
		t.Errorf("reproduce figure4 -datasets cora: exit %d, stderr %q; want 2 naming the flag", code, stderr)
	}
	// A bad -html is refused before anything is computed.
	bad := filepath.Join(t.TempDir(), "missing", "t.html")
	if code, stdout, stderr := stag(t, "reproduce", "figure3", "-html", bad); code != 1 || !strings.Contains(stderr, "-html "+bad) || stdout != "" {
		t.Errorf("reproduce figure3 -html %s: exit %d, stdout %q, stderr %q; want 1 naming the file, before any output", bad, code, stdout, stderr)
	}
}
