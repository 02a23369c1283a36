// Package docker_test checks the Docker packaging where no Docker engine runs: it runs
// docker/install.sh --dry-run and reads docker/Dockerfile and docker/Dockerfile.cuda.
package docker_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stagnb/stagnb/internal/stagtest"
)

// pathWithoutGo is $PATH less the directories that hold a go executable, and whether the
// commands that install.sh needs besides Go are still found on it.
func pathWithoutGo() (path string, usable bool) {
	path = stagtest.PathWithout("go")
	dirs := filepath.SplitList(path)
	for _, cmd := range []string{"python3", "uname", "dirname", "sed", "curl", "tar", "sha256sum"} {
		if !slices.ContainsFunc(dirs, func(d string) bool {
			_, err := os.Stat(filepath.Join(d, cmd))
			return err == nil
		}) {
			return "", false
		}
	}
	return path, true
}

// TestInstallDryRun runs `bash docker/install.sh --dry-run` from the repository root in the current
// environment, with the overrides of each case, and checks its exit status, that its output names
// each step (the CUDA plugin step with STAGNB_CUDA=1), and that it installs nothing. Without a Go
// on PATH step 1 would download Go, which needs GO_SHA256.
func TestInstallDryRun(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not on PATH")
	}
	if _, err := exec.LookPath("python3"); err != nil && os.Getenv("PYTHON") == "" {
		t.Skip("python3 is not on PATH: install.sh needs it (run `make setup` first)")
	}
	root := stagtest.RepoRoot(t)
	noGoPath, noGoUsable := pathWithoutGo()
	steps := []string{"step 1/3 go:", "step 2/3 setup:", "step 3/3 cuda-plugin:"}
	for _, tc := range []struct {
		name   string
		env    []string // overrides of the current environment
		noGo   bool     // run with no Go on PATH, and an empty GO_PREFIX
		wantOK bool
		want   []string
	}{
		{
			name:   "cpu",
			env:    []string{"STAGNB_CUDA=0"},
			wantOK: true,
			want:   slices.Concat(steps, []string{"cuda-plugin: skip, STAGNB_CUDA is not 1", "nothing was installed or downloaded"}),
		},
		{
			name:   "cuda",
			env:    []string{"STAGNB_CUDA=1", "STAGNB_PJRT_PLUGIN=", "XLA_FLAGS="},
			wantOK: true,
			want: slices.Concat(steps, []string{"jax-cuda12-plugin", "jax_plugins/xla_cuda12/xla_cuda_plugin.so",
				"export STAGNB_PJRT_PLUGIN=", "nothing was installed or downloaded"}),
		},
		{
			name:   "no Go, no checksum",
			env:    []string{"STAGNB_CUDA=0", "GO_SHA256="},
			noGo:   true,
			wantOK: false,
			want:   slices.Concat(steps, []string{"would download https://go.dev/dl/go1.26.8.linux-amd64.tar.gz", "GO_SHA256 is unset"}),
		},
		{
			name:   "no Go, checksum given",
			env:    []string{"STAGNB_CUDA=0", "GO_SHA256=" + strings.Repeat("0", 64)},
			noGo:   true,
			wantOK: true,
			want:   slices.Concat(steps, []string{"would download https://go.dev/dl/go1.26.8.linux-amd64.tar.gz", "nothing was installed or downloaded"}),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := filepath.Join(t.TempDir(), "prefix")
			env := append(os.Environ(), "GO_PREFIX="+prefix)
			if tc.noGo {
				if !noGoUsable {
					t.Skip("without the directories that hold go, PATH lacks the tools install.sh needs")
				}
				env = append(env, "PATH="+noGoPath)
			}
			cmd := exec.Command(bash, "docker/install.sh", "--dry-run")
			cmd.Dir = root
			cmd.Env = append(env, tc.env...)
			out, err := cmd.CombinedOutput()
			var exitErr *exec.ExitError
			if err != nil && !errors.As(err, &exitErr) {
				t.Fatalf("running install.sh: %v", err)
			}
			if ok := err == nil; ok != tc.wantOK {
				t.Errorf("exit status %v, want success=%v; output:\n%s", err, tc.wantOK, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %q; output:\n%s", w, out)
				}
			}
			for line := range strings.Lines(string(out)) {
				if !strings.HasPrefix(line, "[docker-install] ") {
					t.Errorf("line without the [docker-install] prefix: %q", line)
				}
			}
			if _, err := os.Stat(prefix); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the dry run created GO_PREFIX %s (stat: %v)", prefix, err)
			}
		})
	}
}

// instruction is one Dockerfile instruction: its keyword in upper case and the rest of its line.
type instruction struct {
	cmd, args string
}

// fields are the instruction's arguments split at white space, without its --flags.
func (in instruction) fields() []string {
	return slices.DeleteFunc(strings.Fields(in.args), func(f string) bool { return strings.HasPrefix(f, "--") })
}

// parseDockerfile reads the instructions of a Dockerfile, with continued lines joined and comments left out.
func parseDockerfile(t *testing.T, path string) []instruction {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ins []instruction
	var cur strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if body, cont := strings.CutSuffix(line, `\`); cont {
			cur.WriteString(body + " ")
			continue
		}
		cur.WriteString(line)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		ins = append(ins, instruction{cmd: strings.ToUpper(cmd), args: strings.TrimSpace(args)})
		cur.Reset()
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur.Len() > 0 {
		t.Fatalf("%s ends in a continued line", path)
	}
	return ins
}

// envVars are the variables the ENV instructions set (key=value form), with the index of the
// instruction that sets each.
func envVars(ins []instruction) (value map[string]string, at map[string]int) {
	value, at = map[string]string{}, map[string]int{}
	for i, in := range ins {
		if in.cmd != "ENV" {
			continue
		}
		for _, f := range strings.Fields(in.args) {
			if k, v, ok := strings.Cut(f, "="); ok {
				value[k], at[k] = strings.Trim(v, `"`), i
			}
		}
	}
	return value, at
}

