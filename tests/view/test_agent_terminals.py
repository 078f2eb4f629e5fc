"""A command the agent runs in its own shell and reports only in tool call ``_meta``.

codex-acp (and adapters following Zed's convention) never call
``terminal/create``: the terminal's output and exit come in
``_meta.terminal_output_delta`` / ``_meta.terminal_exit``. The session state
keeps them, the view model carries them, ``-o text`` prints them. The agent
is a scripted subprocess over real pipes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from acphost import schema as s
from acphost.client import AcpClient, SessionState
from acphost.view import Terminal, Viewer
from tests.view.codex_terminal import command_run, delta, exit_, meta_update, start

AGENT = Path(__file__).with_name("script_agent.py")


def agent_argv(tmp_path: Path, updates: list[dict[str, Any]]) -> list[str]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(updates), encoding="utf-8")
    return [sys.executable, str(AGENT), str(script)]


async def state_after(tmp_path: Path, updates: list[dict[str, Any]]) -> SessionState:
    """The session state once a turn of ``updates`` came over real pipes."""
    async with AcpClient.start(agent_argv(tmp_path, updates)) as client:
        session = await client.new_session(str(tmp_path))
        await session.prompt("go")
        return session.state


def cli_text(tmp_path: Path, updates: list[dict[str, Any]]) -> str:
    """What ``acphost -o text`` prints on a pipe for a turn of ``updates``."""
    settings = tmp_path / "settings.json"
    agent = {"command": sys.executable, "args": agent_argv(tmp_path, updates)[1:]}
    settings.write_text(json.dumps({"agent_servers": {"script": agent}}), encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "ACPHOST_SETTINGS": str(settings)}
    done = subprocess.run(
        [sys.executable, "-m", "acphost", "--no-history", "-a", "script", "-o", "text", "go"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done.stdout.decode("utf-8")


async def test_the_state_keeps_every_delta_the_exit_and_the_cwd(tmp_path):
    state = await state_after(tmp_path, command_run())
    (terminal,) = state.tool_calls["call_1"].terminals.values()
    assert terminal.output == "first line\nsecond line\n"
    assert (terminal.exit_code, terminal.signal, terminal.exit_text) == (2, None, "exit code 2")
    assert terminal.cwd == "/ws" and not terminal.truncated


async def test_meta_merges_key_by_key_without_the_terminal_keys(tmp_path):
    updates = [
        {**start(), "_meta": {"terminal_info": {"terminal_id": "call_1"}, "toolName": "Bash"}},
        meta_update("call_1", {"other": 1, "terminal_output_delta": {"terminal_id": "call_1"}}),
    ]
    state = await state_after(tmp_path, updates)
    assert state.tool_calls["call_1"].meta == {"toolName": "Bash", "other": 1}


def test_o_text_prints_the_output_after_the_tool_line(tmp_path):
    lines = cli_text(tmp_path, command_run()).splitlines()
    at = lines.index("[tool] make test (execute) failed")
    assert lines[at + 1 :] == ["[output] exit code 2", "first line", "second line", "Ran it."]


def test_o_text_on_a_pipe_keeps_the_output_exact_and_shows_it_once(tmp_path):
    updates = [start(), delta("call_1", "\x1b[31mred\x1b[0m\n"), exit_("call_1"), exit_("call_1")]
    out = cli_text(tmp_path, updates)
    assert out.count("[output] exit code 0") == 1
    assert "\x1b[31mred\x1b[0m\n" in out  # piped output is exact, as the agent's text is


def view_all(updates: list[dict[str, Any]]) -> tuple[SessionState, list[Terminal]]:
    """Apply a read's worth of updates, then view each (as a face does)."""
    state = SessionState()
    decoded = [s.decode_session_update(u) for u in updates]
    for update in decoded:
        state.apply(update)
    viewer = Viewer(state)
    pieces = [p for update in decoded for p in viewer.pieces(update)]
    return state, [p for p in pieces if isinstance(p, Terminal)]


