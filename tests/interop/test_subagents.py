"""Subagents of real agents, offline: a session tree with the opt-in, a tool call without.

The parent's model calls the agent's subagent tool with a task carrying a
marker; the fake model runs the child's conversation (the one whose user
text holds the marker) from its own script. The child's answer streams over
about three seconds, so codex's child is still running when the parent's turn
has ended.
"""

from __future__ import annotations

import asyncio

import pytest

from acphost import AcpClient, HostConfig
from acphost.host import Interactive, Verdict
from acphost.trace import TraceValidator
from tests.interop.conftest import assert_no_survivors, na
from tests.interop.fake_model import FakeModel, Text
from tests.interop.test_library import TURN, Frames, host
from tests.support.waiting import eventually

pytestmark = [pytest.mark.interop, pytest.mark.timeout(150)]

MARKER = "CHILD-TASK-7"
TASK = f"{MARKER}: reply with the child's word."
CHILD_TEXT = "pong from the child"


def delegate(agent, model: FakeModel) -> None:
    """Script a parent that starts one subagent, and the child's answer."""
    model.script = [agent.subagent(TASK), Text("Parent done.")]
    model.children = {MARKER: [Text(CHILD_TEXT, chunks=4, delay=0.75)]}


def initialize_caps(frames: Frames) -> dict:
    sent = next(f for d, f in frames.frames if d == "send" and f.get("method") == "initialize")
    return sent["params"]["clientCapabilities"]


async def run(agent, root, home, ws, model, frames, **options):
    async with AcpClient.start(
        agent.argv(root, model),
        env=agent.env(home, model),
        cwd=ws,
        tap=frames,
        host=host(agent, write=True),
        **options,
    ) as client:
        session = await client.new_session(str(ws))
        result = await asyncio.wait_for(session.prompt("delegate it").result(), TURN)
        # Children may go on after the parent's turn (codex): the caller awaits them.
        await session.wait_subagents(timeout=TURN)
    return session, result


async def test_subagent_is_a_child_session(agent, agents_root, home, ws, model):
    na(agent, "subagents")
    delegate(agent, model)
    frames = Frames()
    session, result = await run(agent, agents_root, home, ws, model, frames)
    assert initialize_caps(frames)["subagents"] == {}  # advertised by default
    assert result.stop_reason == "end_turn"
    ours_break_no_rule(frames)
    if not agent.subagent_tree:
        # Qwen Code: a tool call all the same, and no child session.
        assert session.subagents == () and not messages(session)
        field, value = agent.fallback
        assert [c.status for c in calls(session) if getattr(c, field) == value] == ["completed"]
        return
    assert "Parent done." in result.text
    [child] = session.subagents
    assert child.parent is session and child.subagents == ()
    # The child's own transcript, apart from the parent's.
    assert CHILD_TEXT in child.state.last_agent_text()
    assert CHILD_TEXT not in session.state.last_agent_text()
    assert (child.activity, child.stop_reason, child.running) == ("idle", "end_turn", False)
    assert not session.running_subagents()
    # The call that started it is no tool call of the parent's.
    assert not any(agent.fallback[1] == getattr(c, agent.fallback[0]) for c in calls(session))
    if agent.name == "claude":
        # Its Agent tool runs in the foreground: the parent's turn waited for it.
        assert result.subagents_running == ()
        assert (child.title, child.description) == ("probe subagent", "general-purpose")
        assert child.label == "probe subagent"
        # The task went to the child and its reply came back, as session messages.
        said = {(m.sender_session_id, m.recipient_session_id): m.text for m in messages(session)}
        assert MARKER in said[(session.id, child.id)]
        assert CHILD_TEXT in said[(child.id, session.id)]
        # The child's transcript has the incoming view of the task.
        [incoming] = messages(child)
        assert MARKER in incoming.text and incoming.sender_message_id
    if agent.subagents_outlive_turn:
        # Its child streams after the parent's session/prompt answered.
        assert result.subagents_running == (child.id,)
        assert child.title is None and child.label == child.description
        assert MARKER in child.description
        assert child.id.startswith(f"{session.id}:subagent:")
        assert child.state.usage is not None  # its own usage_update, on its own id
    assert_no_survivors(home)


async def test_the_agents_subagent_frames_validate(agent, agents_root, home, ws, model):
    """The agent's subagent_update and session_message fit the vendored schema.

    They live in ``v1/schema.unstable.json`` only (``SubagentUpdate``,
    ``SessionMessage``; stabilised after the vendored stable schema), so the
    trace validator must accept them there: it is what ``acphost trace
    validate`` and ``acphost --strict`` run.
    """
    na(agent, "subagents")
    if not agent.subagent_tree:
        pytest.skip(f"not applicable: {agent.name} runs its subagents as tool calls")
    delegate(agent, model)
    frames = Frames()
    await run(agent, agents_root, home, ws, model, frames)
    validator = TraceValidator()
    for direction, frame in frames.frames:
        validator.feed("outgoing" if direction == "send" else "incoming", frame)
    broken = [str(v)[:300] for v in validator.finish() if v.rule == "schema"]
    assert not broken, broken


