package figures

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// PNGDPI is the resolution of PNG renderings: a 5-inch figure is 720 pixels wide, shown at 480
// (96 dpi) so that it stays sharp on high-density screens.
const PNGDPI = 144

// screenDPI is the resolution at which notebooks lay out images.
const screenDPI = 96

// SVG renders p at the default size (Width × Height) as an SVG document.
func SVG(p *plot.Plot) (string, error) {
	w, err := p.WriterTo(Width, Height, "svg")
	if err != nil {
		return "", fmt.Errorf("figures.SVG %q: %w", p.Title.Text, err)
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		return "", fmt.Errorf("figures.SVG %q: %w", p.Title.Text, err)
	}
	return b.String(), nil
}

// PNG renders p at the default size (Width × Height) and PNGDPI as a PNG image.
func PNG(p *plot.Plot) ([]byte, error) {
	c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(Width, Height), vgimg.UseDPI(PNGDPI))}
	p.Draw(draw.New(c.Canvas))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("figures.PNG %q: %w", p.Title.Text, err)
	}
	return b.Bytes(), nil
}

// Save writes p at the default size to path, in the format named by its extension (.svg, .png,
// .pdf, .eps, .jpg, .tif).
func Save(p *plot.Plot, path string) error {
	if err := p.Save(Width, Height, path); err != nil {
		return fmt.Errorf("figures.Save %q to %s: %w", p.Title.Text, path, err)
	}
	return nil
}

// svgData is the display bundle of Show: the SVG as image/svg+xml, with the title as text/plain
// for front-ends that show no images.
func svgData(p *plot.Plot) (*protocol.DisplayData, error) {
	svg, err := SVG(p)
	if err != nil {
		return nil, err
	}
	return &protocol.DisplayData{Data: map[protocol.MIMEType]any{
		protocol.MIMEImageSVG:  svg,
		protocol.MIMETextPlain: altText(p),
	}}, nil
}

// pngData is the display bundle of ShowPNG: the PNG as image/png, laid out Width wide, with the
// title as text/plain.
func pngData(p *plot.Plot) (*protocol.DisplayData, error) {
	png, err := PNG(p)
	if err != nil {
		return nil, err
	}
	return &protocol.DisplayData{
		Data: map[protocol.MIMEType]any{
			protocol.MIMEImagePNG:  png,
			protocol.MIMETextPlain: altText(p),
		},
		Metadata: map[string]any{
			// map[string]int: the only map type gonbui registers with gob for interface values.
			string(protocol.MIMEImagePNG): map[string]int{
				"width":  int(float64(Width) / float64(vg.Inch) * screenDPI),
				"height": int(float64(Height) / float64(vg.Inch) * screenDPI),
			},
		},
	}, nil
}

// altText is the text/plain stand-in for a figure.
func altText(p *plot.Plot) string {
	if t := strings.TrimSpace(p.Title.Text); t != "" {
		return "<figure: " + t + ">"
	}
	return "<figure>"
}

// Show displays p inline in the notebook as a real image/svg+xml output (not the text/html
// wrapper of gonbui.DisplaySVG), which Jupyter saves in the .ipynb and nbconvert and GitHub
// render as an image. Outside a notebook it does nothing. It returns an error if p cannot be
// rendered.
func Show(p *plot.Plot) error {
	if !gonbui.IsNotebook {
		return nil
	}
	d, err := svgData(p)
	if err != nil {
		return err
	}
	gonbui.SendData(d)
	gonbui.Sync() // GoNB may drop output still in its pipe when the cell's program exits.
	return gonbui.Error()
}

// ShowPNG displays p inline in the notebook as an image/png output (PNGDPI, laid out 5 inches
// wide). Outside a notebook it does nothing. It returns an error if p cannot be rendered.
func ShowPNG(p *plot.Plot) error {
	if !gonbui.IsNotebook {
		return nil
	}
	d, err := pngData(p)
	if err != nil {
		return err
	}
	gonbui.SendData(d)
	gonbui.Sync() // GoNB may drop output still in its pipe when the cell's program exits.
	return gonbui.Error()
}
