package figures

import (
	"html"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
)

// Table is a small table for a notebook: the paper's tables are shown as tables, never as bar
// charts (style.md §D). Cells are plain text; Markdown escapes them, HTML escapes them too.
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

// oneLine collapses line breaks and runs of white space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// markdownCell escapes a text for one Markdown table cell: backslashes and pipes are escaped and
// angle brackets become entities, so that no text turns into raw HTML.
func markdownCell(s string) string {
	return strings.NewReplacer(`\`, `\\`, "|", `\|`, "<", "&lt;", ">", "&gt;").Replace(oneLine(s))
}

// Markdown renders t as a GitHub-flavoured Markdown table, with its title as a "### " heading and
// its footnotes as paragraphs after it.
func (t Table) Markdown() string {
	var b strings.Builder
	if s := markdownCell(t.Title); s != "" {
		b.WriteString("### " + s + "\n\n")
	}
	line := func(f []string) { b.WriteString("| " + strings.Join(f, " | ") + " |\n") }
	h := make([]string, len(t.Header))
	align := make([]string, len(t.Header))
	for i, s := range t.Header {
		h[i] = markdownCell(s)
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
			f[i] = markdownCell(cell(row, i))
		}
		line(f)
	}
	for _, n := range t.Footnotes {
		b.WriteString("\n" + markdownCell(n) + "\n")
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

// tableData is the display bundle of ShowTable: Markdown (text/markdown, and text/plain for
// front-ends without Markdown) and the same table as text/html.
func tableData(t Table) *protocol.DisplayData {
	md := t.Markdown()
	return &protocol.DisplayData{Data: map[protocol.MIMEType]any{
		protocol.MIMETextMarkdown: md,
		protocol.MIMETextHTML:     t.HTML(),
		protocol.MIMETextPlain:    md,
	}}
}

// ShowTable displays t in the notebook as one output carrying both text/markdown and text/html
// (the front-end picks one) and text/plain. Outside a notebook it does nothing.
func ShowTable(t Table) {
	if !gonbui.IsNotebook {
		return
	}
	gonbui.SendData(tableData(t))
	gonbui.Sync() // GoNB may drop output still in its pipe when the cell's program exits.
}

// ShowMarkdown displays Markdown text (for example a table rendered by models/paper.WriteMarkdown)
// in the notebook as text/markdown, with the same text as text/plain. Outside a notebook it does
// nothing.
func ShowMarkdown(md string) {
	if !gonbui.IsNotebook {
		return
	}
	gonbui.SendData(&protocol.DisplayData{Data: map[protocol.MIMEType]any{
		protocol.MIMETextMarkdown: md,
		protocol.MIMETextPlain:    md,
	}})
	gonbui.Sync()
}
