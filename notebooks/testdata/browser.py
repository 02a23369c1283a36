"""Opens a notebook in a running JupyterLab with headless Chromium and runs cells as a user would.

Usage: browser.py LAB_URL NOTEBOOK CELL_INDEX[,CELL_INDEX...] SCREENSHOT.png

LAB_URL is the Lab's base URL with its token (http://127.0.0.1:PORT/lab?token=T); the Lab must run
with --LabApp.expose_app_in_browser=True, so that the page's state (kernel name, cell outputs) can be
read. For each cell index, in order, the script selects the cell and clicks the notebook toolbar's
"Run" button, then waits until the cell has executed and its outputs are rendered. It then scrolls
the last cell into view and saves a screenshot. Before running anything it clears the outputs the
notebook was saved with, so that what the cells show comes from this run.

It prints one JSON object: the kernel's display name (from the session and from the toolbar), and per
cell its execution count, output types, rendered images (<img> and <svg> in its output area) and
the start of its text. Errors in the page (a cell that raised, a timeout) are reported in "error";
the exit status is 0 whenever the JSON could be written.

Environment: CHROMIUM and CHROMEDRIVER (default /usr/bin/chromium, /usr/bin/chromedriver),
BROWSER_TIMEOUT (seconds per wait, default 300), BROWSER_PROFILE_DIR (Chromium's profile; default a
new temporary directory).
"""
import json
import os
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

lab_url, notebook, cells_arg, screenshot = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
cells = [int(c) for c in cells_arg.split(",")]
timeout = float(os.environ.get("BROWSER_TIMEOUT", "300"))

# The flags this kind of machine needs (closed network, root, no GPU); see the project's notes.
options = Options()
options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-dev-shm-usage", "--window-size=1400,1800",
             "--user-data-dir=" + (os.environ.get("BROWSER_PROFILE_DIR") or tempfile.mkdtemp(prefix="stagnb-chromium-"))):
    options.add_argument(flag)
service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))

# JavaScript helpers, evaluated in the page. panel() is the notebook's panel once it is open.
PANEL = """
const app = window.jupyterapp;
const panel = app && app.shell && app.shell.currentWidget;
const ok = panel && panel.content && panel.sessionContext && panel.context && panel.context.path;
"""
KERNEL_READY = PANEL + """
if (!ok || !panel.context.path.endsWith(arguments[0])) return null;
const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
// GoNB reports no status before its first execution ("Unknown" in the status bar): a connected
// kernel is ready.
if (!kernel || kernel.connectionStatus !== 'connected') return null;
const toolbar = panel.node.querySelector('.jp-Toolbar-kernelName');
return {display: panel.sessionContext.kernelDisplayName, name: kernel.name, status: kernel.status,
        toolbar: toolbar ? toolbar.innerText.trim() : ''};
"""
SELECT = PANEL + """
panel.content.mode = 'command';
panel.content.activeCellIndex = arguments[0];
panel.content.activeCell.node.scrollIntoView();
return panel.content.activeCellIndex;
"""
RUN_BUTTON = '.jp-NotebookPanel:not(.lm-mod-hidden) [data-command="notebook:run-cell-and-select-next"]'
CELL_STATE = PANEL + """
const cell = panel.content.widgets[arguments[0]];
const model = cell.model;
const outs = [];
for (let i = 0; i < model.outputs.length; i++) {
  const o = model.outputs.get(i).toJSON();
  outs.push({type: o.output_type, mimes: Object.keys(o.data || {}), ename: o.ename || '', evalue: o.evalue || ''});
}
const area = cell.node.querySelector('.jp-OutputArea');
return {count: model.executionCount, executing: cell.node.classList.contains('jp-mod-executing') ||
          (cell.promptNode && cell.promptNode.innerText.indexOf('*') >= 0),
        outputs: outs, images: area ? area.querySelectorAll('img, svg').length : 0,
        text: area ? area.innerText.slice(0, 400) : ''};
"""


def wait(driver, script, *args, done=lambda v: v):
    end = time.time() + timeout
    while True:
        value = driver.execute_script(script, *args)
        if done(value):
            return value
        if time.time() > end:
            raise TimeoutError("waited %.0f s for: %s (last value %r)" % (timeout, script.strip().splitlines()[-1], value))
        time.sleep(0.5)


result = {"kernel": None, "cells": [], "error": None}
driver = webdriver.Chrome(options=options, service=service)
try:
    base = lab_url.split("/lab")[0]
    token = lab_url.split("token=")[-1]
    driver.get("%s/lab/tree/%s?token=%s" % (base, notebook, token))
    result["kernel"] = wait(driver, KERNEL_READY, notebook)
    # The committed notebook carries outputs: clear them (Edit > Clear Outputs of All Cells) so that
    # what the cells show afterwards comes from this run.
    driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs').then(() => done(true), e => done(String(e)));")
    for index in cells:
        wait(driver, SELECT, index, done=lambda v: v == index)
        buttons = driver.find_elements("css selector", RUN_BUTTON)
        if not buttons:
            raise RuntimeError("no Run button (%s) in the notebook's toolbar" % RUN_BUTTON)
        buttons[0].click()
        state = wait(driver, CELL_STATE, index,
                     done=lambda s: s and s["count"] is not None and not s["executing"] and s["outputs"])
        # Images are rendered after the outputs reach the model: give the renderer a moment.
        if any(m.startswith("image/") or m == "text/html" for o in state["outputs"] for m in o["mimes"]):
            try:
                state = wait(driver, CELL_STATE, index, done=lambda s: s["images"] > 0)
            except TimeoutError:
                pass
        state["index"] = index
        result["cells"].append(state)
        errors = [o for o in state["outputs"] if o["type"] == "error"]
        if errors:
            raise RuntimeError("cell %d raised %s: %s" % (index, errors[0]["ename"], errors[0]["evalue"]))
    driver.execute_script("window.jupyterapp.shell.currentWidget.content.widgets[arguments[0]].node.scrollIntoView()", cells[-1])
    time.sleep(1)
    driver.save_screenshot(screenshot)
except Exception as e:  # reported in the JSON; the Go test decides
    result["error"] = "%s: %s" % (type(e).__name__, e)
    try:
        driver.save_screenshot(screenshot)
    except Exception:
        pass
finally:
    driver.quit()
print(json.dumps(result))
