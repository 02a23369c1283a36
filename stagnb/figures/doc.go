// Package figures builds the project's plots with gonum/plot and shows plots and tables inline in
// GoNB notebooks.
//
// Builders (Lines, Histograms) are pure functions of data: they do no file I/O and no GoMLX
// calls, and return a *plot.Plot in the house style (style.md §D): 5×3.5 inch, a grid, labelled
// axes, the legend on top, and colours taken from plotutil.Color by method index, so that a
// method keeps its colour in every notebook.
//
// Displaying and saving are separate: Show sends a plot to the notebook as image/svg+xml,
// ShowPNG as image/png, Save writes a file, and ShowTable / ShowMarkdown display tables. The
// Show functions do nothing outside a notebook (when GoNB's display pipe is absent).
package figures
