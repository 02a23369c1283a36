#!/usr/bin/env bash
# Installs everything the project needs, inside the repository:
#   - the root module's Go dependencies (go mod download);
#   - GoNB, goimports, staticcheck and gopls, built from the pinned tools modules into <repo>/.tools/bin;
#   - a Python virtualenv <repo>/.venv with the pinned JupyterLab/nbclient/nbconvert/nbformat;
#   - the GoNB kernel ("Go (gonb)"), registered inside the venv (<repo>/.venv/share/jupyter).
# Idempotent: steps whose result is present and up to date are skipped (stamps in <repo>/.tools/stamps).
#
# Environment:
#   PYTHON                 Python interpreter used to create the venv (default: python3).
#   STAGNB_SETUP_FORCE=1   redo every step.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
TOOLS_BIN="$ROOT/.tools/bin"
STAMPS="$ROOT/.tools/stamps"
VENV="$ROOT/.venv"
KERNEL_DATA_DIR="$VENV/share/jupyter"
KERNEL_DIR="$KERNEL_DATA_DIR/kernels/gonb"
REQUIREMENTS="$ROOT/scripts/requirements.txt"
PYTHON="${PYTHON:-python3}"
FORCE="${STAGNB_SETUP_FORCE:-}"

MIN_GO="1.26.8" # go.mod's go line (gomlx v0.28.8 needs 1.26.5)
MIN_PY="3.10"

say() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] ERROR: %s\n' "$*" >&2; exit 1; }

# fingerprint FILE|str:TEXT ...: sha256 over the contents of the files and the literal "str:" texts.
fingerprint() {
  local item
  for item in "$@"; do
    case "$item" in
      str:*) printf '%s\n' "${item#str:}" ;;
      *) if [[ -f "$item" ]]; then cat "$item"; else printf 'missing:%s\n' "$item"; fi ;;
    esac
  done | if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi | cut -d' ' -f1
}
stamp_ok() { [[ -z "$FORCE" && -f "$STAMPS/$1" && "$(cat "$STAMPS/$1")" == "$2" ]]; }
stamp_write() { mkdir -p "$STAMPS"; printf '%s\n' "$2" >"$STAMPS/$1"; }

# version_ge A B: true if dotted version A >= B (up to three components; a missing one is 0).
version_ge() {
  local a1 a2 a3 b1 b2 b3
  IFS=. read -r a1 a2 a3 _ <<<"$1.."
  IFS=. read -r b1 b2 b3 _ <<<"$2.."
  (( ${a1:-0} != ${b1:-0} ? ${a1:-0} > ${b1:-0} : ${a2:-0} != ${b2:-0} ? ${a2:-0} > ${b2:-0} : ${a3:-0} >= ${b3:-0} ))
}

# ---------------------------------------------------------------------------------------------
# 1. Prerequisites: Go >= 1.26.8 (or an older Go that may fetch it, GOTOOLCHAIN not local) and
#    Python >= 3.10 (with venv).
missing=()
GO_BIN="$(command -v go || true)"
if [[ -z "$GO_BIN" ]]; then
  missing+=("Go >= $MIN_GO: 'go' is not on PATH (install from https://go.dev/dl/ and add its bin/ to PATH)")
else
  # The locally installed toolchain, not one that go.mod's "go" line may switch to.
  GO_VERSION="$(cd / && GOTOOLCHAIN=local "$GO_BIN" env GOVERSION 2>/dev/null || true)"
  GO_NUM="$(sed -nE 's/.*go([0-9]+\.[0-9]+(\.[0-9]+)?).*/\1/p' <<<"$GO_VERSION")"
  if [[ -z "$GO_NUM" ]] || ! version_ge "$GO_NUM" "$MIN_GO"; then
    # Go 1.21 and later fetch the toolchain go.mod asks for when GOTOOLCHAIN is auto or <name>+auto.
    GO_TOOLCHAIN="$(cd / && "$GO_BIN" env GOTOOLCHAIN 2>/dev/null || true)"
    if [[ -z "$GO_NUM" ]] || ! version_ge "$GO_NUM" "1.21" || [[ "$GO_TOOLCHAIN" != auto && "$GO_TOOLCHAIN" != *+auto ]]; then
      missing+=("Go >= $MIN_GO: found '${GO_VERSION:-unknown}' at $GO_BIN (GOTOOLCHAIN=${GO_TOOLCHAIN:-unset}: install Go $MIN_GO, or set GOTOOLCHAIN=auto to let go fetch it)")
    else
      say "Go ${GO_NUM} will fetch go${MIN_GO}, which go.mod asks for (GOTOOLCHAIN=${GO_TOOLCHAIN})"
    fi
  fi
