"""Regression tests for the wire quirks real agents show (docs/INTEROP.md).

Each quirk is replayed by a raw-JSON fake agent on the in-memory pair, so
these run without npm. The agent that shows it is named in each test.
"""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from acphost import AcpClient, HostConfig
from acphost import schema as s
from acphost.config import presets
from acphost.host import AllowAll, FileSystemProvider, Interactive, Verdict
from acphost.transport._memory import memory_pair
from tests.support.waiting import eventually, settled

pytestmark = [pytest.mark.interop, pytest.mark.timeout(30)]

SID = "sess-1"


class RawAgent:
    """The agent end of the pair: raw JSON lines in and out."""

    def __init__(self, transport):
        self.t = transport
        self.buf = b""

    async def recv(self):
        while b"\n" not in self.buf:
            chunk = await self.t.receive()
            assert chunk, "the client closed"
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def send(self, msg):
        self.t.send(json.dumps({"jsonrpc": "2.0", **msg}).encode() + b"\n")

    def update(self, update):
        self.send({"method": "session/update", "params": {"sessionId": SID, "update": update}})

    async def handshake(self, *, early_update=None):
        init = await self.recv()
        self.send(
            {
                "id": init["id"],
                "result": {
                    "protocolVersion": 1,
                    "agentCapabilities": {},
                    "_meta": {"extra": True},
                    "somethingNew": 1,
                },
            }
        )
        new = await self.recv()
        assert new["method"] == "session/new"
        if early_update is not None:  # before the session/new response
            self.update(early_update)
        self.send({"id": new["id"], "result": {"sessionId": SID}})

    async def ask(self, rid, method, params):
        self.send({"id": rid, "method": method, "params": {"sessionId": SID, **params}})
        while True:
            msg = await self.recv()
            if msg.get("id") == rid and "method" not in msg:
                return msg


async def connect(ws, host=None):
    ours, theirs = memory_pair()
    agent = RawAgent(theirs)
    ctx = AcpClient.connect(ours, host=host or HostConfig(allow_write=True, permissions=AllowAll()))
    return ctx, agent


@pytest.fixture
def ws(tmp_path):
    w = tmp_path / "ws"
    w.mkdir()
    return os.path.realpath(w)


async def _session(ws, *, host=None, early_update=None):
    ctx, agent = await connect(ws, host)
    task = asyncio.ensure_future(agent.handshake(early_update=early_update))
    client = await ctx.__aenter__()
    session = await client.new_session(ws)
    await task
    return ctx, client, agent, session


async def test_string_ids(ws):
    with open(os.path.join(ws, "a.txt"), "w") as f:
        f.write("hello\n")
    ctx, _, agent, _ = await _session(ws)
    try:
        reply = await agent.ask("req-7", "fs/read_text_file", {"path": os.path.join(ws, "a.txt")})
        assert reply["id"] == "req-7" and reply["result"]["content"] == "hello\n"
    finally:
        await ctx.__aexit__(None, None, None)


async def test_terminal_create_with_a_whole_shell_line_and_no_cwd(ws):
    # Claude Code: {"command": "echo a && pwd"}, no args, no cwd.
    ctx, _, agent, _ = await _session(ws)
    try:
        created = await agent.ask("t1", "terminal/create", {"command": "echo a && pwd"})
        tid = created["result"]["terminalId"]
        await agent.ask("t2", "terminal/wait_for_exit", {"terminalId": tid})
        out = await agent.ask("t3", "terminal/output", {"terminalId": tid})
        assert out["result"]["output"] == f"a\n{ws}\n"  # sh -c, in the workspace
        await agent.ask("t4", "terminal/release", {"terminalId": tid})
    finally:
        await ctx.__aexit__(None, None, None)


async def test_gemini_preset_answers_missing_file_reads_with_empty_content(ws):
    # Gemini CLI reads a file before creating it and fails the write on -32002.
    assert presets()["gemini"].missing_file_returns_empty
    fs = FileSystemProvider(
        missing_file_returns_empty=presets()["gemini"].missing_file_returns_empty
    )
    ctx, _, agent, _ = await _session(ws, host=HostConfig(fs=fs, allow_write=True))
    try:
        reply = await agent.ask("r1", "fs/read_text_file", {"path": os.path.join(ws, "new.txt")})
        assert reply["result"] == {"content": ""}
    finally:
        await ctx.__aexit__(None, None, None)
    # Without the option the read is a -32002 "not found".
    ctx, _, agent, _ = await _session(ws)
    try:
        reply = await agent.ask("r1", "fs/read_text_file", {"path": os.path.join(ws, "new.txt")})
        assert reply["error"]["code"] == -32002
    finally:
        await ctx.__aexit__(None, None, None)


def test_settings_entry_named_gemini_keeps_the_quirk(tmp_path):
    from acphost.config import load_settings, resolve_agent

    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"agent_servers": {"gemini": {"command": "node", "args": ["x"]}}}))
    settings = load_settings(path)
    assert resolve_agent("gemini", settings).missing_file_returns_empty
    assert resolve_agent(None, settings).missing_file_returns_empty


