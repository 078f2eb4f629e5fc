"""The system prompt through the one assembly and the library, over real pipes to the demo agent.

The demo agent's ``system`` keyword answers with the system prompt its session
was opened (or reopened) with, so what it received is observable; the suite's
frame checker validates each ``systemPrompt`` sent against the schema that
holds its shape.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

import acphost
from acphost.client import AcpClient
from acphost.config import DEMO, AgentSpec
from acphost.launch import RunOptions, SessionChoice, UsageProblem, open_run
from acphost.transport import StdioTransport

FAST = {"ACPHOST_DEMO_STEP": "0", "ACPHOST_DEMO_MEMORY": "1"}


def demo(**env: str) -> AgentSpec:
    return replace(DEMO, env={**FAST, **env})


def sent(seen: list[tuple[str, bytes]]) -> list[str]:
    import json

    out = []
    for direction, line in seen:
        msg = json.loads(line)
        if direction == "send" and "method" in msg:
            out.append(msg["method"])
    return out


def frames(seen: list[tuple[str, bytes]], method: str) -> list[dict]:
    import json

    return [
        m for d, line in seen if d == "send" and (m := json.loads(line)).get("method") == method
    ]


def options(workspace, agent=None, seen=None, **fields) -> RunOptions:
    taps = [lambda d, line: seen.append((d, bytes(line)))] if seen is not None else []
    return RunOptions(agent=agent or demo(), cwd=str(workspace), close_grace=0.5, taps=taps, **fields)


@pytest.mark.parametrize("mode", ["append", "override"])
async def test_a_run_sends_the_system_prompt_on_session_new(workspace, mode):
    seen: list = []
    opts = options(workspace, seen=seen, system_prompt="be brief", system_prompt_mode=mode)
    async with open_run(opts) as run:
        result = await run.session.prompt("system")
        assert result.text == f"system prompt ({mode}): be brief"
        assert run.session.state.system_prompt == "be brief"
    (new,) = frames(seen, "session/new")
    assert new["params"]["systemPrompt"] == {
        "mode": mode,
        "content": [{"type": "text", "text": "be brief"}],
    }


async def test_a_run_without_a_system_prompt_sends_none(workspace):
    seen: list = []
    async with open_run(options(workspace, seen=seen)) as run:
        assert (await run.session.prompt("system")).text == "(no system prompt)"
    (new,) = frames(seen, "session/new")
    assert "systemPrompt" not in new["params"]


@pytest.mark.parametrize(
    ("advertised", "mode", "supports"),
    [
        ("none", "append", "supports no system prompt"),
        ("append", "override", "supports a system prompt in append mode only"),
    ],
)
async def test_an_agent_that_cannot_take_it_is_refused_before_any_session_request(
    workspace, advertised, mode, supports
):
    seen: list = []
    agent = demo(ACPHOST_DEMO_SYSTEM_PROMPT=advertised)
    run = open_run(options(workspace, agent, seen, system_prompt="x", system_prompt_mode=mode))
    with pytest.raises(UsageProblem) as caught:
        async with run:
            pass
    message = str(caught.value)
    assert "\n" not in message and "'demo'" in message and supports in message
    assert run.failed_in == "session"
    assert sent(seen) == ["initialize"]


async def test_the_settings_entry_gives_the_prompt_and_the_options_win(workspace):
    agent = replace(demo(), system_prompt="from settings", system_prompt_mode="override")
    async with open_run(options(workspace, agent)) as run:
        assert (await run.session.prompt("system")).text == "system prompt (override): from settings"
    async with open_run(options(workspace, agent, system_prompt="from flags")) as run:
        assert (await run.session.prompt("system")).text == "system prompt (override): from flags"
    opts = options(workspace, agent, system_prompt_mode="append")
    async with open_run(opts) as run:
        assert (await run.session.prompt("system")).text == "system prompt (append): from settings"


@pytest.mark.parametrize("how", ["resume", "load"])
async def test_it_is_sent_again_when_the_session_is_reopened(workspace, tmp_path, how):
    # Another process of the demo (its state on disk): only what is sent now counts.
    agent = demo(ACPHOST_DEMO_MEMORY="", ACPHOST_DEMO_STATE_DIR=str(tmp_path / "state"))
    async with open_run(options(workspace, agent, system_prompt="first")) as run:
        sid = run.session.id
    seen: list = []
    choice = SessionChoice(how=how, session_id=sid)
    opts = options(workspace, agent, seen, session=choice, system_prompt="again")
    async with open_run(opts) as run:
        assert (await run.session.prompt("system")).text == "system prompt (append): again"
        assert run.session.state.system_prompt == "again"
    (request,) = frames(seen, f"session/{how}")
    assert request["params"]["systemPrompt"]["content"] == [{"type": "text", "text": "again"}]


async def test_the_library_keyword_needs_no_unstable_flag(workspace):
    transport = await StdioTransport.spawn(DEMO.argv, cwd=str(workspace), env=FAST)
    async with AcpClient.connect(transport) as client:
        assert client.system_prompt_modes == ("append", "override")
        session = await client.new_session(
            workspace, system_prompt="terse", system_prompt_mode="override"
        )
        assert (await session.prompt("system")).text == "system prompt (override): terse"
        with pytest.raises(acphost.UsageError):
            await client.new_session(workspace, system_prompt="")


async def test_the_library_refuses_what_the_agent_does_not_advertise_and_sends_nothing(workspace):
    env = {**FAST, "ACPHOST_DEMO_SYSTEM_PROMPT": "append"}
    transport = await StdioTransport.spawn(DEMO.argv, cwd=str(workspace), env=env)
    async with AcpClient.connect(transport) as client:
        assert client.system_prompt_modes == ("append",)
        with pytest.raises(acphost.CapabilityNotSupported) as caught:
            await client.new_session(workspace, system_prompt="x", system_prompt_mode="override")
        assert caught.value.capability == "sessionCapabilities.systemPrompt.mode.override"
        assert "append mode only" in str(caught.value)
        session = await client.new_session(workspace, system_prompt="x")
        assert (await session.prompt("system")).text == "system prompt (append): x"
