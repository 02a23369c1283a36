#!/usr/bin/env bash
# Runs the GPU measurements on a machine without Go, from what scripts/gpu-bundle.sh built (bin/stag,
# bin/stagnb.test, .data/datasets/). Each stage fits in one 10-minute device call and leaves its log and
# results under $OUT (default .data/gpu-out) as at most seven plain files, none in a subfolder, so that all
# of them come back from the device (it returns at most 8 files, and no folder tree of records):
#
#   check                        the backend and device (backend.json), a quick Cora training on them
#                                (quick.tar.gz: its records) and the core tests (core-tests.log; stopped
#                                after $STAGNB_CORE_TEST_SECONDS, default 180, exit 75;
#                                $STAGNB_CORE_TEST_RUN: a regular expression of the top-level tests to
#                                run, e.g. "^TestMonteCarlo" (default: all);
#                                $STAGNB_CORE_TEST_FLAGS: more flags for them, e.g.
#                                "-test.skip TestSparseLayersMatchDense" (not -test.run: see above);
#                                $STAGNB_CORE_TESTS_PASSED: logs of earlier calls' core tests, whose
#                                passed tests are skipped, e.g. "results/h100/core-tests.log";
#                                $STAGNB_CORE_TEST_SHARDS: how many test processes run at once, the
#                                tests dealt out among them by turns, default 6; they run even when
#                                the quick training fails, and check then exits with its status)
#   bench [stag bench flags]     every method's ms per step and per 32-sample inference beside the
#                                PyTorch Geometric peer ($STAGNB_PEER_PYTHON, default python3; left out
#                                with a warning when it lacks torch_geometric): bench.jsonl, bench.md
#   xla-flags [SETTING…]         compile time and step time of two methods (deterministic, and 32-sample
#                                MC inference) under each XLA_FLAGS setting given (default: XLA's own,
#                                --xla_gpu_autotune_level=0, --xla_disable_hlo_passes=constant_folding):
#                                xla-flags-N.jsonl, the N-th setting's records, which name it in their
#                                backend ($STAGNB_BENCH_FLAGS: more bench flags)
#   hlo [METHOD…]                what XLA makes of a step: each method's bench (default: deterministic
#                                and stag_normal) with XLA's HLO dump on, the optimized modules packed
#                                into hlo.tar.gz and summarized by `stag bench -hlo` in hlo.md (the
#                                instructions each call runs, by opcode: fusions, scatters, cuBLAS
#                                calls are kernels), the bench records in hlo-bench.jsonl; exit 1 when
#                                XLA dumped nothing (a backend that is not XLA)
#   reproduce TABLE [flags]      full-protocol runs of `stag reproduce TABLE` into .data/gpu-results/
#                                ($STAGNB_GPU_RESULTS; resumable: finished runs are skipped), stopped
#                                after $STAGNB_STAGE_SECONDS (default 540; exit 75) so that the call ends with its
#                                records, which are then packed, all of them, into $OUT/results.tar.gz.
#                                Copy that file to .data/gpu-results.tar.gz ($STAGNB_GPU_RESULTS.tar.gz)
#                                before the next call, which carries it: the stage first unpacks it into
#                                the folder, keeping the records already there, and so goes on where the
#                                last call stopped, on a fresh machine too. Not results/: it holds CPU
#                                records, which reproduce would skip, so the table would not all run on
#                                the GPU nor its time count them.
#   tables TABLE… [-- FLAGS]     the reproduce stages of up to six tables at the same time, for the time
#                                left of $STAGNB_CALL_SECONDS (default 570; set it to the call's limit_s
#                                less 30), sharing -jobs $STAGNB_JOBS (default 16: 16 ÷ the number of
#                                tables each, at least 1; table2 also with -datasets
#                                cora,citeseer,esol,freesolv, all its columns) and FLAGS: a call's tables
#                                in one command, whose XLA compilations share the CPU's cores (one
#                                table's runs after another's would leave them idle while the first
#                                table's last configurations train). Each stage's log is <TABLE>.log;
#                                they share the records folder, packed once at the end into
#                                results.tar.gz. A table that fails (a run's error) does not stop the
#                                others; exit: the first failure, else 75 when a stage stopped at its
#                                limit or got no time
#   all [reproduce flags]        check, then bench, then reproduce table2 with the flags given (default
#                                -datasets cora,citeseer,esol,freesolv -jobs 8) for the time that is left
#                                of $STAGNB_CALL_SECONDS (default 570; set it to the call's limit_s less
#                                30): the whole measurement in one call, for a session whose device time
#                                allows one ($STAGNB_BENCH_FLAGS: more flags for bench). check and bench
#                                are stopped when the budget runs out; it stops after check when that finds
#                                a GPU the backend does not use.
#
# $STAGNB_BIN names another folder of the binaries (default bin/; bin/stagnb.test is needed by check
# alone). Every stage first writes
# env.txt (GPU, driver, Python packages). Exit status: the stage's own, 75 when `reproduce` stopped
# at its time limit (or a stage of `all` at the call's budget: run again to go on; not 124, which the
# device tool reads as its own time-out), 2 for a usage error, 3 when `check` finds an NVIDIA GPU
# that the backend does not use; `all` exits with the first failure of its stages, else
# reproduce's status.
#
# Usage: bash scripts/gpu-run.sh <check|bench|xla-flags|hlo|reproduce|tables|all> [arguments]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "$ROOT"
say() { printf '[gpu-run] %s\n' "$*"; }

