"""A configured value on an agent's overlong stderr line: no piece of it in any crash report.

The transport cuts an agent's stderr lines at 4 KiB before anything can
redact them, so a credential longer than that, printed on one line, used to
reach the crash report as its first 4 KiB: no longer the whole value, so
not recognised. The cut is now marked and the redactor masks the beginning
of a configured value before a mark. A real agent, a real ``acphost``.
"""

from __future__ import annotations

import json
import os
import random
import sys
import textwrap
from pathlib import Path

import pytest

from acphost.safetext import CUT
from tests.cli.runner import run

#: A credential of 10 kB, not repetitive: every 16 characters of it are its own.
SECRET = "".join(
    random.Random(10).choices("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijkl0123456789", k=10_000)
)
WINDOW = 16

AGENT = textwrap.dedent(
    r"""
    import json, os, sys
    def send(obj):
        sys.stdout.write(json.dumps(obj) + "\n"); sys.stdout.flush()
    for raw in sys.stdin:
        msg = json.loads(raw)
        method, rid = msg.get("method"), msg.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid,
                  "result": {"protocolVersion": 1, "agentCapabilities": {}}})
        elif method == "session/new":
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "s1"}})
        elif method == "session/prompt":
            sys.stderr.write("fatal: the key " + os.environ["CUT_AGENT_KEY"] + " was refused\n")
            sys.stderr.flush()
            sys.exit(3)
    """
)


def pieces_of(text: str) -> set[str]:
    """Every 16 characters of the secret that ``text`` holds."""
    grams = {SECRET[i : i + WINDOW] for i in range(len(SECRET) - WINDOW + 1)}
    return {text[i : i + WINDOW] for i in range(len(text) - WINDOW + 1)} & grams


def settings(tmp_path: Path) -> Path:
    agent = tmp_path / "cut_agent.py"
    agent.write_text(AGENT)
    path = tmp_path / "settings.json"
    spec = {"command": sys.executable, "args": [str(agent)], "env": {"CUT_AGENT_KEY": SECRET}}
    path.write_text(json.dumps({"agent_servers": {"cut": spec}}))
    return path


def stored(folder: Path) -> str:
    """Every file under ``folder``, as text (a database's bytes included)."""
    return "\n".join(
        p.read_bytes().decode("latin-1") for p in sorted(folder.rglob("*")) if p.is_file()
    )


def test_the_crash_report_and_the_history_show_no_piece_of_the_value(tmp_path):
    r = run(["--settings", str(settings(tmp_path)), "-o", "simple", "go"], cwd=tmp_path)
    assert r.returncode == 1 and "fatal: the key [REDACTED]" in r.stderr, r.stderr[-3000:]
    assert CUT in r.stderr  # the line was cut, and says so
    assert pieces_of(r.stderr) == set()
    history = stored(Path(os.environ["XDG_DATA_HOME"]))
    assert "fatal: the key [REDACTED]" in history  # the turn's error, with its stderr tail
    assert pieces_of(history) == set()


@pytest.mark.timeout(180)  # a whole batch: workspace copy, agent, report
def test_the_batch_report_shows_no_piece_of_the_value(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "README").write_text("hello\n")
    out = tmp_path / "out"
    r = run(
        ["batch", "--settings", str(settings(tmp_path)), "-a", "cut", "-p", "go",
         "--workspace", str(workspace), "--out", str(out)],
        cwd=tmp_path,
    )  # fmt: skip
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"result.json", "report.md"}, (r.stderr, files)
    written = stored(out)
    assert "fatal: the key [REDACTED]" in written
    assert pieces_of(written) == set()
    assert pieces_of(r.stdout + r.stderr) == set()
    assert pieces_of(stored(Path(os.environ["XDG_DATA_HOME"]))) == set()
