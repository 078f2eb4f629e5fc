"""Unstable features: off unless asked, then gated by the agent's unstable capabilities."""

from __future__ import annotations

import pytest

import acphost
from acphost import AcpClient
from tests.support.fake_agent import INIT_RESULT, answer, pair_with
from tests.support.waiting import eventually

UNSTABLE_CAPS = {
    "loadSession": True,
    "sessionCapabilities": {
        "title": {},
        "status": {},
        "archive": {},
        "fork": {},
        "resume": {},
        "systemPrompt": {},
    },
    "auth": {"status": {}},
}


def _agent(extra=None):
    init = answer({**INIT_RESULT, "agentCapabilities": UNSTABLE_CAPS})
    handlers = {
        "initialize": init,
        "session/set_title": answer({}),
        "session/status": answer({"status": "saved"}),
        "session/archive": answer({}),
        "session/unarchive": answer({}),
        "auth/status": answer({"state": "authenticated"}),
        "session/fork": answer({"sessionId": "s2"}),
        "session/load": answer({}),
        **(extra or {}),
    }
    return pair_with(handlers)


async def test_unstable_features_are_off_by_default(workspace):
    t, agent = _agent()
    async with AcpClient.connect(t) as client:
        session = await client.new_session(workspace)
        with pytest.raises(acphost.UsageError, match="unstable=True"):
            client.unstable  # noqa: B018
        with pytest.raises(acphost.UsageError, match="unstable=True"):
            await client.fork_session(session)
    sent = agent.methods()
    assert not any(m in sent for m in ("session/set_title", "session/fork", "auth/status"))


async def test_each_unstable_method_when_enabled(workspace):
    t, agent = _agent()
    async with AcpClient.connect(t, unstable=True) as client:
        session = await client.new_session(workspace, system_prompt="be brief")
        assert session.state.system_prompt == "be brief"
        await client.unstable.set_title(session.id, "Refactor")
        assert session.state.title == "Refactor"
        assert await client.unstable.status(session.id) == "saved"
        await client.unstable.archive(session.id)
        await client.unstable.unarchive(session.id)
        status = await client.unstable.auth_status()
        assert status.state == "authenticated" and client.unstable.auth is status
        forked = await client.fork_session(session)
        assert forked.state.parent_id == session.id and session.state.children == [forked.id]
        loaded = await client.load_session("old", workspace, system_prompt="stay terse")
        assert loaded.state.system_prompt == "stay terse"
    new = next(m for m in agent.received if m.get("method") == "session/new")
    assert new["params"]["systemPrompt"] == {
        "mode": "append",
        "content": [{"type": "text", "text": "be brief"}],
    }
    load = next(m for m in agent.received if m.get("method") == "session/load")
    assert load["params"]["systemPrompt"]["content"][0]["text"] == "stay terse"
    for method in (
        "session/set_title",
        "session/status",
        "session/archive",
        "session/unarchive",
        "auth/status",
        "session/fork",
    ):
        assert method in agent.methods()


async def test_unstable_methods_need_the_agents_capability(workspace):
    t, agent = pair_with({})  # an agent advertising no unstable capability
    async with AcpClient.connect(t, unstable=True) as client:
        session = await client.new_session(workspace)
        for call, cap in (
            (client.unstable.set_title(session.id, "x"), "title"),
            (client.unstable.status(session.id), "status"),
            (client.unstable.archive(session.id), "archive"),
            (client.unstable.auth_status(), "auth.status"),
            (client.new_session(workspace, system_prompt="x"), "systemPrompt"),
            (client.fork_session(session), "fork"),
        ):
            with pytest.raises(acphost.CapabilityNotSupported) as caught:
                await call
            assert caught.value.capability.endswith(cap)
    assert agent.methods() == ["initialize", "session/new"]


async def test_auth_status_updates_are_followed(workspace):
    t, agent = _agent()
    async with AcpClient.connect(t, unstable=True) as client:
        agent.notify("auth/status_update", {"state": "unauthenticated"})
        agent.notify("auth/status_update", {"state": 42})  # malformed: logged, never fatal
        agent.notify("auth/status_update", {"state": "authenticated", "accounts": []})
        await eventually(
            lambda: (
                client.unstable.auth is not None and client.unstable.auth.state == "authenticated"
            )
        )
        assert not client.closed