OUT="${OUT:-$ROOT/.data/gpu-out}"
mkdir -p "$OUT"
export STAGNB_DATA="${STAGNB_DATA:-$ROOT/.data/datasets}"
RESULTS="${STAGNB_GPU_RESULTS:-.data/gpu-results}" # relative: the script runs from the checkout
PEER_PYTHON="${STAGNB_PEER_PYTHON:-python3}"

BIN="$(cd "${STAGNB_BIN:-bin}" 2>/dev/null && pwd -P)" || BIN="${STAGNB_BIN:-bin}"
[[ -x "$BIN/stag" ]] || { say "$BIN/stag is missing: run scripts/gpu-bundle.sh where Go is, and carry bin/stag"; exit 2; }
[[ -d "$STAGNB_DATA/cora" ]] || { say "no datasets in $STAGNB_DATA: run scripts/gpu-bundle.sh and carry .data/datasets"; exit 2; }

stage="${1:-}"
[[ -n "$stage" ]] || { say "name a stage: check, bench, xla-flags, hlo, reproduce TABLE, tables TABLE… or all"; exit 2; }
shift

# The environment, once per call (the stages that `all` runs share it): python3 importing torch
# takes seconds.
[[ -n "${STAGNB_ENV_WRITTEN:-}" ]] || {
  echo "date: $(date -u +%FT%TZ)"
  echo "host: $(uname -srm), $(nproc) CPUs, $(ldd --version 2>/dev/null | head -1)"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
  else
    echo "nvidia-smi: not found"
  fi
  "$PEER_PYTHON" -W ignore -c 'import importlib
for m in ("jax", "jaxlib", "torch", "torch_geometric"):
    try:
        print(m, importlib.import_module(m).__version__)
    except Exception as e:
        print(m, "missing:", type(e).__name__)' 2>/dev/null || echo "$PEER_PYTHON: cannot run"
} >"$OUT/env.txt"
[[ -n "${STAGNB_ENV_WRITTEN:-}" ]] || say "$(tr '\n' ';' <"$OUT/env.txt")"

