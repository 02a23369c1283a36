#!/usr/bin/env bash
# Builds what a GPU machine without Go needs to run stagnb, for the device runs of the GPU issue:
#   bin/stag          the CLI (cgo on, so go-xla can load a CUDA PJRT plugin), stripped;
#   bin/stagnb.test   the core library's tests, to run on the GPU backend;
#   .data/datasets/   a copy of the datasets (from $STAGNB_DATA), which the GPU machine cannot download;
#   .data/gpu-results.tar.gz  once a reproduce stage has run: the records of the GPU's reproduce stages
#                     ($OUT/results.tar.gz of the last call, copied here), carried back and forth.
# All are git-ignored; the rest of .data/ (scratch runs, say) is left alone. The script prints the
# sizes (a device call carries at most 64 MB) and the commands to run there: the stages of
# scripts/gpu-run.sh.
#
# Usage: STAGNB_DATA=/path/to/datasets bash scripts/gpu-bundle.sh
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "$ROOT"
say() { printf '[gpu-bundle] %s\n' "$*"; }

[[ -n "${STAGNB_DATA:-}" && -d "$STAGNB_DATA" ]] || { say "set STAGNB_DATA to the datasets folder"; exit 1; }

export GOEXPERIMENT=simd CGO_ENABLED=1
mkdir -p bin
say "go build bin/stag"
GOFLAGS=-buildvcs=true go build -trimpath -ldflags='-s -w' -o bin/stag ./cmd/stag
say "go test -c bin/stagnb.test"
go test -c -trimpath -ldflags='-s -w' -o bin/stagnb.test ./stagnb

if command -v objdump >/dev/null; then
  # A cgo binary needs the C library it was linked against, or newer: the GPU machine's must be.
  say "bin/stag needs glibc >= $(objdump -T bin/stag | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1 | cut -d_ -f2)"
fi

say "copy the datasets to .data/datasets/"
# cp keeps the modes of a read-only source: make the last copy writable so that it can be replaced.
if [[ -d .data/datasets ]]; then chmod -R u+w .data/datasets; fi
rm -rf .data/datasets
mkdir -p .data/datasets
for d in cora citeseer esol freesolv; do
  if [[ -d "$STAGNB_DATA/$d" ]]; then cp -r "$STAGNB_DATA/$d" .data/datasets/; fi
done
chmod -R u+w .data/datasets

# What a device call carries: the repository's tracked and untracked, not ignored, files, and these.
# Only the check stage runs the core tests (bin/stagnb.test); the others need bin/stag alone, which
# leaves room for the records. The device refused 66.4 million bytes (63.3 MiB) of binaries, data
# and files, under its stated 64 MiB: measure against 64 million bytes.
limit=64000000
extra=()
if [[ -f .data/gpu-results.tar.gz ]]; then extra+=(.data/gpu-results.tar.gz); fi
# (du skips tracked files deleted from the working tree; outside a checkout the count is 0.)
tree=$({ git ls-files -z --cached --others --exclude-standard 2>/dev/null | xargs -0 -r du -cb 2>/dev/null || true; } |
  awk '$2 == "total" {s += $1} END {print s + 0}')
size() { echo $(($(du -cb "$@" | tail -1 | cut -f1) + tree)); }
with_tests=$(size bin .data/datasets ${extra[@]+"${extra[@]}"})
without=$(size bin/stag .data/datasets ${extra[@]+"${extra[@]}"})
say "with the repository's files: $((with_tests / 1000000)) MB with bin/ (check), $((without / 1000000)) MB with bin/stag alone (the other stages); a device call carries at most $((limit / 1000000)) MB"
if ((without > limit)); then
  say "too large to carry, even without the core tests"
  exit 1
fi
if ((with_tests > limit)); then
  # check trains on Cora alone.
  if (($(size bin .data/datasets/cora) > limit)); then
    say "check does not fit in a call, even with Cora alone"
  else
    say "check fits with Cora alone: carry [\"bin\", \".data/datasets/cora\"] in its call"
  fi
fi
cat <<'EOF'
[gpu-bundle] carry: ["bin", ".data/datasets", ".data/gpu-results.tar.gz"], or "bin/stag" for "bin" in the calls that
run no check; then on the GPU machine, from the repository root, one device call (at most 10 minutes) per line;
scripts/gpu-run.sh says what each stage writes under $OUT (plain files only, which is all the device brings back):
  bash scripts/gpu-run.sh all                      # check, bench, then Table 2 for the time left of 570 s (set
                                                   # STAGNB_CALL_SECONDS to the call's limit less 30 when it is
                                                   # shorter): one call where the session's device time allows
                                                   # one and the carry fits (it runs check: bin/, above); or,
                                                   # stage by stage:
  bash scripts/gpu-run.sh check                    # backend and device, core tests, a quick Cora training
  bash scripts/gpu-run.sh bench                    # every method beside the PyTorch Geometric peer
  bash scripts/gpu-run.sh xla-flags                # compile and step times under XLA_FLAGS settings
  bash scripts/gpu-run.sh tables table3 table4 table7
                                                   # the reproduce stages of up to six tables at once (below),
                                                   # for the call's time (STAGNB_CALL_SECONDS, default 570)
  bash scripts/gpu-run.sh reproduce table2 -datasets cora,citeseer,esol,freesolv -jobs 8   # exit 75: repeat,
      # copying $OUT/results.tar.gz (all the records so far) to .data/gpu-results.tar.gz here between calls, so
      # that the next call carries the records and skips them; -jobs 8 overlaps the runs' XLA compilations (3 per
      # run, on the CPU) and their small GPU steps. The whole table trains on the GPU (results/'s CPU records are not
      # read); its records go under results/<card>/, beside the CPU's (say in results/README.md which card made
      # which number).
The backend chooser finds JAX's CUDA plugin (jax_plugins/xla_cuda*/xla_cuda_plugin.so) by itself; set
STAGNB_PJRT_PLUGIN=/path/to/plugin.so to name another.
EOF
