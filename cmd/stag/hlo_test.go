package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hloDump is an optimized module as XLA's GPU compiler dumps it (shortened): a loop fusion, an
// unfused scatter, a cuBLAS call and a reduction fusion run; parameters, a constant, a
// get-tuple-element, a bitcast and the result tuple do not.
const hloDump = `HloModule TrainStep, is_scheduled=true, entry_computation_layout={(f32[4]{0}, s32[3]{0})->(f32[], f32[4]{0})}

%fused_computation (param_0: f32[4]) -> f32[4] {
  %param_0 = f32[4]{0} parameter(0)
  ROOT %multiply.1 = f32[4]{0} multiply(f32[4]{0} %param_0, f32[4]{0} %param_0)
}

ENTRY %main.10 (Arg_0.1: f32[4], Arg_1.2: s32[3]) -> (f32[], f32[4]) {
  %Arg_0.1 = f32[4]{0} parameter(0)
  %Arg_1.2 = s32[3]{0} parameter(1)
  %constant.3 = f32[] constant(0)
  %fusion = f32[4]{0} fusion(f32[4]{0} %Arg_0.1), kind=kLoop, calls=%fused_computation
  %scatter.4 = f32[4]{0} scatter(f32[4]{0} %fusion, s32[3]{0} %Arg_1.2, f32[3]{0} %fusion), update_window_dims={}, to_apply=%add
  %custom-call.5 = (f32[4,4]{1,0}, s8[0]{0}) custom-call(f32[4]{0} %fusion), custom_call_target="__cublas$gemm"
  %get-tuple-element.6 = f32[4,4]{1,0} get-tuple-element((f32[4,4]{1,0}, s8[0]{0}) %custom-call.5), index=0

  %bitcast.7 = f32[16]{0} bitcast(f32[4,4]{1,0} %get-tuple-element.6)
  fusion.1 = f32[] fusion(f32[16]{0} %bitcast.7), kind=kInput, calls=%fused_computation.1
  ROOT %tuple.8 = (f32[], f32[4]{0}) tuple(f32[] %fusion.1, f32[4]{0} %scatter.4)
}
`

// hloLoopDump is a module whose entry runs a While loop (the Monte-Carlo samples, say): the body's
// two fusions and scatter run on every turn, the condition's compare is not counted.
const hloLoopDump = `HloModule MonteCarlo, entry_computation_layout={(f32[4]{0})->f32[4]{0}}

%body.1 (state: (s32[], f32[4])) -> (s32[], f32[4]) {
  %state = (s32[], f32[4]{0}) parameter(0)
  %gte.0 = s32[] get-tuple-element((s32[], f32[4]{0}) %state), index=0
  %fusion.2 = s32[] fusion(s32[] %gte.0), kind=kLoop, calls=%inc
  %gte.1 = f32[4]{0} get-tuple-element((s32[], f32[4]{0}) %state), index=1
  %fusion.3 = f32[4]{0} fusion(f32[4]{0} %gte.1), kind=kLoop, calls=%sample
  %scatter.4 = f32[4]{0} scatter(f32[4]{0} %fusion.3, s32[3]{0} %idx, f32[3]{0} %upd), to_apply=%add
  ROOT %tuple.5 = (s32[], f32[4]{0}) tuple(s32[] %fusion.2, f32[4]{0} %scatter.4)
}

%cond.1 (state: (s32[], f32[4])) -> pred[] {
  %state = (s32[], f32[4]{0}) parameter(0)
  %gte.0 = s32[] get-tuple-element((s32[], f32[4]{0}) %state), index=0
  %constant.1 = s32[] constant(32)
  ROOT %compare.2 = pred[] compare(s32[] %gte.0, s32[] %constant.1), direction=LT
}

ENTRY %main.9 (Arg_0.1: f32[4]) -> f32[4] {
  %Arg_0.1 = f32[4]{0} parameter(0)
  %fusion = f32[4]{0} fusion(f32[4]{0} %Arg_0.1), kind=kLoop, calls=%first
  %constant.2 = s32[] constant(1)
  %tuple.3 = (s32[], f32[4]{0}) tuple(s32[] %constant.2, f32[4]{0} %fusion)
  %while.4 = (s32[], f32[4]{0}) while((s32[], f32[4]{0}) %tuple.3), condition=%cond.1, body=%body.1
  ROOT %get-tuple-element.5 = f32[4]{0} get-tuple-element((s32[], f32[4]{0}) %while.4), index=1
}
`

// TestSummarizeHLO checks "stag bench -hlo": the instructions that run, by opcode, for each module
// of a dump, and clear errors for a folder without modules and for a file that is not HLO.
func TestSummarizeHLO(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "deterministic")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(sub, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("module_0003.TrainStep.sm_9.0_gpu_after_optimizations.txt", hloDump)
	write("module_0003.TrainStep.before_optimizations.txt", "not read")
	write("module_0005.MonteCarlo.sm_9.0_gpu_after_optimizations.txt", hloLoopDump)
	var out strings.Builder
	if err := summarizeHLO(dir, &out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| TrainStep | deterministic/module_0003.TrainStep.sm_9.0_gpu_after_optimizations.txt | 4 | fusion 2, custom-call 1, scatter 1 |  |",
		"| MonteCarlo | deterministic/module_0005.MonteCarlo.sm_9.0_gpu_after_optimizations.txt | 2 | fusion 1, while 1 | 3 (fusion 2, scatter 1) |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary:\n%s\nwant the row\n%s", out.String(), want)
		}
	}

	for _, tc := range []struct {
		name, text, want string
	}{
		{"no ENTRY", "HloModule m\n", "no ENTRY computation"},
		{"not an instruction", "HloModule m\nENTRY %main {\n  what is this\n}\n", ":3: not an HLO instruction"},
		{"a While without its body", "HloModule m\nENTRY %main () -> f32[] {\n  %w = f32[] while(f32[] %x), condition=%c, body=%gone\n}\n", "While body gone is not in the module"},
	} {
		bad := t.TempDir()
		if err := os.WriteFile(filepath.Join(bad, "m_after_optimizations.txt"), []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := summarizeHLO(bad, &out); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "m_after_optimizations.txt") {
			t.Errorf("%s: error %v, want one naming the file and %q", tc.name, err, tc.want)
		}
	}
	if err := summarizeHLO(t.TempDir(), &out); err == nil || !strings.Contains(err.Error(), "dumped nothing") {
		t.Errorf("an empty folder: error %v, want one saying XLA dumped nothing", err)
	}
}
