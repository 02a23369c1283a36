#!/usr/bin/env bash
# Installs what the stagnb images need; docker/Dockerfile and docker/Dockerfile.cuda run it, and
# docker/docker_test.go runs it with --dry-run. Three steps:
#   1. go: Go 1.26.8 from the official tarball into $GO_PREFIX/go, unless a Go >= 1.26.8 is on PATH;
#   2. setup: scripts/setup.sh (Go modules, gonb/goimports/staticcheck/gopls in .tools/bin, JupyterLab in .venv,
#      the GoNB kernel); it is idempotent;
#   3. cuda-plugin, with STAGNB_CUDA=1: JAX's CUDA 12 PJRT plugin and NVIDIA's CUDA 12 libraries,
#      pinned wheels, into .venv; prints the plugin's path for STAGNB_PJRT_PLUGIN.
#
# Usage: bash docker/install.sh [--dry-run]
#   --dry-run  print each step it would take or skip, and check the prerequisites of the steps it
#              would take, without installing or downloading anything; exit 0 when all are present.
#
# Environment:
#   GO_SHA256           sha256 of go1.26.8.linux-amd64.tar.gz; required when step 1 has to install Go
#   GO_PREFIX           where step 1 unpacks Go (default /usr/local, giving /usr/local/go/bin/go)
#   STAGNB_CUDA=1       run step 3
#   STAGNB_PJRT_PLUGIN  if set, the path where the plugin must land (docker/Dockerfile.cuda sets it)
#   XLA_FLAGS           if it sets --xla_gpu_cuda_data_dir, that must be the pip CUDA nvcc directory
#   PYTHON              the Python that creates .venv, passed on to scripts/setup.sh (default python3)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
VENV="$ROOT/.venv"
PYTHON="${PYTHON:-python3}"
GO_PREFIX="${GO_PREFIX:-/usr/local}"

GO_VERSION="1.26.8"
GO_URL="https://go.dev/dl/go${GO_VERSION}.linux-amd64.tar.gz"
# The sha256 of $GO_URL. It is not written here because this file was written where go.dev cannot be
# reached, and a checksum must never be guessed: when the image is first built, take it from the
# SHA256 column of go1.26.8.linux-amd64.tar.gz on https://go.dev/dl/, check it, and either pass it
# (docker build --build-arg GO_SHA256=...) or pin it here as the default.
GO_SHA256="${GO_SHA256:-}"
MIN_GO="1.26.8"
MIN_PY="3.10"

# JAX's CUDA 12 PJRT plugin (jax_plugins/xla_cuda12/xla_cuda_plugin.so, in jax-cuda12-pjrt) and,
# through jax-cuda12-plugin's with-cuda extra, NVIDIA's CUDA 12 pip libraries, which the plugin finds
# through its RPATH ($ORIGIN/../../nvidia/*/lib) in the same site-packages.
# How 0.10.2 was chosen (2026-11): PyPI's release list (pip index versions) has jax-cuda12-plugin up
# to 0.12.0.1, but 0.11.0 and later require Python >= 3.12; 0.10.2 is the newest that installs on both
# CPython 3.11 (the project's tested Python) and 3.12 (Ubuntu 24.04, in the images). Its plugin
# reports PJRT C API 0.112 (read from GetPjrtApi()): newer than the 0.104 header that go-xla v0.4.5
# is built with, the direction go-xla's own CI takes with its 0.114 CPU plugin (pjrt-cpu-binaries
# v0.114.0). The NVIDIA versions are those pip resolved for jax-cuda12-plugin[with-cuda]==0.10.2 on
# 2026-11-23 (CUDA 12.9, cuDNN 9.28), pinned so that every build gets the same libraries.
CUDA_MIN_PY="3.11"
CUDA_PINS=(
  "jax-cuda12-plugin[with-cuda]==0.10.2"
  "jax-cuda12-pjrt==0.10.2"
  "nvidia-cublas-cu12==12.9.3.13"
  "nvidia-cuda-cccl-cu12==12.9.27"
  "nvidia-cuda-cupti-cu12==12.8.90"
  "nvidia-cuda-nvcc-cu12==12.9.86"
  "nvidia-cuda-nvrtc-cu12==12.9.86"
  "nvidia-cuda-runtime-cu12==12.9.79"
  "nvidia-cudnn-cu12==9.28.0.42"
  "nvidia-cufft-cu12==11.4.1.4"
  "nvidia-cusolver-cu12==11.7.5.82"
  "nvidia-cusparse-cu12==12.5.10.65"
  "nvidia-nccl-cu12==2.32.3"
  "nvidia-nvjitlink-cu12==12.9.86"
  "nvidia-nvshmem-cu12==3.8.0"
)

