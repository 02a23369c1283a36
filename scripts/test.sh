#!/usr/bin/env bash
# The whole test suite: setup (so notebook tests have the GoNB kernel), then
#   gofmt -l (must print nothing), go vet ./..., staticcheck ./... (staticcheck.conf), chromium for the browser test (scripts/browser-deps.sh),
#   go test -count=1 -timeout 40m ./..., kernel registered.
# All stages run; the script fails at the end if any failed.
# Extra arguments are passed to `go test` as flags (e.g. `bash scripts/test.sh -run TestCora -v`).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "$ROOT"

bash "$ROOT/scripts/setup.sh"

export GOEXPERIMENT=simd
export JUPYTER_PATH="$ROOT/.venv/share/jupyter${JUPYTER_PATH:+:$JUPYTER_PATH}"
GO_DIR="$(dirname "$(command -v go)")"
export PATH="$ROOT/.tools/bin:$GO_DIR:$ROOT/.venv/bin:$PATH"

failed=()
stage() { printf '\n[test] === %s\n' "$*"; }
start=$SECONDS

# --- gofmt: tracked (and not-ignored untracked) Go sources, never .tools/.venv.
stage "gofmt -l"
go_files=()
if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  while IFS= read -r f; do
    [[ -f "$f" ]] && go_files+=("$f")
  done < <(git -C "$ROOT" ls-files --cached --others --exclude-standard -- '*.go' | sort -u)
else
  while IFS= read -r f; do
    go_files+=("$f")
  done < <(find . \( -path ./.tools -o -path ./.venv -o -path ./.git -o -path ./.data -o -path ./.jupyter \) -prune \
    -o -type f -name '*.go' -print | sort)
fi
go_files_filtered=()
for f in ${go_files[@]+"${go_files[@]}"}; do
  case "$f" in
    ./.tools/* | .tools/* | ./.venv/* | .venv/*) ;;
    *) go_files_filtered+=("$f") ;;
  esac
done
if ((${#go_files_filtered[@]} == 0)); then
  echo "[test] no Go files found"
else
  gofmt_rc=0
  unformatted="$(gofmt -l "${go_files_filtered[@]}")" || gofmt_rc=$?
  if [[ -n "$unformatted" ]]; then
    echo "[test] these files need gofmt -w:"
    sed 's/^/  /' <<<"$unformatted"
  fi
  if ((gofmt_rc != 0)); then
    echo "[test] gofmt failed (exit $gofmt_rc; syntax errors are printed above)"
    failed+=("gofmt")
  elif [[ -n "$unformatted" ]]; then
    failed+=("gofmt")
  else
    echo "[test] ${#go_files_filtered[@]} Go files are gofmt-clean"
  fi
fi

# --- go vet
stage "go vet ./..."
go vet ./... || failed+=("go vet")

# --- staticcheck: its default checks, less the ones staticcheck.conf turns off
stage "staticcheck ./..."
staticcheck ./... || failed+=("staticcheck")

# --- chromium for the headless-browser test (installed when missing and we may; see the script)
stage "chromium and chromedriver"
bash "$ROOT/scripts/browser-deps.sh" || failed+=("chromium")

# --- go test
stage "go test -count=1 -timeout 40m $* ./..."
go test -count=1 -timeout 40m "$@" ./... || failed+=("go test")

# --- the GoNB kernel is registered in the venv
stage "jupyter kernelspec list"
if specs="$("$ROOT/.venv/bin/jupyter" kernelspec list 2>/dev/null)" && grep -qE '^\s+gonb\s' <<<"$specs"; then
  grep -E '^\s+gonb\s' <<<"$specs"
else
  echo "[test] the gonb kernel is not registered in .venv"
  failed+=("kernelspec")
fi

elapsed=$((SECONDS - start))
echo
if ((${#failed[@]})); then
  echo "[test] FAIL: ${failed[*]} (${elapsed}s)"
  exit 1
fi
echo "[test] PASS: gofmt, go vet, staticcheck, go test, kernel (${elapsed}s)"
