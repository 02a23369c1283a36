package table

import (
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	tb := Table{
		Title:     "Paper vs ours",
		Header:    []string{"pair", "paper", "ours"},
		Right:     []bool{false, true, true},
		Rows:      [][]string{{"{2, 2}; {0, 4}", "4 = 4", "4 = 4"}, {"a|b <x>", "1"}},
		Footnotes: []string{"A note."},
	}
	wantMD := "### Paper vs ours\n\n" +
		"| pair | paper | ours |\n" +
		"| :-- | --: | --: |\n" +
		"| {2, 2}; {0, 4} | 4 = 4 | 4 = 4 |\n" +
		"| a\\|b &lt;x&gt; | 1 |  |\n" +
		"\nA note.\n"
	if got := tb.Markdown(); got != wantMD {
		t.Errorf("Markdown:\n%s\nwant:\n%s", got, wantMD)
	}
	h := tb.HTML()
	for _, want := range []string{
		"<caption>Paper vs ours</caption>",
		"<th>pair</th><th style=\"text-align:right\">paper</th>",
		"<td>a|b &lt;x&gt;</td><td style=\"text-align:right\">1</td><td style=\"text-align:right\"></td>",
		"<p class=\"footnote\">A note.</p>",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q:\n%s", want, h)
		}
	}
}
