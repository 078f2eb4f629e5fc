"""The `acphost` command against real third-party agents, offline."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from tests.interop.agents import settings_for
from tests.interop.conftest import assert_no_survivors, na
from tests.interop.fake_model import Text

pytestmark = [pytest.mark.interop, pytest.mark.timeout(150)]


def acphost(agent, root, home, ws, model, args, *, credentials=True, popen=False):
    m = None if agent.scripted else model
    settings = ws.parent / "settings.json"
    data = settings_for(agent, root, home, m)
    if not credentials:
        entry = data["agent_servers"][agent.name]
        entry["args"] = agent.argv(root, m, credentials=False)[1:]
        entry["env"] = agent.env(home, m, credentials=False)
    settings.write_text(json.dumps(data))
    cmd = [sys.executable, "-m", "acphost", "--settings", str(settings), "-o", "jsonl", *args]
    env = {**os.environ, "XDG_CONFIG_HOME": str(home / ".xdg"), "ACPHOST_SETTINGS": ""}
    if popen:
        return subprocess.Popen(
            cmd, cwd=ws, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
    return subprocess.run(cmd, cwd=ws, env=env, capture_output=True, text=True, timeout=120)


def frames(stdout):
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def methods(lines):
    return [m.get("method") for m in lines if "method" in m]


def answer(lines, request):
    """Our answer to an agent request: the next frame with its id (ids of both sides overlap)."""
    i = lines.index(request)
    return next(m for m in lines[i + 1 :] if m.get("id") == request["id"] and "method" not in m)


def stop_reason(lines):
    return next(
        m["result"]["stopReason"]
        for m in lines
        if isinstance(m.get("result"), dict) and "stopReason" in m["result"]
    )


def test_no_credentials_is_a_clear_auth_message(agent, agents_root, home, ws, model):
    na(agent, "auth")
    r = acphost(agent, agents_root, home, ws, model, ["hi"], credentials=False)
    assert r.returncode == 1
    if agent.auth_needs_terminal:
        # The CLI does not advertise auth.terminal, so the agent offers no login method.
        assert "requires authentication but offers no method" in r.stderr, r.stderr
        return
    assert "requires authentication" in r.stderr and "--auth" in r.stderr, r.stderr


def test_text_turn(agent, agents_root, home, ws, model):
    model.script = [Text("Hello from the fake model.")]
    r = acphost(agent, agents_root, home, ws, model, ["say hello"])
    assert r.returncode == 0, r.stderr
    lines = frames(r.stdout)
    assert stop_reason(lines) == "end_turn"
    if not agent.scripted:
        assert "Hello from the fake model." in r.stdout
    assert_no_survivors(home)  # the command has exited: nothing of the agent's is left


def test_fs_read(agent, agents_root, home, ws, model):
    na(agent, "read")
    model.script = [agent.read(str(ws / "notes.txt")), Text("I read it.")]
    args = ["--write"] if agent.read_needs_write else []
    r = acphost(agent, agents_root, home, ws, model, [*args, "read notes"])
    assert r.returncode == 0, r.stderr
    lines = frames(r.stdout)
    request = next(m for m in lines if m.get("method") == "fs/read_text_file")
    assert "line two" in answer(lines, request)["result"]["content"]


def test_fs_write_allowed(agent, agents_root, home, ws, model):
    model.script = [agent.write(str(ws / "out.txt"), "written\n")] if agent.write else []
    model.script.append(Text("Wrote it."))
    r = acphost(agent, agents_root, home, ws, model, ["--write", "write out.txt"])
    assert r.returncode == 0, r.stderr
    lines = frames(r.stdout)
    if agent.scripted:
        assert "successfully updated" in r.stdout
        return
    # An agent with its own tools asks, then writes the file itself.
    assert ("fs/write_text_file" in methods(lines)) != agent.own_tools
    assert (ws / "out.txt").read_text() == "written\n"


def test_fs_write_rejected_by_default_policy(agent, agents_root, home, ws, model):
    # Without --write the CLI neither advertises writes nor allows edit tool calls.
    model.script = [agent.write(str(ws / "out.txt"), "nope\n")] if agent.write else []
    model.script.append(Text("Could not write."))
    r = acphost(agent, agents_root, home, ws, model, ["write out.txt"])
    assert r.returncode == 0, r.stderr
    lines = frames(r.stdout)
    assert not (ws / "out.txt").exists()
    assert "fs/write_text_file" not in methods(lines)
    # Claude Code and Qwen Code drop their write tools when writes are not
    # advertised; Gemini CLI and the SDK example ask, and are refused.
    for request in (m for m in lines if m.get("method") == "session/request_permission"):
        chosen = answer(lines, request)["result"]["outcome"]["optionId"]
        kinds = {o["optionId"]: o["kind"] for o in request["params"]["options"]}
        assert kinds[chosen].startswith("reject")  # chosen by kind, whatever the id


def test_shell_command(agent, agents_root, home, ws, model):
    na(agent, "terminal")
    model.script = [agent.shell("echo hello-from-shell"), Text("Ran it.")]
    # Commands are gated like writes: running one needs --write (or --yolo, --ask...).
    r = acphost(agent, agents_root, home, ws, model, ["--write", "run it"])
    assert r.returncode == 0, r.stderr
    assert "hello-from-shell" in model.tool_results()
    uses = "terminal/create" in methods(frames(r.stdout))
    assert uses == agent.uses_terminal


def test_agent_run_terminal_output_in_text_output(agent, agents_root, home, ws, model):
    # -o text prints the output of a terminal the agent ran itself (reported in
    # _meta); other agents' command output is tool-call content, shown by the TUI.
    if not agent.meta_terminal:
        pytest.skip(f"not applicable: {agent.name} reports no agent-run terminal in _meta")
    model.script = [agent.shell("printf 'shown-%s\\n' 42"), Text("Ran it.")]
    r = acphost(agent, agents_root, home, ws, model, ["-o", "text", "--write", "run it"])
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[out.index("[output] exit code 0") + 1] == "shown-42", r.stdout


def test_plan(agent, agents_root, home, ws, model):
    na(agent, "plan")
    model.script = [agent.plan("first step"), Text("Planned.")]
    r = acphost(agent, agents_root, home, ws, model, ["plan it"])
    assert r.returncode == 0, r.stderr
    plans = [
        m["params"]["update"]
        for m in frames(r.stdout)
        if m.get("method") == "session/update" and m["params"]["update"]["sessionUpdate"] == "plan"
    ]
    assert plans and plans[-1]["entries"][0]["content"] == "first step"


def test_sigint_cancels_mid_stream(agent, agents_root, home, ws, model):
    model.script = [Text("word " * 600, chunks=600, delay=0.02)]
    proc = acphost(agent, agents_root, home, ws, model, ["talk"], popen=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        if '"agent_message_chunk"' in line and '"text":""' not in line:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    lines = frames(out)
    assert "session/cancel" in methods(lines)
    assert stop_reason(lines) == "cancelled"
    # The cancel took effect mid-stream: the agent did not get to stream it all.
    chunks = [m for m in lines if '"agent_message_chunk"' in json.dumps(m)]
    assert len(chunks) < 600


def test_write_outside_the_workspace_is_refused(agent, agents_root, home, ws, outside, model):
    na(agent, "jail")
    target = outside / "escape.txt"
    model.script = [agent.write(str(target), "pwned\n"), Text("Tried.")]
    r = acphost(agent, agents_root, home, ws, model, ["--yolo", "write outside"])
    assert r.returncode == 0, r.stderr
    assert not target.exists()
    assert sorted(p.name for p in outside.iterdir()) == ["keep.txt"]


SYSTEM_PROMPT = "ACPHOST-SYSTEM-PROMPT-7: answer tersely."


@pytest.mark.parametrize("mode", ["append", "override"])
def test_system_prompt(agent, agents_root, home, ws, model, mode):
    model.script = [Text("Answered.")]
    args = ["--system-prompt", SYSTEM_PROMPT, "--system-prompt-mode", mode, "hi"]
    r = acphost(agent, agents_root, home, ws, model, args)
    if mode not in agent.system_prompt_modes:
        # One line naming the agent and what it supports, exit 2, before any prompt.
        assert r.returncode == 2, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert agent.name in r.stderr and "system prompt" in r.stderr, r.stderr
        assert "session/prompt" not in methods(frames(r.stdout))
        assert not model.main_requests()
        return
    assert r.returncode == 0, r.stderr
    lines = frames(r.stdout)
    sent = next(m for m in lines if m.get("method") == "session/new")
    assert sent["params"]["systemPrompt"]["mode"] == mode
    assert model.sent(SYSTEM_PROMPT)


# -- subagents -----------------------------------------------------------------------

MARKER = "CHILD-TASK-7"
TASK = f"{MARKER}: reply with the child's word."
CHILD_TEXT = "pong from the child"
# How each agent names its child: claude-agent-acp gives the Agent tool's
# description as its title; codex-acp gives no title, its task as description.
LABELS = {"claude": "probe subagent", "codex": TASK}


def delegate(agent, model):
    model.script = [agent.subagent(TASK), Text("Parent done.")]
    # About three seconds of the child's text: codex's child outlives the parent's turn.
    model.children = {MARKER: [Text(CHILD_TEXT, chunks=4, delay=0.75)]}


def test_subagent_lines_in_text_output(agent, agents_root, home, ws, model):
    na(agent, "subagents")
    delegate(agent, model)
    r = acphost(agent, agents_root, home, ws, model, ["-o", "text", "delegate it"])
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert "Parent done." in out
    if not agent.subagent_tree:  # Qwen Code: a tool call, no child to show
        assert "[subagent]" not in r.stdout
        return
    label = LABELS[agent.name]
    # The child's own lines carry its label; its card and its end are [subagent] lines.
    assert f"[{label}] {CHILD_TEXT}" in out, r.stdout
    assert f"[subagent] {label}: idle (end_turn)" in out, r.stdout
    if agent.name == "claude":  # the task and the reply, as messages between sessions
        assert f"[subagent] → {label}: {TASK}" in out, r.stdout
        assert f"[subagent] ← {label}: {CHILD_TEXT}" in out, r.stdout
    if agent.subagents_outlive_turn:
        # The child answered after the parent's turn ended: the CLI waited for it.
        assert out.index("Parent done.") < out.index(f"[{label}] {CHILD_TEXT}"), r.stdout
    assert_no_survivors(home)


def test_strict_accepts_a_subagent_turn(agent, agents_root, home, ws, model):
    # --strict validates every frame against the vendored schema: the agent's
    # subagent_update / session_message fit its unstable part, where they live.
    na(agent, "subagents")
    if not agent.subagent_tree:
        pytest.skip(f"not applicable: {agent.name} runs its subagents as tool calls")
    delegate(agent, model)
    r = acphost(agent, agents_root, home, ws, model, ["-o", "text", "--strict", "delegate it"])
    assert r.returncode == 0, r.stderr
    assert f"[{LABELS[agent.name]}] {CHILD_TEXT}" in r.stdout.splitlines(), r.stdout


def test_no_subagents_is_a_tool_call(agent, agents_root, home, ws, model):
    na(agent, "subagents")
    delegate(agent, model)
    r = acphost(agent, agents_root, home, ws, model, ["--no-subagents", "delegate it"])
    assert r.returncode == 0, r.stderr
    lines = frames(r.stdout)
    init = next(m for m in lines if m.get("method") == "initialize")
    assert "subagents" not in init["params"]["clientCapabilities"]
    updates = [m["params"]["update"] for m in lines if m.get("method") == "session/update"]
    assert not [u for u in updates if u["sessionUpdate"] == "subagent_update"]
    field, value = agent.fallback
    calls = [u for u in updates if u["sessionUpdate"].startswith("tool_call")]
    assert any(u.get(field) == value for u in calls), calls


def test_subagent_timeout_stops_children_that_outlive_the_turn(agent, agents_root, home, ws, model):
    na(agent, "subagents")
    if not agent.subagents_outlive_turn:
        pytest.skip(f"not applicable: {agent.name}'s turn waits for its subagents")
    model.script = [agent.subagent(TASK), Text("Parent done.")]
    model.children = {MARKER: [agent.shell("sleep 60"), Text("CHILD-AFTER-THE-COMMAND")]}
    args = ["--write", "--subagent-timeout", "3", "delegate it"]
    r = acphost(agent, agents_root, home, ws, model, args)
    assert r.returncode == 0, r.stderr
    assert "subagents still running after 3 s" in r.stderr, r.stderr
    lines = frames(r.stdout)
    child = next(
        m["params"]["update"]["sessionId"]
        for m in lines
        if m.get("method") == "session/update"
        and m["params"]["update"]["sessionUpdate"] == "subagent_update"
    )
    cancels = [m["params"]["sessionId"] for m in lines if m.get("method") == "session/cancel"]
    assert child in cancels  # the child was stopped, not just left behind
    assert "CHILD-AFTER-THE-COMMAND" not in r.stdout
    assert_no_survivors(home)  # nor its command


def test_history_keeps_the_subagent(agent, agents_root, home, ws, model):
    na(agent, "subagents")
    if not agent.subagent_tree:
        pytest.skip(f"not applicable: {agent.name} runs its subagents as tool calls")
    delegate(agent, model)
    r = acphost(agent, agents_root, home, ws, model, ["delegate it"])
    assert r.returncode == 0, r.stderr
    sid = next(
        m["result"]["sessionId"]
        for m in frames(r.stdout)
        if isinstance(m.get("result"), dict) and "sessionId" in m["result"]
    )
    shown = subprocess.run(
        [sys.executable, "-m", "acphost", "history", "show", sid],
        cwd=ws, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout.splitlines()
    # The child's card, then its own text under it (codex's came after the turn).
    card = out.index(f"[subagent] {LABELS[agent.name]} · idle (end_turn)")
    assert out[card + 1].strip() == CHILD_TEXT, shown.stdout