say() { printf '[docker-install] %s\n' "$*"; }
die() { printf '[docker-install] ERROR: %s\n' "$*" >&2; exit 1; }

DRY_RUN=0
for arg in "$@"; do
  case "$arg" in
    --dry-run) DRY_RUN=1 ;;
    *) die "unknown argument '$arg' (usage: bash docker/install.sh [--dry-run])" ;;
  esac
done

# need MESSAGE: a missing prerequisite; fatal at once, or collected and reported at the end of a dry run.
problems=()
need() {
  if ((DRY_RUN)); then problems+=("$1"); else die "$1"; fi
}

# version_ge A B: true if dotted version A >= B (up to three components; a missing one is 0).
version_ge() {
  local a1 a2 a3 b1 b2 b3
  IFS=. read -r a1 a2 a3 _ <<<"$1.."
  IFS=. read -r b1 b2 b3 _ <<<"$2.."
  (( ${a1:-0} != ${b1:-0} ? ${a1:-0} > ${b1:-0} : ${a2:-0} != ${b2:-0} ? ${a2:-0} > ${b2:-0} : ${a3:-0} >= ${b3:-0} ))
}

# go_version BIN: the version of the Go toolchain BIN (e.g. 1.26.8), or "" if it does not run.
go_version() {
  (cd / && GOTOOLCHAIN=local "$1" env GOVERSION 2>/dev/null || true) | sed -nE 's/^go([0-9]+\.[0-9]+(\.[0-9]+)?).*/\1/p'
}

# py_version BIN: the version of the Python interpreter BIN (e.g. 3.12), or "" if it does not run.
py_version() {
  "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true
}

# ---------------------------------------------------------------------------------------------
# 1. Go >= 1.26.8 (go.mod's go line): the one on PATH, one already in $GO_PREFIX/go, or the official tarball.
go_bin="$(command -v go || true)"
go_ver="${go_bin:+$(go_version "$go_bin")}"
if [[ -n "$go_ver" ]] && version_ge "$go_ver" "$MIN_GO"; then
  say "step 1/3 go: skip, go$go_ver is on PATH ($go_bin)"
elif go_ver="$(go_version "$GO_PREFIX/go/bin/go")" && [[ -n "$go_ver" ]] && version_ge "$go_ver" "$MIN_GO"; then
  say "step 1/3 go: skip, go$go_ver is in $GO_PREFIX/go (put first on PATH)"
  export PATH="$GO_PREFIX/go/bin:$PATH"
