// Package experiments holds the computations behind each notebook, so that cells only call and
// display.
//
// Each notebook's setup cell creates a Session (the backend, quick or full Settings, and a
// provenance line); the other cells call one function of this package each and show its result
// with package figures. Results are computed, never typed in: a notebook's numbers, tables and
// plots all come from here.
//
// Notebook 00 (start) shows the plan of the notebooks, Notebooks, with NotebookIndex. Notebook 01
// (aggregators and multisets, the paper's Table 1) uses Table1Exact, Table1, SumSamples,
// SumUniformDensity, Table1SumHistogram and the three Table 1 renderers (Table1AggregatorTable,
// Table1MonteCarloTable, Table1PaperVsOurs). Notebooks 06–08 (the paper's Tables 2–8) read or
// train training records with TableRecords and compare them with the paper through PaperVsOurs
// and ComparisonPlots; RecordedPaperVsOurs shows the full-protocol runs that `stag reproduce` has
// recorded so far, in quick mode too, without training.
//
// Quick mode: DefaultSettings reads $STAGNB_QUICK (QuickEnv) and returns QuickSettings or
// FullSettings, so that cell text is the same in both modes.
package experiments
