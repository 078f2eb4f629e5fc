"""The scripted v2 agent (tests/support/v2_agent.py) plays valid v2 frames, as the adapters do.

Every frame it sends is validated against the v2 draft schema, so the client side can
rely on it as a stand-in for claude-agent-acp and codex-acp on v2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _raw_v2 import V2_INFO, RawV2Client

from tests.support.v2_agent import command


def start(make_v2: Any, script: str, **env: str) -> RawV2Client:
    client: RawV2Client = make_v2(command(script), **env)
    return client


@pytest.mark.parametrize("flavor", ["claude", "codex"])
def test_flavors_play_a_whole_v2_turn(make_v2: Any, flavor: str) -> None:
    c = start(make_v2, flavor)
    assert c.initialize()["protocolVersion"] == 2
    sid = c.call("session/new", {"cwd": "/ws", "mcpServers": []})["sessionId"]
    updates, idle = c.run(sid, "probe")
    kinds = [u["sessionUpdate"] for u in updates]
    assert "<answer>" in kinds and "tool_call" not in kinds
    echo = "user_message" if flavor == "claude" else "user_message_chunk"
    assert echo in kinds
    assert idle["stopReason"] == "end_turn" and idle["usage"]["totalTokens"] == 140
    assert idle["_meta"]["quota"]["token_count"]["totalTokens"] == 140
    assert ("background" in idle) == (flavor == "claude")
    states = [u["state"] for u in updates if u["sessionUpdate"] == "state_update"]
    assert "requires_action" in states
    terminal = [u for u in updates if u["sessionUpdate"] == "terminal_update"]
    assert any(u.get("output") == {"data": "aGkK"} for u in terminal)
    asked = c.answered[-1]
    assert asked["id"] == 0 and asked["params"]["subject"]["type"] == "tool_call"
    children = [u for u in updates if u["sessionUpdate"] == "<child>"]
    assert children and all(u["sessionId"] != sid for u in children)
    if flavor == "codex":  # the child goes on after the parent's idle
        rest = []
        while len(rest) < 4:
            frame = c.next_frame()
            assert frame is not None
            rest.append(frame["params"])
        assert rest[1]["update"] == {
            "sessionUpdate": "state_update",
            "state": "idle",
            "stopReason": "end_turn",
        }
        assert rest[-1]["update"]["capabilities"] == {"cancel": None}


def test_negotiation_edge_cases(make_v2: Any) -> None:
    c = start(make_v2, "claude")
    rid = c.request_unchecked("initialize", {"protocolVersion": 2, "clientInfo": V2_INFO})
    _, response = c.until_response(rid)
    assert response["error"]["code"] == -32602
    c.v2 = False
    result = c.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    assert result["protocolVersion"] == 1
    c.v2 = True
    result = c.call("initialize", {"protocolVersion": 3, "info": V2_INFO, "capabilities": {}})
    assert result["protocolVersion"] == 2


def test_a_v1_only_script_and_set_config_option_type(make_v2: Any, tmp_path: Path) -> None:
    script = tmp_path / "v1only.json"
    script.write_text(json.dumps({"versions": [1]}), encoding="utf-8")
    c = start(make_v2, str(script))
    c.v2 = False
    result = c.call("initialize", {"protocolVersion": 2, "info": V2_INFO, "capabilities": {}})
    assert result["protocolVersion"] == 1

    v2 = start(make_v2, "claude")
    v2.initialize()
    sid = v2.call("session/new", {"cwd": "/ws"})["sessionId"]
    rid = v2.request_unchecked(
        "session/set_config_option", {"sessionId": sid, "configId": "mode", "value": "default"}
    )
    assert v2.until_response(rid)[1]["error"]["code"] == -32602
    params = {"sessionId": sid, "configId": "mode", "type": "id", "value": "default"}
    assert (
        v2.call("session/set_config_option", params)["configOptions"][0]["currentValue"]
        == "default"
    )


def test_cancel_ends_a_waiting_turn(make_v2: Any, tmp_path: Path) -> None:
    script = tmp_path / "wait.json"
    turn = [
        {"answer": True},
        {"update": {"sessionUpdate": "state_update", "state": "running"}},
        {"wait_cancel": True},
    ]
    script.write_text(json.dumps({"turns": [turn]}), encoding="utf-8")
    c = start(make_v2, str(script), V2_AGENT_LOG=str(tmp_path / "log.jsonl"))
    c.initialize()
    sid = c.call("session/new", {"cwd": "/ws"})["sessionId"]
    c.start_prompt(sid, "go")
    while True:
        frame = c.next_frame()
        assert frame is not None
        if frame.get("params", {}).get("update", {}).get("state") == "running":
            break
    c.notify("session/cancel", {"sessionId": sid})
    frame = c.next_frame()
    assert frame is not None
    assert frame["params"]["update"]["stopReason"] == "cancelled"
    c.close()
    logged = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [f.get("method") for f in logged] == [
        "initialize",
        "session/new",
        "session/prompt",
        "session/cancel",
    ]