async def test_permission_for_an_unannounced_call_with_agent_specific_ids(ws):
    # Gemini CLI / Qwen Code: request_permission before any tool_call, ids
    # "proceed_once"/"cancel"; Claude Code: "allow"/"reject". Chosen by kind.
    seen = []

    async def decide(request):
        seen.append(request)
        return Verdict.allow("ok")

    host = HostConfig(allow_write=True, permissions=Interactive(decide))
    ctx, _client, agent, session = await _session(ws, host=host)
    try:
        turn = asyncio.ensure_future(_prompt(session))
        await agent.recv()  # session/prompt
        reply = await agent.ask(
            "p1",
            "session/request_permission",
            {
                "toolCall": {
                    "toolCallId": "never-announced",
                    "title": "Writing to out.txt",
                    "kind": "edit",
                    "content": [
                        {"type": "diff", "path": "out.txt", "newText": "x"},  # relative, no oldText
                    ],
                },
                "options": [
                    {"optionId": "proceed_always", "name": "Always", "kind": "allow_always"},
                    {"optionId": "cancel", "name": "Reject", "kind": "reject_once"},
                    {"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
                ],
            },
        )
        assert reply["result"]["outcome"] == {"outcome": "selected", "optionId": "proceed_once"}
        # Relative diff paths reach the policy as absolute paths in the workspace.
        assert seen[0].paths == (os.path.join(ws, "out.txt"),)
        call = session.state.tool_calls["never-announced"]
        assert call.announced is False
        agent.update(
            {"sessionUpdate": "tool_call_update", "toolCallId": "also-new", "status": "failed"}
        )
        await _finish(agent, session, turn)
        assert session.state.tool_calls["also-new"].status == "failed"
    finally:
        await ctx.__aexit__(None, None, None)


@pytest.mark.parametrize("old", ["missing", None, ""])
def test_diff_old_text_missing_null_or_empty(old):
    # Claude Code sends null for a new file, Gemini CLI and Qwen Code "".
    wire = {"type": "diff", "path": "/w/a.txt", "newText": "x"}
    if old != "missing":
        wire["oldText"] = old
    block = s.DiffToolCallContent.from_wire(wire)
    assert block.new_text == "x"
    assert block.old_text in (None, "")


async def test_updates_before_session_new_response_and_after_prompt_response(ws):
    early = {
        "sessionUpdate": "available_commands_update",
        "availableCommands": [{"name": "early", "description": "before session/new"}],
    }
    ctx, _client, agent, session = await _session(ws, early_update=early)
    try:
        assert [c.name for c in session.state.available_commands] == ["early"]
        turn = asyncio.ensure_future(_prompt(session))
        prompt = await agent.recv()
        # Extra result fields: usage (unstable) and _meta, as Gemini CLI sends.
        agent.send(
            {
                "id": prompt["id"],
                "result": {
                    "stopReason": "end_turn",
                    "usage": {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3},
                    "_meta": {"quota": {"token_count": {"input_tokens": 1}}},
                },
            }
        )
        result = await asyncio.wait_for(turn, 5)
        assert result.stop_reason == "end_turn"
        assert result.meta == {"quota": {"token_count": {"input_tokens": 1}}}
        assert result.usage is not None
        # A late chunk after the prompt response (Qwen Code's usage chunk) is kept, not fatal.
        agent.update(
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "late"}}
        )
        await eventually(
            lambda: session.state.messages and session.state.messages[-1].text == "late"
        )
    finally:
        await ctx.__aexit__(None, None, None)


async def _prompt(session):
    return await session.prompt("go").result()


async def _finish(agent, session, turn):
    # The prompt request is the one the agent received first; its id is 2 (init 0, new 1).
    agent.send({"id": 2, "result": {"stopReason": "end_turn"}})
    return await asyncio.wait_for(turn, 5)


async def test_a_child_announced_without_a_state_is_waited_for(ws):
    # codex-acp 2.6.0 announces a child with capabilities and description only;
    # `state: running` follows in a later patch, which a busy machine delivered
    # after the parent's session/prompt answer (the suite saw `acphost -o text`
    # exit with the child's first chunk only). A child that never said it is
    # idle may still work: the turn names it and the caller can await it.
    child = f"{SID}:subagent:thread-1"
    ctx, _client, agent, session = await _session(ws)
    try:
        turn = asyncio.ensure_future(_prompt(session))
        prompt = await agent.recv()
        announce = {"sessionUpdate": "subagent_update", "sessionId": child}
        agent.update({**announce, "capabilities": {}, "description": "reply with pong"})
        agent.send({"id": prompt["id"], "result": {"stopReason": "end_turn"}})
        result = await asyncio.wait_for(turn, 5)
        assert result.subagents_running == (child,)
        waiting = asyncio.ensure_future(session.wait_subagents(timeout=5))
        await settled()
        assert not waiting.done()  # its activity is not confirmed yet
        agent.update({**announce, "state": {"state": "running"}})
        chunk = {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "pong"},
        }
        agent.send({"method": "session/update", "params": {"sessionId": child, "update": chunk}})
        agent.update({**announce, "state": {"state": "idle", "stopReason": "end_turn"}})
        await waiting
        [sub] = session.subagents
        assert sub.state.last_agent_text() == "pong" and sub.stop_reason == "end_turn"
    finally:
        await ctx.__aexit__(None, None, None)
