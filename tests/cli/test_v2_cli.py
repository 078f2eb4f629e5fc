"""The command line on ``--protocol 2``: every output, exit codes, tools, cancel, traces.

Real ``acphost`` runs (in process, or a whole process where a signal or a
terminal is the point) against real agent subprocesses over real pipes: the
demo agent, which speaks v2 when asked, and the scripted v2 agent of
``tests/support/v2_agent.py`` in its claude-agent-acp and codex-acp flavours.
Every frame the client sends in a jsonl mirror is checked against the v2
schema by the frame checker (``check_jsonl``).
"""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys

import pytest

from tests.cli.runner import environment, run
from tests.cli.terminal import PtyRun
from tests.cli.test_cli import check_jsonl
from tests.support import v2_agent

V2 = ["--protocol", "2", "--no-history"]


def scripted(flavour: str) -> list[str]:
    return ["--agent-command", shlex.join(v2_agent.command(flavour))]


def _v2_agreed(frames: list[dict]) -> None:
    inits = [f for f in frames if f.get("method") == "initialize"]
    assert [f["params"]["protocolVersion"] for f in inits] == [2]
    answers = [f["result"] for f in frames if "protocolVersion" in f.get("result", {})]
    assert [a["protocolVersion"] for a in answers] == [2]


def _updates(frames: list[dict]) -> list[dict]:
    return [f["params"]["update"] for f in frames if f.get("method") == "session/update"]


# -- every output, every agent -----------------------------------------------------

AGENTS = {
    "demo": ([], "tool", "The search found 2 matches."),
    "claude": (scripted("claude"), "hi", "DONE: pong"),
    "codex": (scripted("codex"), "hi", "DONE: spawned"),
}


