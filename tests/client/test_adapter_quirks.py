"""What the newest adapters send that a v1.25 client misses, over real pipes.

A scripted agent (``adapter_agent.py``) speaks the frames codex-acp 2.6.0 and
claude-agent-acp 0.101.0 send in a v1 turn: the ``_auth/status_update``
extension notification, ``session_info_update`` carrying only ``_meta``,
``PromptResponse.usage`` and ``_meta.quota``, its own request ids numbered
from 0, and (codex) no exit when its stdin closes. Each face that shows a
turn is checked against it: the library, the CLI's text and its history, the
batch report.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
from pathlib import Path

import pytest

from acphost import AcpClient, HostConfig
from acphost import schema as s
from acphost.batch import inspect_workspace, make_plan, numbered, run_batch
from acphost.config import AgentSpec
from acphost.history import HistoryStore
from acphost.host import AllowAll
from acphost.view import Setting, Viewer
from tests.cli.runner import run
from tests.support.waiting import eventually_sync

AGENT = Path(__file__).with_name("adapter_agent.py")
FLAVOURS = ("codex", "claude")
#: The token counts the agent's answer carries (claude sends no thoughtTokens).
TOKENS = {
    "codex": {
        "input": 50,
        "output": 20,
        "thought": 6,
        "cached_read": 4,
        "cached_write": 3,
        "total": 70,
    },
    "claude": {
        "input": 50,
        "output": 20,
        "thought": None,
        "cached_read": 4,
        "cached_write": 3,
        "total": 70,
    },
}
LINE = {
    "codex": "[usage] tokens 70 (input 50, output 20, thought 6, cached read 4, cached write 3)"
    " · context 70/258,400\n",
    "claude": "[usage] tokens 70 (input 50, output 20, cached read 4, cached write 3)"
    " · context 70/1,000,000\n",
}

pytestmark = pytest.mark.timeout(60)


def argv(flavour: str, *options: str) -> list[str]:
    return [sys.executable, str(AGENT), flavour, *options]


def settings(tmp_path: Path, **agents: list[str]) -> dict[str, str]:
    """An environment whose settings name each agent; history in the test's folder."""
    path = tmp_path / "settings.json"
    servers = {name: {"command": cmd[0], "args": cmd[1:]} for name, cmd in agents.items()}
    path.write_text(json.dumps({"agent_servers": servers}), encoding="utf-8")
    return {
        "ACPHOST_SETTINGS": str(path),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "ACPHOST_HISTORY": str(tmp_path / "history.sqlite3"),
    }


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.fixture
def left_behind(tmp_path):
    """The pid file the agent writes (``--child``); what a failed test leaves of it is killed."""
    pids = tmp_path / "pids"
    yield pids
    if pids.exists():
        for pid in map(int, pids.read_text().split()):
            if alive(pid) and ours(pid):
                os.kill(pid, signal.SIGKILL)


def ours(pid: int) -> bool:
    """Whether ``pid`` is still the agent or its child (not a reused pid)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            command = f.read()
    except OSError:
        return False
    return AGENT.name.encode() in command or b"time.sleep(300)" in command


# -- the library -------------------------------------------------------------------------


@pytest.mark.parametrize("flavour", FLAVOURS)
async def test_a_turn_of_the_newest_adapters_is_taken_quietly_with_its_usage(
    flavour, workspace, caplog
):
    """No warning for any frame; the usage is the turn's; a ``_meta``-only info update is nothing.

    The agent asks four permissions numbered 0 to 3 while the client's own
    ``session/prompt`` (id 2) is pending: each answer goes to its question, and
    the prompt's answer to the prompt.
    """
    caplog.set_level(logging.WARNING, logger="acphost")
    host = HostConfig(permissions=AllowAll())
    async with AcpClient.start(argv(flavour, "--asks", "4"), host=host) as client:
        session = await client.new_session(workspace)
        viewer = Viewer(session.state)
        info: list[tuple[s.SessionInfoUpdate, list[object]]] = []
        results = []
        for _ in range(2):  # codex sends the title in the first turn only
            turn = session.prompt("Probe turn")
            async for update in turn:
                pieces = viewer.pieces(update)
                if isinstance(update, s.SessionInfoUpdate):
                    info.append((update, pieces))
            results.append(await turn)
        # claude titles the session after its answer, codex before it in the first
        # turn only: either way, the title came before the second turn's answer,
        # and codex's _meta-only updates of that turn left it alone.
        assert session.state.title == "Probe turn"
    result = results[0]
    assert [r.stop_reason for r in results] == ["end_turn", "end_turn"]
    assert (
        result.text == "hello from the fake model (allow_once, allow_once, allow_once, allow_once)"
    )
    assert result.usage == {
        "totalTokens": 70,
        "inputTokens": 50,
        "cachedReadTokens": 4,
        "cachedWriteTokens": 3,
        "outputTokens": 20,
        **({"thoughtTokens": 6} if flavour == "codex" else {}),
    }
    assert result.meta is not None and result.meta["quota"]["token_count"]["totalTokens"] == 70
    assert result.usage_reported
    if flavour == "codex":
        # Each turn: active and idle (only _meta: kept, no title, nothing shown);
        # the first also names the thread.
        statuses = [u.meta["codex"]["threadStatus"]["type"] for u, _ in info if u.meta]
        assert statuses == ["active", "idle", "active", "idle"]
        assert all(not isinstance(u.title, str) for u, _ in info if u.meta)  # omitted
        # A setting piece with no words: no face shows settings in the transcript.
        meta_pieces = [p for u, pieces in info if u.meta for p in pieces]
        assert meta_pieces == [Setting("session_info_update", "")] * 4
        assert [u.title for u, _ in info if not u.meta] == ["Probe turn"]
    assert [r.getMessage() for r in caplog.records] == []


async def test_the_unstable_client_still_keeps_the_schemas_auth_status_update(workspace, caplog):
    """Beside the adapters' ``_auth/status_update``, the unstable one is still followed."""
    caplog.set_level(logging.WARNING, logger="acphost")
    agent = argv("claude", "--auth-update", "--asks", "0")
    async with AcpClient.start(agent, unstable=True) as client:
        await client.new_session(workspace)  # both notifications come before its answer
        auth = client.unstable.auth
        assert auth is not None and auth.state == "authenticated"
        assert [a.label for a in auth.accounts or ()] == ["Anthropic API key"]
    assert [r.getMessage() for r in caplog.records] == []


