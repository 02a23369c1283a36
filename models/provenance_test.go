package models

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestSourceRevision checks the git fallback of SourceRevision (test binaries carry no VCS stamp)
// in a fresh repository, from a subdirectory: the HEAD commit, "+dirty" after a code change, and not after a change to
// a notebook; outside a checkout, UnknownRevision.
func TestSourceRevision(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("a.go", "package a\n")
	if err := os.Mkdir(filepath.Join(dir, "notebooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("notebooks/n.ipynb", "{}\n")
	git("add", ".")
	git("commit", "-q", "-m", "x")
	head := git("rev-parse", "HEAD")
	t.Chdir(filepath.Join(dir, "notebooks")) // where GoNB runs a notebook's code
	if got := SourceRevision(); got != head {
		t.Errorf("clean: %q, want %q", got, head)
	}
	write("notebooks/n.ipynb", "{\"cells\": []}\n")
	if got := SourceRevision(); got != head {
		t.Errorf("notebook changed: %q, want %q (notebooks do not make the code dirty)", got, head)
	}
	write("a.go", "package a // changed\n")
	if got := SourceRevision(); got != head+"+dirty" {
		t.Errorf("code changed: %q, want %q", got, head+"+dirty")
	}
	outside := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(outside)) // no repository above the temp dir either
	t.Chdir(outside)
	if got := SourceRevision(); got != UnknownRevision {
		t.Errorf("outside a checkout: %q, want %q", got, UnknownRevision)
	}
}

// TestCommandLine checks that CommandLine quotes exactly the arguments a shell would interpret,
// and that sh reads the line back as the same arguments.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"stag", "reproduce", "table2", "-datasets", "cora,citeseer", "-layers", "2"}, "stag reproduce table2 -datasets cora,citeseer -layers 2"},
		{[]string{"-configs", "deterministic,normal(1,0.8)"}, "-configs 'deterministic,normal(1,0.8)'"},
		{[]string{"-configs", "vi:rc", "-out", "/tmp/x y"}, "-configs vi:rc -out '/tmp/x y'"},
		{[]string{"it's", "", "$HOME", "a*b"}, `'it'\''s' '' '$HOME' 'a*b'`},
	} {
		got := CommandLine(tc.args...)
		if got != tc.want {
			t.Errorf("CommandLine(%q) = %s, want %s", tc.args, got, tc.want)
			continue
		}
		if runtime.GOOS == "windows" {
			continue
		}
		out, err := exec.Command("sh", "-c", `eval "set -- $1"; for a in "$@"; do printf '[%s]\n' "$a"; done`, "sh", got).Output()
		if err != nil {
			t.Fatalf("sh reading %s: %v", got, err)
		}
		var want strings.Builder
		for _, a := range tc.args {
			want.WriteString("[" + a + "]\n")
		}
		if string(out) != want.String() {
			t.Errorf("sh reads %s as %q, want %q", got, out, want.String())
		}
	}
}

// TestRecordedCommand checks that recorded commands name no path of the machine they ran on: paths
// in the working directory become relative, paths in the home directory ~/…, and sh reads the
// line back as those arguments, ~ expanded.
func TestRecordedCommand(t *testing.T) {
	wd, home := "/opt/lab/stagnb", "/users/ada"
	for _, tc := range []struct {
		args      []string
		want      string
		shellArgs []string // what sh reads back, with HOME=/users/ada
	}{
		{[]string{"stag", "reproduce", "table2", "-out", "/opt/lab/stagnb/.data/gpu-results", "-configs", "normal(1,0.8)"},
			"stag reproduce table2 -out .data/gpu-results -configs 'normal(1,0.8)'", nil},
		{[]string{"stag", "bench", "-markdown", "/users/ada/out/bench.md", "-out=/opt/lab/stagnb/x y.jsonl"},
			"stag bench -markdown ~/out/bench.md -out='x y.jsonl'", []string{"stag", "bench", "-markdown", "/users/ada/out/bench.md", "-out=x y.jsonl"}},
		{[]string{"-out", "/tmp/recrun/results", "-out", "/opt/lab/stagnbline/r", "-out", "/opt/lab/stagnb"},
			"-out /tmp/recrun/results -out /opt/lab/stagnbline/r -out /opt/lab/stagnb", nil},
	} {
		got := recordedCommand(wd, home, tc.args)
		if got != tc.want {
			t.Errorf("recordedCommand(%q) = %s, want %s", tc.args, got, tc.want)
			continue
		}
		if runtime.GOOS == "windows" {
			continue
		}
		cmd := exec.Command("sh", "-c", `eval "set -- $1"; for a in "$@"; do printf '[%s]\n' "$a"; done`, "sh", got)
		cmd.Env = append(os.Environ(), "HOME="+home)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("sh reading %s: %v", got, err)
		}
		var want strings.Builder
		for _, a := range tc.shellArgs {
			want.WriteString("[" + a + "]\n")
		}
		if tc.shellArgs != nil && string(out) != want.String() {
			t.Errorf("sh reads %s as %q, want %q", got, out, want.String())
		}
	}
}
