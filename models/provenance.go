package models

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// UnknownRevision is SourceRevision's answer when neither the build nor the working directory
// tells the commit: a binary built without a VCS stamp (GOFLAGS=-buildvcs=false, or outside the
// checkout) and run outside a git checkout.
const UnknownRevision = "unknown"

// SourceRevision is the git commit of the running code, with "+dirty" when it had uncommitted
// changes: the build's VCS stamp when present (go build with -buildvcs), else `git rev-parse HEAD`
// in the working directory (changes to notebooks, *.ipynb, do not count), else UnknownRevision.
// Records and benchmarks store it.
func SourceRevision() string {
	rev, dirty := "", false
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if rev == "" {
		out, err := exec.Command("git", "rev-parse", "HEAD").Output()
		if err != nil {
			return UnknownRevision
		}
		rev = strings.TrimSpace(string(out))
		// A notebook's own outputs (rewritten as it runs) do not make the code dirty.
		status, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no", "--", ":/", ":(top,exclude)*.ipynb").Output()
		dirty = err != nil || len(bytes.TrimSpace(status)) > 0
	}
	if dirty {
		rev += "+dirty"
	}
	return rev
}

// CommandLine joins args into one line that a POSIX shell splits back into the same args, as
// records store the command that made them: an argument with characters the shell would
// interpret, such as the parentheses of "normal(1,0.8)", is put in single quotes.
func CommandLine(args ...string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellWord(a)
	}
	return strings.Join(quoted, " ")
}

// RecordedCommand is CommandLine for the command a record stores, without the machine's own
// paths: an absolute path inside the working directory (the checkout, where stag runs) becomes
// relative to it, and one inside the home directory is written ~/…, which a shell expands back. A
// flag's value given as -flag=/path is treated alike. Other arguments are CommandLine's.
func RecordedCommand(args ...string) string {
	wd, _ := os.Getwd()
	home, _ := os.UserHomeDir()
	return recordedCommand(wd, home, args)
}

func recordedCommand(wd, home string, args []string) string {
	words := make([]string, len(args))
	for i, a := range args {
		flag, value, isFlag := "", a, false
		if strings.HasPrefix(a, "-") {
			if f, v, ok := strings.Cut(a, "="); ok {
				flag, value, isFlag = f+"=", v, true
			}
		}
		word := shellWord(value)
		if filepath.IsAbs(value) {
			if rel, ok := within(wd, value); ok {
				word = shellWord(rel)
			} else if rel, ok := within(home, value); ok {
				word = "~/" + shellWord(rel)
			}
		}
		if isFlag {
			word = shellWord(flag) + word
		}
		words[i] = word
	}
	return strings.Join(words, " ")
}

// within returns path relative to dir when path lies inside dir (dir itself excluded).
func within(dir, path string) (string, bool) {
	if dir == "" || dir == "/" {
		return "", false
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}

// shellWord is a as one shell word: unchanged when it has only characters a shell leaves alone,
// else in single quotes, where a single quote inside ends the quoting, is escaped and reopens it.
func shellWord(a string) string {
	plain := a != ""
	for _, r := range a {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./,=:@%+", r)) {
			plain = false
			break
		}
	}
	if plain {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
