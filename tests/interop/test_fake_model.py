"""The fake model's OpenAI Responses stream, as Codex reads it (no npm needed).

Codex 0.166 offers its subagent tools only inside a ``namespace`` tool
(``multi_agent_v1``); a ``function_call`` for one of them must name that
namespace, or Codex finds no such tool.
"""

from __future__ import annotations

import json
import urllib.request

import pytest

from tests.interop.fake_model import FakeModel, Text, Tool

pytestmark = [pytest.mark.interop, pytest.mark.timeout(30)]

TOOLS = [
    {"type": "function", "name": "exec_command", "parameters": {}},
    {
        "type": "namespace",
        "name": "multi_agent_v1",
        "tools": [{"type": "function", "name": "spawn_agent", "parameters": {}}],
    },
]


def events(model: FakeModel, body: dict) -> list[dict]:
    """POST to /v1/responses; the SSE ``data`` payloads, in order."""
    request = urllib.request.Request(
        f"{model.base_url}/v1/responses",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    # The server is on loopback: no proxy from the environment may intervene.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=10) as response:
        text = response.read().decode()
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def test_a_text_answer_streams_deltas_then_completes_with_usage():
    with FakeModel(script=[Text("Hello there", chunks=2)]) as model:
        got = events(model, {"stream": True, "tools": TOOLS, "input": []})
    kinds = [e["type"] for e in got]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    deltas = [e["delta"] for e in got if e["type"] == "response.output_text.delta"]
    assert "".join(deltas) == "Hello there" and len(deltas) > 1
    done = next(e["item"] for e in got if e["type"] == "response.output_item.done")
    assert done["content"][0]["text"] == "Hello there"
    assert got[-1]["response"]["usage"]["total_tokens"] == 15


def test_a_tool_inside_a_namespace_is_called_with_that_namespace():
    script = [Tool("spawn_agent", {"message": "go"}), Tool("exec_command", {"cmd": "true"})]
    with FakeModel(script=script) as model:
        first = events(model, {"stream": True, "tools": TOOLS, "input": []})
        # One tool result in the conversation: the next step, a top-level tool.
        output = {"type": "function_call_output", "call_id": "c1", "output": "ok"}
        second = events(model, {"stream": True, "tools": TOOLS, "input": [output]})
    call = next(e["item"] for e in first if e["type"] == "response.output_item.done")
    assert call["type"] == "function_call" and call["name"] == "spawn_agent"
    assert call["namespace"] == "multi_agent_v1"
    assert json.loads(call["arguments"]) == {"message": "go"}
    plain = next(e["item"] for e in second if e["type"] == "response.output_item.done")
    assert plain["name"] == "exec_command" and "namespace" not in plain


def test_a_request_without_tools_is_a_side_call():
    with FakeModel(script=[Tool("exec_command", {})], side_text="a title") as model:
        got = events(model, {"stream": True, "input": []})
        assert not model.main_requests()
    done = next(e["item"] for e in got if e["type"] == "response.output_item.done")
    assert done["content"][0]["text"] == "a title"


def test_a_conversation_holding_a_child_marker_runs_the_child_script():
    # A subagent's conversation: its task (from the parent's tool call) carries the marker.
    script = [Tool("spawn_agent", {"message": "CHILD-1: say pong"}), Text("Parent done.")]
    with FakeModel(script=script, children={"CHILD-1": [Text("pong")]}) as model:
        child_input = [
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x"}]},
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "CHILD-1: say pong"}],
            },
        ]
        child = events(model, {"stream": True, "tools": TOOLS, "input": child_input})
        # The parent's conversation holds the marker only in its tool call, never
        # as user text: it follows its own script.
        parent_input = [
            {"type": "message", "role": "user", "content": "delegate"},
            {"type": "function_call", "call_id": "c1", "name": "spawn_agent",
             "arguments": json.dumps({"message": "CHILD-1: say pong"})},
            {"type": "function_call_output", "call_id": "c1", "output": "spawned"},
        ]  # fmt: skip
        parent = events(model, {"stream": True, "tools": TOOLS, "input": parent_input})
        assert model.sent("CHILD-1") and not model.sent("never sent")
    said = next(e["item"] for e in child if e["type"] == "response.output_item.done")
    assert said["content"][0]["text"] == "pong"
    answer = next(e["item"] for e in parent if e["type"] == "response.output_item.done")
    assert answer["content"][0]["text"] == "Parent done."
