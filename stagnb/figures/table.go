package figures

import (
	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
	"github.com/stagnb/stagnb/stagnb/figures/table"
)

// Table is a small table of text (title, header, rows, footnotes) that ShowTable displays; it is
// table.Table, whose Markdown and HTML methods render it.
type Table = table.Table

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
