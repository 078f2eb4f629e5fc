"""Sessions spoken in ACP v2 in the history: recorded, shown, exported, continued.

Whole ``acphost`` runs (in process, real agent subprocesses) record into the
test's store: the demo agent on ``--protocol 2`` and the scripted v2 agent
imitating claude-agent-acp. ``history show`` says the version and the turns
as it does for v1: the prompt, the reply, tool cards with their permission
decisions, children, stop reason and usage (v2 reports it on the idle
``state_update``).
"""

from __future__ import annotations

import json
import shlex

from acphost.history import HistoryStore
from tests.support import v2_agent
from tests.support.in_process import run_main

from .conftest import only_record

V2 = ["--protocol", "2", "--no-sandbox"]


def _show(tmp_path, env, key: str) -> list[str]:
    r = run_main(["history", "show", key], cwd=tmp_path, env=env)
    assert r.code == 0, r.stderr
    return r.stdout.splitlines()


def test_a_v2_session_is_recorded_and_shown_with_its_turns(tmp_path, env, store_path):
    r = run_main([*V2, "--write", "write a.txt hi"], cwd=tmp_path, env=env)
    assert r.code == 0, r.stderr
    record = only_record(store_path)
    assert record.protocol == 2 and record.agent_session_id
    (turn,) = record.turns
    assert turn.stop_reason == "end_turn"
    lines = _show(tmp_path, env, record.id[:8])
    assert "protocol: ACP version 2" in lines
    at = lines.index("> write a.txt hi")
    assert lines[at:-1] == [
        "> write a.txt hi",
        f"[tool] Writing {tmp_path / 'a.txt'} (edit) completed",
        f"[permission] Writing {tmp_path / 'a.txt'}: allow (allow_once)",
        f"[diff] {tmp_path / 'a.txt'}",
        "@@ -0,0 +1,1 @@",
        "+hi",
        f"  Wrote 2 characters to {tmp_path / 'a.txt'}.",
        "[stop] end_turn",
    ]
    assert lines[-1].startswith("[usage] tokens ")  # the idle's usage


def test_a_continued_v2_session_is_recorded_in_v2(tmp_path, env, store_path):
    assert run_main([*V2, "echo one"], cwd=tmp_path, env=env).code == 0
    r = run_main(["--no-sandbox", "--continue", "echo two"], cwd=tmp_path, env=env)
    assert r.code == 0, r.stderr
    with HistoryStore.open(str(store_path)) as store:
        records = [store.get(s.id) for s in store.list_sessions()]
    assert sorted(r.protocol for r in records) == [2, 2]
    assert len({r.agent_session_id for r in records}) == 1  # the same agent session
    newest = max(records, key=lambda r: r.started_at)
    lines = _show(tmp_path, env, newest.id[:8])
    assert "protocol: ACP version 2" in lines and "> echo two" in lines and "  two" in lines


def test_a_failed_v2_turn_is_recorded_with_its_error(tmp_path, env, store_path):
    r = run_main([*V2, "error"], cwd=tmp_path, env=env)
    assert r.code == 1
    record = only_record(store_path)
    lines = _show(tmp_path, env, record.id[:8])
    assert lines[-2:] == ["> error", "[error] Internal error (JSON-RPC error -32603)"]


def test_the_scripted_claude_turn_is_shown_with_its_child_and_usage(tmp_path, env, store_path):
    agent = shlex.join(v2_agent.command("claude"))
    r = run_main([*V2, "--yolo", "--agent-command", agent, "hi"], cwd=tmp_path, env=env)
    assert r.code == 0, r.stderr
    record = only_record(store_path)
    assert record.protocol == 2
    lines = _show(tmp_path, env, record.id[:8])
    for line in (
        "protocol: ACP version 2",
        "> hi",
        "  Calling Write.",
        "[tool] Write a.txt (edit) completed",
        "[tool] echo hi (execute) completed",
        "[permission] echo hi: allow (allow_once)",
        "[subagent] probe subagent · idle (end_turn)",
        "    pong",
        "  DONE: pong",
        "[stop] end_turn",
    ):
        assert line in lines, (line, lines)
    assert lines[-1].startswith("[usage] tokens 140 (input 100, output 40")
    exported = run_main(["history", "export", record.id[:8], "-f", "json"], cwd=tmp_path, env=env)
    assert json.loads(exported.stdout)["session"]["protocol"] == 2