case "$stage" in
check)
  # Only check runs the core tests: the other stages need bin/stag alone, which leaves room in a
  # call's 64 MB for the records.
  [[ -x "$BIN/stagnb.test" ]] || { say "$BIN/stagnb.test is missing: run scripts/gpu-bundle.sh where Go is, and carry bin/ (check runs the core tests)"; exit 2; }
  say "stag backend"
  "$BIN/stag" backend | tee "$OUT/backend.json"
  if [[ -z "${GOMLX_BACKEND:-}" ]] && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 &&
    ! grep -q '"backend":"xla' "$OUT/backend.json"; then
    say "an NVIDIA GPU is here but the backend is not XLA: see the reason above (set STAGNB_PJRT_PLUGIN to the CUDA plugin)"
    exit 3
  fi
  say "a quick Cora training, Deterministic and Normal(1, 0.8): its records in $OUT/quick.tar.gz"
  quick="$(mktemp -d)"
  qrc=0
  "$BIN/stag" reproduce table2 -quick -datasets cora -configs 'deterministic,normal(1,0.8)' -layers 2 -out "$quick" || qrc=$?
  tar -czf "$OUT/quick.tar.gz" -C "$quick" .
  rm -rf "$quick"
  if ((qrc != 0)); then # the core tests may show why, and the call's time is too short to lose
    say "the quick training failed (exit $qrc): running the core tests all the same"
  fi
  cap="${STAGNB_CORE_TEST_SECONDS:-180}"
  flags="${STAGNB_CORE_TEST_FLAGS:-}"
  shards="${STAGNB_CORE_TEST_SHARDS:-6}"
  [[ "$shards" =~ ^[1-9][0-9]*$ ]] || { say "STAGNB_CORE_TEST_SHARDS=$shards: want a whole number of at least 1"; exit 2; }
  # The tests to run: the package's that $STAGNB_CORE_TEST_RUN names (default all), less those that passed in the logs named (a session's
  # calls are short, so each goes on with the rest).
  tests="$(cd stagnb && "$BIN/stagnb.test" -test.list "${STAGNB_CORE_TEST_RUN:-.*}" | grep -E '^(Test|Example)' || true)"
  if [[ -n "${STAGNB_CORE_TESTS_PASSED:-}" ]]; then
    # shellcheck disable=SC2086 # the logs are words
    passed="$(grep -hoE '^--- PASS: (Test|Example)[A-Za-z0-9_]+' $STAGNB_CORE_TESTS_PASSED | cut -d' ' -f3 | sort -u || true)"
    [[ -z "$passed" ]] || tests="$(grep -vxF -f <(printf '%s\n' "$passed") <<<"$tests" || true)"
  fi
  # The tests spread over $shards processes at once, by turns: each test compiles its own graphs, and
  # one process after another leaves most of the CPU's cores idle while XLA compiles (the CUDA
  # backend does not preallocate the GPU's memory, so the processes share it).
  ntests="$(grep -c . <<<"$tests" || true)"
  say "core tests (-test.short $flags): $ntests on that backend in $shards processes at once, for at most ${cap} s: $OUT/core-tests.log"
  rc=0
  if ((ntests > 0)); then
    logs="$(mktemp -d)"
    : >"$OUT/core-tests.log"
    pids=()
    for ((k = 0; k < shards; k++)); do
      names="$(awk -v k="$k" -v n="$shards" '(NR - 1) % n == k' <<<"$tests" | paste -sd'|' -)"
      [[ -n "$names" ]] || continue
      # shellcheck disable=SC2086 # the flags are words (a regular expression has no spaces)
      (cd stagnb && timeout "$cap" "$BIN/stagnb.test" -test.short -test.v -test.run "^($names)\$" $flags) >"$logs/$k.log" 2>&1 &
      pids+=("$k:$!")
    done
    for kp in "${pids[@]}"; do
      src=0
      wait "${kp#*:}" || src=$?
      { echo "=== core tests, process ${kp%%:*} of $shards: exit $src"; cat "$logs/${kp%%:*}.log"; } >>"$OUT/core-tests.log"
      # The worst exit: a failure before a stop at the cap, which says less.
      if ((src != 0 && (rc == 0 || rc == 124))); then rc=$src; fi
    done
    rm -rf "$logs"
  fi
  grep -E '^(--- FAIL|FAIL|PASS|ok)' "$OUT/core-tests.log" | tail -20 || true
  if ((rc == 124)); then
    say "core tests stopped after ${cap} s (STAGNB_CORE_TEST_SECONDS): core-tests.log lists those that ran"
  elif ((rc != 0)); then
    say "core tests failed (exit $rc): see core-tests.log"
  fi
  ((qrc == 0)) || { say "check failed: the quick training (exit $qrc)"; exit "$qrc"; }
  ((rc != 124)) || exit 75
  exit "$rc"
  ;;
bench)
  say "stag bench: ms per step and per inference of every method, in $OUT/bench.jsonl and $OUT/bench.md"
  peer=()
  if "$PEER_PYTHON" -c 'import torch, torch_geometric' 2>/dev/null; then
    peer=(-peer "$PEER_PYTHON")
  else
    say "warning: $PEER_PYTHON cannot import torch and torch_geometric: timing ours only"
  fi
  # bench.jsonl and bench.md are rewritten as each method ends (ours, then the peer's of the same
  # method), so that a call stopped during the bench still brings back the pairs it timed.
  # The defaults -methods all and -steps 100, unless the caller names them: each flag once in the
  # command that the records keep.
  defaults=()
  [[ " $* " =~ \ --?methods[=\ ] ]] || defaults+=(-methods all)
  [[ " $* " =~ \ --?steps[=\ ] ]] || defaults+=(-steps 100)
  "$BIN/stag" bench ${defaults[@]+"${defaults[@]}"} ${peer[@]+"${peer[@]}"} -out "$OUT/bench.jsonl" -markdown "$OUT/bench.md" "$@"
  ;;
