package stagnb

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gomlx/compute"
	// The two backends we ship: the pure-Go one and XLA/PJRT (without its auto-installer:
	// we never download a plugin).
	_ "github.com/gomlx/compute/gobackend"
	"github.com/gomlx/go-xla/compute/xla"
)

// Environment variables read by the backend chooser (and nowhere else).
const (
	// BackendEnv selects the backend explicitly, in GoMLX's syntax: "go", "go:parallelism=-1",
	// "xla:cuda", "xla:/abs/path/to/plugin.so", ….
	BackendEnv = compute.ConfigEnvVar // "GOMLX_BACKEND"
	// PluginEnv names a CUDA PJRT plugin file (absolute path) to use when a GPU is present.
	PluginEnv = "STAGNB_PJRT_PLUGIN"
	// PluginPathEnv is go-xla's ":"-separated plugin search path; we search it for CUDA plugins too.
	PluginPathEnv = "PJRT_PLUGIN_LIBRARY_PATH"
)

// GoBackendConfig is the pure-Go backend's default configuration: unlimited parallelism,
// which is as fast as the default scheduler and cannot deadlock (the default worker pool
// starves itself on graphs with several independent large matmuls).
const GoBackendConfig = "go:parallelism=-1"

// BackendChoice is the outcome of ChooseBackend: the GoMLX configuration to use and why.
type BackendChoice struct {
	// Config is a GoMLX backend configuration, e.g. "go:parallelism=-1" or "xla:/…/xla_cuda_plugin.so".
	Config string
	// Reason says in a few words why Config was chosen.
	Reason string
}

// ChooseBackend decides which backend to use, without creating it:
//
//  1. $GOMLX_BACKEND, if set, as given;
//  2. XLA with a CUDA PJRT plugin, if an NVIDIA GPU is present and a plugin is found
//     ($STAGNB_PJRT_PLUGIN, $PJRT_PLUGIN_LIBRARY_PATH, go-xla's install directories, or JAX's
//     jax_plugins/xla_cuda*/xla_cuda_plugin.so in a Python site-packages directory);
//  3. otherwise the pure-Go backend, GoBackendConfig.
func ChooseBackend() BackendChoice {
	if cfg, ok := os.LookupEnv(BackendEnv); ok && cfg != "" {
		return BackendChoice{Config: cfg, Reason: "$" + BackendEnv}
	}
	if !hasNvidiaGPU() {
		return BackendChoice{Config: GoBackendConfig, Reason: "no NVIDIA GPU found"}
	}
	plugin := FindCUDAPlugin()
	if plugin == "" {
		return BackendChoice{Config: GoBackendConfig,
			Reason: "NVIDIA GPU found but no CUDA PJRT plugin (set " + PluginEnv + ")"}
	}
	return BackendChoice{Config: "xla:" + plugin + "," + XLACUDAOptions, Reason: "NVIDIA GPU and CUDA PJRT plugin found"}
}

// XLACUDAOptions are the go-xla options ChooseBackend adds to a CUDA plugin it found: float32
// matmuls in full float32 ("tf32=false"). go-xla's default on CUDA is TF32, whose 10-bit mantissa
// breaks the float32 error bounds our tests check and differs from the paper's runs (a V100, which
// has no TF32) and from torch, whose matmuls are float32 by default. Set $GOMLX_BACKEND to choose
// otherwise, e.g. "xla:/path/to/plugin.so" for go-xla's defaults.
const XLACUDAOptions = "tf32=false"

// NewBackend creates the backend chosen by ChooseBackend and reports the choice (backend,
// device and reason) with logf; logf may be nil. If an automatically chosen XLA backend
// fails to start, it reports why and falls back to the pure-Go backend; an explicit
// $GOMLX_BACKEND that fails is an error.
func NewBackend(logf func(format string, args ...any)) (compute.Backend, error) {
	prepareEnv()
	choice := ChooseBackend()
	backend, err := newBackendQuiet(choice.Config)
	if err != nil {
		if choice.Reason == "$"+BackendEnv {
			return nil, fmt.Errorf("stagnb: $%s=%q: %w", BackendEnv, choice.Config, err)
		}
		if logf != nil {
			logf("stagnb: backend %q failed (%v); falling back to %q", choice.Config, err, GoBackendConfig)
		}
		choice = BackendChoice{Config: GoBackendConfig, Reason: "fallback after XLA failed"}
		if backend, err = newBackendQuiet(choice.Config); err != nil {
			return nil, err
		}
	}
	if logf != nil {
		logf("stagnb: backend %s (%s); device: %s", choice.Config, choice.Reason, DeviceName(backend))
	}
	return backend, nil
}

