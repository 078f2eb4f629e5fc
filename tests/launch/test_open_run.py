"""The one assembly: a run opens, prompts and closes; nothing outlives it, whatever fails.

Every test runs the demo agent (or a small program in its place) as a real
subprocess over real pipes. "Gone" is checked by pid: the agent is reaped
(no such process) and its process group is empty.
"""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import replace

import pytest

from acphost import schema as s
from acphost.config import DEMO, AgentSpec
from acphost.errors import (
    AcpTimeout,
    AgentExited,
    AgentStartError,
    AuthRequired,
    LocalProtocolError,
    RequestError,
)
from acphost.launch import Run, RunOptions, SessionChoice, UsageProblem, open_run

FAST = {"ACPHOST_DEMO_STEP": "0", "ACPHOST_DEMO_MEMORY": "1"}


def demo(**env: str) -> AgentSpec:
    return replace(DEMO, env={**FAST, **env})


def options(workspace, agent: AgentSpec | None = None, **fields) -> RunOptions:
    return RunOptions(agent=agent or demo(), cwd=str(workspace), close_grace=0.5, **fields)


def gone(pid: int) -> bool:
    """The agent is reaped, and no process of its group is alive.

    A child the agent left behind is reparented when the agent dies; until
    its new parent reaps it, it is a zombie: dead, though still in the group.
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        pass
    else:
        return False
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue  # it ended meanwhile
        state, _ppid, pgrp = stat.rpartition(")")[2].split()[:3]
        if int(pgrp) == pid and state != "Z":
            return False
    return True


async def fails_in(opts: RunOptions, error: type[BaseException]) -> Run:
    run = open_run(opts)
    with pytest.raises(error):
        async with run:
            pytest.fail("the run should not have opened")
    return run


async def test_a_run_opens_prompts_and_closes(workspace):
    async with open_run(options(workspace, mode="code")) as run:
        assert run.phase == "open"
        pid = run.pid
        assert pid is not None and not gone(pid)
        assert run.session.state.current_mode_id == "code"
        result = await run.session.prompt("echo hello")
        assert result.text == "hello"
    assert run.phase == "closed"
    assert gone(pid)


async def test_frame_taps_see_every_frame_and_a_run_without_a_session_only_initializes(workspace):
    seen: list[str] = []
    opts = options(workspace, session=None, taps=[lambda direction, line: seen.append(direction)])
    async with open_run(opts) as run:
        assert run.client.agent_info is not None
        with pytest.raises(RuntimeError):
            run.session  # noqa: B018 - the run opened none
    assert seen[:2] == ["send", "receive"]
    assert gone(run.pid)


async def test_a_program_that_cannot_start_fails_in_the_spawn(workspace):
    agent = AgentSpec(name="missing", command=str(workspace / "no-such-agent"))
    run = await fails_in(options(workspace, agent), AgentStartError)
    assert run.failed_in == "spawn" and run.transport is None


async def test_an_agent_that_exits_at_once_fails_initialize_and_is_reaped(workspace):
    agent = replace(demo(), args=(*DEMO.args, "--no-such-flag"))  # the demo exits 2
    run = await fails_in(options(workspace, agent), AgentExited)
    assert run.failed_in == "initialize" and gone(run.pid)


async def test_an_agent_that_never_answers_initialize_loses_its_whole_group(workspace):
    # The agent leaves a child in its process group, then ignores the protocol.
    code = (
        "import subprocess, sys, time; "
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']); "
        "time.sleep(600)"
    )
    agent = AgentSpec(name="mute", command=sys.executable, args=("-c", code))
    opts = options(workspace, agent, client={"init_timeout": 0.5})
    run = await fails_in(opts, AcpTimeout)
    assert run.failed_in == "initialize" and gone(run.pid)


async def test_a_failure_while_preparing_ends_the_spawned_agent(workspace):
    def prepare(_: RunOptions) -> None:
        raise ValueError("the face could not build its parts")

    run = await fails_in(options(workspace, prepare=prepare), ValueError)
    assert run.failed_in == "prepare" and gone(run.pid)


async def test_authentication_required_fails_the_session_and_ends_the_agent(workspace):
    run = await fails_in(options(workspace, demo(ACPHOST_DEMO_REQUIRE_AUTH="1")), AuthRequired)
    assert run.failed_in == "session" and run.phase == "closed" and gone(run.pid)


async def test_authenticating_first_opens_the_session(workspace):
    agent = demo(ACPHOST_DEMO_REQUIRE_AUTH="1")
    async with open_run(options(workspace, agent, auth="demo-login")) as run:
        assert run.session.id
    assert gone(run.pid)


async def test_a_refused_authentication_ends_the_agent(workspace):
    run = await fails_in(options(workspace, auth="no-such-method"), LocalProtocolError)
    assert run.failed_in == "authenticate" and gone(run.pid)


async def test_a_session_that_cannot_be_loaded_ends_the_agent(workspace):
    choice = SessionChoice(how="load", session_id="no-such-session")
    run = await fails_in(options(workspace, session=choice), RequestError)
    assert run.failed_in == "session" and gone(run.pid)


async def test_a_mode_the_agent_lacks_fails_configure_and_ends_the_agent(workspace):
    run = await fails_in(options(workspace, mode="no-such-mode"), LocalProtocolError)
    assert run.failed_in == "configure" and gone(run.pid)


async def test_a_boolean_config_option_takes_true_or_false(workspace):
    run = await fails_in(options(workspace, config=[("verbose", "maybe")]), UsageProblem)
    assert gone(run.pid)
    async with open_run(options(workspace, config=[("verbose", "TRUE")])) as run:
        verbose = next(o for o in run.session.state.config_options if o.id == "verbose")
        assert isinstance(verbose, s.SessionConfigBoolean) and verbose.current_value is True


async def test_a_session_is_reopened_by_resume_or_load(workspace, tmp_path):
    agent = demo(ACPHOST_DEMO_MEMORY="", ACPHOST_DEMO_STATE_DIR=str(tmp_path / "state"))
    async with open_run(options(workspace, agent)) as first:
        await first.session.prompt("echo remember")
        sid = first.session.id
    choice = SessionChoice(how="reopen", session_id=sid)
    async with open_run(options(workspace, agent, session=choice)) as again:
        assert again.session.id == sid


async def test_cancelling_mid_turn_ends_the_agent(workspace):
    """Ctrl-C in a face cancels the task that holds the run: the group goes with it."""
    streaming = asyncio.Event()
    pids: list[int] = []

    async def face() -> None:
        async with open_run(options(workspace)) as run:
            pids.append(run.pid)
            async for _ in run.session.prompt("flood 1000000"):
                streaming.set()

    task = asyncio.get_running_loop().create_task(face())
    await streaming.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert gone(pids[0])


async def test_an_agent_that_crashes_mid_turn_fails_the_turn_and_is_reaped(workspace):
    async with open_run(options(workspace)) as run:
        with pytest.raises(AgentExited) as caught:
            await run.session.prompt("crash")
        assert "crashing on purpose" in caught.value.stderr_tail
    assert gone(run.pid)


async def test_kill_during_the_turn_ends_it_with_the_agent_gone(workspace):
    async with open_run(options(workspace)) as run:
        turn = run.session.prompt("flood 1000000")
        async for _ in turn:
            run.kill()
            break
        with pytest.raises(AgentExited):
            await turn
    assert gone(run.pid)


async def test_a_kill_after_the_run_closed_signals_nothing(workspace, monkeypatch):
    """The agent's group id may name another group by then (a late SIGTERM, a second Ctrl-C)."""
    async with open_run(options(workspace, session=None)) as run:
        pass
    signalled: list[tuple[int, int]] = []
    monkeypatch.setattr(os, "killpg", lambda pgid, sig: signalled.append((pgid, sig)))
    run.kill()
    assert signalled == []