xla-flags)
  # The XLA compiler's options against its compile time: on the H100 a method's first step took
  # 10-37 s, nearly all of it compiling. Each argument is one XLA_FLAGS setting ("" for XLA's
  # defaults); each gets a bench of two methods, the fastest to compile and the slowest.
  (($# > 0)) || set -- "" "--xla_gpu_autotune_level=0" "--xla_disable_hlo_passes=constant_folding"
  n=0
  for flags in "$@"; do
    n=$((n + 1))
    say "XLA_FLAGS='$flags': stag bench -methods deterministic,stag_normal_mc into $OUT/xla-flags-$n.jsonl"
    # shellcheck disable=SC2086 # the flags are words
    XLA_FLAGS="$flags" "$BIN/stag" bench -methods deterministic,stag_normal_mc -steps 50 ${STAGNB_BENCH_FLAGS:-} -out "$OUT/xla-flags-$n.jsonl" >/dev/null
    "$BIN/stag" bench -from "$OUT/xla-flags-$n.jsonl"
  done
  ;;
hlo)
  (($# > 0)) || set -- deterministic stag_normal
  dumps="$(mktemp -d)"
  : >"$OUT/hlo-bench.jsonl"
  for method in "$@"; do
    say "stag bench -methods $method, XLA dumping its optimized HLO into $dumps/$method"
    # shellcheck disable=SC2086 # the flags are words
    XLA_FLAGS="${XLA_FLAGS:+$XLA_FLAGS }--xla_dump_to=$dumps/$method --xla_dump_hlo_as_text" \
      "$BIN/stag" bench -methods "$method" -steps 20 ${STAGNB_BENCH_FLAGS:-} -out "$dumps/$method.jsonl" >/dev/null
    cat "$dumps/$method.jsonl" >>"$OUT/hlo-bench.jsonl"
  done
  "$BIN/stag" bench -from "$OUT/hlo-bench.jsonl"
  n="$(find "$dumps" -name '*after_optimizations.txt' | wc -l)"
  if ((n > 0)); then # packed first: the modules come back even if the summary fails
    (cd "$dumps" && find . -name '*after_optimizations.txt' -print0 | tar -czf "$OUT/hlo.tar.gz" --null -T -)
    say "$n optimized modules packed into $OUT/hlo.tar.gz"
  fi
  rc=0
  "$BIN/stag" bench -hlo "$dumps" >"$OUT/hlo.md" || rc=$?
  if ((rc != 0)); then
    rm -f "$OUT/hlo.md"
    exit "$rc"
  fi
  cat "$OUT/hlo.md"
  ;;
reproduce)
  table="${1:-}"
  [[ -n "$table" ]] || { say "reproduce: name a table, e.g. table2"; exit 2; }
  shift
  limit="${STAGNB_STAGE_SECONDS:-540}"
  mkdir -p "$RESULTS"
  if [[ -f "$RESULTS.tar.gz" ]]; then
    tar -xzf "$RESULTS.tar.gz" -C "$RESULTS" --skip-old-files
    say "$(find "$RESULTS" -name '*.json' | wc -l) records in $RESULTS after unpacking $RESULTS.tar.gz"
  fi
  say "stag reproduce $table -out $RESULTS $* (stopped after ${limit} s)"
  stamp="$(mktemp)" # the records newer than this one are this stage's
  rc=0
  timeout "$limit" "$BIN/stag" reproduce "$table" -out "$RESULTS" "$@" || rc=$?
  tar -czf "$OUT/results.tar.gz" -C "$RESULTS" .
  say "$(find "$RESULTS" -name '*.json' -newer "$stamp" | wc -l) records written by this stage, $(find "$RESULTS" -name '*.json' | wc -l) in all: packed into $OUT/results.tar.gz"
  rm -f "$stamp"
  if ((rc == 124)); then
    say "stopped at the time limit: copy \$OUT/results.tar.gz to $RESULTS.tar.gz where it is carried from, and run the stage again to go on"
    exit 75 # not 124, which the device tool reads as the call's own time-out
  fi
  exit "$rc"
  ;;
tables)
  budget="${STAGNB_CALL_SECONDS:-570}"
  self="$ROOT/scripts/gpu-run.sh"
  export OUT STAGNB_ENV_WRITTEN=1
  names=()
  while (($# > 0)) && [[ "$1" != "--" ]]; do
    names+=("$1")
    shift
  done
  (($# == 0)) || shift # the --: the rest are reproduce flags for every table
  ((${#names[@]} > 0)) || { say "tables: name one or more tables, e.g. tables table2 table7"; exit 2; }
  ((${#names[@]} <= 6)) || { say "tables: at most six tables a call (each writes a log, and the device returns eight files)"; exit 2; }
  left=$((budget - SECONDS - 20)) # the stages stop their training then, and pack the records
  if ((left < 60)); then
    say "tables: no time left for ${names[*]} (${left} s)"
    exit 75
  fi
  # The records of earlier calls, unpacked once before the stages start, which would otherwise
  # unpack the same archive into the same folder at the same time.
  mkdir -p "$RESULTS"
  if [[ -f "$RESULTS.tar.gz" ]]; then
    tar -xzf "$RESULTS.tar.gz" -C "$RESULTS" --skip-old-files
  fi
  per=$((${STAGNB_JOBS:-16} / ${#names[@]}))
  ((per >= 1)) || per=1
  scratch="$(mktemp -d)" # each stage's own $OUT: its archive is superseded by the one below
  pids=()
  for table in "${names[@]}"; do
    flags=(-jobs "$per")
    [[ "$table" != table2 ]] || flags+=(-datasets cora,citeseer,esol,freesolv)
    mkdir -p "$scratch/$table"
    say "tables: $table for ${left} s, its log in $OUT/$table.log"
    OUT="$scratch/$table" STAGNB_STAGE_SECONDS=$left bash "$self" reproduce "$table" "${flags[@]}" "$@" >"$OUT/$table.log" 2>&1 &
    pids+=($!)
  done
  fail=0 stopped=0
  for i in "${!names[@]}"; do
    table="${names[$i]}" code=0
    wait "${pids[$i]}" || code=$?
    say "tables: $table exit $code after ${SECONDS} s of ${budget}"
    grep -E '^\[gpu-run\] (stag reproduce|[0-9]+ records written)|runs trained|^\*\*Agreement' "$OUT/$table.log" || true
    case "$code" in
    0) ;;
    75) stopped=1 ;;
    *) ((fail != 0)) || fail=$code ;;
    esac
  done
  rm -rf "$scratch"
  tar -czf "$OUT/results.tar.gz" -C "$RESULTS" .
  say "$(find "$RESULTS" -name '*.json' | wc -l) records in $RESULTS: packed into $OUT/results.tar.gz"
  ((fail == 0)) || exit "$fail"
  ((stopped == 0)) || exit 75
  exit 0
  ;;
all)
  # SECONDS counts from the start of this script, the environment probe included.
  budget="${STAGNB_CALL_SECONDS:-570}"
  self="$ROOT/scripts/gpu-run.sh"
  export OUT STAGNB_ENV_WRITTEN=1
  # run_stage NAME ARGS…: runs a stage until the budget, less what packing the records needs, is spent.
  run_stage() {
    local limit=$((budget - SECONDS - 45)) code=0
    if ((limit < 20)); then
      say "all: no time left for $1 (${limit} s)"
      return 75
    fi
    timeout "$limit" bash "$self" "$@" || code=$?
    if ((code == 124)); then
      say "all: $1 stopped at the call's budget of ${budget} s"
      return 75
    fi
    return "$code"
  }
  rc=0
  run_stage check || rc=$?
  ((rc != 3)) || exit 3 # the backend is not the GPU's: nothing else would measure it
  code=0
  # shellcheck disable=SC2086 # the flags are words
  run_stage bench ${STAGNB_BENCH_FLAGS:-} || code=$?
  ((rc != 0)) || rc=$code
  left=$((budget - SECONDS - 20)) # reproduce stops its training then, and packs the records
  if ((left < 30)); then
    say "all: no time left to reproduce (${left} s)"
    exit $((rc != 0 ? rc : 75)) # Table 2 is still to run: run again
  fi
  (($# > 0)) || set -- -datasets cora,citeseer,esol,freesolv -jobs 8
  code=0
  STAGNB_STAGE_SECONDS=$left bash "$self" reproduce table2 "$@" || code=$?
  ((rc != 0)) || rc=$code
  exit "$rc"
  ;;
*)
  say "unknown stage $stage: want check, bench, xla-flags, hlo, reproduce TABLE, tables TABLE… or all"
  exit 2
  ;;
esac