// DeviceName describes the backend's first device, e.g. "NVIDIA H100 80GB HBM3 (cuda:0 [processId=0])"
// or "CPU (pure Go, 2 cores)". PJRT describes a CUDA device by its ordinal alone, so the GPU's
// model is added from nvidia-smi where it answers.
func DeviceName(b compute.Backend) string {
	if b.String() == "go" {
		return fmt.Sprintf("CPU (pure Go, %d cores)", runtime.NumCPU())
	}
	if b.NumDevices() == 0 {
		return "no device"
	}
	desc := b.DeviceDescription(0)
	if strings.HasPrefix(desc, "cuda:") {
		if gpu := nvidiaGPUName(); gpu != "" {
			return gpu + " (" + desc + ")"
		}
	}
	return desc
}

// nvidiaGPUName is the model of the first GPU that CUDA sees, from nvidia-smi ("" without one).
var nvidiaGPUName = sync.OnceValue(func() string {
	out, err := exec.Command("nvidia-smi", "--query-gpu=name", "--format=csv,noheader").Output()
	if err != nil {
		return ""
	}
	return firstVisibleGPU(string(out), os.Getenv("CUDA_VISIBLE_DEVICES"))
})

// firstVisibleGPU picks, from nvidia-smi's list of GPU names (one a line, in its order), the one
// that CUDA numbers 0: the first listed, or where $CUDA_VISIBLE_DEVICES is set, the one its first
// index names ("" where it names a GPU by UUID or none: no guess).
func firstVisibleGPU(names, visible string) string {
	var list []string
	for l := range strings.SplitSeq(names, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			list = append(list, l)
		}
	}
	if len(list) == 0 {
		return ""
	}
	if strings.TrimSpace(visible) == "" {
		return list[0]
	}
	first, _, _ := strings.Cut(visible, ",")
	i, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || i < 0 || i >= len(list) {
		return ""
	}
	return list[i]
}

// BackendName returns the short name of a backend: "go" or "xla:<plugin>", with ",tf32" added
// when the XLA backend runs float32 matmuls in TF32, and " XLA_FLAGS=…" when $XLA_FLAGS sets the
// XLA compiler's options (records made with other options say so; see xlaBackendName).
func BackendName(b compute.Backend) string {
	if p, ok := b.(interface{ PluginName() string }); ok {
		x, ok := b.(*xla.Backend)
		return xlaBackendName(b.String(), p.PluginName(), ok && x.DotGeneralUseTF32, os.Getenv("XLA_FLAGS"))
	}
	return b.String()
}

// xlaBackendName is BackendName of an XLA backend: its name, plugin file, TF32 and the flags of
// $XLA_FLAGS but --xla_gpu_cuda_data_dir (where the CUDA compiler is, which changes nothing that
// is computed; the Docker CUDA image sets it).
func xlaBackendName(backend, plugin string, tf32 bool, xlaFlags string) string {
	name := backend + ":" + filepath.Base(plugin)
	if tf32 {
		name += ",tf32"
	}
	flags := slices.DeleteFunc(strings.Fields(xlaFlags), func(f string) bool {
		return strings.HasPrefix(f, "--xla_gpu_cuda_data_dir")
	})
	if len(flags) > 0 {
		name += " XLA_FLAGS=" + strings.Join(flags, " ")
	}
	return name
}

// FindCUDAPlugin returns the absolute path of a CUDA PJRT plugin, or "" if none is found.
// See ChooseBackend for the places searched, in order.
func FindCUDAPlugin() string {
	if p := os.Getenv(PluginEnv); p != "" {
		if abs, err := filepath.Abs(p); err == nil && isFile(abs) {
			return abs
		}
	}
	var dirs []string
	for _, d := range filepath.SplitList(os.Getenv(PluginPathEnv)) {
		dirs = append(dirs, d, filepath.Join(d, "nvidia"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".local/lib/go-xla"), filepath.Join(home, ".local/lib/go-xla/nvidia"))
	}
	dirs = append(dirs, "/usr/local/lib/go-xla", "/usr/local/lib/go-xla/nvidia")
	for _, d := range dirs {
		for _, pattern := range []string{"pjrt_c_api_cuda*_plugin.so", "pjrt-plugin-cuda*.so", "xla_cuda_plugin.so"} {
			if p := firstMatch(filepath.Join(d, pattern)); p != "" {
				return p
			}
		}
	}
	for _, sp := range sitePackages() {
		if p := firstMatch(filepath.Join(sp, "jax_plugins", "xla_cuda*", "xla_cuda_plugin.so")); p != "" {
			return p
		}
	}
	return ""
}

