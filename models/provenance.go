package models

import (
	"bytes"
	"os/exec"
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
