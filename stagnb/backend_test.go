package stagnb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
)

func TestChooseBackendHonoursEnv(t *testing.T) {
	t.Setenv(BackendEnv, "go:ops_sequential")
	got := ChooseBackend()
	if got.Config != "go:ops_sequential" || !strings.Contains(got.Reason, BackendEnv) {
		t.Fatalf("ChooseBackend() = %+v, want the $%s value", got, BackendEnv)
	}
}

func TestChooseBackendWithoutGPU(t *testing.T) {
	if hasNvidiaGPU() {
		t.Skip("this machine has an NVIDIA GPU")
	}
	t.Setenv(BackendEnv, "")
	if got := ChooseBackend(); got.Config != GoBackendConfig {
		t.Fatalf("ChooseBackend() = %+v, want %q without a GPU", got, GoBackendConfig)
	}
}

// TestChooseBackendWithGPU fakes a GPU (an nvidia-smi that lists one) and a plugin: the chosen
// XLA configuration names the plugin and asks for full float32 matmuls, not go-xla's TF32.
func TestChooseBackendWithGPU(t *testing.T) {
	bin := t.TempDir()
	smi := "#!/bin/sh\necho 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)'\n"
	if err := os.WriteFile(filepath.Join(bin, "nvidia-smi"), []byte(smi), 0o755); err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(t.TempDir(), "xla_cuda_plugin.so")
	if err := os.WriteFile(plugin, []byte("not really a plugin"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	t.Setenv(BackendEnv, "")
	t.Setenv(PluginEnv, plugin)
	got := ChooseBackend()
	if want := "xla:" + plugin + ",tf32=false"; got.Config != want {
		t.Fatalf("ChooseBackend() = %+v, want config %q", got, want)
	}
}

func TestNewBackendRunsAGraph(t *testing.T) {
	var logged []string
	b, err := NewBackend(func(format string, args ...any) {
		logged = append(logged, format)
		t.Logf(format, args...)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	if len(logged) != 1 || !strings.Contains(logged[0], "device") {
		t.Errorf("NewBackend logged %q, want one line naming backend and device", logged)
	}
	got := MustExecOnce(b, func(x *Node) *Node { return ReduceAllSum(Mul(x, x)) }, []float32{1, 2, 3})
	if v := got.Value().(float32); v != 14 {
		t.Errorf("sum of squares on %s = %v, want 14", BackendName(b), v)
	}
}

func TestNewBackendBadEnvIsAnError(t *testing.T) {
	for _, cfg := range []string{"nosuchbackend", "go:nosuchoption", "xla:/nonexistent/plugin.so"} {
		t.Run(cfg, func(t *testing.T) {
			t.Setenv(BackendEnv, cfg)
			if _, err := NewBackend(nil); err == nil || !strings.Contains(err.Error(), BackendEnv) {
				t.Fatalf("NewBackend with $%s=%q: err = %v, want an error naming the variable", BackendEnv, cfg, err)
			}
		})
	}
}

func TestFindCUDAPlugin(t *testing.T) {
	touch := func(p string) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("not really a plugin"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	clear := func(t *testing.T) {
		t.Setenv(PluginEnv, "")
		t.Setenv(PluginPathEnv, "")
		t.Setenv("VIRTUAL_ENV", "")
		t.Setenv("HOME", t.TempDir())
		t.Setenv("PATH", "") // no python3: only the explicit places are searched
	}
	t.Run("explicit file", func(t *testing.T) {
		clear(t)
		p := touch(filepath.Join(t.TempDir(), "my_plugin.so"))
		t.Setenv(PluginEnv, p)
		if got := FindCUDAPlugin(); got != p {
			t.Fatalf("FindCUDAPlugin() = %q, want %q", got, p)
		}
	})
	t.Run("search path", func(t *testing.T) {
		clear(t)
		dir := t.TempDir()
		p := touch(filepath.Join(dir, "nvidia", "pjrt_c_api_cuda_plugin.so"))
		t.Setenv(PluginPathEnv, dir)
		if got := FindCUDAPlugin(); got != p {
			t.Fatalf("FindCUDAPlugin() = %q, want %q", got, p)
		}
	})
	t.Run("JAX wheel in a virtualenv", func(t *testing.T) {
		clear(t)
		venv := t.TempDir()
		touch(filepath.Join(venv, "lib/python3.11/site-packages/jax_plugins/xla_cuda12/xla_cuda_plugin.so"))
		p := touch(filepath.Join(venv, "lib/python3.11/site-packages/jax_plugins/xla_cuda13/xla_cuda_plugin.so"))
		t.Setenv("VIRTUAL_ENV", venv)
		if got := FindCUDAPlugin(); got != p {
			t.Fatalf("FindCUDAPlugin() = %q, want the newest JAX plugin %q", got, p)
		}
	})
	t.Run("none", func(t *testing.T) {
		clear(t)
		if got := FindCUDAPlugin(); got != "" {
			t.Fatalf("FindCUDAPlugin() = %q, want none", got)
		}
	})
}

func TestCPUDescription(t *testing.T) {
	for _, tc := range []struct{ cpuinfo, want string }{
		{"processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse2 avx avx2 fma\n\nprocessor\t: 1\nmodel name\t: other\n", "AMD EPYC, AVX2"},
		{"model name\t: Intel(R) Xeon(R)\nflags\t\t: avx2 avx512f avx512bw\n", "Intel(R) Xeon(R), AVX-512"},
		{"flags\t\t: sse2\n", "unknown CPU, no AVX2"},
	} {
		if got := cpuDescription(tc.cpuinfo); got != tc.want {
			t.Errorf("cpuDescription(%q) = %q, want %q", tc.cpuinfo, got, tc.want)
		}
	}
}

// TestFirstVisibleGPU checks which of nvidia-smi's GPU names DeviceName gives a CUDA device 0.
func TestFirstVisibleGPU(t *testing.T) {
	two := "NVIDIA H100 80GB HBM3\nNVIDIA A100-SXM4-40GB\n"
	for _, tc := range []struct{ names, visible, want string }{
		{two, "", "NVIDIA H100 80GB HBM3"},
		{two, "1", "NVIDIA A100-SXM4-40GB"},
		{two, " 1,0", "NVIDIA A100-SXM4-40GB"},
		{two, "0", "NVIDIA H100 80GB HBM3"},
		{two, "2", ""},
		{two, "-1", ""},
		{two, "GPU-8f2b0a1c", ""},
		{"\n", "", ""},
	} {
		if got := firstVisibleGPU(tc.names, tc.visible); got != tc.want {
			t.Errorf("firstVisibleGPU(%q, %q) = %q, want %q", tc.names, tc.visible, got, tc.want)
		}
	}
}

// TestXLABackendName checks the XLA backend's name in records: plugin file, TF32 and XLA_FLAGS.
func TestXLABackendName(t *testing.T) {
	for _, tc := range []struct {
		plugin, flags string
		tf32          bool
		want          string
	}{
		{"/opt/jax_plugins/xla_cuda13/xla_cuda_plugin.so", "", false, "xla:xla_cuda_plugin.so"},
		{"/opt/jax_plugins/xla_cuda13/xla_cuda_plugin.so", "", true, "xla:xla_cuda_plugin.so,tf32"},
		{"cuda", " --xla_gpu_autotune_level=0 ", false, "xla:cuda XLA_FLAGS=--xla_gpu_autotune_level=0"},
		{"cuda", "--xla_gpu_cuda_data_dir=/opt/cuda", false, "xla:cuda"},
		{"cuda", "--xla_gpu_cuda_data_dir=/opt/cuda  --xla_disable_hlo_passes=constant_folding --xla_gpu_autotune_level=0", false,
			"xla:cuda XLA_FLAGS=--xla_disable_hlo_passes=constant_folding --xla_gpu_autotune_level=0"},
	} {
		if got := xlaBackendName("xla", tc.plugin, tc.tf32, tc.flags); got != tc.want {
			t.Errorf("xlaBackendName(%q, %v, %q) = %q, want %q", tc.plugin, tc.tf32, tc.flags, got, tc.want)
		}
	}
}
