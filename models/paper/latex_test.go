package paper

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
)

// paperSource is the path of the paper's LaTeX source (000_f24f7dc82599d5ee.txt). It is not part
// of the repository, so the check runs only on request:
//
//	go test ./models/paper -run TestAgainstLaTeX -args -paper=/path/to/000_f24f7dc82599d5ee.txt
var paperSource = flag.String("paper", "", "path of the paper's LaTeX source; enables TestAgainstLaTeX")

// latexCells returns the cells after the row label of one LaTeX table line, without \textbf and
// the row end, and whether each was bold.
func latexCells(line string) (cells []string, bold []bool) {
	boldRE := regexp.MustCompile(`^\\textbf\{(.*)\}$`)
	parts := strings.Split(strings.ReplaceAll(line, `\\`, ""), "&")
	for _, p := range parts[1:] {
		p = strings.TrimSpace(p)
		m := boldRE.FindStringSubmatch(p)
		if m != nil {
			p = strings.TrimSpace(m[1])
		}
		cells = append(cells, p)
		bold = append(bold, m != nil)
	}
	return cells, bold
}

// latexRowLabel returns the row label that a cell on line n belongs to: the first cell of the
// nearest line at or above n that starts with a label, reduced to lower-case plain text without
// spaces ("$\operatorname{Normal}(1, 0.2)$" -> "normal(1,0.2)").
func latexRowLabel(lines []string, n int) string {
	for ; n >= 1; n-- {
		first := strings.TrimSpace(strings.Split(lines[n-1], "&")[0])
		if first == "" || first == `\\` || strings.HasPrefix(first, `\hline`) {
			continue
		}
		return normalizeLabel(first)
	}
	return ""
}

// normalizeLabel reduces a row label, in LaTeX or plain text, to lower case without spaces, braces
// and math markup.
func normalizeLabel(s string) string {
	s = strings.NewReplacer(`\operatorname{`, "", `\text{`, "", `\mathbb{`, "", `\mathcal{`, "",
		`\mid`, "|", `\times`, "×", "{", "", "}", "", "$", "", " ", "").Replace(s)
	return strings.ToLower(s)
}

// TestAgainstLaTeX re-reads every encoded number from the LaTeX source: the cells of each line
// that holds entries must be exactly those entries' printed texts, in order, with the same bold
// marks and under the same row label, and the tables must begin and carry their labels on the recorded lines, in order.
func TestAgainstLaTeX(t *testing.T) {
	if *paperSource == "" {
		t.Skip("pass -args -paper=<LaTeX source> to check the data against the paper")
	}
	data, err := os.ReadFile(*paperSource)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	line := func(n int) string { return lines[n-1] }

	var begins []int
	var labels []string
	labelRE := regexp.MustCompile(`\\label\{([^}]*)\}`)
	for i, l := range lines {
		if strings.Contains(l, `\begin{table}`) || strings.Contains(l, `\begin{table*}`) {
			begins = append(begins, i+1)
		}
	}
	for _, b := range begins {
		for n := b; n <= len(lines); n++ {
			if m := labelRE.FindStringSubmatch(line(n)); m != nil {
				labels = append(labels, m[1])
				break
			}
		}
	}
	tables := Tables()
	if len(begins) != len(tables) {
		t.Fatalf("the source has %d table environments, the data %d", len(begins), len(tables))
	}
	for i, tab := range tables {
		if tab.BeginLine != begins[i] || tab.Label != labels[i] || !strings.Contains(line(tab.LabelLine), `\label{`+tab.Label+`}`) {
			t.Errorf("table %d: data says %s at lines %d-%d; source has %s beginning on line %d",
				tab.Number, tab.Label, tab.BeginLine, tab.LabelLine, labels[i], begins[i])
		}
	}

	byLine := map[int][]Entry{}
	var order []int
	for _, e := range Entries() {
		if byLine[e.Line] == nil {
			order = append(order, e.Line)
		}
		byLine[e.Line] = append(byLine[e.Line], e)
	}
	for _, n := range order {
		es := byLine[n]
		cells, bold := latexCells(line(n))
		if len(cells) != len(es) {
			t.Errorf("line %d: %d cells %q, but %d entries", n, len(cells), cells, len(es))
			continue
		}
		for i, e := range es {
			if cells[i] != e.Printed || bold[i] != e.Bold {
				t.Errorf("line %d cell %d: source %q (bold %v), data %q (bold %v)", n, i, cells[i], bold[i], e.Printed, e.Bold)
			}
			if got, want := latexRowLabel(lines, n), normalizeLabel(e.RowLabel); got != want {
				t.Errorf("line %d cell %d: source row %q, data row label %q", n, i, got, e.RowLabel)
			}
		}
	}
}
