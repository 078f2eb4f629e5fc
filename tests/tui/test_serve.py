"""``acphost tui --serve``: the app in a real headless browser (Chromium driven by ChromeDriver).

The page's terminal draws on a canvas, so the test reads what the app sends
it: a script installed before the page loads keeps a copy of every terminal
frame the websocket delivers. The test waits for the start screen, types a
prompt into the page and sees the agent's answer in the transcript.

The page is opened at the address the server printed, token included (the
token's checks are in ``test_serve_auth.py``).

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` and
``textual-serve`` packages; skipped without them, except under CI.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest

from acphost.tui._serve import is_loopback, served_command

from .serving import start

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

# Keeps the text of every binary websocket message (the terminal's output).
CAPTURE = """
(() => {
  window.__term = "";
  const Native = window.WebSocket;
  window.WebSocket = function (...args) {
    const ws = new Native(...args);
    ws.addEventListener("message", (e) => {
      if (typeof e.data !== "string") window.__term += new TextDecoder().decode(e.data);
    });
    return ws;
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, Native);
})();
"""


def test_served_command_drops_the_serving_options():
    argv = ["ws", "--serve", "--host", "0.0.0.0", "--port=9000", "--write", "-a", "demo"]
    assert served_command(argv)[1:] == ["-m", "acphost", "tui", "ws", "--write", "-a", "demo"]
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.com")


def _browser_or_skip():
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(p)]
    try:
        import selenium  # noqa: F401
        import textual_serve  # noqa: F401
    except ImportError as exc:
        missing.append(str(exc))
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"the browser test needs {missing} (install them in .ci/run)")
        pytest.skip(f"no headless browser here: {missing}")


def _wait_until(predicate, timeout: float, what: str):
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


@pytest.fixture
def served(tmp_path, workspace):
    _browser_or_skip()
    server = start(tmp_path, workspace)
    try:
        assert server.process.poll() is None, server.err
        yield server.url  # the address printed, with its token
    finally:
        server.stop()


def test_the_page_runs_the_app_and_shows_the_transcript(served, tmp_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1200,900",
        f"--user-data-dir={tmp_path / 'chromium'}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CAPTURE})
        driver.get(served)

        def seen() -> str:
            return driver.execute_script("return window.__term || ''")

        _wait_until(lambda: "connected" in seen(), 60, "the start screen in the page")
        assert "acphost demo agent" in seen()
        box = driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea")
        box.send_keys("echo hello-from-the-browser")
        box.send_keys(Keys.ENTER)
        _wait_until(lambda: "end_turn" in seen(), 60, "the turn to end")
        _wait_until(lambda: seen().count("hello-from-the-browser") >= 2, 30, "the echo")
        driver.save_screenshot(str(tmp_path / "served.png"))
    finally:
        driver.quit()