def test_each_piece_carries_what_its_update_reported():
    _, pieces = view_all(command_run())
    assert [p.added for p in pieces] == ["", "first line\nsecond ", "line\n", ""]
    assert [p.ended for p in pieces] == [False, False, False, True]
    assert pieces[-1].output == "first line\nsecond line\n"
    assert pieces[-1].exit_text == "exit code 2" and all(p.agent_run for p in pieces)


HOSTILE: list[Any] = [
    "text",
    [1, 2],
    None,
    {"terminal_output_delta": "x"},
    {"terminal_output_delta": {"data": 5, "terminal_id": "call_1"}},
    {"terminal_output_delta": {"data": "x", "terminal_id": ["call_1"]}},
    {"terminal_exit": {"exit_code": "0", "signal": {"a": 1}, "terminal_id": "call_1"}},
    {"terminal_exit": {"exit_code": True, "terminal_id": 7}},
    {"terminal_info": {"terminal_id": {"nested": True}, "cwd": 3}},
    {"terminal_info": []},
]


def test_hostile_meta_is_ignored_never_an_error():
    updates = [start(), *(meta_update("call_1", m) for m in HOSTILE)]
    state, _ = view_all(updates)
    (terminal,) = state.tool_calls["call_1"].terminals.values()
    # The exit with a string code and a dict signal ends it, with neither kept.
    assert terminal.output == "" and terminal.exit_text == "exited"
    assert terminal.exit_code is None and terminal.signal is None


def test_an_id_of_another_call_or_of_no_terminal_changes_nothing():
    updates = [
        start("call_1"),
        start("call_2"),
        delta("call_1", "spoofed\n", terminal="call_2"),
        delta("call_1", "nobody's\n", terminal="call_9"),
        delta("call_3", "unannounced\n"),
    ]
    state, pieces = view_all(updates)
    assert all(t.output == "" for c in state.tool_calls.values() for t in c.terminals.values())
    assert not state.tool_calls["call_3"].terminals
    assert all(p.added == "" for p in pieces)


def test_output_is_bounded_like_the_host_terminals_tail_kept():
    from acphost.host import DEFAULT_OUTPUT_BYTE_LIMIT

    huge = "a" * DEFAULT_OUTPUT_BYTE_LIMIT + "é" * 10 + "end\n"
    state, pieces = view_all([start(), delta("call_1", "head\n"), delta("call_1", huge)])
    terminal = state.tool_calls["call_1"].terminals["call_1"]
    kept = terminal.output
    assert terminal.truncated and kept.endswith("é" * 10 + "end\n")
    assert len(kept.encode()) <= DEFAULT_OUTPUT_BYTE_LIMIT and "head" not in kept
    assert "\ufffd" not in kept  # cut at a character
    assert len(pieces[-1].added.encode()) <= 2 * DEFAULT_OUTPUT_BYTE_LIMIT


def test_output_after_the_exit_is_not_kept():
    state, _ = view_all([start(), exit_("call_1"), delta("call_1", "late\n")])
    assert state.tool_calls["call_1"].terminals["call_1"].output == ""


def test_a_flood_of_terminal_announcements_is_bounded():
    flood = [start()]
    flood += [meta_update("call_1", {"terminal_info": {"terminal_id": f"t{i}"}}) for i in range(50)]
    state, _ = view_all(flood)
    assert len(state.tool_calls["call_1"].terminals) <= 8


def test_escape_sequences_in_the_output_never_reach_a_terminal_raw(tmp_path):
    from tests.cli.terminal import PtyRun

    osc = "\x1b]0;owned-title\x07"
    updates = [start(), delta("call_1", f"before {osc} after\n"), exit_("call_1")]
    settings = tmp_path / "settings.json"
    agent = {"command": sys.executable, "args": agent_argv(tmp_path, updates)[1:]}
    settings.write_text(json.dumps({"agent_servers": {"script": agent}}), encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "ACPHOST_SETTINGS": str(settings)}
    run = PtyRun(
        ["--no-history", "-a", "script", "-o", "text", "go"], cwd=tmp_path, env=env, cols=100
    )
    assert run.wait() == 0, run.text()
    assert b"owned-title" in run.output and b"\x1b]0;" not in run.output