else
  [[ "$(uname -s)/$(uname -m)" == Linux/x86_64 ]] ||
    need "the Go tarball is for linux/amd64, and this machine is $(uname -s)/$(uname -m)"
  if ! [[ "${GO_SHA256,,}" =~ ^[0-9a-f]{64}$ ]]; then
    sha_state="unset"
    [[ -z "$GO_SHA256" ]] || sha_state="'$GO_SHA256', not a sha256"
    need "GO_SHA256 is $sha_state: set it to the sha256 of go$GO_VERSION.linux-amd64.tar.gz from https://go.dev/dl/ (docker build --build-arg GO_SHA256=...)"
  fi
  for tool in curl tar sha256sum; do
    command -v "$tool" >/dev/null || need "'$tool' is not on PATH (step 1 downloads and unpacks Go with it)"
  done
  [[ ! -e "$GO_PREFIX/go" ]] ||
    need "$GO_PREFIX/go exists but holds no Go >= $MIN_GO: remove it, or set GO_PREFIX to another directory"
  { [[ -d "$GO_PREFIX" && -w "$GO_PREFIX" ]] || [[ ! -e "$GO_PREFIX" && -w "$(dirname "$GO_PREFIX")" ]]; } ||
    need "cannot write to GO_PREFIX=$GO_PREFIX (run as root, or set GO_PREFIX)"
  if ((DRY_RUN)); then
    say "step 1/3 go: would download $GO_URL, check its sha256 and unpack it into $GO_PREFIX/go"
  else
    say "step 1/3 go: downloading $GO_URL"
    tmp="$(mktemp -d)"
    trap 'rm -rf -- "$tmp"' EXIT
    curl -fsSL --retry 3 -o "$tmp/go.tar.gz" "$GO_URL" || die "could not download $GO_URL"
    printf '%s  %s\n' "${GO_SHA256,,}" "$tmp/go.tar.gz" | sha256sum --check --quiet - ||
      die "the sha256 of $GO_URL is $(sha256sum "$tmp/go.tar.gz" | cut -d' ' -f1), not GO_SHA256=$GO_SHA256"
    mkdir -p "$GO_PREFIX"
    tar -C "$GO_PREFIX" -xzf "$tmp/go.tar.gz"
    export PATH="$GO_PREFIX/go/bin:$PATH"
    say "installed $(go version) in $GO_PREFIX/go"
  fi
fi

# ---------------------------------------------------------------------------------------------
# 2. scripts/setup.sh. In a dry run, check its prerequisite besides Go: Python >= 3.10 with venv.
if ((DRY_RUN)); then
  py_bin="$(command -v "$PYTHON" || true)"
  py_ver="${py_bin:+$(py_version "$py_bin")}"
  if [[ -z "$py_ver" ]] || ! version_ge "$py_ver" "$MIN_PY"; then
    need "scripts/setup.sh needs Python >= $MIN_PY: '$PYTHON' is ${py_bin:+version ${py_ver:-unknown} at }${py_bin:-not on PATH}"
  elif ! "$py_bin" -c 'import venv, ensurepip' >/dev/null 2>&1; then
    need "scripts/setup.sh needs the Python modules venv and ensurepip for $py_bin (Debian/Ubuntu: apt-get install python3-venv)"
  fi
  installed=1
  for f in "$VENV/bin/jupyter" "$VENV/share/jupyter/kernels/gonb/kernel.json" \
    "$ROOT/.tools/bin/gonb" "$ROOT/.tools/bin/goimports" "$ROOT/.tools/bin/staticcheck" "$ROOT/.tools/bin/gopls"; do
    [[ -e "$f" ]] || installed=0
  done
  if ((installed)); then
    say "step 2/3 setup: would run scripts/setup.sh, which finds everything installed and only checks it"
  else
    say "step 2/3 setup: would run scripts/setup.sh: Go modules, gonb/goimports/staticcheck/gopls in .tools/bin, JupyterLab in .venv, the GoNB kernel"
  fi
else
  say "step 2/3 setup: scripts/setup.sh"
  bash "$ROOT/scripts/setup.sh"
fi

# ---------------------------------------------------------------------------------------------
# 3. The CUDA PJRT plugin, with STAGNB_CUDA=1.

# site_packages PYVER: the venv's site-packages (where it will be, for Python PYVER, before setup.sh made it).
site_packages() {
  "$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' 2>/dev/null ||
    printf '%s\n' "$VENV/lib/python$1/site-packages"
}

