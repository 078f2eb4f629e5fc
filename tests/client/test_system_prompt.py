"""The library's system prompt against the capabilities today's adapters advertise.

claude-agent-acp advertises ``sessionCapabilities.systemPrompt: {mode: {override: {}}}``
(append and override); codex-acp advertises ``systemPrompt: {}`` (append only) and
answers an override with -32602. The client decides from the ``initialize``
answer, stable client or not, and sends nothing the agent did not advertise.
"""

from __future__ import annotations

import pytest

import acphost
from acphost import AcpClient
from acphost.client._sysprompt import system_prompt_modes
from tests.support.fake_agent import INIT_RESULT, answer, pair_with

CLAUDE = {"systemPrompt": {"mode": {"override": {}}}, "resume": {}}
CODEX = {"systemPrompt": {}, "resume": {}}


def _last(agent, method):
    return [m for m in agent.received if m.get("method") == method][-1]


def _agent(session_caps):
    caps = {"loadSession": True, "sessionCapabilities": session_caps}
    return pair_with(
        {
            "initialize": answer({**INIT_RESULT, "agentCapabilities": caps}),
            "session/load": answer({}),
            "session/resume": answer({}),
        }
    )


@pytest.mark.parametrize(
    ("value", "modes"),
    [
        ({"mode": {"override": {}}}, ("append", "override")),
        ({}, ("append",)),
        ({"mode": None}, ("append",)),
        ({"mode": {"override": None}}, ("append",)),
        ({"mode": {"override": True}}, ("append",)),  # not an object: not advertised
        (None, ()),
        (True, ()),
        ("append", ()),
    ],
)
def test_the_modes_are_read_from_the_raw_capability(value, modes):
    raw = {"agentCapabilities": {"sessionCapabilities": {"systemPrompt": value}}}
    assert system_prompt_modes(raw) == modes


@pytest.mark.parametrize("unstable", [False, True])
async def test_a_claude_shaped_agent_gets_either_mode_on_new_load_and_resume(workspace, unstable):
    t, agent = _agent(CLAUDE)
    async with AcpClient.connect(t, unstable=unstable) as client:
        assert client.system_prompt_modes == ("append", "override")
        await client.new_session(workspace, system_prompt="a", system_prompt_mode="override")
        await client.load_session("s0", workspace, system_prompt="b")
        await client.resume_session(
            "s2", workspace, system_prompt="c", system_prompt_mode="override"
        )
    sent = {m["method"]: m["params"].get("systemPrompt") for m in agent.received if "method" in m}
    text = [{"type": "text", "text": x} for x in "abc"]
    assert sent["session/new"] == {"mode": "override", "content": [text[0]]}
    assert sent["session/load"] == {"mode": "append", "content": [text[1]]}
    assert sent["session/resume"] == {"mode": "override", "content": [text[2]]}


async def test_a_codex_shaped_agent_is_never_sent_an_override(workspace):
    t, agent = _agent(CODEX)
    async with AcpClient.connect(t) as client:
        for call in (
            client.new_session(workspace, system_prompt="x", system_prompt_mode="override"),
            client.resume_session("s", workspace, system_prompt="x", system_prompt_mode="override"),
        ):
            with pytest.raises(acphost.CapabilityNotSupported) as caught:
                await call
            assert caught.value.capability == "sessionCapabilities.systemPrompt.mode.override"
        session = await client.new_session(workspace, system_prompt="x")
        assert session.state.system_prompt == "x"
    assert agent.methods() == ["initialize", "session/new"]
    assert _last(agent, "session/new")["params"]["systemPrompt"]["mode"] == "append"


async def test_an_unstable_system_prompt_object_keeps_its_mode_and_is_checked_too(workspace):
    from acphost.schema import unstable as u

    t, agent = _agent(CODEX)
    async with AcpClient.connect(t, unstable=True) as client:
        text = u.TextContentBlock(text="y")
        for wrong in (u.TextContent(text="y"), u.ImageContentBlock(data="", mime_type="image/png")):
            with pytest.raises(acphost.UsageError, match="text content blocks only"):
                await client.new_session(
                    workspace, system_prompt=u.SystemPrompt(mode="append", content=[wrong])
                )
        with pytest.raises(acphost.CapabilityNotSupported):
            await client.new_session(
                workspace, system_prompt=u.SystemPrompt(mode="override", content=[text])
            )
        await client.new_session(
            workspace, system_prompt=u.SystemPrompt(mode="append", content=[text])
        )
    assert _last(agent, "session/new")["params"]["systemPrompt"] == {
        "mode": "append",
        "content": [{"type": "text", "text": "y"}],
    }
