"""The history on the command line: every run recorded, --continue, --resume ID, --replay-context.

Real ``acphost`` processes against the demo agent (load and resume) and a
scripted agent that can load only, resume only, or neither.
"""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import sys
from pathlib import Path

import pytest

from acphost.history import HistoryStore, SessionRecord
from tests.cli.runner import run

HERE = Path(__file__).parent


def history_path() -> Path:
    return Path(os.environ["XDG_DATA_HOME"]) / "acphost" / "history.sqlite3"


def sessions() -> list:
    if not history_path().exists():
        return []
    with HistoryStore.open(str(history_path())) as store:
        return store.list_sessions()


def sent(stdout: str, method: str) -> list[dict]:
    """The params of every request ``method`` the client sent (``-o jsonl``)."""
    frames = [json.loads(line) for line in stdout.splitlines()]
    return [f["params"] for f in frames if f.get("method") == method]


def memory_agent(caps: str, store: Path) -> list[str]:
    command = shlex.join([sys.executable, str(HERE / "memory_agent.py"), caps, str(store)])
    return ["--agent-command", command]


def test_every_prompt_run_is_recorded_unless_turned_off(tmp_path):
    assert run(["-o", "simple", "echo one"], cwd=tmp_path).returncode == 0
    (only,) = sessions()
    assert (only.agent, only.cwd, only.first_prompt, only.turns) == (
        "demo",
        str(tmp_path),
        "echo one",
        1,
    )
    assert run(["--no-history", "echo two"], cwd=tmp_path).returncode == 0
    assert run(["echo three"], cwd=tmp_path, env={"ACPHOST_NO_HISTORY": "1"}).returncode == 0
    assert run(["--list-modes"], cwd=tmp_path).returncode == 0  # no prompt: nothing to record
    assert [s.first_prompt for s in sessions()] == ["echo one"]
    # ACPHOST_NO_HISTORY=0 means recording stays on.
    assert run(["echo four"], cwd=tmp_path, env={"ACPHOST_NO_HISTORY": "0"}).returncode == 0
    assert len(sessions()) == 2