# pins_installed SITE: every pinned wheel has its .dist-info in SITE.
pins_installed() {
  local pin name
  for pin in "${CUDA_PINS[@]}"; do
    name="${pin%%==*}"
    name="${name%%\[*}"
    [[ -d "$1/${name//-/_}-${pin##*==}.dist-info" ]] || return 1
  done
}

# check_env PLUGIN NVCC_DIR: the environment a Dockerfile sets agrees with where the plugin is.
check_env() {
  if [[ -n "${STAGNB_PJRT_PLUGIN:-}" && "$STAGNB_PJRT_PLUGIN" != "$1" ]]; then
    need "STAGNB_PJRT_PLUGIN=$STAGNB_PJRT_PLUGIN, but the plugin is (or would be) at $1: fix the ENV line that sets it (docker/Dockerfile.cuda)"
  fi
  if [[ "${XLA_FLAGS:-}" == *--xla_gpu_cuda_data_dir=* && "$XLA_FLAGS" != *"--xla_gpu_cuda_data_dir=$2"* ]]; then
    need "XLA_FLAGS='$XLA_FLAGS' sets another CUDA data dir than $2 (ptxas and libdevice): fix the ENV line that sets it (docker/Dockerfile.cuda)"
  fi
}

if [[ "${STAGNB_CUDA:-}" != 1 ]]; then
  say "step 3/3 cuda-plugin: skip, STAGNB_CUDA is not 1 (no jax-cuda12-plugin; the pure-Go backend)"
else
  [[ "$(uname -s)/$(uname -m)" == Linux/x86_64 ]] ||
    need "the pinned CUDA wheels are resolved for linux/x86_64, and this machine is $(uname -s)/$(uname -m)"
  venv_py="$(py_version "$VENV/bin/python")"
  py_ver="${venv_py:-$(py_version "$(command -v "$PYTHON" || echo "$PYTHON")")}"
  if [[ -z "$py_ver" ]] || ! version_ge "$py_ver" "$CUDA_MIN_PY"; then
    need "jax-cuda12-plugin 0.10.2 needs Python >= $CUDA_MIN_PY in .venv; it has ${py_ver:-none}"
  fi
  site="$(site_packages "$py_ver")"
  plugin="$site/jax_plugins/xla_cuda12/xla_cuda_plugin.so"
  nvcc_dir="$site/nvidia/cuda_nvcc"
  check_env "$plugin" "$nvcc_dir"
  if pins_installed "$site" && [[ -f "$plugin" ]]; then
    say "step 3/3 cuda-plugin: skip, the pinned jax-cuda12-plugin 0.10.2 wheels are in .venv"
  elif ((DRY_RUN)); then
    say "step 3/3 cuda-plugin: would pip-install into .venv: ${CUDA_PINS[*]}"
  else
    say "step 3/3 cuda-plugin: pip install jax-cuda12-plugin 0.10.2 and NVIDIA's CUDA 12 wheels into .venv (about 3 GB)"
    "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q --only-binary=:all: "${CUDA_PINS[@]}"
    for f in "$plugin" "$nvcc_dir/bin/ptxas" "$nvcc_dir/nvvm/libdevice/libdevice.10.bc"; do
      [[ -f "$f" ]] || die "$f is missing after the install"
    done
  fi
  say "CUDA PJRT plugin path: $plugin"
  say "  the backend chooser finds it with: export STAGNB_PJRT_PLUGIN=$plugin"
  say "  XLA finds ptxas and libdevice with: export XLA_FLAGS=--xla_gpu_cuda_data_dir=$nvcc_dir"
fi

if ((DRY_RUN)); then
  if ((${#problems[@]})); then
    printf '[docker-install] ERROR: missing prerequisites:\n' >&2
    printf '[docker-install]   - %s\n' "${problems[@]}" >&2
    exit 1
  fi
  say "dry run: the prerequisites are present; nothing was installed or downloaded"
else
  say "done"
fi
