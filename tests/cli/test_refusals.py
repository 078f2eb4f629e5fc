"""A run whose requests were refused says so once on stderr, with what would allow them.

Without a permission flag every write and command is answered "reject"; the
run still exits 0. The user must learn why nothing was written: one line at
the end of the run, by kind, and a line of its own for protected paths.
Replayed with the hostile agent against the real ``acphost`` over real pipes.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests.support.in_process import run_main

HOSTILE = str(Path(__file__).parents[1] / "host" / "hostile_agent.py")


def run(tmp_path, ws, steps, *flags):
    r = run_main(
        ["-o", "simple", *flags, "--agent-command", f"{sys.executable} {HOSTILE}", "go"],
        cwd=ws,
        env={**os.environ, "HOSTILE_STEPS": json.dumps(steps), "ACPHOST_SETTINGS": "",
             "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "ACPHOST_NO_HISTORY": "1"},
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), r.stderr


def _edit_permission(path):
    return ["session/request_permission", {
        "sessionId": "$SID",
        "toolCall": {"toolCallId": "t1", "title": "Edit", "kind": "edit",
                     "locations": [{"path": path}]},
        "options": [{"optionId": "y", "name": "Allow", "kind": "allow_once"},
                    {"optionId": "n", "name": "Reject", "kind": "reject_once"}],
    }]  # fmt: skip


TERMINAL = ["terminal/create", {"sessionId": "$SID", "command": "true", "cwd": "$CWD"}]


def test_refusals_without_a_flag_are_said_once_by_kind(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    steps = [_edit_permission("$CWD/a.txt"), TERMINAL, TERMINAL]
    answers, stderr = run(tmp_path, ws, steps)
    assert answers[0]["result"]["outcome"]["optionId"] == "n"
    assert all("error" in a for a in answers[1:])
    assert stderr.splitlines() == [
        "acphost: rejected 3 requests (writes, commands); use --write, --ask or --approve-all"
    ]


def test_a_protected_path_is_mentioned_apart(tmp_path):
    ws = tmp_path / "ws"
    (ws / ".git" / "hooks").mkdir(parents=True)
    write = ["fs/write_text_file",
             {"sessionId": "$SID", "path": "$CWD/.git/hooks/pre-commit", "content": "x"}]  # fmt: skip
    answers, stderr = run(tmp_path, ws, [write, _edit_permission("$CWD/ok.txt")], "--write")
    assert "error" in answers[0]
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("acphost: refused to touch protected paths (")
    assert os.path.join(os.path.realpath(ws), ".git") in lines[0]
    assert "--permission-policy" in lines[0]


def test_nothing_refused_nothing_said(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    answers, stderr = run(tmp_path, ws, [_edit_permission("$CWD/a.txt"), TERMINAL], "--write")
    assert answers[0]["result"]["outcome"]["optionId"] == "y"
    assert stderr == ""


def test_many_protected_paths_make_one_bounded_line(tmp_path):
    """An agent asking for thousands of protected paths made a line of 600 kB."""
    ws = tmp_path / "ws"
    ws.mkdir()
    deep = "/".join(["d" * 30] * 5)
    writes = [
        ["fs/write_text_file",
         {"sessionId": "$SID", "path": f"$CWD/{deep}{n}/.git/x", "content": "x"}]
        for n in range(200)
    ]  # fmt: skip
    answers, stderr = run(tmp_path, ws, writes, "--write")
    assert all("error" in a for a in answers)
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr[:500]
    assert len(lines[0]) < 1200, len(lines[0])
    assert lines[0].count(".git") == 5
    assert "and 195 more" in lines[0]
