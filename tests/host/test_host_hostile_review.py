"""A security review's hostile agents, replayed against the real ``acphost`` over real pipes.

Each test is one reproduction: the hostile agent process
(``hostile_agent.py``) sends its requests during a turn and reports every
answer; the test checks what the host answered and what happened on disk.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HOSTILE = str(Path(__file__).with_name("hostile_agent.py"))


def run_hostile(
    tmp_path: Path, ws: Path, steps: list[Any], *flags: str, env: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Run ``acphost`` in ``ws`` with the hostile agent playing ``steps``; its answers."""
    r = subprocess.run(
        [sys.executable, "-m", "acphost", "-o", "simple", *flags,
         "--agent-command", f"{sys.executable} {HOSTILE}", "go"],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "HOSTILE_STEPS": json.dumps(steps), "ACPHOST_SETTINGS": "",
             "XDG_CONFIG_HOME": str(tmp_path / "xdg"), "ACPHOST_NO_HISTORY": "1", **(env or {})},
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    answers: list[dict[str, Any]] = json.loads(r.stdout)
    assert len(answers) == len(steps)
    return answers


def denied(answer: dict[str, Any]) -> bool:
    return answer.get("error", {}).get("data") == {"reason": "permission_denied"}


def test_a_program_named_bash_in_the_workspace_is_not_a_shell(tmp_path):
    """``$WS/tools/bash -c 'git status'`` runs the agent's program: a ``git status``
    rule must not allow it (nor a bare ``bash`` with the agent's ``PATH``)."""
    ws = tmp_path / "ws"
    (ws / "tools").mkdir(parents=True)
    marker = tmp_path / "PWNED"
    fake = ws / "tools" / "bash"
    fake.write_text(f"#!/bin/sh\ntouch {marker}\n")
    fake.chmod(0o755)
    policy = tmp_path / "policy.json"
    policy.write_text(json.dumps({"rules": [{"command": "git status", "decision": "allow"}]}))
    create = {"sessionId": "$SID", "args": ["-c", "git status"], "cwd": "$CWD"}
    steps = [
        ["terminal/create", {**create, "command": "$CWD/tools/bash"}],
        ["terminal/create", {**create, "command": "tools/bash"}],
        ["terminal/create", {**create, "command": "bash",
                             "env": [{"name": "PATH", "value": "$CWD/tools"}]}],
        ["terminal/create", {**create, "command": "bash"}],
        ["terminal/create", {**create, "command": "/bin/bash"}],
    ]  # fmt: skip
    answers = run_hostile(tmp_path, ws, steps, "--permission-policy", str(policy))
    assert [denied(a) for a in answers] == [True, True, True, False, False], answers
    assert "terminalId" in answers[3]["result"] and "terminalId" in answers[4]["result"]
    assert not marker.exists()
