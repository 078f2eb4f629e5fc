"""``acphost tui --serve``: the app in a real headless browser (Chromium driven by ChromeDriver).

The page's terminal draws on a canvas, so the test reads what the app sends
it: a script installed before the page loads keeps a copy of every terminal
frame the websocket delivers. The test waits for the start screen, types a
prompt into the page and sees the agent's answer in the transcript.

The page is opened at the address the server printed, token included; it
leaves the address bar, no cookie is set, and the spent address opened
again in the same browser still gets a page (the keys' checks are in
``test_serve_auth.py``).

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` and
``textual-serve`` packages; skipped without them, except under CI.
"""

from __future__ import annotations

import os
import shutil
import time

import pytest

from acphost.cli._main import tui_parser
from acphost.cli._parser import command_line
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


def test_the_pages_command_is_built_from_the_parsed_options():
    parser = tui_parser()

    def app_argv(*argv: str) -> list[str]:
        args = parser.parse_args(argv)
        return command_line(parser, args, frozenset({"serve", "host", "port"}))

    expected = ["--agent=demo", "--write", "--max-cost=0.5", "--", "ws"]
    assert app_argv("ws", "--serve", "--host", "0.0.0.0", "--port=9000", "--write",
                    "-a", "demo", "--max-cost", "0.5") == expected  # fmt: skip
    # However abbreviated: argparse takes --ser for --serve, --po for --port.
    assert app_argv("ws", "--ser", "--ho", "0.0.0.0", "--po", "9000", "--wr", "-a",
                    "demo", "--max-c", "0.5") == expected  # fmt: skip
    assert app_argv("-vv", "--agent-command", "-x --y", "--", "-dir") == [
        "--agent-command=-x --y", "--verbose", "--verbose", "--", "-dir",
    ]  # fmt: skip
    assert app_argv() == [] and app_argv("--serve") == []
    back = parser.parse_args(app_argv("ws", "--ser", "--yolo", "--max-tokens", "9", "-v"))
    assert (back.path, back.yolo, back.max_tokens, back.verbose, back.serve) == (
        "ws", True, 9, 1, False,
    )  # fmt: skip
    assert served_command(["--write"])[1:] == ["-m", "acphost", "tui", "--write"]
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
        yield server
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
        driver.get(served.url)

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
        # The token left the address bar; no cookie holds a key.
        assert driver.current_url == f"http://127.0.0.1:{served.port}/"
        assert driver.get_cookies() == []
        # The printed address again (as from the history): its token is spent,
        # but this browser keeps its session: a new page, a new agent.
        driver.get(served.url)
        _wait_until(lambda: "connected" in seen(), 60, "the start screen again")
        assert driver.current_url == f"http://127.0.0.1:{served.port}/"
    finally:
        driver.quit()
