// Package table renders small tables of text as GitHub-flavoured Markdown and as HTML
// fragments, with every text escaped. It needs nothing beyond the standard library, so that a
// data package (models/paper) renders its tables the same way as the notebooks (package
// figures, whose ShowTable displays them) without depending on the notebook's display code.
package table

import (
	"html"
	"strings"
)

// Table is a small table of text: the paper's tables are shown as tables, never as bar charts
// (style.md §D). Cells are plain text; Markdown and HTML escape them.
type Table struct {
	// Title is shown as a "### " heading (Markdown) or <caption> (HTML); it may be empty.
	Title string
	// Header holds the column names.
	Header []string
	// Right marks the columns that are right-aligned (numbers); it may be shorter than Header.
	Right []bool
	// Rows holds the cells, row by row; a row shorter than Header is padded with empty cells.
	Rows [][]string
	// Footnotes are written under the table, one paragraph each.
	Footnotes []string
}

// right reports whether column i is right-aligned.
func (t Table) right(i int) bool { return i < len(t.Right) && t.Right[i] }

// cell returns cell i of row, or "" past its end.
func cell(row []string, i int) string {
	if i < len(row) {
		return row[i]
	}
	return ""
}

// oneLine collapses line breaks and runs of white space, so that a text fits in one cell,
// heading or paragraph.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// MarkdownText escapes a text for one line of Markdown (a table cell, a heading or a footnote):
// white space collapses to single spaces, backslashes and pipes are escaped, and angle brackets
// become entities so that no text turns into raw HTML.
func MarkdownText(s string) string {
	return strings.NewReplacer(`\`, `\\`, "|", `\|`, "<", "&lt;", ">", "&gt;").Replace(oneLine(s))
}

// Markdown renders t as a GitHub-flavoured Markdown table, with its title as a "### " heading and
// its footnotes as paragraphs after it.
func (t Table) Markdown() string {
	var b strings.Builder
	if s := MarkdownText(t.Title); s != "" {
		b.WriteString("### " + s + "\n\n")
	}
	line := func(f []string) { b.WriteString("| " + strings.Join(f, " | ") + " |\n") }
	h := make([]string, len(t.Header))
	align := make([]string, len(t.Header))
	for i, s := range t.Header {
		h[i] = MarkdownText(s)
		align[i] = ":--"
		if t.right(i) {
			align[i] = "--:"
		}
	}
	line(h)
	line(align)
	for _, row := range t.Rows {
		f := make([]string, len(t.Header))
		for i := range f {
			f[i] = MarkdownText(cell(row, i))
		}
		line(f)
	}
	for _, n := range t.Footnotes {
		b.WriteString("\n" + MarkdownText(n) + "\n")
	}
	return b.String()
}

// HTML renders t as an HTML fragment: a <table> with the title as <caption>, right-aligned number
// columns, then one <p class="footnote"> per footnote. Every text is escaped.
func (t Table) HTML() string {
	var b strings.Builder
	b.WriteString("<table>\n")
	if s := oneLine(t.Title); s != "" {
		b.WriteString("<caption>" + html.EscapeString(s) + "</caption>\n")
	}
	b.WriteString("<thead><tr>")
	for i, s := range t.Header {
		b.WriteString(t.open("th", i) + html.EscapeString(oneLine(s)) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, row := range t.Rows {
		b.WriteString("<tr>")
		for i := range t.Header {
			b.WriteString(t.open("td", i) + html.EscapeString(oneLine(cell(row, i))) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
	for _, n := range t.Footnotes {
		b.WriteString(`<p class="footnote">` + html.EscapeString(oneLine(n)) + "</p>\n")
	}
	return b.String()
}

// open returns the opening tag of a cell of column i.
func (t Table) open(tag string, i int) string {
	if t.right(i) {
		return "<" + tag + ` style="text-align:right">`
	}
	return "<" + tag + ">"
}