async def test_a_kill_asked_during_the_spawn_ends_the_agent_once_it_is_up(workspace):
    run = open_run(options(workspace))
    run.kill()
    with pytest.raises(AgentExited):
        async with run:
            pass
    assert gone(run.pid)


@pytest.mark.parametrize(
    "field",
    [{"system_prompt": ""}, {"system_prompt": "x", "system_prompt_mode": "replace"},
     {"protocol": 2}, {"protocol": "auto"}, {"mcp_tools": True}],
    ids=["empty_system_prompt", "unknown_system_prompt_mode", "protocol_2", "protocol_auto",
         "mcp_tools"],
)
async def test_what_is_not_built_yet_is_refused_before_anything_starts(workspace, field):
    run = await fails_in(options(workspace, **field), UsageProblem)
    assert run.failed_in == "spawn" and run.transport is None


async def test_the_session_is_recorded_under_the_given_name_and_closed_with_the_run(workspace, tmp_path):
    from acphost.history import HistoryRecorder, HistoryStore
    from acphost.redact import Redactor

    path = str(tmp_path / "history.sqlite3")
    recorder = HistoryRecorder.open(path, Redactor())
    try:
        async with open_run(options(workspace, recorder=recorder, record_as="demo-x")) as run:
            assert run.recording is not None
            sid = run.session.id
        assert run.recording is None
    finally:
        recorder.close()
    with HistoryStore.open(path) as store:
        [summary] = store.list_sessions()
    assert (summary.agent, summary.agent_session_id, summary.ended_at is not None) == (
        "demo-x", sid, True
    )


async def test_a_record_that_fails_to_close_still_ends_the_agent(workspace):
    class Recording:
        id = "r"

        def close(self) -> None:
            raise OSError("the history store went away")

    class Recorder:
        def open_session(self, *args: object, **kwargs: object) -> Recording:
            return Recording()

    run = open_run(options(workspace, recorder=Recorder()))
    with pytest.raises(OSError):
        async with run:
            pid = run.pid
    assert gone(pid)


async def test_a_run_killed_while_it_opened_records_nothing(workspace, tmp_path):
    """A tap that finds the session's answer unacceptable kills the agent (as --strict does)."""
    from acphost.history import HistoryRecorder, HistoryStore
    from acphost.redact import Redactor

    path = str(tmp_path / "history.sqlite3")
    recorder = HistoryRecorder.open(path, Redactor())
    runs: list[Run] = []

    def strict(direction: str, line: bytes) -> None:
        if direction == "receive" and b'"sessionId"' in line and b'"result"' in line:
            runs[0].kill()

    try:
        run = open_run(options(workspace, recorder=recorder, taps=[strict]))
        runs.append(run)
        async with run:
            assert run.recording is None
    finally:
        recorder.close()
    assert gone(run.pid)
    with HistoryStore.open(path) as store:
        assert store.list_sessions() == []
