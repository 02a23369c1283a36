"""A stand-in for the browser side of GoNB widgets, for tests.

It starts the gonb kernel as Jupyter Server would for a notebook (JPY_SESSION_NAME set, a
connection file named kernel-<id>.json), runs one notebook's setup cell and one interactive cell,
and answers GoNB's front-end protocol the way gonb's websocket.js does: it opens the "gonb_comm"
comm when the kernel publishes its bootstrap script, answers heartbeats, and sends each widget's
first value. Once the widgets exist it moves the first slider to MOVE_TO and, after the plot has
been redrawn, presses the last button ("Done").

Usage: fake_frontend.py NOTEBOOK SETUP_CELL_ID INTERACTIVE_CELL_ID MOVE_TO
It prints one JSON object: what the interactive cell published and how long it ran.
With NO_ANSWER=1 in the environment it never opens the comm (a front-end without widgets support).
"""
import json
import os
import queue
import re
import sys
import time
import uuid

from jupyter_client import KernelManager

notebook, setup_id, cell_id, move_to = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
answer = os.environ.get("NO_ANSWER") is None
cells = {c["id"]: "".join(c["source"]) for c in json.load(open(notebook))["cells"]}

env = dict(os.environ, JPY_SESSION_NAME=os.path.abspath(notebook))
conn_dir = os.environ.get("FAKE_FRONTEND_DIR", "/tmp")
km = KernelManager(kernel_name="gonb", connection_file=os.path.join(conn_dir, "kernel-%s.json" % uuid.uuid4()))
km.start_kernel(env=env, cwd=os.path.dirname(os.path.abspath(notebook)))
kc = km.client()
kc.start_channels()
kc.wait_for_ready(timeout=120)

state = {"comm_id": None, "sliders": [], "buttons": [], "svg": [], "markdown": [], "errors": [],
         "moved": False, "pressed": False, "svg_at_move": 0}


def send(address, value):
    kc.shell_channel.send(kc.session.msg("comm_msg", {"comm_id": state["comm_id"], "data": {"address": address, "value": value}}))


def handle(msg):
    kind, content = msg["msg_type"], msg["content"]
    if kind in ("display_data", "update_display_data"):
        data = content.get("data", {})
        if "image/svg+xml" in data:
            state["svg"].append([kind, content.get("transient", {}).get("display_id")])
        if "text/markdown" in data:
            state["markdown"].append(data["text/markdown"])
        html = data.get("text/html", "")
        boot = re.search(r'_kernel_id:\s*"([^"]*)"', html)
        if boot and "gonb_comm" in html and state["comm_id"] is None and answer:
            state["comm_id"] = str(uuid.uuid4())
            kc.shell_channel.send(kc.session.msg("comm_open", {
                "comm_id": state["comm_id"], "target_name": "gonb_comm", "kernel_id": boot.group(1), "data": {}}))
        # A slider's script creates its synced variable from the <input>'s value; the <input> was
        # appended (by an earlier script) with value="k".
        for addr in re.findall(r'newSyncedVariable\("([^"]+)",\s*slider\.value\)', html):
            state["sliders"].append(addr)
            send(addr, state["pending_value"].pop(0) if state.get("pending_value") else 0)
        for value in re.findall(r'type=\\?"range\\?"[^>]*value=\\?"(\d+)\\?"', html):
            state.setdefault("pending_value", []).append(int(value))
        for addr in re.findall(r'newSyncedVariable\("([^"]+)",\s*0\)', html):
            state["buttons"].append(addr)
            send(addr, 0)
    elif kind == "comm_msg" and content.get("data", {}).get("address") == "#heartbeat/ping":
        send("#heartbeat/pong", True)
    elif kind == "error":
        state["errors"].append(content.get("evalue", ""))
    if state["buttons"] and not state["moved"]:
        state["moved"], state["svg_at_move"] = True, len(state["svg"])
        send(state["sliders"][0], move_to)
    if state["moved"] and not state["pressed"] and len(state["svg"]) > state["svg_at_move"]:
        state["pressed"] = True
        send(state["buttons"][-1], 1)


def run(code, on_msg, timeout):
    msg_id = kc.execute(code)
    start = time.time()
    while time.time() - start < timeout:
        try:
            msg = kc.get_iopub_msg(timeout=1)
        except queue.Empty:
            continue
        if msg["parent_header"].get("msg_id") != msg_id and msg["msg_type"] != "comm_msg":
            continue
        if on_msg:
            on_msg(msg)
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle" and msg["parent_header"].get("msg_id") == msg_id:
            return time.time() - start
    return None


try:
    run(cells[setup_id], None, 300)
    elapsed = run(cells[cell_id], handle, 300)
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=False)
state.pop("pending_value", None)
state["seconds"] = elapsed
print(json.dumps(state))