@pytest.mark.parametrize("agent", sorted(AGENTS))
@pytest.mark.parametrize("output", ["text", "simple"])
def test_text_and_simple_show_the_v2_turn(tmp_path, agent, output):
    flags, prompt, answer = AGENTS[agent]
    r = run([*V2, *flags, "-o", output, prompt], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    lines = r.stdout.splitlines()
    assert answer in lines
    if output == "simple":  # the reply only: no cards, no usage
        assert not [x for x in lines if x.startswith(("[tool]", "[usage]", "[subagent]"))]
    else:
        assert any(x.startswith("[tool] ") for x in lines), r.stdout
        # v2 reports the turn's usage on the idle state_update.
        assert lines[-1].startswith("[usage] tokens "), r.stdout


@pytest.mark.parametrize("agent", sorted(AGENTS))
@pytest.mark.parametrize("output", ["jsonl", "json"])
def test_jsonl_and_json_mirror_the_v2_frames_valid_against_the_schema(tmp_path, agent, output):
    flags, prompt, _ = AGENTS[agent]
    r = run([*V2, *flags, "-o", output, prompt], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    frames = check_jsonl(r.stdout)
    _v2_agreed(frames)
    (new,) = [f for f in frames if f.get("method") == "session/new"]
    assert [m["name"] for m in new["params"]["mcpServers"]] == ["acphost"]
    (prompt_frame,) = [f for f in frames if f.get("method") == "session/prompt"]
    (answer,) = [f for f in frames if f.get("id") == prompt_frame["id"] and "result" in f]
    assert set(answer["result"]) == {"messageId"}  # v2: the prompt is accepted, not ended
    # The turn ends at its session's idle (codex's child may stream after it).
    sid = prompt_frame["params"]["sessionId"]
    states = [
        f["params"]["update"]
        for f in frames
        if f.get("method") == "session/update"
        and f["params"]["sessionId"] == sid
        and f["params"]["update"]["sessionUpdate"] == "state_update"
    ]
    assert states[-1]["state"] == "idle" and states[-1]["stopReason"] == "end_turn"
    assert not [f for f in frames if str(f.get("method", "")).startswith(("fs/", "terminal/"))]


# -- exit codes ----------------------------------------------------------------------


def test_a_failed_v2_turn_is_its_error_and_exit_1_as_on_v1(tmp_path):
    """The demo's ``error`` ends a v2 turn with idle, stopReason "error" and the
    JSON-RPC error (schema ErrorStopReason); it used to exit 0 saying only
    "stop reason: error", the agent's message lost."""
    said = {}
    for version in ("1", "2"):
        r = run(["--no-history", "--protocol", version, "error"], cwd=tmp_path)
        assert r.returncode == 1, (version, r.stderr)
        said[version] = r.stderr
    assert said["1"] == said["2"]
    assert "the agent answered an error: Internal error (JSON-RPC error -32603)" in said["2"]
    assert "the 'error' keyword fails the turn" in said["2"]


@pytest.mark.parametrize(
    ("prompt", "code", "says"),
    [
        ("refuse", 0, "acphost: stop reason: refusal"),
        ("limit", 0, "acphost: stop reason: max_tokens"),
        ("crash", 1, "the agent exited with code 3"),
    ],
)
def test_v2_stop_reasons_and_a_crash_exit_as_on_v1(tmp_path, prompt, code, says):
    for version in ("1", "2"):
        r = run(["--no-history", "--protocol", version, "-o", "simple", prompt], cwd=tmp_path)
        assert r.returncode == code, (version, r.stderr)
        assert says in r.stderr, (version, r.stderr)
        assert "Traceback" not in r.stderr


def test_a_budget_crossed_on_v2_cancels_the_turn_and_exits_3(tmp_path):
    r = run([*V2, "--max-tokens", "5", "spend 20"], cwd=tmp_path)
    assert r.returncode == 3, r.stderr


# -- the host's tools through the MCP server -----------------------------------------


def test_a_write_lands_inside_the_workspace_and_one_outside_is_refused_with_the_reason(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    r = run([*V2, "--write", "write notes.txt hello there"], cwd=ws)
    assert r.returncode == 0, r.stderr
    assert (ws / "notes.txt").read_text() == "hello there"
    assert f"Wrote 11 characters to {ws / 'notes.txt'}." in r.stdout.splitlines()
    outside = tmp_path / "outside.txt"
    r = run([*V2, "--write", f"write {outside} nope"], cwd=ws)
    assert r.returncode == 0, r.stderr
    assert not outside.exists()
    # The policy's reason, as the MCP tool answered it, is what the user sees.
    assert f"path '{outside}' is outside the workspace; writes are confined to it" in r.stdout
    assert [x for x in r.stdout.splitlines() if x.endswith(f"(edit) failed @ {outside}")]


def test_a_write_without_write_is_refused_and_the_refusal_counted(tmp_path):
    r = run([*V2, "write notes.txt hello"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert not (tmp_path / "notes.txt").exists()
    assert "rejected 1 request (writes); use --write, --ask or --approve-all" in r.stderr


def test_a_command_runs_through_the_mcp_tool_and_its_output_is_shown(tmp_path):
    r = run([*V2, "--write", "terminal echo marker-out"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    at = lines.index("[output] exit code 0")
    assert lines[at + 1] == "marker-out"
    assert "[tool] Bash: Running echo marker-out (execute) completed" in lines


def test_the_scripted_agents_terminal_output_is_shown(tmp_path):
    for flavour in ("claude", "codex"):
        r = run([*V2, *scripted(flavour), "--yolo", "hi"], cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        at = lines.index("[output] exit code 0")
        assert lines[at + 1] == "hi", (flavour, r.stdout)


# -- subagents ----------------------------------------------------------------------


def test_a_subagent_is_shown_as_a_child(tmp_path):
    r = run([*V2, "subagent hello kid"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    expected = [
        "[subagent] helper 1: running — answers one question",
        "[subagent] → helper 1: hello kid",
        "[helper 1] Working on: hello kid",
        "[subagent] helper 1: idle (end_turn)",
        "[subagent] ← helper 1: Done: hello kid",
        "The subagent answered: Done: hello kid",
    ]
    assert [x for x in lines if x in expected] == expected, r.stdout


def test_the_scripted_agents_children_are_shown(tmp_path):
    r = run([*V2, *scripted("claude"), "hi"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "[probe subagent] pong" in r.stdout.splitlines()
    r = run([*V2, *scripted("codex"), "hi"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    # codex's child keeps streaming after the parent's turn ended.
    assert "[Reply with the word pong.] Hello from the child." in r.stdout.splitlines()


# -- cancel and the permission prompt: whole processes --------------------------------


def test_sigint_cancels_the_v2_turn_and_exits_130(tmp_path):
    env = {**environment(tmp_path), "ACPHOST_DEMO_STEP": "0.05"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "acphost", *V2, "-o", "jsonl", "slow"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if '"agent_message_chunk"' in line:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    frames = [json.loads(x) for x in out.splitlines()]
    assert any(f.get("method") == "session/cancel" for f in frames)
    states = [u for u in _updates(frames) if u["sessionUpdate"] == "state_update"]
    assert states[-1]["state"] == "idle" and states[-1]["stopReason"] == "cancelled"


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
@pytest.mark.parametrize(("key", "chose"), [(b"y\n", "allow_once"), (b"n\n", "reject_once")])
def test_ask_answers_a_v2_permission_request_on_a_real_terminal(tmp_path, key, chose):
    run_ = PtyRun([*V2, "--ask", "permission"], cwd=tmp_path, env=environment(tmp_path), cols=160)
    run_.read_until(b"allow? [y/N/a=always] ")
    run_.write(key)
    assert run_.wait() == 0, run_.text()
    assert f"You chose {chose}." in run_.text()


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pty")
def test_ask_answers_a_write_through_the_mcp_tool_on_a_real_terminal(tmp_path):
    run_ = PtyRun(
        [*V2, "--ask", "write notes.txt asked"], cwd=tmp_path, env=environment(tmp_path), cols=160
    )
    run_.read_until(b"allow? [y/N/a=always] ")
    run_.write(b"y\n")
    assert run_.wait() == 0, run_.text()
    assert (tmp_path / "notes.txt").read_text() == "asked"


# -- traces --------------------------------------------------------------------------


@pytest.mark.parametrize("prompt", ["tool", "terminal echo x", "subagent hi"])
def test_a_v2_trace_validates_and_replays(tmp_path, prompt):
    trace = tmp_path / "t.jsonl"
    r = run([*V2, "--write", "--trace", str(trace), prompt], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    shown = r.stdout
    r = run(["validate", str(trace)], cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{trace}: ok" in (r.stdout + r.stderr).splitlines()
    assert '"protocolVersion":2' in trace.read_text().replace(" ", "")
    replay = shlex.join([sys.executable, "-m", "acphost", "replay", str(trace)])
    r = run([*V2, "--write", "--agent-command", replay, prompt], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == shown


# -- the same turn, the same output ---------------------------------------------------


@pytest.mark.parametrize(
    "prompt",
    [
        "diff",
        "tour",
        "write {ws}/new.txt hello",
        "plan",
        "think",
        "media",
        "compact",
        "compact fail",
        "notice warning Low disk",
        "title A new title",
        "commands",
        "unknown",
        "ask form",
    ],
)
def test_v2_shows_what_v1_shows_but_the_idles_usage(tmp_path, prompt):
    """v2 diffs carry ``{changes, patch}`` (schema Diff): the file's path is the
    authoritative absolute one of ``changes``, not the patch's ``a/tmp/...``
    (shown "tmp/..." with its leading slash lost), and a patch line marked
    "\\ No newline at end of file" has no newline (it gained one)."""
    shown = {}
    for version in ("1", "2"):
        ws = tmp_path / f"v{version}"
        ws.mkdir()
        (ws / "hello.py").write_text('print("hello")\n')
        r = run(["--no-history", "--protocol", version, "--write", prompt.format(ws=ws)], cwd=ws)
        assert r.returncode == 0, r.stderr
        shown[version] = r.stdout.replace(str(ws), "WS").splitlines()
    # v2 reports usage on the idle state_update (v1's demo only in usage_update).
    assert shown["2"][-1].startswith("[usage] tokens ")

    def seen(lines: list[str]) -> tuple[list[str], dict[str, str]]:
        # A tool card's intermediate lines show the state when they are
        # drawn (updates read together are drawn once): its last line is
        # what the card came to, on either version.
        cards = {x.split(" (", 1)[0]: x for x in lines if x.startswith("[tool] ")}
        rest = [x for x in lines if not x.startswith(("[usage]", "[tool] "))]
        return rest, cards

    assert seen(shown["1"]) == seen(shown["2"])
    assert not [x for x in shown["2"] if x.startswith("[diff] tmp/")]


# -- session setup: modes, models, config, auth, system prompt --------------------------


def _requests(frames: list[dict], method: str) -> list[dict]:
    return [f["params"] for f in frames if f.get("method") == method]


def test_mode_model_and_config_flags_set_v2_config_options_with_their_type(tmp_path):
    args = ["--mode", "code", "--model", "demo-smart", "--config", "verbose=true"]
    r = run([*V2, *args, "-o", "jsonl", "echo x"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    frames = check_jsonl(r.stdout)
    sets = _requests(frames, "session/set_config_option")
    # v2 has no modes: the mode is the config option "mode" (schema SessionConfigOption).
    assert [(p["configId"], p["type"], p["value"]) for p in sets] == [
        ("mode", "id", "code"),
        ("model", "id", "demo-smart"),
        ("verbose", "boolean", True),
    ]
    assert not _requests(frames, "session/set_mode")
    r = run([*V2, "--list-modes"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "  mode = ask [ask, code, architect]" in r.stdout.splitlines()
    r = run([*V2, "--config", "verbose=maybe", "echo x"], cwd=tmp_path)
    assert r.returncode == 2 and "verbose" in r.stderr and "Traceback" not in r.stderr


def test_an_agent_that_needs_a_login_is_logged_in_with_auth_login(tmp_path):
    env = {"ACPHOST_DEMO_REQUIRE_AUTH": "1"}
    r = run([*V2, "echo x"], cwd=tmp_path, env=env)
    assert r.returncode == 1
    assert "rerun with --auth METHOD, e.g. --auth demo-login" in r.stderr
    r = run([*V2, "--auth", "demo-login", "-o", "jsonl", "echo x"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    frames = check_jsonl(r.stdout)
    assert _requests(frames, "auth/login") == [{"methodId": "demo-login"}]
    assert not _requests(frames, "authenticate")


def test_a_system_prompt_reaches_a_v2_session(tmp_path):
    r = run([*V2, "--system-prompt", "Be brief.", "-o", "simple", "system"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "system prompt (append): Be brief."
