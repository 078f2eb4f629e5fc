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


# -- ACP v2: the version comes from the initialize exchange the checker sees ---------------

INFO = {"name": "acphost", "version": "0"}
V2_INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
           "params": {"protocolVersion": 2, "info": INFO, "capabilities": {}}}
V2_ANSWER = {"jsonrpc": "2.0", "id": 0, "result": {
    "protocolVersion": 2, "info": {"name": "agent", "version": "1"},
    "capabilities": {"session": {}}}}
REFUSED = {"jsonrpc": "2.0", "id": 0,
           "error": {"code": -32602, "message": "Invalid params", "data": "info is required"}}
V1_INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
           "params": {"protocolVersion": 1, "clientCapabilities": {}}}
SET_MODE = {"jsonrpc": "2.0", "id": 5, "method": "session/set_config_option",
            "params": {"sessionId": "s", "configId": "mode", "value": "ask"}}
CANCEL_TOOL = {"jsonrpc": "2.0", "id": 6, "method": "tool_call/cancel",
               "params": {"sessionId": "s", "toolCallId": "t"}}


def test_on_v2_the_clients_frames_are_checked_against_the_v2_schema_and_rules():
    checker = FrameChecker()
    _feed(checker, "send", V2_INIT)
    _feed(checker, "receive", V2_ANSWER)
    assert checker.protocol_version == 2
    # A v2-only method passes; v2's set_config_option needs "type" next to value.
    _feed(checker, "send", CANCEL_TOOL)
    _feed(checker, "send", {**SET_MODE, "params": {**SET_MODE["params"], "type": "id"}})
    assert checker.errors == []
    _feed(checker, "send", {**SET_MODE, "id": 7})
    _feed(checker, "send", {"jsonrpc": "2.0", "id": 8, "method": "session/load",
                            "params": {"sessionId": "s", "cwd": "/w", "mcpServers": []}})
    assert len(checker.errors) == 2
    assert 'set_config_option without "type"' in checker.errors[0]
    assert "session/load does not exist in ACP v2" in checker.errors[1]


def test_on_v2_the_clients_answer_is_checked_against_the_v2_request():
    checker = FrameChecker()
    _feed(checker, "send", V2_INIT)
    _feed(checker, "receive", V2_ANSWER)
    options = [{"optionId": "a", "name": "Allow", "kind": "allow_once"}]
    for rid, answer in ((0, {"outcome": {"outcome": "selected", "optionId": "a"}}),
                        (1, {"outcome": {"outcome": "selected"}})):
        _feed(checker, "receive", {"jsonrpc": "2.0", "id": rid,
                                   "method": "session/request_permission",
                                   "params": {"sessionId": "s", "title": "Write",
                                              "options": options}})
        _feed(checker, "send", {"jsonrpc": "2.0", "id": rid, "result": answer})
    assert len(checker.errors) == 1 and "v2:RequestPermissionResponse" in checker.errors[0]


def test_after_a_refused_v2_initialize_the_v1_retry_is_checked_as_v1():
    """The ``auto`` fallback: the checker follows the version finally agreed."""
    checker = FrameChecker()
    _feed(checker, "send", V2_INIT)
    _feed(checker, "receive", REFUSED)
    _feed(checker, "send", V1_INIT)
    _feed(checker, "receive", {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1}})
    assert checker.protocol_version == 1
    _feed(checker, "send", SET_MODE)  # v1's shape: no type
    assert checker.errors == []
    _feed(checker, "send", CANCEL_TOOL)  # no v1 method
    assert len(checker.errors) == 1 and "unknown method 'tool_call/cancel'" in checker.errors[0]


def test_a_v2_initialize_in_the_v1_shape_is_the_clients_fault():
    checker = FrameChecker()
    _feed(checker, "send", {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                            "params": {"protocolVersion": 2, "clientCapabilities": {},
                                       "clientInfo": INFO}})
    assert len(checker.errors) == 1 and "without info" in checker.errors[0]


def test_an_agents_v1_frames_on_v2_are_not_the_clients_fault():
    checker = FrameChecker()
    _feed(checker, "send", V2_INIT)
    _feed(checker, "receive", V2_ANSWER)
    _feed(checker, "receive", {"jsonrpc": "2.0", "id": 3, "method": "fs/read_text_file",
                               "params": {"sessionId": "s", "path": "/w/a"}})
    _feed(checker, "send", {"jsonrpc": "2.0", "id": 3,
                            "error": {"code": -32601, "message": "Method not found"}})
    _feed(checker, "receive", {"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": "s", "update": {"sessionUpdate": "tool_call", "toolCallId": "t"}}})
    assert checker.errors == []
