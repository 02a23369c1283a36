package paper

import (
	"math"
	"strings"
	"testing"
)

// entry is a hand-made paper entry for renderer tests.
func entry(table int, label, dataset, rowLabel, columnLabel, metric string, mean, std float64, hasStd bool) Entry {
	return Entry{Table: table, Label: label, Dataset: dataset, RowLabel: rowLabel, ColumnLabel: columnLabel,
		Metric: metric, Mean: mean, Std: std, HasStd: hasStd}
}

func TestDeltaSigma(t *testing.T) {
	acc := entry(2, "bigtable", "cora", "Deterministic", "2 layers", MetricAccuracy, 80, 3, true)
	params := entry(3, "citation-performance", "cora", "STAG_VI(R)", "#Params", MetricParams, 184000, 0, false)
	exact := entry(2, "bigtable", "cora", "Deterministic", "2 layers", MetricAccuracy, 80, 0, true)
	for _, tc := range []struct {
		name string
		c    Comparison
		want float64
		ok   bool
	}{
		// (84 − 80) / √(3² + 4²) = 4 / 5.
		{"3-4-5", Comparison{Paper: acc, HavePaper: true, OursMean: 84, OursStd: 4, Seeds: 5}, 0.8, true},
		// (74 − 80) / √(3² + 4²) = −6 / 5.
		{"worse", Comparison{Paper: acc, HavePaper: true, OursMean: 74, OursStd: 4, Seeds: 5}, -1.2, true},
		// One seed: our spread is what the caller gives (0), so σ = 3.
		{"one seed", Comparison{Paper: acc, HavePaper: true, OursMean: 86, Seeds: 1}, 2, true},
		// Paper σ printed as 0: our σ alone, (81 − 80) / 0.5.
		{"paper std zero", Comparison{Paper: exact, HavePaper: true, OursMean: 81, OursStd: 0.5, Seeds: 3}, 2, true},
		{"both spreads zero", Comparison{Paper: exact, HavePaper: true, OursMean: 81, Seeds: 1}, 0, false},
		{"paper prints no std", Comparison{Paper: params, HavePaper: true, OursMean: 184455, OursStd: 10, Seeds: 2}, 0, false},
		{"no paper", Comparison{Metric: MetricAccuracy, OursMean: 81, OursStd: 1, Seeds: 5}, 0, false},
		{"no seeds", Comparison{Paper: acc, HavePaper: true, OursMean: 84, OursStd: 4}, 0, false},
		{"NaN ours", Comparison{Paper: acc, HavePaper: true, OursMean: math.NaN(), OursStd: 4, Seeds: 5}, 0, false},
		{"infinite std", Comparison{Paper: acc, HavePaper: true, OursMean: 84, OursStd: math.Inf(1), Seeds: 5}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.c.DeltaSigma()
			if ok != tc.ok || math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("DeltaSigma() = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		metric    string
		mean, std float64
		hasStd    bool
		want      string
	}{
		{MetricAccuracy, 79.34, 0.22, true, "79.34 ± 0.22"},
		{MetricAccuracy, 68.2, 0.34, true, "68.20 ± 0.34"},
		{MetricAccuracy, 80.123, 0, false, "80.12"},
		{MetricRMSE, 0.596, 0.0375, true, "0.5960 ± 0.0375"},
		{MetricRMSE, 1.13174, 0, false, "1.1317"},
		{MetricParams, 1186000, 0, false, "1186k"},
		{MetricParams, 184455, 0, false, "184k"},
		{MetricParams, 184455, 1500, true, "184k ± 2k"},
		{MetricIterTime, 30, 0, false, "30.0 ms"},
		{MetricIterTime, 14.3, 0.44, true, "14.3 ± 0.4 ms"},
		{MetricMu0, 0.25, 0, false, "0.25"},
		{MetricLogSigma0, -1, 0, false, "-1.0"},
		{MetricSigmaPrior, 1, 0, false, "1.0"},
		{"other", 0.125, 0, false, "0.125"},
	} {
		if got := FormatMeanStd(tc.metric, tc.mean, tc.std, tc.hasStd); got != tc.want {
			t.Errorf("FormatMeanStd(%s, %v, %v, %v) = %q, want %q", tc.metric, tc.mean, tc.std, tc.hasStd, got, tc.want)
		}
	}
}

// goldenRows covers a full row, a quick row, a paper number without spread, one seed, and a row
// with no paper number.
func goldenRows(t *testing.T) []Comparison {
	t.Helper()
	det, ok1 := Lookup(2, "cora", "deterministic", "layers=2", MetricAccuracy)
	fs, ok2 := Lookup(2, "freesolv", "uniform(0.8,1.2)", "layers=4", MetricRMSE)
	params, ok3 := Lookup(3, "cora", "stag_vi_rec", "layers=2", MetricParams)
	if !ok1 || !ok2 || !ok3 {
		t.Fatal("paper entries for the golden table are missing")
	}
	return []Comparison{
		// (79.10 − 79.34) / √(0.22² + 0.30²) = −0.24 / 0.3720 = −0.65.
		{Paper: det, HavePaper: true, OursMean: 79.1, OursStd: 0.3, Seeds: 5},
		// (1.25 − 1.1317) / √(0.0435² + 0.05²) = 0.1183 / 0.0663 = +1.79.
		{Paper: fs, HavePaper: true, OursMean: 1.25, OursStd: 0.05, Seeds: 3, Quick: true},
		{Paper: params, HavePaper: true, OursMean: 1186873, Seeds: 1},
		{Dataset: "Citeseer", Config: "STAG_VI(R), 4 layers", Metric: MetricAccuracy, OursMean: 60, OursStd: 1.5, Seeds: 2},
	}
}

func TestWriteMarkdown(t *testing.T) {
	const want = `### Table 2 and 3, paper vs ours

| dataset | config | paper (mean ± std) | ours (mean ± std) | seeds | Δ/σ | mode |
| :-- | :-- | --: | --: | --: | --: | :-- |
| Cora | Deterministic, 2 layers | 79.34 ± 0.22 | 79.10 ± 0.30 | 5 | -0.65 |  |
| FreeSolv | Uniform(0.8, 1.2), 4 layers | 1.1317 ± 0.0435 | 1.2500 ± 0.0500 | 3 | +1.79 | quick |
| Cora | STAG_VI(R^\|E\|×C) | 1186k | 1187k | 1 | — |  |
| Citeseer | STAG_VI(R), 4 layers | — | 60.00 ± 1.50 | 2 | — |  |

Δ/σ = (ours − paper) / √(σ_paper² + σ_ours²), shown as — when a value or the paper's σ is missing or the denominator is 0.

Paper: Wang & Karaletsos (ICML 2021), Table 2 (bigtable), Table 3 (citation-performance).

quick: quick CPU settings — not comparable to the paper.
`
	var b strings.Builder
	if err := WriteMarkdown(&b, "Table 2 and 3, paper vs ours", goldenRows(t)); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != want {
		t.Errorf("WriteMarkdown:\n%s\nwant:\n%s", got, want)
	}
}

// writeHTML writes ComparisonTable(title, rows) as HTML, or nothing on its error.
func writeHTML(b *strings.Builder, title string, rows []Comparison) error {
	t, err := ComparisonTable(title, rows)
	if err != nil {
		return err
	}
	b.WriteString(t.HTML())
	return nil
}

func TestComparisonTableHTML(t *testing.T) {
	const want = `<table>
<caption>Table 2 and 3, paper vs ours</caption>
<thead><tr><th>dataset</th><th>config</th><th style="text-align:right">paper (mean ± std)</th><th style="text-align:right">ours (mean ± std)</th><th style="text-align:right">seeds</th><th style="text-align:right">Δ/σ</th><th>mode</th></tr></thead>
<tbody>
<tr><td>Cora</td><td>Deterministic, 2 layers</td><td style="text-align:right">79.34 ± 0.22</td><td style="text-align:right">79.10 ± 0.30</td><td style="text-align:right">5</td><td style="text-align:right">-0.65</td><td></td></tr>
<tr><td>FreeSolv</td><td>Uniform(0.8, 1.2), 4 layers</td><td style="text-align:right">1.1317 ± 0.0435</td><td style="text-align:right">1.2500 ± 0.0500</td><td style="text-align:right">3</td><td style="text-align:right">+1.79</td><td>quick</td></tr>
<tr><td>Cora</td><td>STAG_VI(R^|E|×C)</td><td style="text-align:right">1186k</td><td style="text-align:right">1187k</td><td style="text-align:right">1</td><td style="text-align:right">—</td><td></td></tr>
<tr><td>Citeseer</td><td>STAG_VI(R), 4 layers</td><td style="text-align:right">—</td><td style="text-align:right">60.00 ± 1.50</td><td style="text-align:right">2</td><td style="text-align:right">—</td><td></td></tr>
</tbody>
</table>
<p class="footnote">Δ/σ = (ours − paper) / √(σ_paper² + σ_ours²), shown as — when a value or the paper&#39;s σ is missing or the denominator is 0.</p>
<p class="footnote">Paper: Wang &amp; Karaletsos (ICML 2021), Table 2 (bigtable), Table 3 (citation-performance).</p>
<p class="footnote">quick: quick CPU settings — not comparable to the paper.</p>
`
	var b strings.Builder
	if err := writeHTML(&b, "Table 2 and 3, paper vs ours", goldenRows(t)); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != want {
		t.Errorf("WriteHTML:\n%s\nwant:\n%s", got, want)
	}
}

func TestWriteOptionalParts(t *testing.T) {
	// No title, no quick row, no paper number, a backend: no heading or caption, no quick or
	// paper footnote, and a backend column.
	rows := []Comparison{{Dataset: "Cora", Config: "GCN", Metric: MetricAccuracy, OursMean: 81.5, OursStd: 0.5, Seeds: 3, Backend: "go"}}
	var md, h strings.Builder
	if err := WriteMarkdown(&md, "", rows); err != nil {
		t.Fatal(err)
	}
	if err := writeHTML(&h, " \n", rows); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, out string
		want      []string
		absent    []string
	}{
		{"markdown", md.String(),
			[]string{"| dataset | config | paper (mean ± std) | ours (mean ± std) | seeds | Δ/σ | backend | mode |\n",
				"| Cora | GCN | — | 81.50 ± 0.50 | 3 | — | go |  |\n"},
			[]string{"###", "quick", "Paper:"}},
		{"html", h.String(),
			[]string{"<th>backend</th>", "<td>go</td>"},
			[]string{"<caption>", "quick", "Paper:"}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.out, w) {
				t.Errorf("%s output lacks %q:\n%s", tc.name, w, tc.out)
			}
		}
		for _, a := range tc.absent {
			if strings.Contains(tc.out, a) {
				t.Errorf("%s output contains %q:\n%s", tc.name, a, tc.out)
			}
		}
	}
}