async def test_subagent_without_the_opt_in_is_a_tool_call(agent, agents_root, home, ws, model):
    na(agent, "subagents")
    delegate(agent, model)
    frames = Frames()
    session, result = await run(agent, agents_root, home, ws, model, frames, subagents=False)
    assert "subagents" not in initialize_caps(frames)
    assert result.stop_reason == "end_turn"
    ours_break_no_rule(frames)
    assert session.subagents == () and not messages(session)
    field, value = agent.fallback
    [call] = [c for c in calls(session) if getattr(c, field) == value]
    assert call.status == "completed"
    if agent.name == "claude":
        # The child's answer comes back as the tool call's output.
        assert CHILD_TEXT in str(call.raw_output)
    # codex: the child's output is not shown at all (its spawnAgent call says
    # only which thread it started).


@pytest.mark.parametrize(
    ("answer", "opt_in"), [("allow", True), ("reject", True), ("reject", False)]
)
async def test_a_subagents_permission_goes_to_the_policy(
    agent, agents_root, home, ws, model, answer, opt_in
):
    na(agent, "subagents")
    model.script = [agent.subagent(TASK), Text("Parent done.")]
    model.children = {MARKER: [agent.shell("touch child-ran"), Text("Child done.")]}
    asked = []

    async def decide(request):
        asked.append(request)
        if about([request]):  # the child's command
            return Verdict.allow("ok") if answer == "allow" else Verdict.reject("no")
        return Verdict.allow("the parent may start its subagent")

    async with AcpClient.start(
        agent.argv(agents_root, model),
        env=agent.env(home, model),
        cwd=ws,
        host=HostConfig(allow_write=True, permissions=Interactive(decide)),
        subagents=opt_in,
    ) as client:
        session = await client.new_session(str(ws))
        await asyncio.wait_for(session.prompt("delegate it").result(), TURN)
        await session.wait_subagents(timeout=TURN)
        if agent.subagent_tree and not opt_in:
            # No child the client knows of to wait for (codex's goes on after the turn).
            await eventually(lambda: about(asked), timeout=TURN, what="the child asks")
        if not agent.subagent_tree:
            # Qwen Code's background agent: wait for the model to hear the child's end.
            await eventually(lambda: model.sent("Child done."), timeout=TURN, what="the child ends")
    about_the_command = about(asked)
    if not agent.subagent_tree:
        # Its background agent "cannot prompt for confirmation": the tool call is
        # denied inside the agent, the host is never asked, and nothing runs.
        assert not about_the_command and not (ws / "child-ran").exists()
        return
    # Asked on the child's own session id (without the opt-in, on the parent's:
    # the child is no session of the client's), and the answer is honoured.
    asker = session.subagents[0].id if opt_in else session.id
    assert [r.session_id for r in about_the_command] == [asker]
    assert (ws / "child-ran").exists() == (answer == "allow")


async def test_cancel_a_subagent(agent, agents_root, home, ws, model):
    na(agent, "subagents")
    if not agent.subagent_tree:
        pytest.skip(f"not applicable: {agent.name} runs its subagents as tool calls")
    # The child runs a long command; claude-agent-acp sends a child's text only
    # once the model's message is whole, so a command is what can be cut short.
    model.script = [agent.subagent(TASK), Text("Parent done.")]
    model.children = {MARKER: [agent.shell("sleep 20"), Text("CHILD-AFTER-THE-COMMAND")]}
    async with AcpClient.start(
        agent.argv(agents_root, model),
        env=agent.env(home, model),
        cwd=ws,
        host=host(agent, write=True),
    ) as client:
        session = await client.new_session(str(ws))
        turn = asyncio.ensure_future(session.prompt("delegate it").result())

        def running_its_command():
            return any(
                c.status in ("pending", "in_progress")
                for child in session.subagents
                for c in child.state.tool_calls.values()
            )

        await eventually(running_its_command, timeout=TURN, what="the child runs its command")
        [child] = session.subagents
        assert child.running and child.can_cancel  # both adapters allow it
        await child.cancel()
        await session.wait_subagents(timeout=TURN)
        result = await asyncio.wait_for(turn, TURN)
    assert child.stop_reason == "cancelled" and not child.running
    # It stopped at the command: its model was never asked for the text after it.
    assert "CHILD-AFTER-THE-COMMAND" not in child.state.last_agent_text()
    assert result.stop_reason == "end_turn"  # the parent's turn went on


def ours_break_no_rule(frames: Frames) -> None:
    """Every frame we sent fits the vendored schema (unstable where the shape lives
    there) and the protocol's rules, child sessions included."""
    validator = TraceValidator()
    for direction, frame in frames.frames:
        validator.feed("outgoing" if direction == "send" else "incoming", frame)
    ours = [v for v in validator.finish() if v.side == "client"]
    assert not ours, ours


def about(asked):
    """The permission requests about the child's command."""
    return [r for r in asked if r.title and "child-ran" in r.title]


def calls(session):
    return list(session.state.tool_calls.values())


def messages(session):
    return list(session.state.session_messages.values())