fi
PY_BIN="$(command -v "$PYTHON" || true)"
if [[ -z "$PY_BIN" ]]; then
  missing+=("Python >= $MIN_PY: '$PYTHON' is not on PATH (set PYTHON=/path/to/python3 to use another one)")
else
  PY_NUM="$("$PY_BIN" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true)"
  if [[ -z "$PY_NUM" ]] || ! version_ge "$PY_NUM" "$MIN_PY"; then
    missing+=("Python >= $MIN_PY: found '${PY_NUM:-unknown}' at $PY_BIN")
  elif ! "$PY_BIN" -c 'import venv, ensurepip' >/dev/null 2>&1; then
    missing+=("Python module 'venv'/'ensurepip' for $PY_BIN (on Debian/Ubuntu: apt-get install python3-venv)")
  fi
fi
if ((${#missing[@]})); then
  printf '[setup] ERROR: missing prerequisites:\n' >&2
  printf '[setup]   - %s\n' "${missing[@]}" >&2
  exit 1
fi
GO_DIR="$(dirname "$GO_BIN")"
say "go: $GO_VERSION ($GO_BIN); python: $PY_NUM ($PY_BIN)"

# ---------------------------------------------------------------------------------------------
# 2. Go modules of the root module. A no-op (milliseconds) when the module cache already has them.
say "go mod download (root module)"
(cd "$ROOT" && go mod download)

# ---------------------------------------------------------------------------------------------
# 3. Tools: gonb, goimports and staticcheck (tools/go.mod) and gopls (tools/gopls/go.mod; gopls v0.23.0 does not
#    compile against golang.org/x/tools v0.52.0, so it keeps its own module and dependency versions).
tools_key="$(fingerprint "$ROOT/tools/go.mod" "$ROOT/tools/go.sum" "$ROOT/tools/gopls/go.mod" \
  "$ROOT/tools/gopls/go.sum" "str:$(cd "$ROOT/tools" && go env GOVERSION GOOS GOARCH)")"
if stamp_ok tools "$tools_key" && [[ -x "$TOOLS_BIN/gonb" && -x "$TOOLS_BIN/goimports" && -x "$TOOLS_BIN/staticcheck" && -x "$TOOLS_BIN/gopls" ]]; then
  say "tools up to date in .tools/bin (gonb $("$TOOLS_BIN/gonb" -V 2>/dev/null), $("$TOOLS_BIN/gopls" version 2>/dev/null | head -n1))"
else
  say "building gonb, goimports, staticcheck, gopls into .tools/bin (first time: about a minute)"
  mkdir -p "$TOOLS_BIN"
  (cd "$ROOT/tools" && GOBIN="$TOOLS_BIN" go install tool)
  (cd "$ROOT/tools/gopls" && GOBIN="$TOOLS_BIN" go install tool)
  for t in gonb goimports staticcheck gopls; do
    [[ -x "$TOOLS_BIN/$t" ]] || die "$t was not built into $TOOLS_BIN"
  done
  say "built gonb $("$TOOLS_BIN/gonb" -V), $("$TOOLS_BIN/gopls" version | head -n1)"
  stamp_write tools "$tools_key"
fi

# ---------------------------------------------------------------------------------------------
# 4. Python virtualenv with pinned Jupyter packages.
# venv_moved: the venv's scripts name another folder's python (the checkout was moved or renamed),
# so jupyter would not run. pip writes the interpreter on the first line, or, for a path with a space
# or a long one, on the second, which a `#!/bin/sh` first line runs with exec.
venv_moved() { [[ -f "$VENV/bin/jupyter" ]] && ! head -n2 "$VENV/bin/jupyter" | grep -qF "$VENV/bin/python"; }
if [[ -n "$FORCE" ]] || ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1 || venv_moved; then
  if [[ -e "$VENV" ]]; then
    say "recreating broken or stale .venv"
    rm -rf -- "$VENV"
  fi
  say "creating .venv with $PY_BIN"
  "$PY_BIN" -m venv "$VENV"
  rm -f "$STAMPS/venv"
fi
VENV_PY_VERSION="$("$VENV/bin/python" -c 'import sys; print(sys.version)')"
venv_key="$(fingerprint "$REQUIREMENTS" "str:$VENV_PY_VERSION" "str:$VENV")"
if stamp_ok venv "$venv_key" && [[ -x "$VENV/bin/jupyter" ]]; then
  say "python packages up to date in .venv ($(grep -E '^[A-Za-z]' "$REQUIREMENTS" | tr '\n' ' '))"
else
  say "pip install -r scripts/requirements.txt into .venv (first time: 15-60 s)"
  "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input -q -r "$REQUIREMENTS"
  "$VENV/bin/python" -m pip check >/dev/null || say "WARNING: 'pip check' reports inconsistent dependencies in .venv"
  stamp_write venv "$venv_key"
fi

# ---------------------------------------------------------------------------------------------
# 5. GoNB kernel, registered in the venv's data dir (never in ~/.local/share/jupyter).
#    kernel.json must run our gonb by absolute path, with our tools and this Go first on PATH, and
#    GOEXPERIMENT=simd (the pure-Go backend needs it).
KERNEL_PATH_PREFIX="$TOOLS_BIN:$GO_DIR"
# PATH at install time, without the entries we prepend (so re-running does not pile them up).
base_path="$(tr ':' '\n' <<<"$PATH" | { grep -vxF -e "$TOOLS_BIN" -e "$GO_DIR" -e "$VENV/bin" -e '' || true; } | paste -sd: -)"

kernel_check() { # exit 0 if kernel.json is as wanted.
  "$VENV/bin/python" - "$KERNEL_DIR/kernel.json" "$TOOLS_BIN/gonb" "$KERNEL_PATH_PREFIX" <<'PY'
import json, sys
path, gonb, prefix = sys.argv[1:4]
try:
    with open(path) as f:
        k = json.load(f)
except (OSError, ValueError):
    sys.exit(1)
env = k.get("env") or {}
ok = (k.get("argv", [None])[0] == gonb
      and "{connection_file}" in k.get("argv", [])
      and (env.get("PATH", "") + ":").startswith(prefix + ":")
      and env.get("GOEXPERIMENT") == "simd")
sys.exit(0 if ok else 1)
PY
}

kernel_key="$(fingerprint "str:$("$TOOLS_BIN/gonb" -V 2>/dev/null)" "str:$KERNEL_PATH_PREFIX")"
if stamp_ok kernel "$kernel_key" && kernel_check; then
  say "GoNB kernel up to date ($KERNEL_DIR)"
else
  say "registering GoNB kernel in .venv/share/jupyter"
  # goimports and gopls must be on PATH for `gonb --install` (and for the kernel at run time).
  JUPYTER_DATA_DIR="$KERNEL_DATA_DIR" PATH="$KERNEL_PATH_PREFIX:$PATH" "$TOOLS_BIN/gonb" --install
  "$VENV/bin/python" - "$KERNEL_DIR" "$TOOLS_BIN/gonb" "$KERNEL_PATH_PREFIX:$base_path" <<'PY'
import json, os, sys
kdir, gonb, path = sys.argv[1:4]
kfile = os.path.join(kdir, "kernel.json")
with open(kfile) as f:
    k = json.load(f)
# gonb copies itself into the kernel dir when run from a temp or cache dir; always use ours.
k["argv"][0] = gonb
for copied in ("gonb", "gonb~"):
    p = os.path.join(kdir, copied)
    if os.path.isfile(p):
        os.remove(p)
env = k.get("env") or {}
env["PATH"] = path
env["GOEXPERIMENT"] = "simd"
k["env"] = env
with open(kfile + ".tmp", "w") as f:
    json.dump(k, f, indent=1)
    f.write("\n")
os.replace(kfile + ".tmp", kfile)
PY
  kernel_check || die "kernel.json in $KERNEL_DIR is not as expected after patching"
  stamp_write kernel "$kernel_key"
fi

# The kernel must be visible to the venv's Jupyter. A "gonb" kernel in a user-level data dir
# (~/.local/share/jupyter) would shadow ours unless JUPYTER_PATH points here (lab.sh and test.sh do that).
spec_dir="$(JUPYTER_PATH="$KERNEL_DATA_DIR${JUPYTER_PATH:+:$JUPYTER_PATH}" "$VENV/bin/python" -c '
from jupyter_client.kernelspec import KernelSpecManager
print(KernelSpecManager().find_kernel_specs().get("gonb", ""))' 2>/dev/null || true)"
[[ "$spec_dir" == "$KERNEL_DIR" ]] || die "jupyter does not see the gonb kernel in $KERNEL_DIR (found: '${spec_dir:-none}')"
user_spec="$("$VENV/bin/python" -c '
from jupyter_client.kernelspec import KernelSpecManager
print(KernelSpecManager().find_kernel_specs().get("gonb", ""))' 2>/dev/null || true)"
if [[ "$user_spec" != "$KERNEL_DIR" ]]; then
  say "NOTE: another gonb kernel ($user_spec) shadows ours when JUPYTER_PATH is not set; scripts/lab.sh and scripts/test.sh set it."
fi

say "done: tools in .tools/bin, Jupyter in .venv, kernel 'gonb' (Go (gonb)) in .venv/share/jupyter/kernels/gonb"
