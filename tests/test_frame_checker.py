"""The suite's frame check itself: it flags what the client breaks, not what the agent breaks."""

from __future__ import annotations

import json

from tests.support.frames import FrameChecker


def _feed(checker: FrameChecker, direction: str, frame: dict) -> None:
    checker(direction, json.dumps(frame).encode())


def test_a_client_frame_that_breaks_the_schema_is_flagged():
    checker = FrameChecker()
    _feed(checker, "send", {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                            "params": {"protocolVersion": "one", "clientCapabilities": {}}})
    assert checker.errors and "schema" in checker.errors[0]


def test_an_agent_frame_that_breaks_the_schema_is_not_the_clients_fault():
    checker = FrameChecker()
    _feed(checker, "send", {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                            "params": {"protocolVersion": 1, "clientCapabilities": {}}})
    _feed(checker, "receive", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "x"}})
    _feed(checker, "receive", {"jsonrpc": "2.0", "method": "session/update",
                               "params": {"sessionId": 5, "update": {"sessionUpdate": "plan"}}})
    assert checker.errors == []


def test_the_clients_answer_is_checked_against_the_agents_request():
    checker = FrameChecker()
    _feed(checker, "send", {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                            "params": {"protocolVersion": 1, "clientCapabilities": {}}})
    _feed(checker, "receive", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}})
    _feed(checker, "receive", {"jsonrpc": "2.0", "id": 7, "method": "fs/read_text_file",
                               "params": {"sessionId": "s", "path": "/w/a"}})
    _feed(checker, "send", {"jsonrpc": "2.0", "id": 7, "result": {"content": 42}})
    assert checker.errors and "schema" in " ".join(checker.errors)


def test_a_system_prompt_is_checked_against_the_unstable_schema_that_holds_its_shape():
    checker = FrameChecker()
    _feed(checker, "send", {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                            "params": {"protocolVersion": 1, "clientCapabilities": {}}})
    # The agent takes a system prompt: only its shape is at stake here.
    _feed(checker, "receive", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1,
          "agentCapabilities": {"sessionCapabilities": {"systemPrompt": {}}}}})
    good = {"mode": "append", "content": [{"type": "text", "text": "be brief"}]}
    for i, prompt in enumerate((good, {"mode": "append", "content": "be brief"}), 1):
        _feed(checker, "send", {"jsonrpc": "2.0", "id": i, "method": "session/new",
                                "params": {"cwd": "/w", "mcpServers": [], "systemPrompt": prompt}})
    assert len(checker.errors) == 1 and "systemPrompt" in checker.errors[0]


def test_a_system_prompt_to_an_agent_that_does_not_take_one_is_flagged():
    checker = FrameChecker()
    _feed(checker, "send", {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                            "params": {"protocolVersion": 1, "clientCapabilities": {}}})
    _feed(checker, "receive", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}})
    prompt = {"mode": "append", "content": [{"type": "text", "text": "be brief"}]}
    _feed(checker, "send", {"jsonrpc": "2.0", "id": 1, "method": "session/new",
                            "params": {"cwd": "/w", "mcpServers": [], "systemPrompt": prompt}})
    assert len(checker.errors) == 1 and "without sessionCapabilities.systemPrompt" in checker.errors[0]
