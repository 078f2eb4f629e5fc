"""A session removed from the history while its run still records it: said as it is.

A real ``acphost`` run against a scripted agent whose turn waits for a gate
file; meanwhile a real ``acphost history delete`` removes the session.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from acphost.history import HistoryStore
from tests.support.waiting import eventually_sync

from .conftest import run_cli

GATE_AGENT = Path(__file__).parent / "gate_agent.py"


def test_a_session_deleted_during_its_run_is_reported_as_removed_not_damaged(tmp_path):
    store = tmp_path / "data" / "history.sqlite3"
    gate = tmp_path / "gate"
    env = {**os.environ, "ACPHOST_HISTORY": str(store), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    command = shlex.join([sys.executable, str(GATE_AGENT), str(gate)])
    run = subprocess.Popen(
        [sys.executable, "-m", "acphost", "--agent-command", command, "-o", "simple", "hello"],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:

        def begun() -> bool:
            if not store.exists():
                return False
            with HistoryStore.open(str(store)) as s:
                found = s.list_sessions()
                return bool(found) and found[0].incomplete == 1

        eventually_sync(begun, what="the run's turn to be begun in the history")
        with HistoryStore.open(str(store)) as s:
            (summary,) = s.list_sessions()
        deleted = run_cli("history", "delete", summary.id, env={"ACPHOST_HISTORY": str(store)})
        assert deleted.returncode == 0, deleted.stderr
        gate.touch()
        out, err = run.communicate(timeout=60)
    finally:
        gate.touch()
        if run.poll() is None:
            run.kill()
            run.communicate()
    assert run.returncode == 0, err
    assert out == "done\n"
    assert "damaged" not in err and "delete it" not in err, err
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) == 1, err
    assert f"session {summary.id[:12]} was removed from the history" in warnings[0]
    assert "the rest of this run is not recorded" in warnings[0]
    with HistoryStore.open(str(store)) as s:
        assert s.list_sessions() == []  # the removal stands: nothing recreated it
