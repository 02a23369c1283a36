package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeCoverage checks that README.md's table of recorded runs is Coverage's table of the
// committed records: a commit that adds records updates it (`go run ./cmd/stag reproduce
// coverage`), so the README never counts records that are not there.
func TestReadmeCoverage(t *testing.T) {
	const begin, end = "<!-- coverage: go run ./cmd/stag reproduce coverage -->\n", "<!-- /coverage -->"
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), begin)
	readme, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("README.md has no %q … %q block", begin, end)
	}
	table, err := Coverage(filepath.Join("..", "results"))
	if err != nil {
		t.Fatal(err)
	}
	if got := table.Markdown(); readme != got {
		t.Errorf("README.md's table of recorded runs is not the records' (run `go run ./cmd/stag reproduce coverage` and paste its output):\nREADME:\n%s\nrecords:\n%s", readme, got)
	}
}
