"""Execute one notebook with the GoNB kernel through nbclient, for notebooks_test.go.

    python execute.py IN.ipynb OUT.ipynb CELL_TIMEOUT_SECONDS

The kernel runs in IN's folder (GONB_DIR, which the notebooks' setup cells use to find the
repository). Every cell's start and end is logged to stderr with its index, id and duration, so
that a slow or stuck cell is named in the test's log. The executed notebook is written to OUT even
when execution stops early (a cell timeout or a dead kernel): the test then reads what did run.
Error outputs do not stop the execution (the test reports them).
Exit status: 0 when every cell ran, 3 when execution stopped early.
"""

import os
import sys
import time

import nbformat
from nbclient import NotebookClient


def main():
    src, dst, cell_timeout = sys.argv[1], sys.argv[2], int(sys.argv[3])
    nb = nbformat.read(src, as_version=4)
    started = {}

    def log(msg):
        print(f"[execute {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)

    def first_line(cell):
        for line in cell.source.splitlines():
            if line.strip():
                return line.strip()[:80]
        return ""

    def on_start(cell, cell_index):
        if cell.cell_type == "code":
            started[cell_index] = time.time()
            log(f"cell {cell_index} ({cell.get('id')}) started: {first_line(cell)}")

    def on_executed(cell, cell_index, execute_reply):
        status = execute_reply.get("content", {}).get("status", "?")
        log(f"cell {cell_index} ({cell.get('id')}) {status} in {time.time() - started[cell_index]:.1f} s")

    client = NotebookClient(
        nb,
        kernel_name="gonb",
        timeout=cell_timeout,
        allow_errors=True,
        record_timing=True,
        resources={"metadata": {"path": os.path.dirname(os.path.abspath(src))}},
        on_cell_start=on_start,
        on_cell_executed=on_executed,
    )
    status = 0
    t0 = time.time()
    try:
        client.execute()
    except Exception as e:  # CellTimeoutError, DeadKernelError, ...
        log(f"execution stopped after {time.time() - t0:.1f} s: {type(e).__name__}: {e}")
        status = 3
    tmp = dst + ".tmp"
    nbformat.write(nb, tmp)
    os.replace(tmp, dst)
    log(f"wrote {dst} ({time.time() - t0:.1f} s)")
    sys.exit(status)


if __name__ == "__main__":
    main()
