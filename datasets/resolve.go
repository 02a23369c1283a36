package datasets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// DataDirEnv names the environment variable with an explicit data directory.
// It is the first place the Resolver looks, and the only place in the project
// where it is read.
const DataDirEnv = "STAGNB_DATA"

// OfflineEnv names the environment variable that, set to a non-empty value other than "0",
// forbids downloads: missing files are then an error.
const OfflineEnv = "STAGNB_OFFLINE"

// File is one file of a dataset: where it lives below a data root, where it can be
// downloaded from, and its pinned sha256.
type File struct {
	// Path is the file's path below a data root, with forward slashes,
	// e.g. "cora/raw/ind.cora.x". It is the same below STAGNB_DATA and below the cache.
	Path string
	// URL is the file's canonical public address.
	URL string
	// Mirrors are other public addresses of the same bytes, tried in order when URL cannot be
	// downloaded or gives other bytes (every copy is checked against SHA256).
	Mirrors []string
	// SHA256 is the lower-case hex sha256 of the file's bytes.
	SHA256 string
}

// Resolver finds dataset files: first in an explicit directory (STAGNB_DATA),
// then in the user cache, and finally by downloading them from their canonical URL into
// the cache. Every file is checked against its pinned sha256 wherever it was found, and a
// download is written to a temporary file and renamed only once its checksum matches, so
// nothing half-written ever lands in the cache.
//
// The zero value looks only in the cache and never downloads; use NewResolver for the defaults.
type Resolver struct {
	// Dir is an explicit data directory, searched first; empty to skip.
	Dir string
	// CacheDir is the user cache (downloads land here); empty to skip.
	CacheDir string
	// Download enables fetching missing files from their URL into CacheDir.
	Download bool
	// Client is the HTTP client used for downloads; nil means one with a 5-minute timeout.
	Client *http.Client
	// Logf, if set, reports downloads.
	Logf func(format string, args ...any)
}

// NewResolver returns the project's default resolver: Dir from $STAGNB_DATA,
// CacheDir = os.UserCacheDir()/stagnb, downloads enabled unless $STAGNB_OFFLINE is set.
func NewResolver() *Resolver {
	offline := os.Getenv(OfflineEnv)
	r := &Resolver{Dir: os.Getenv(DataDirEnv), Download: offline == "" || offline == "0"}
	if cache, err := os.UserCacheDir(); err == nil {
		r.CacheDir = filepath.Join(cache, "stagnb")
	}
	return r
}

// Path returns the local path of f, verified against its checksum, downloading it
// into the cache if needed. Errors name the file and every place that was tried.
//
// A copy in Dir with the wrong checksum is an error (the user's directory is never
// overwritten or skipped). A cached copy with the wrong checksum is downloaded again
// when downloads are possible, and is otherwise an error that names the file to delete.
func (r *Resolver) Path(f File) (string, error) {
	rel := filepath.FromSlash(f.Path)
	canDownload := r.Download && r.CacheDir != "" && f.URL != ""
	var tried []string
	if r.Dir != "" {
		p := filepath.Join(r.Dir, rel)
		if _, err := os.Stat(p); err != nil {
			tried = append(tried, p+" (absent)")
		} else if err := VerifySHA256(p, f.SHA256); err != nil {
			// Never overwrite or skip a file in the user's own directory.
			return "", fmt.Errorf("dataset file %s in %s (%s): %w; replace or remove %s",
				f.Path, DataDirEnv, r.Dir, err, p)
		} else {
			return p, nil
		}
	}
	if r.CacheDir != "" {
		p := filepath.Join(r.CacheDir, rel)
		if _, err := os.Stat(p); err != nil {
			tried = append(tried, p+" (absent)")
		} else if err := VerifySHA256(p, f.SHA256); err != nil {
			if !canDownload {
				return "", fmt.Errorf("dataset file %s in the cache: %w; delete %s so that it can be downloaded again",
					f.Path, err, p)
			}
			// A corrupt or outdated cached copy is replaced by a fresh download.
			if r.Logf != nil {
				r.Logf("cached %s does not match its checksum (%v); downloading it again", p, err)
			}
			tried = append(tried, p+" (checksum mismatch)")
		} else {
			return p, nil
		}
	}
	if !canDownload {
		return "", fmt.Errorf("dataset file %s not found: tried %s; set %s to a directory holding it",
			f.Path, strings.Join(tried, ", "), DataDirEnv)
	}
	p := filepath.Join(r.CacheDir, rel)
	var failed []string
	for _, url := range append([]string{f.URL}, f.Mirrors...) {
		err := r.download(f, url, p)
		if err == nil {
			return p, nil
		}
		failed = append(failed, err.Error())
		if r.Logf != nil && len(failed) <= len(f.Mirrors) {
			r.Logf("%v; trying the next address", err)
		}
	}
	return "", fmt.Errorf("dataset file %s not found (tried %s) and its download failed: %s",
		f.Path, strings.Join(tried, ", "), strings.Join(failed, "; "))
}

// Open is Path followed by os.Open.
func (r *Resolver) Open(f File) (*os.File, error) {
	p, err := r.Path(f)
	if err != nil {
		return nil, err
	}
	return os.Open(p)
}

// ReadFile is Path followed by os.ReadFile.
func (r *Resolver) ReadFile(f File) ([]byte, string, error) {
	p, err := r.Path(f)
	if err != nil {
		return nil, "", err
	}
	b, err := os.ReadFile(p)
	return b, p, err
}

// download fetches f from url into dst atomically: the bytes go to a temporary file in dst's
// directory, are checked against f.SHA256, synced to disk, made mode 0644, and only then
// renamed to dst (replacing any old file there).
func (r *Resolver) download(f File, url, dst string) error {
	client := r.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Minute}
	}
	if r.Logf != nil {
		r.Logf("downloading %s from %s", f.Path, url)
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %s", url, resp.Status)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".part-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(tmp, h), resp.Body); err != nil {
		tmp.Close()
		return fmt.Errorf("GET %s: reading body: %w", url, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != f.SHA256 {
		tmp.Close()
		return fmt.Errorf("GET %s: checksum mismatch for %s: sha256 %s, want %s (nothing was written to the cache)",
			url, f.Path, got, f.SHA256)
	}
	// CreateTemp makes the file 0600; a cache file is as readable as any other.
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	// Flush the bytes to disk before the rename makes them visible under dst, so that a
	// crash cannot leave a renamed but empty or partial file behind.
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// VerifySHA256 checks that the file at path has the given sha256 (lower-case hex).
func VerifySHA256(path, want string) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%s: checksum mismatch: sha256 %s, want %s (corrupt or different version of the file)",
			path, got, want)
	}
	return nil
}