func TestWriteEscapes(t *testing.T) {
	rows := []Comparison{{Dataset: `<script>alert("x")</script>`, Config: "a|b & c\nd", Metric: MetricRMSE, OursMean: 0.5, Seeds: 1}}
	var md, h strings.Builder
	if err := WriteMarkdown(&md, "T <b>", rows); err != nil {
		t.Fatal(err)
	}
	if err := writeHTML(&h, "T <b>", rows); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, out, want string
	}{
		{"markdown heading", md.String(), "### T &lt;b&gt;\n"},
		{"markdown cells", md.String(), `| &lt;script&gt;alert("x")&lt;/script&gt; | a\|b & c d | — | 0.5000 | 1 | — |  |`},
		{"html caption", h.String(), "<caption>T &lt;b&gt;</caption>"},
		{"html cells", h.String(), "<td>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;</td><td>a|b &amp; c d</td>"},
	} {
		if !strings.Contains(tc.out, tc.want) {
			t.Errorf("%s: output lacks %q:\n%s", tc.name, tc.want, tc.out)
		}
	}
	for _, out := range []string{md.String(), h.String()} {
		if strings.Contains(out, "<script>") || strings.Contains(out, "<b>") {
			t.Errorf("unescaped markup in output:\n%s", out)
		}
	}
}

func TestWriteErrors(t *testing.T) {
	acc := entry(2, "bigtable", "cora", "Deterministic", "2 layers", MetricAccuracy, 80, 3, true)
	for _, tc := range []struct {
		name    string
		row     Comparison
		wantErr string
	}{
		{"no metric", Comparison{Dataset: "Cora", OursMean: 1, Seeds: 1}, "no metric"},
		{"unknown metric", Comparison{Metric: "f1", OursMean: 1, Seeds: 1}, "unknown metric"},
		{"metric disagrees with paper", Comparison{Metric: MetricRMSE, Paper: acc, HavePaper: true, Seeds: 1}, "differs"},
		{"negative seeds", Comparison{Paper: acc, HavePaper: true, Seeds: -1}, "negative seeds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, write := range []func(*strings.Builder) error{
				func(b *strings.Builder) error { return WriteMarkdown(b, "t", []Comparison{tc.row}) },
				func(b *strings.Builder) error { return writeHTML(b, "t", []Comparison{tc.row}) },
			} {
				var b strings.Builder
				err := write(&b)
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("error %v, want one containing %q", err, tc.wantErr)
				}
				if b.Len() != 0 {
					t.Errorf("wrote %q despite the error", b.String())
				}
			}
		})
	}
}