async def test_the_unstable_client_keeps_the_adapters_auth_status(workspace):
    """``_auth/status_update`` (an extension, in no schema) is kept as sent, for the opted-in."""
    async with AcpClient.start(argv("codex", "--asks", "0"), unstable=True) as client:
        await client.new_session(workspace)  # the notification comes before its answer
        kept = client.unstable.adapter_auth
    assert kept == {"kind": "gateway", "label": "Custom model gateway", "detail": "fake"}


# -- the command line: text, history, trace ----------------------------------------------


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_cli_shows_the_turns_usage_and_no_warning(flavour, tmp_path):
    env = settings(tmp_path, agent=argv(flavour, "--asks", "3"))
    trace = tmp_path / "trace.jsonl"
    r = run(["-a", "agent", "--yolo", "--trace", str(trace), "Probe turn"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == (
        "hello from the fake model (allow_once, allow_once, allow_once)\n" + LINE[flavour]
    )
    # Only the agent's own notice: no word on _auth/status_update, the _meta-only
    # info updates, the usage or the quota.
    notices = ["[notice] warning: Model metadata for `gpt-5.3-codex` not found.\n"]
    assert r.stderr == ("".join(notices) if flavour == "codex" else "")

    with HistoryStore.open(env["ACPHOST_HISTORY"]) as store:
        (summary,) = store.list_sessions()
        record = store.get(summary.id)
    if flavour == "codex":  # claude's title comes after the answer: it may be read too late
        assert record.title == "Probe turn"
    (turn,) = record.turns
    usage = turn.usage
    got = {k: getattr(usage, k) for k in TOKENS[flavour]}
    assert got == TOKENS[flavour]
    assert (usage.context_used, usage.context_size) == (
        70,
        258400 if flavour == "codex" else 1000000,
    )

    # Every frame of the run, ids 0.. both ways, pairs each answer with its question.
    v = run(["validate", str(trace)], cwd=tmp_path, env=env)
    assert v.returncode == 0 and v.stderr.endswith(": ok\n"), v.stdout + v.stderr
    frames = [json.loads(line) for line in trace.read_text().splitlines()]
    asked = [f["id"] for f in frames if f.get("method") == "session/request_permission"]
    ours = [
        f["id"]
        for f in frames
        if f.get("method") in ("initialize", "session/new", "session/prompt")
    ]
    assert asked == [0, 1, 2] and ours == [0, 1, 2]


@pytest.mark.parametrize("output", ["jsonl", "json"])
def test_the_frame_output_has_the_answers_usage_and_quota_as_sent(output, tmp_path):
    env = settings(tmp_path, agent=argv("codex"))
    r = run(["-a", "agent", "--yolo", "-o", output, "Probe turn"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    frames = [json.loads(line) for line in r.stdout.splitlines()]
    (answer,) = [
        f for f in frames if f.get("id") == 2 and "result" in f and "stopReason" in f["result"]
    ]
    assert answer["result"]["usage"]["thoughtTokens"] == 6
    assert answer["result"]["_meta"]["quota"]["token_count"]["reasoningOutputTokens"] == 6
    (auth,) = [f for f in frames if f.get("method") == "_auth/status_update"]
    assert auth["params"]["authStatus"]["kind"] == "gateway"


def test_what_the_agent_sends_after_its_last_answer_reaches_the_history(tmp_path):
    """claude-agent-acp titles the session right after its answer: the history keeps it.

    The agent here sends it at the latest moment it can: when its stdin closes.
    """
    env = settings(tmp_path, agent=argv("claude", "--title-at-eof"))
    r = run(["-a", "agent", "--yolo", "Probe turn"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    with HistoryStore.open(env["ACPHOST_HISTORY"]) as store:
        (summary,) = store.list_sessions()
    assert summary.title == "Probe turn"


async def test_the_batch_report_has_the_turns_tokens(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "README.md").write_text("# project\n")
    spec = AgentSpec(
        name="codex", command=sys.executable, args=tuple(argv("codex")[1:]), source="tests"
    )
    plan = make_plan([spec], numbered(["Probe turn"]), workspace=inspect_workspace(str(ws)))

    (_outcome,) = [o async for o in run_batch(plan, str(tmp_path / "out"), jobs=1)]
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    (entry,) = report["runs"]
    assert entry["status"] == "ok", entry
    assert entry["usage"] == {
        "total_tokens": 70,
        "input_tokens": 50,
        "cached_read_tokens": 4,
        "cached_write_tokens": 3,
        "output_tokens": 20,
        "thought_tokens": 6,
        "context_used": 70,
        "context_size": 258400,
    }


# -- an agent that does not exit when its stdin closes -----------------------------------


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_ending_a_run_leaves_no_process_of_the_agent(flavour, tmp_path, left_behind):
    """codex-acp keeps running after EOF, claude-agent-acp exits: either way nothing is left.

    The agent has started a process of its own that ignores SIGTERM; codex's
    also ignores the end of its input. The run's end (EOF, a grace, SIGTERM
    then SIGKILL to the process group) ends both.
    """
    lingers = ("--linger",) if flavour == "codex" else ()
    env = settings(tmp_path, agent=argv(flavour, "--child", str(left_behind), *lingers))
    r = run(["-a", "agent", "--yolo", "Probe turn"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("hello from the fake model")
    agent, child = map(int, left_behind.read_text().split())
    eventually_sync(lambda: not alive(agent), what=f"the agent (pid {agent}) to be gone")
    eventually_sync(lambda: not alive(child), what=f"the agent's child (pid {child}) to be gone")


async def test_the_library_leaves_no_process_of_an_agent_that_outlives_its_stdin(
    left_behind, workspace
):
    host = HostConfig(permissions=AllowAll())
    agent_argv = argv("codex", "--child", str(left_behind), "--linger")
    async with AcpClient.start(agent_argv, host=host, close_grace=0.2) as client:
        session = await client.new_session(workspace)
        await session.prompt("Probe turn")
        agent, child = map(int, left_behind.read_text().split())
        assert alive(agent) and alive(child)
    # The client's close has reaped the agent (no zombie) and ended its group.
    assert not os.path.exists(f"/proc/{agent}")
    eventually_sync(lambda: not alive(child), what=f"the agent's child (pid {child}) to be gone")


# -- usage only in _meta.quota ------------------------------------------------------------

#: The counts of the agent's ``_meta.quota.token_count``, under the ``Usage`` names.
QUOTA_USAGE = {
    "totalTokens": 70,
    "inputTokens": 50,
    "cachedReadTokens": 4,
    "cachedWriteTokens": 3,
    "outputTokens": 20,
    "thoughtTokens": 6,
}


async def test_the_tokens_of_meta_quota_are_the_turns_without_usage(tmp_path, workspace):
    """An answer with ``_meta.quota`` but no ``usage``: the turn's result and the batch count them."""
    host = HostConfig(permissions=AllowAll())
    async with AcpClient.start(argv("codex", "--quota-only"), host=host) as client:
        session = await client.new_session(workspace)
        result = await session.prompt("Probe turn")
    assert result.usage == QUOTA_USAGE
    assert result.response is not None and "usage" not in (result.response.extra or {})

    ws = tmp_path / "batch-ws"
    ws.mkdir()
    spec = AgentSpec(
        name="codex",
        command=sys.executable,
        args=tuple(argv("codex", "--quota-only")[1:]),
        source="tests",
    )
    plan = make_plan([spec], numbered(["Probe turn"]), workspace=inspect_workspace(str(ws)))
    (_outcome,) = [o async for o in run_batch(plan, str(tmp_path / "out"), jobs=1)]
    (entry,) = json.loads((tmp_path / "out" / "report.json").read_text())["runs"]
    assert entry["usage"]["total_tokens"] == 70 and entry["usage"]["thought_tokens"] == 6


def test_the_cli_and_the_history_count_the_tokens_of_meta_quota(tmp_path):
    env = settings(tmp_path, agent=argv("codex", "--quota-only"))
    r = run(["-a", "agent", "--yolo", "Probe turn"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.endswith(LINE["codex"]), r.stdout
    with HistoryStore.open(env["ACPHOST_HISTORY"]) as store:
        (summary,) = store.list_sessions()
        (turn,) = store.get(summary.id).turns
    assert {k: getattr(turn.usage, k) for k in TOKENS["codex"]} == TOKENS["codex"]
