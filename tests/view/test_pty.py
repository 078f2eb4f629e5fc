"""What ``-o text`` shows on a real terminal (a pty): the agent's messages as sent.

The agent is a scripted subprocess over real pipes; acphost runs on a pty, so
the terminal renderer (Markdown, live region) is the one under test.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli.terminal import PtyRun, screen

AGENT = Path(__file__).with_name("script_agent.py")

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")


def chunk(text: str, message_id: str | None = None) -> dict:
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    if message_id is not None:
        update["messageId"] = message_id
    return update


def plan(*entries: tuple[str, str]) -> dict:
    return {
        "sessionUpdate": "plan",
        "entries": [{"content": c, "status": st, "priority": "medium"} for c, st in entries],
    }


def run_script(tmp_path: Path, updates: list[dict]) -> list[str]:
    """The screen lines of ``acphost -o text`` on a pty, the agent sending ``updates``."""
    script = tmp_path / "script.json"
    script.write_text(json.dumps(updates), encoding="utf-8")
    settings = tmp_path / "settings.json"
    agent = {"command": sys.executable, "args": [str(AGENT), str(script)]}
    settings.write_text(json.dumps({"agent_servers": {"script": agent}}), encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "ACPHOST_SETTINGS": str(settings)}
    run = PtyRun(
        ["--no-history", "-a", "script", "-o", "text", "go"], cwd=tmp_path, env=env, cols=100
    )
    assert run.wait() == 0, run.text()
    return [line.rstrip() for line in screen(run.output, cols=100)]


def test_separate_messages_stay_separate(tmp_path):
    lines = run_script(
        tmp_path,
        [chunk("First message", "m1"), chunk(" ends here.", "m1"), chunk("Second one.", "m2")],
    )
    assert "First message ends here." in lines
    assert "Second one." in lines
    first, second = lines.index("First message ends here."), lines.index("Second one.")
    assert second == first + 2 and lines[first + 1] == "", lines


def test_a_line_per_chunk_stream_keeps_its_lines(tmp_path):
    lines = run_script(tmp_path, [chunk(f"line {i}\n") for i in range(1, 6)])
    at = lines.index("line 1")
    assert lines[at : at + 5] == [f"line {i}" for i in range(1, 6)], lines


def test_a_plan_update_prints_what_changed(tmp_path):
    lines = run_script(
        tmp_path,
        [
            plan(("Read the code", "pending"), ("Write the change", "pending")),
            plan(("Read the code", "completed"), ("Write the change", "pending")),
            plan(
                ("Read the code", "completed"),
                ("Write the change", "in_progress"),
                ("Run the tests", "pending"),
            ),
            chunk("done"),
        ],
    )
    shown = [line for line in lines if line.strip()]
    assert shown.count("[plan]") == 3, lines
    # The first plan whole; then only the entry whose status changed; then the
    # changed entry and the added one.
    assert [line.strip() for line in shown if "Read the code" in line] == [
        "· Read the code",
        "✓ Read the code",
    ], lines
    assert [line.strip() for line in shown if "Write the change" in line] == [
        "· Write the change",
        "→ Write the change",
    ], lines
    assert [line.strip() for line in shown if "Run the tests" in line] == [
        "· Run the tests (added)"
    ], lines


@pytest.mark.parametrize("term", ["xterm-256color", "dumb"])
def test_the_cancelling_line_comes_after_the_text_already_streamed(tmp_path, term):
    # xterm: the terminal renderer (its live region); dumb: plain text on a terminal.
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "PATH": "/usr/bin:/bin",
        "XDG_CONFIG_HOME": str(home),
        "ACPHOST_DEMO_STEP": "0.05",
    }
    run = PtyRun(["--no-history", "-a", "demo", "slow"], cwd=tmp_path, env=env, term=term)
    run.read_until(b"slow chunk 3/20")
    run.write(b"\x03")
    assert run.wait() == 130, run.text()
    lines = screen(run.output)
    cancelling = next(i for i, line in enumerate(lines) if "acphost: cancelling" in line)
    third = next(i for i, line in enumerate(lines) if "slow chunk 3/20" in line)
    assert third < cancelling, lines
    assert "slow chunk" not in lines[cancelling], lines  # a line of its own
