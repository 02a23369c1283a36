#!/usr/bin/env bash
# Installs what is missing (scripts/setup.sh), then starts JupyterLab from <repo>/.venv on notebooks/.
#
# Environment:
#   STAGNB_LAB_IP     address to listen on (default 127.0.0.1)
#   STAGNB_LAB_PORT   port (default 8888; Jupyter picks the next free one if it is taken)
# Extra arguments are passed to `jupyter lab`.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
bash "$ROOT/scripts/setup.sh"

export GOEXPERIMENT=simd
# Our kernel (in .venv/share/jupyter) first, ahead of any user-level "gonb" kernel.
export JUPYTER_PATH="$ROOT/.venv/share/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"
# goimports/gopls/gonb and this Go for anything started from the Lab (terminals, kernels).
GO_DIR="$(dirname "$(command -v go)")"
export PATH="$ROOT/.tools/bin:$GO_DIR:$ROOT/.venv/bin:$PATH"

args=(
  --notebook-dir="$ROOT/notebooks"
  --ip="${STAGNB_LAB_IP:-127.0.0.1}"
  --port="${STAGNB_LAB_PORT:-8888}"
  --MappingKernelManager.default_kernel_name=gonb
)
# Jupyter refuses to run as root (containers, CI) without --allow-root.
if [[ "$(id -u)" == 0 ]]; then
  args+=(--allow-root)
fi
# No browser in CI, or without a display (macOS opens a browser without DISPLAY).
if [[ -n "${CI:-}" ]] || { [[ "$(uname -s)" != Darwin ]] && [[ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; }; then
  args+=(--no-browser)
fi

echo "[lab] starting JupyterLab on http://${STAGNB_LAB_IP:-127.0.0.1}:${STAGNB_LAB_PORT:-8888}/ (notebooks/; Ctrl-C to stop)"
exec "$ROOT/.venv/bin/jupyter" lab "${args[@]}" "$@"