def test_a_damaged_store_costs_one_warning_and_the_run_goes_on(tmp_path):
    path = history_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    r = run(["-o", "simple", "echo still here"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "still here\n"
    warnings = [line for line in r.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "not recorded in the history" in warnings[0], r.stderr
    assert path.read_bytes() == b"this is not a database" * 100


def test_a_locked_store_costs_one_warning_and_the_run_goes_on(tmp_path):
    assert run(["echo first"], cwd=tmp_path).returncode == 0
    locker = sqlite3.connect(history_path())
    locker.execute("BEGIN EXCLUSIVE")
    try:
        r = run(["-o", "simple", "echo blocked"], cwd=tmp_path)
    finally:
        locker.rollback()
        locker.close()
    assert r.returncode == 0 and r.stdout == "blocked\n", r.stderr
    assert len([line for line in r.stderr.splitlines() if "warning" in line]) == 1, r.stderr


def test_continue_with_the_demo_resumes_its_newest_session_here(tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    assert run(["echo remember me"], cwd=tmp_path).returncode == 0
    assert run(["echo not this one"], cwd=other).returncode == 0
    (first,) = [s for s in sessions() if s.cwd == str(tmp_path)]
    r = run(["--continue", "-o", "jsonl", "echo again"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    # The demo offers both: session/resume is used (nothing is replayed).
    (resumed,) = sent(r.stdout, "session/resume")
    assert resumed["sessionId"] == first.agent_session_id
    assert not sent(r.stdout, "session/load") and not sent(r.stdout, "session/new")
    newest = sessions()[0]
    assert (newest.agent_session_id, newest.first_prompt) == (first.agent_session_id, "echo again")


@pytest.mark.parametrize("caps", ["load", "resume"])
def test_continue_reopens_with_what_the_agent_offers(tmp_path, caps):
    agent = memory_agent(caps, tmp_path / "store.json")
    assert run([*agent, "first words"], cwd=tmp_path).returncode == 0
    r = run([*agent, "-c", "-o", "jsonl", "second words"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    method = f"session/{caps}"
    assert [p["sessionId"] for p in sent(r.stdout, method)] == ["mem-1"]
    r = run([*agent, "--continue", "-o", "simple", "third"], cwd=tmp_path)
    assert r.stdout == "heard: third\nearlier: first words | second words\n", r.stderr


def test_agent_commands_are_told_apart_by_their_whole_command_line(tmp_path):
    store = tmp_path / "store.json"  # one store, two agents: sessions mem-1 and mem-2
    loads, resumes = memory_agent("load", store), memory_agent("resume", store)
    assert run([*loads, "said to the first"], cwd=tmp_path).returncode == 0
    assert run([*resumes, "said to the second"], cwd=tmp_path).returncode == 0
    r = run([*loads, "--continue", "-o", "simple", "again"], cwd=tmp_path)
    assert r.stdout == "heard: again\nearlier: said to the first\n", r.stderr
    (newest, *_) = sessions()
    assert newest.agent == shlex.join(loads[1].split())
    r = run([*loads, "--resume", sessions()[1].id, "hi"], cwd=tmp_path)  # the second's
    assert r.returncode == 2 and "run with --agent-command" in r.stderr, r.stderr


def test_continue_with_an_agent_that_can_neither_says_what_to_do(tmp_path):
    agent = memory_agent("none", tmp_path / "store.json")
    assert run([*agent, "first words"], cwd=tmp_path).returncode == 0
    r = run([*agent, "--continue", "second"], cwd=tmp_path)
    assert r.returncode == 2
    assert "can neither resume nor load" in r.stderr
    assert "acphost --continue --replay-context PROMPT" in r.stderr
    # The suggestion works: a new session whose prompt carries the transcript as text.
    r = run([*agent, "--continue", "--replay-context", "-o", "jsonl", "go on"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert sent(r.stdout, "session/new")
    ((prompt,),) = [p["prompt"][:-1] for p in sent(r.stdout, "session/prompt")]
    assert prompt["type"] == "text"
    head, _, rest = prompt["text"].partition("\n--- transcript of the earlier session ---\n")
    assert "goes on from an earlier session" in head
    assert "\n> first words\n  heard: first words\n" in rest  # the agent's answer indented under the prompt
    assert rest.endswith("--- end of the transcript ---")
    assert sent(r.stdout, "session/prompt")[0]["prompt"][-1] == {"type": "text", "text": "go on"}


def test_replay_context_is_an_embedded_resource_when_the_agent_takes_one(tmp_path):
    assert run(["echo the password is swordfish"], cwd=tmp_path).returncode == 0
    (earlier,) = sessions()
    r = run(["--continue", "--replay-context", "-o", "jsonl", "echo go on"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (params,) = sent(r.stdout, "session/prompt")
    intro, resource, prompt = params["prompt"]
    assert intro["type"] == "text" and earlier.id[:12] in intro["text"]
    assert resource["type"] == "resource"
    assert resource["resource"]["uri"] == f"acphost://history/{earlier.id}"
    assert resource["resource"]["mimeType"] == "text/plain"
    assert "> echo the password is swordfish" in resource["resource"]["text"]
    assert prompt == {"type": "text", "text": "echo go on"}


def test_continue_without_a_session_here_is_a_usage_error(tmp_path):
    r = run(["--continue", "hello"], cwd=tmp_path)
    assert r.returncode == 2 and "the history has no session of agent 'demo'" in r.stderr
    assert run(["echo x"], cwd=tmp_path).returncode == 0
    r = run(["-a", "demo", "--continue", "--cwd", str(tmp_path / ".."), "hello"], cwd=tmp_path)
    assert r.returncode == 2 and "has no session" in r.stderr
    r = run(["--replay-context", "hello"], cwd=tmp_path)
    assert r.returncode == 2 and "goes with --continue or --resume" in r.stderr


def test_resume_takes_a_history_id_prefix(tmp_path):
    assert run(["echo remember me"], cwd=tmp_path).returncode == 0
    (first,) = sessions()
    r = run(["--resume", first.id[:8], "-o", "jsonl", "echo again"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert [p["sessionId"] for p in sent(r.stdout, "session/resume")] == [
        first.agent_session_id
    ]
    # The agent's own session id still works, and so does a saved file.
    saved = tmp_path / "s.json"
    r = run(["--resume", first.agent_session_id, "--save-session", str(saved), "echo 3"],
            cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    data = json.loads(saved.read_text())
    assert data["sessionId"] == first.agent_session_id
    assert data["historyId"] == sessions()[0].id
    r = run(["--resume", str(saved), "--replay-context", "-o", "jsonl", "echo 4"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (params,) = sent(r.stdout, "session/prompt")
    assert params["prompt"][1]["resource"]["uri"] == f"acphost://history/{data['historyId']}"


def _record(store: HistoryStore, history_id: str, agent: str, cwd: str) -> None:
    store.add_session(
        SessionRecord(
            id=history_id,
            agent=agent,
            command=("x",),
            cwd=cwd,
            started_at="2026-01-01T00:00:00.000+00:00",
            agent_session_id="agent-" + history_id,
        )
    )


def test_resume_refuses_ambiguous_and_foreign_history_ids(tmp_path):
    history_path().parent.mkdir(parents=True)
    with HistoryStore.open(str(history_path())) as store:
        _record(store, "abc1" + "0" * 28, "demo", str(tmp_path))
        _record(store, "abc2" + "0" * 28, "demo", str(tmp_path))
        _record(store, "def0" + "0" * 28, "claude", str(tmp_path))
        _record(store, "fed0" + "0" * 28, "demo", "/somewhere/else")
    r = run(["--resume", "abc", "hello"], cwd=tmp_path)
    assert r.returncode == 2 and "ambiguous" in r.stderr and "abc1" in r.stderr, r.stderr
    r = run(["--resume", "def0", "hello"], cwd=tmp_path)
    assert r.returncode == 2 and "run with -a claude" in r.stderr, r.stderr
    r = run(["--resume", "fed0", "hello"], cwd=tmp_path)
    assert r.returncode == 2 and "--cwd /somewhere/else" in r.stderr, r.stderr
    r = run(["--resume", "not-in-history", "--replay-context", "hello"], cwd=tmp_path)
    assert r.returncode == 2 and "no transcript" in r.stderr, r.stderr


def test_interrupted_and_failed_turns_are_recorded_with_why(tmp_path):
    r = run(["-o", "simple", "crash"], cwd=tmp_path)
    assert r.returncode == 1
    with HistoryStore.open(str(history_path())) as store:
        (summary,) = store.list_sessions()
        (turn,) = store.get(summary.id).turns
    assert turn.error and "exited with code 3" in turn.error