// pinned reports whether an image reference names a tag other than latest, or a digest.
func pinned(ref string) bool {
	if strings.Contains(ref, "@sha256:") {
		return true
	}
	i := strings.LastIndex(ref, ":")
	if i < 0 || i < strings.LastIndex(ref, "/") {
		return false
	}
	tag := ref[i+1:]
	return tag != "" && tag != "latest"
}

// TestDockerfiles reads docker/Dockerfile and docker/Dockerfile.cuda and checks: every FROM names a
// pinned tag; the repository is copied and docker/install.sh runs after it was copied, with the
// GO_SHA256 build argument declared; port 8888 is exposed and the command is scripts/lab.sh listening
// on 0.0.0.0; GOEXPERIMENT=simd is set and GOMLX_BACKEND is not; the CUDA image starts from an
// nvidia/cuda runtime image with cuDNN and sets STAGNB_CUDA=1 and STAGNB_PJRT_PLUGIN before the install.
func TestDockerfiles(t *testing.T) {
	for _, tc := range []struct {
		file string
		cuda bool
	}{
		{"Dockerfile", false},
		{"Dockerfile.cuda", true},
	} {
		t.Run(tc.file, func(t *testing.T) {
			ins := parseDockerfile(t, tc.file)
			index := func(match func(instruction) bool) int { return slices.IndexFunc(ins, match) }

			froms := 0
			for _, in := range ins {
				if in.cmd != "FROM" {
					continue
				}
				froms++
				ref := in.fields()[0]
				if !pinned(ref) {
					t.Errorf("FROM %s: not pinned to a tag (or a tag of latest)", ref)
				}
				isCUDA := strings.HasPrefix(ref, "nvidia/cuda:")
				if tc.cuda && !(isCUDA && strings.Contains(ref, "cudnn") && strings.Contains(ref, "runtime")) {
					t.Errorf("FROM %s: want an nvidia/cuda runtime image with cuDNN", ref)
				}
				if !tc.cuda && isCUDA {
					t.Errorf("FROM %s: the CPU image should not start from CUDA", ref)
				}
			}
			if froms == 0 {
				t.Fatal("no FROM instruction")
			}

			copies := func(src string) func(instruction) bool {
				return func(in instruction) bool {
					f := in.fields()
					return in.cmd == "COPY" && len(f) >= 2 && slices.Contains(f[:len(f)-1], src)
				}
			}
			if index(copies(".")) < 0 {
				t.Error("no COPY of the repository (source .)")
			}
			install := index(func(in instruction) bool {
				return in.cmd == "RUN" && strings.Contains(in.args, "docker/install.sh")
			})
			if install < 0 {
				t.Fatal("no RUN of docker/install.sh")
			}
			if c, d := index(copies(".")), index(copies("docker/install.sh")); !(c >= 0 && c < install || d >= 0 && d < install) {
				t.Error("docker/install.sh runs before it is copied into the image")
			}
			if a := index(func(in instruction) bool { return in.cmd == "ARG" && in.args == "GO_SHA256" }); a < 0 || a > install {
				t.Error("no ARG GO_SHA256 before the install: the Go checksum cannot reach install.sh")
			}

			if index(func(in instruction) bool {
				return in.cmd == "EXPOSE" && (slices.Contains(in.fields(), "8888") || slices.Contains(in.fields(), "8888/tcp"))
			}) < 0 {
				t.Error("port 8888 is not exposed")
			}
			if index(func(in instruction) bool { return in.cmd == "CMD" && strings.Contains(in.args, "scripts/lab.sh") }) < 0 {
				t.Error("CMD does not start scripts/lab.sh")
			}

			env, at := envVars(ins)
			for k, want := range map[string]string{"GOEXPERIMENT": "simd", "STAGNB_LAB_IP": "0.0.0.0", "STAGNB_LAB_PORT": "8888"} {
				if env[k] != want {
					t.Errorf("ENV %s=%q, want %q", k, env[k], want)
				}
			}
			if v, ok := env["GOMLX_BACKEND"]; ok {
				t.Errorf("ENV GOMLX_BACKEND=%q: leave the choice to stagnb.ChooseBackend", v)
			}
			if !tc.cuda {
				if env["STAGNB_CUDA"] == "1" {
					t.Error("the CPU image sets STAGNB_CUDA=1")
				}
				return
			}
			if env["STAGNB_CUDA"] != "1" || at["STAGNB_CUDA"] > install {
				t.Errorf("STAGNB_CUDA=%q is not set to 1 before the install", env["STAGNB_CUDA"])
			}
			plugin := env["STAGNB_PJRT_PLUGIN"]
			if !filepath.IsAbs(plugin) || !strings.HasSuffix(plugin, "/jax_plugins/xla_cuda12/xla_cuda_plugin.so") || at["STAGNB_PJRT_PLUGIN"] > install {
				t.Errorf("STAGNB_PJRT_PLUGIN=%q: want the absolute path of jax_plugins/xla_cuda12/xla_cuda_plugin.so, set before the install", plugin)
			}
		})
	}
}
