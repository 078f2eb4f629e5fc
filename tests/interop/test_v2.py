"""The newest adapters on ACP v2, offline: negotiation, a tool turn, a permission, a subagent.

claude-agent-acp 0.101.0 and codex-acp 2.6.0 answer ``protocolVersion: 2`` to a
v2-shaped ``initialize`` (both use the SDK 2.4.0 router); the library maps
their v2 frames onto the one model, so the assertions are those of v1.
"""

from __future__ import annotations

import asyncio

import pytest

from acphost import AcpClient
from acphost.host import AllowAll, Interactive, Verdict
from acphost.trace import TraceValidator
from tests.interop.conftest import assert_no_survivors
from tests.interop.fake_model import Text
from tests.interop.test_library import TURN, Frames, host
from tests.interop.test_subagents import delegate

pytestmark = [pytest.mark.interop, pytest.mark.timeout(150)]

#: The adapters that speak v2 (the SDK 2.4.0 router); the others answer 1.
V2_AGENTS = ("claude", "codex")


def v2_only(agent) -> None:
    if agent.name not in V2_AGENTS:
        pytest.skip(f"not applicable: {agent.name} speaks ACP v1 only")


def start(agent, root, home, ws, model, frames, **options):
    return AcpClient.start(
        agent.argv(root, model), env=agent.env(home, model), cwd=ws, tap=frames, **options
    )


def inits(frames: Frames) -> list[dict]:
    return [
        f["params"] for d, f in frames.frames if d == "send" and f.get("method") == "initialize"
    ]


def assert_frames_valid(frames: Frames) -> None:
    validator = TraceValidator()
    problems = []
    for direction, frame in frames.frames:
        problems += validator.feed("outgoing" if direction == "send" else "incoming", frame)
    ours = [str(p) for p in problems if p.side == "client"]
    assert not ours, "\n".join(ours)


async def test_auto_lands_on_v2(agent, agents_root, home, ws, model):
    frames = Frames()
    async with start(agent, agents_root, home, ws, model, frames, protocol="auto") as client:
        session = await client.new_session(str(ws))
        assert session.id
        expected = 2 if agent.name in V2_AGENTS else 1
        assert client.protocol_version == expected
    sent = inits(frames)
    assert sent[0]["protocolVersion"] == 2 and "info" in sent[0]
    if expected == 2:
        assert len(sent) == 1
    else:
        # Refused or answered 1: asked again with v1 on the same connection.
        assert [i["protocolVersion"] for i in sent] == [2, 1]
    assert_no_survivors(home)


async def test_a_tool_turn_with_a_permission(agent, agents_root, home, ws, model):
    v2_only(agent)
    model.script = [agent.shell("touch permitted-run && echo ran-it"), Text("Ran it.")]
    asked = []

    async def decide(request):
        asked.append(request)
        return Verdict.allow("the test allows it")

    frames = Frames()
    policy = Interactive(decide)
    async with start(
        agent,
        agents_root,
        home,
        ws,
        model,
        frames,
        protocol=2,
        host=host(agent, write=True, policy=policy),
    ) as client:
        assert client.protocol_version == 2
        session = await client.new_session(str(ws))
        result = await asyncio.wait_for(session.prompt("run it").result(), TURN)
    assert result.stop_reason == "end_turn"
    assert "Ran it." in result.text
    assert asked and asked[0].operation == "tool_call" and asked[0].options
    assert (ws / "permitted-run").exists()
    calls = [c for c in session.state.tool_calls.values() if c.kind == "execute"]
    assert calls and calls[-1].status == "completed"
    if agent.name == "codex":
        # Its command's output arrives as a v2 terminal_update (base64).
        outputs = [t.output for c in calls for t in c.terminals.values()]
        assert any("ran-it" in o for o in outputs), outputs
    # No v1 prompt answer and no client fs/terminal on v2.
    assert not {"fs/read_text_file", "terminal/create"} & set(frames.methods())
    assert_frames_valid(frames)
    assert_no_survivors(home)


async def test_a_subagent_is_a_child_session_without_the_opt_in(
    agent, agents_root, home, ws, model
):
    v2_only(agent)
    delegate(agent, model)
    frames = Frames()
    async with start(
        agent, agents_root, home, ws, model, frames, protocol=2, host=host(agent, write=True)
    ) as client:
        session = await client.new_session(str(ws))
        result = await asyncio.wait_for(session.prompt("delegate it").result(), TURN)
        await session.wait_subagents(timeout=TURN)
    assert result.stop_reason == "end_turn"
    [child] = session.subagents
    assert "pong from the child" in child.state.last_agent_text()
    assert not session.running_subagents()
    # Subagents are baseline in v2: nothing to opt into.
    assert "subagents" not in inits(frames)[0].get("capabilities", {})
    assert_frames_valid(frames)
    assert_no_survivors(home)


#: How each adapter names an MCP server's tool to its model (Codex offers a
#: server's tools in a Responses namespace, ``mcp__acphost``; the fake model
#: finds it).
MCP_TOOL = {"claude": "mcp__acphost__{}", "codex": "{}"}


@pytest.mark.parametrize("where", ["inside", "outside"])
async def test_the_hosts_mcp_tools_pass_the_jail(
    agent, agents_root, home, ws, outside, model, where
):
    """On v2 the host's tools reach the agent as the MCP server ``acphost``.

    Claude writes through ``write_text_file``; Codex reads through
    ``read_text_file`` (codex-acp 2.6.0 cancels an MCP call that needs its
    approval itself: "user cancelled MCP tool call", nothing reaches the
    client). Inside the workspace the call lands; outside, the jail refuses
    it and the agent's model reads the host's reason.
    """
    v2_only(agent)
    from tests.interop.fake_model import Tool

    if agent.name == "claude":
        target = ws / "via-mcp.txt" if where == "inside" else outside / "escape.txt"
        call = Tool(
            MCP_TOOL["claude"].format("write_text_file"), {"path": str(target), "content": "hi\n"}
        )
    else:
        (ws / "mine.txt").write_text("in the workspace\n")
        target = ws / "mine.txt" if where == "inside" else outside / "keep.txt"
        call = Tool(MCP_TOOL["codex"].format("read_text_file"), {"path": str(target)})
    model.script = [call, Text("Tried.")]
    frames = Frames()
    async with start(
        agent,
        agents_root,
        home,
        ws,
        model,
        frames,
        protocol=2,
        host=host(agent, write=True, policy=AllowAll()),
    ) as client:
        session = await client.new_session(str(ws))
        result = await asyncio.wait_for(session.prompt("use the tool").result(), TURN)
    assert result.stop_reason == "end_turn"
    seen = model.tool_results()
    if where == "outside":
        assert "outside the workspace" in seen, seen
        assert not (outside / "escape.txt").exists()
        assert "untouched" not in seen
    elif agent.name == "claude":
        assert target.read_text() == "hi\n", seen
    else:
        assert "in the workspace" in seen, seen
    assert_no_survivors(home)
