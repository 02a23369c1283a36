package notebooks_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// markdownLink matches a Markdown link or image, capturing its target.
var markdownLink = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// markdownDocs returns the Markdown that readers of a clone see, keyed by path from the repository
// root: the READMEs, DEVELOPERS.md, the docs folder, and each notebook's Markdown cells.
func markdownDocs(t *testing.T) map[string]string {
	t.Helper()
	docs := map[string]string{}
	for _, name := range []string{"README.md", "DEVELOPERS.md", "results/README.md", "docker/README.md", "docs/original-code-digest.md"} {
		b, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		docs[name] = string(b)
	}
	paths, err := filepath.Glob("*.ipynb")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no notebooks (%v)", err)
	}
	for _, p := range paths {
		nb, err := readNotebook(p)
		if err != nil {
			t.Fatal(err)
		}
		var md strings.Builder
		for _, c := range nb.Cells {
			if c.CellType == "markdown" {
				md.WriteString(string(c.Source) + "\n")
			}
		}
		docs["notebooks/"+p] = md.String()
	}
	return docs
}

// TestRelativeLinksResolve checks that every relative link in the repository's Markdown files and
// in the notebooks' Markdown cells names a file or folder that exists in a clone, so that a
// reader who follows one lands somewhere.
func TestRelativeLinksResolve(t *testing.T) {
	root := ".."
	docs := markdownDocs(t)
	links := 0
	for name, text := range docs {
		for _, m := range markdownLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			links++
			p := filepath.Join(root, filepath.Dir(name), filepath.FromSlash(target))
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s: link %q: %s does not exist", name, m[0], p)
			}
		}
	}
	if links < 10 {
		t.Errorf("found only %d relative links: has the link syntax changed?", links)
	}
}