// prepareEnv sets the guards go-xla needs here, unless the user set them:
// never auto-install plugins, and don't let go-xla derive XLA_FLAGS from a plugin's
// directory layout (it can write a bogus --xla_gpu_cuda_data_dir).
func prepareEnv() {
	for k, v := range map[string]string{"GOMLX_NO_AUTO_INSTALL": "1", "GOPJRT_CUDA_CHECKS": "0"} {
		if _, ok := os.LookupEnv(k); !ok {
			_ = os.Setenv(k, v)
		}
	}
}

// stdoutMu serialises the stdout redirection in newBackendQuiet.
var stdoutMu sync.Mutex

// newBackendQuiet creates a backend while sending anything its constructor prints to stdout
// (the Go backend prints its parallelism there) to stderr, so that commands whose stdout is
// data (JSON lines) stay clean.
func newBackendQuiet(config string) (b compute.Backend, err error) {
	stdoutMu.Lock()
	defer stdoutMu.Unlock()
	saved := os.Stdout
	os.Stdout = os.Stderr
	defer func() {
		os.Stdout = saved
		if r := recover(); r != nil { // compute.NewWithConfig panics on unknown backend names
			err = fmt.Errorf("%v", r)
		}
	}()
	return compute.NewWithConfig(config)
}

// hasNvidiaGPU reports whether an NVIDIA device node or a working nvidia-smi is present.
func hasNvidiaGPU() bool {
	if m, _ := filepath.Glob("/dev/nvidia[0-9]*"); len(m) > 0 {
		return true
	}
	if _, err := exec.LookPath("nvidia-smi"); err != nil {
		return false
	}
	out, err := exec.Command("nvidia-smi", "-L").Output()
	return err == nil && strings.Contains(string(out), "GPU")
}

// sitePackages lists Python site-packages directories where JAX may have installed its CUDA
// plugin: the active virtualenv, then those reported by python3 on the PATH, then common globs.
func sitePackages() []string {
	var dirs []string
	if venv := os.Getenv("VIRTUAL_ENV"); venv != "" {
		dirs = append(dirs, globAll(filepath.Join(venv, "lib", "python3*", "site-packages"))...)
	}
	if py, err := exec.LookPath("python3"); err == nil {
		out, err := exec.Command(py, "-c",
			"import site,sys; print('\\n'.join(site.getsitepackages()+[site.getusersitepackages()]))").Output()
		if err == nil {
			dirs = append(dirs, strings.Fields(string(out))...)
		}
	}
	for _, pattern := range []string{
		"/usr/local/lib/python3*/site-packages", "/usr/local/lib/python3*/dist-packages",
		"/usr/lib/python3*/dist-packages", "/opt/conda/lib/python3*/site-packages",
	} {
		dirs = append(dirs, globAll(pattern)...)
	}
	return slices.Compact(dirs)
}

func firstMatch(pattern string) string {
	m := globAll(pattern)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1] // the highest version when several match (xla_cuda12, xla_cuda13)
}

func globAll(pattern string) []string {
	m, _ := filepath.Glob(pattern)
	var files []string
	for _, p := range m {
		if abs, err := filepath.Abs(p); err == nil {
			files = append(files, abs)
		}
	}
	slices.Sort(files)
	return files
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// CPUDescription describes the host CPU for benchmark records: its model name and the widest
// SIMD extension that the pure-Go backend's matmul kernels use (AVX-512 or AVX2, which set its
// speed), for example "AMD EPYC, AVX2". It reads /proc/cpuinfo and returns "" where that file is
// missing.
func CPUDescription() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	return cpuDescription(string(b))
}

// cpuDescription is CPUDescription for the text of /proc/cpuinfo (its first processor).
func cpuDescription(cpuinfo string) string {
	var name string
	var flags []string
	for line := range strings.SplitSeq(cpuinfo, "\n") {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			if strings.TrimSpace(line) == "" && name != "" {
				break // end of the first processor
			}
			continue
		}
		switch strings.TrimSpace(key) {
		case "model name":
			name = strings.TrimSpace(value)
		case "flags":
			flags = strings.Fields(value)
		}
	}
	simd := "no AVX2"
	switch {
	case slices.Contains(flags, "avx512f"):
		simd = "AVX-512"
	case slices.Contains(flags, "avx2"):
		simd = "AVX2"
	}
	if name == "" {
		name = "unknown CPU"
	}
	return name + ", " + simd
}
