package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// fileServer serves content at every path on loopback and counts the requests; a path
// missing from content gets 404.
func fileServer(t *testing.T, content map[string]string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		body, ok := content[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// sha256Hex returns the lower-case hex sha256 of s.
func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// regularFiles lists the regular files below dir.
func regularFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestResolveDownload(t *testing.T) {
	const body = "node\tcolumn\n0\t1\n"
	srv, hits := fileServer(t, map[string]string{"/data/f.tsv": body})
	cache := t.TempDir()
	r := &Resolver{CacheDir: cache, Download: true, Client: srv.Client()}
	f := File{Path: "toy/raw/f.tsv", URL: srv.URL + "/data/f.tsv", SHA256: sha256Hex(body)}

	p, err := r.Path(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "toy", "raw", "f.tsv"); p != want {
		t.Errorf("path %s, want %s", p, want)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != body {
		t.Errorf("cached file holds %q (%v), want %q", b, err, body)
	}
	if err := VerifySHA256(p, f.SHA256); err != nil {
		t.Error(err)
	}
	if files := regularFiles(t, cache); len(files) != 1 {
		t.Errorf("cache holds %v, want only the downloaded file", files)
	}
	wantMode(t, p, 0o644)

	// The second call is served from the cache.
	b, p2, err := r.ReadFile(f)
	if err != nil || p2 != p || string(b) != body {
		t.Errorf("second call: %q at %s (%v)", b, p2, err)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("server hit %d times, want 1", n)
	}
}

func TestResolveDownloadChecksumMismatch(t *testing.T) {
	srv, _ := fileServer(t, map[string]string{"/f.bin": "tampered"})
	cache := t.TempDir()
	r := &Resolver{CacheDir: cache, Download: true, Client: srv.Client()}
	f := File{Path: "toy/raw/f.bin", URL: srv.URL + "/f.bin", SHA256: sha256Hex("original")}
	_, err := r.Path(f)
	wantError(t, err, "toy/raw/f.bin", srv.URL+"/f.bin", "checksum mismatch", sha256Hex("tampered"))
	if files := regularFiles(t, cache); len(files) != 0 {
		t.Errorf("a failed download left %v in the cache", files)
	}
}

func TestResolveDownload404(t *testing.T) {
	srv, _ := fileServer(t, nil)
	cache := t.TempDir()
	r := &Resolver{CacheDir: cache, Download: true, Client: srv.Client()}
	f := File{Path: "toy/raw/missing", URL: srv.URL + "/missing", SHA256: sha256Hex("")}
	_, err := r.Path(f)
	wantError(t, err, "toy/raw/missing", "GET "+srv.URL+"/missing", "404")
	if files := regularFiles(t, cache); len(files) != 0 {
		t.Errorf("a failed download left %v in the cache", files)
	}
}

// TestResolveMirrors checks that a file whose canonical URL is missing or serves other bytes is
// fetched from the first mirror that serves the pinned bytes, and that when none does the error
// names every address tried.
func TestResolveMirrors(t *testing.T) {
	const body = "smiles,expt\nC,1\n"
	srv, _ := fileServer(t, map[string]string{"/edited.csv": "smiles,expt\nC,1.0\n", "/pinned.csv": body})
	cache := t.TempDir()
	var logs []string
	r := &Resolver{CacheDir: cache, Download: true, Client: srv.Client(),
		Logf: func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) }}
	f := File{Path: "toy/f.csv", URL: srv.URL + "/gone.csv", Mirrors: []string{srv.URL + "/edited.csv", srv.URL + "/pinned.csv"}, SHA256: sha256Hex(body)}
	p, err := r.Path(f)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != body {
		t.Errorf("cached file holds %q (%v), want the pinned bytes %q", b, err, body)
	}
	if files := regularFiles(t, cache); len(files) != 1 {
		t.Errorf("cache holds %v, want only the downloaded file", files)
	}
	if joined := strings.Join(logs, "\n"); !strings.Contains(joined, "/gone.csv: HTTP 404") || !strings.Contains(joined, "/edited.csv: checksum mismatch") {
		t.Errorf("log does not say why the first two addresses failed:\n%s", joined)
	}

	f.Path, f.Mirrors = "toy/g.csv", []string{srv.URL + "/edited.csv"}
	_, err = r.Path(f)
	wantError(t, err, "toy/g.csv", "GET "+srv.URL+"/gone.csv: HTTP 404", "GET "+srv.URL+"/edited.csv: checksum mismatch")
}

func TestResolveOrder(t *testing.T) {
	const body = "1 2 3\n"
	srv, hits := fileServer(t, map[string]string{"/f": body})
	dir, cache := t.TempDir(), t.TempDir()
	f := File{Path: "toy/f", URL: srv.URL + "/f", SHA256: sha256Hex(body)}
	put := func(root, content string) string {
		p := filepath.Join(root, "toy", "f")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	r := &Resolver{Dir: dir, CacheDir: cache, Download: true, Client: srv.Client()}

	inCache := put(cache, body)
	if p, err := r.Path(f); err != nil || p != inCache {
		t.Errorf("only in the cache: got %s (%v), want %s", p, err, inCache)
	}
	inDir := put(dir, body)
	if p, err := r.Path(f); err != nil || p != inDir {
		t.Errorf("in both: got %s (%v), want the %s copy %s", p, err, DataDirEnv, inDir)
	}
	// A corrupt copy in the data directory is an error, not a reason to fall back.
	put(dir, "corrupt")
	_, err := r.Path(f)
	wantError(t, err, inDir, "checksum mismatch")
	if n := hits.Load(); n != 0 {
		t.Errorf("server hit %d times, want 0", n)
	}
}

// putFile writes content to root/rel (rel with forward slashes) and returns its path.
func putFile(t *testing.T, root, rel, content string) string {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestResolveCorruptCache covers a cached file with the wrong checksum: it is downloaded
// again when downloads are possible, and otherwise the error names the file to delete.
func TestResolveCorruptCache(t *testing.T) {
	const body = "0 1\n1 2\n"
	for _, c := range []struct {
		name     string
		download bool
		noURL    bool
		want     []string // empty: the download replaces the cached file
	}{
		{name: "download", download: true},
		{name: "offline", want: []string{"checksum mismatch", "delete"}},
		{name: "no URL", download: true, noURL: true, want: []string{"checksum mismatch", "delete"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, hits := fileServer(t, map[string]string{"/f": body})
			cache := t.TempDir()
			p := putFile(t, cache, "toy/f", "truncated")
			f := File{Path: "toy/f", URL: srv.URL + "/f", SHA256: sha256Hex(body)}
			if c.noURL {
				f.URL = ""
			}
			var logged []string
			r := &Resolver{Dir: t.TempDir(), CacheDir: cache, Download: c.download, Client: srv.Client(),
				Logf: func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }}
			got, err := r.Path(f)
			if len(c.want) > 0 {
				wantError(t, err, append([]string{"toy/f", p}, c.want...)...)
				if b, _ := os.ReadFile(p); string(b) != "truncated" {
					t.Errorf("the cached file was changed to %q", b)
				}
				if n := hits.Load(); n != 0 {
					t.Errorf("server hit %d times, want 0", n)
				}
				return
			}
			if err != nil || got != p {
				t.Fatalf("Path = %s, %v; want %s", got, err, p)
			}
			if b, err := os.ReadFile(p); err != nil || string(b) != body {
				t.Errorf("cached file holds %q (%v), want %q", b, err, body)
			}
			if n := hits.Load(); n != 1 {
				t.Errorf("server hit %d times, want 1", n)
			}
			if len(logged) == 0 || !strings.Contains(logged[0], p) || !strings.Contains(logged[0], "checksum") {
				t.Errorf("log %q does not report the mismatch of %s", logged, p)
			}
			if files := regularFiles(t, cache); len(files) != 1 {
				t.Errorf("cache holds %v, want only the downloaded file", files)
			}
			wantMode(t, p, 0o644)
		})
	}
}

// TestResolveCorruptCacheDownloadFails checks that when the new download fails too, the
// error names the corrupt cached copy and the failed download.
func TestResolveCorruptCacheDownloadFails(t *testing.T) {
	srv, _ := fileServer(t, nil)
	cache := t.TempDir()
	p := putFile(t, cache, "toy/f", "old")
	r := &Resolver{CacheDir: cache, Download: true, Client: srv.Client()}
	_, err := r.Path(File{Path: "toy/f", URL: srv.URL + "/f", SHA256: sha256Hex("new")})
	wantError(t, err, p+" (checksum mismatch)", "download failed", "404")
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("the cached file was changed to %q", b)
	}
}

// TestResolveCorruptDataDir checks that a corrupt file in $STAGNB_DATA is an error that
// names it, even when the cache holds a good copy and downloads are allowed, and that it
// is left alone.
func TestResolveCorruptDataDir(t *testing.T) {
	const body = "good"
	srv, hits := fileServer(t, map[string]string{"/f": body})
	dir, cache := t.TempDir(), t.TempDir()
	p := putFile(t, dir, "toy/f", "bad")
	putFile(t, cache, "toy/f", body)
	r := &Resolver{Dir: dir, CacheDir: cache, Download: true, Client: srv.Client()}
	_, err := r.Path(File{Path: "toy/f", URL: srv.URL + "/f", SHA256: sha256Hex(body)})
	wantError(t, err, "toy/f", DataDirEnv, p+": checksum mismatch", "replace or remove "+p)
	if b, _ := os.ReadFile(p); string(b) != "bad" {
		t.Errorf("the file in %s was changed to %q", DataDirEnv, b)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("server hit %d times, want 0", n)
	}
}

// wantMode fails unless the file at p has permission bits mode (on systems with Unix
// permissions).
func wantMode(t *testing.T, p string, mode fs.FileMode) {
	t.Helper()
	if runtime.GOOS == "windows" {
		return
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Perm(); got != mode {
		t.Errorf("%s has mode %v, want %v", p, got, mode)
	}
}

func TestResolveNotFound(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	r := &Resolver{Dir: dir, CacheDir: cache}
	_, err := r.Path(File{Path: "toy/f", URL: "http://127.0.0.1:1/f", SHA256: sha256Hex("")})
	wantError(t, err, "toy/f not found", filepath.Join(dir, "toy", "f"), filepath.Join(cache, "toy", "f"), DataDirEnv)
	if !strings.Contains(err.Error(), "absent") {
		t.Errorf("error %q does not say the files are absent", err)
	}
}

func TestResolveDefault(t *testing.T) {
	t.Setenv(DataDirEnv, "/some/data")
	r := NewResolver()
	if r.Dir != "/some/data" || !r.Download {
		t.Errorf("NewResolver() = %+v, want Dir from %s and downloads on", r, DataDirEnv)
	}
}
