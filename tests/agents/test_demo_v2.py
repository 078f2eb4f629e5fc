"""The demo agent on ACP v2 over real pipes: negotiation, the accepted-prompt lifecycle,
upserts, permissions, cancel, subagents, resume with replay, config options and auth.

Every frame the agent sends is validated against the v2 draft schema (the ``make_v2``
fixture); the test client is hand-written (``_raw_v2``), not acphost's.
"""

from __future__ import annotations

from typing import Any

import pytest
from _raw_client import RawClient
from _raw_v2 import V2_INFO, RawV2Client

V1_FIELDS = {
    "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True},
    "clientInfo": {"name": "raw-test-client", "version": "0"},
}


def kinds(updates: list[dict[str, Any]]) -> list[str]:
    return [u["sessionUpdate"] for u in updates]


def states(updates: list[dict[str, Any]]) -> list[str]:
    return [u["state"] for u in updates if u["sessionUpdate"] == "state_update"]


def text_of(updates: list[dict[str, Any]]) -> str:
    return "".join(
        u["content"]["text"]
        for u in updates
        if u["sessionUpdate"] == "agent_message_chunk" and u["content"]["type"] == "text"
    )


# -- negotiation ----------------------------------------------------------------------------


def test_v2_initialize_is_answered_in_v2(make_v2: Any) -> None:
    c = make_v2()
    result = c.initialize()
    assert result["protocolVersion"] == 2
    assert result["info"]["name"] == "acphost-demo"
    session = result["capabilities"]["session"]
    assert session["prompt"] == {"image": {}, "embeddedContext": {}}
    assert session["mcp"] == {"stdio": {}, "http": {}}
    assert [(m["methodId"], m["type"]) for m in result["authMethods"]] == [("demo-login", "agent")]
    assert "agentCapabilities" not in result and "agentInfo" not in result


def test_a_later_version_with_the_v2_shape_gets_2(make_v2: Any) -> None:
    c = make_v2()
    result = c.call("initialize", {"protocolVersion": 3, "info": V2_INFO, "capabilities": {}})
    assert result["protocolVersion"] == 2


def test_v2_with_v1_fields_is_refused_and_a_v1_retry_works(make_v2: Any) -> None:
    c = make_v2()
    _, response = c.until_response(
        c.request_unchecked("initialize", {"protocolVersion": 2, **V1_FIELDS})
    )
    assert response["error"]["code"] == -32602
    assert "info" in response["error"]["message"]
    # The connection stays open: the same process answers a v1 initialize.
    c.v2 = False
    result = c.call("initialize", {"protocolVersion": 1, **V1_FIELDS})
    assert result["protocolVersion"] == 1
    assert "agentCapabilities" in result


def test_v1_answer_unchanged_beside_v2(make_client: Any) -> None:
    # v1 and v1-with-v2-fields get the same v1 answer (unknown fields ignored).
    plain: RawClient = make_client()
    with_v2_fields: RawClient = make_client()
    a = plain.call("initialize", {"protocolVersion": 1, **V1_FIELDS})
    b = with_v2_fields.call(
        "initialize", {"protocolVersion": 1, **V1_FIELDS, "info": V2_INFO, "capabilities": {}}
    )
    assert a == b and a["protocolVersion"] == 1


def test_v1_methods_are_gone_on_v2(v2: RawV2Client) -> None:
    sid = v2.new_session()
    for method, params in [
        ("session/load", {"sessionId": sid, "cwd": "/tmp", "mcpServers": []}),
        ("session/set_mode", {"sessionId": sid, "modeId": "code"}),
        ("authenticate", {"methodId": "demo-login"}),
    ]:
        _, response = v2.until_response(v2.request_unchecked(method, params))
        assert response["error"]["code"] == -32601, method


# -- sessions and config options ----------------------------------------------------------------


def test_session_new_result_and_config_options(v2: RawV2Client) -> None:
    result = v2.call("session/new", {"cwd": "/proj", "mcpServers": []})
    assert set(result) == {"sessionId", "configOptions", "availableCommands"}
    assert [o["configId"] for o in result["configOptions"]] == ["mode", "model", "verbose"]
    assert all("id" not in o for o in result["configOptions"])
    assert {c["type"] for c in result["availableCommands"]} == {"command"}
    echo = next(c for c in result["availableCommands"] if c["name"] == "echo")
    assert echo["input"] == {"type": "text", "hint": "text to echo back"}
    sid = result["sessionId"]

    # "type" is required on v2 (the adapters answer -32602 without it).
    rid = v2.request_unchecked(
        "session/set_config_option", {"sessionId": sid, "configId": "mode", "value": "code"}
    )
    _, response = v2.until_response(rid)
    assert response["error"]["code"] == -32602 and '"type"' in response["error"]["message"]

    params = {"sessionId": sid, "configId": "mode", "type": "id", "value": "code"}
    others, response = v2.until_response(v2.request("session/set_config_option", params))
    options = {o["configId"]: o["currentValue"] for o in response["result"]["configOptions"]}
    assert options["mode"] == "code"
    assert [f["params"]["update"]["sessionUpdate"] for f in others] == ["config_option_update"]

    params = {"sessionId": sid, "configId": "verbose", "type": "boolean", "value": True}
    assert any(
        o["currentValue"] is True
        for o in v2.call("session/set_config_option", params)["configOptions"]
    )
    params = {"sessionId": sid, "configId": "verbose", "type": "id", "value": "yes"}
    _, response = v2.until_response(v2.request("session/set_config_option", params))
    assert response["error"]["code"] == -32602


# -- the accepted-prompt lifecycle -------------------------------------------------------------


def test_prompt_is_accepted_then_runs_then_goes_idle(v2: RawV2Client) -> None:
    sid = v2.new_session()
    updates, idle = v2.run(sid, "echo hello there")
    assert kinds(updates) == [
        "user_message",
        "<answer>",
        "state_update",
        "agent_message_chunk",
        "state_update",
    ]
    echo, answer = updates[0], updates[1]
    assert answer["messageId"] == echo["messageId"]
    assert echo["content"] == [{"type": "text", "text": "echo hello there"}]
    assert states(updates) == ["running", "idle"]
    chunk = updates[3]
    assert chunk["messageId"] and chunk["content"]["text"] == "hello there"
    assert idle["stopReason"] == "end_turn"
    assert (
        idle["usage"]["totalTokens"] == idle["usage"]["inputTokens"] + idle["usage"]["outputTokens"]
    )


def test_tour_uses_upserts_plans_and_v2_diffs(v2: RawV2Client) -> None:
    sid = v2.new_session("/proj")
    updates, idle = v2.run(sid, "Show me around")
    assert "tool_call" not in kinds(updates) and "plan" not in kinds(updates)
    plans = [u["plan"] for u in updates if u["sessionUpdate"] == "plan_update"]
    assert plans and all(p["type"] == "items" and p["planId"] == plans[0]["planId"] for p in plans)
    assert [e["status"] for e in plans[-1]["entries"]] == ["completed"] * 3
    calls = [u for u in updates if u["sessionUpdate"] == "tool_call_update"]
    first = {}
    for call in calls:
        first.setdefault(call["toolCallId"], call)
    # The first upsert of each call carries its title, name and kind; later ones only changes.
    assert [(c["name"], c["status"]) for c in first.values()] == [
        ("Search", "pending"),
        ("Edit", "pending"),
    ]
    assert all("name" not in c for c in calls if c not in first.values())
    diffs = [c for u in calls for c in u.get("content") or [] if c["type"] == "diff"]
    assert diffs == [
        {
            "type": "diff",
            "changes": [{"operation": "modify", "path": "/proj/hello.py", "fileType": "text"}],
            "patch": {
                "format": "git_patch",
                "text": "diff --git a/proj/hello.py b/proj/hello.py\n--- a/proj/hello.py\n"
                '+++ b/proj/hello.py\n@@ -1,1 +1,1 @@\n-print("hello")\n+print("hello, world")\n',
            },
        }
    ]
    assert idle["stopReason"] == "end_turn"


def test_stop_reasons_usage_and_errors_end_in_idle(v2: RawV2Client) -> None:
    sid = v2.new_session()
    _, idle = v2.run(sid, "refuse")
    assert idle["stopReason"] == "refusal"
    _, idle = v2.run(sid, "limit")
    assert idle["stopReason"] == "max_tokens"
    _, idle = v2.run(sid, "spend 2")
    assert idle["usage"] == {"totalTokens": 2000, "inputTokens": 1600, "outputTokens": 400}
    # A failure after insertion: the answer was {messageId}; the work ends in error.
    updates, idle = v2.run(sid, "error")
    assert kinds(updates)[1] == "<answer>"
    assert idle["stopReason"] == "error"
    assert idle["error"]["code"] == -32603


def test_permission_requires_action_then_runs(v2: RawV2Client) -> None:
    sid = v2.new_session()
    updates, idle = v2.run(sid, "permission")
    assert states(updates) == ["running", "requires_action", "running", "idle"]
    asked = v2.answered[-1]
    assert asked["method"] == "session/request_permission"
    params = asked["params"]
    assert params["title"] == "Delete build/ (demo)"
    assert params["subject"]["type"] == "tool_call"
    assert params["subject"]["toolCall"]["kind"] == "delete"
    assert "toolCall" not in params
    assert "You chose allow_once." in text_of(updates)
    # requires_action came before the request, running after the answer.
    order = [
        f.get("method") if "id" in f else f["params"]["update"].get("state")
        for f in v2.received
        if f.get("method") == "session/request_permission"
        or f.get("params", {}).get("update", {}).get("sessionUpdate") == "state_update"
    ]
    assert order[-4:] == ["requires_action", "session/request_permission", "running", "idle"]
    assert idle["stopReason"] == "end_turn"


def test_rejected_permission_fails_the_tool_call(v2: RawV2Client) -> None:
    v2.responses["session/request_permission"] = {
        "outcome": {"outcome": "selected", "optionId": "reject-once"}
    }
    updates, _ = v2.run(v2.new_session(), "permission")
    last = [u for u in updates if u["sessionUpdate"] == "tool_call_update"][-1]
    assert last["status"] == "failed"


def test_cancel_ends_in_idle_cancelled(v2: RawV2Client) -> None:
    sid = v2.new_session()
    request_id = v2.start_prompt(sid, "wait 600")
    seen: list[dict[str, Any]] = []
    while True:  # the answer and "running" come at once
        frame = v2.next_frame()
        assert frame is not None
        seen.append(frame)
        if frame.get("params", {}).get("update", {}).get("state") == "running":
            break
    assert any(f.get("id") == request_id and "result" in f for f in seen)
    v2.notify("session/cancel", {"sessionId": sid})
    frame = v2.next_frame()
    assert frame is not None
    update = frame["params"]["update"]
    assert (update["state"], update["stopReason"]) == ("idle", "cancelled")


def test_cancel_while_permission_pending(v2: RawV2Client) -> None:
    v2.auto_answer = False
    sid = v2.new_session()
    v2.start_prompt(sid, "permission")
    while True:
        frame = v2.next_frame()
        assert frame is not None
        if frame.get("method") == "session/request_permission":
            break
    v2.notify("session/cancel", {"sessionId": sid})
    while True:
        frame = v2.next_frame()
        assert frame is not None
        update = frame.get("params", {}).get("update", {})
        if update.get("sessionUpdate") == "state_update":
            break
    assert (update["state"], update["stopReason"]) == ("idle", "cancelled")


# -- subagents, baseline in v2 ------------------------------------------------------------------


def test_subagent_children_report_their_own_state(v2: RawV2Client) -> None:
    sid = v2.new_session()
    updates, idle = v2.run(sid, "subagent find the answer")
    announced = next(u for u in updates if u["sessionUpdate"] == "subagent_update")
    child = announced["sessionId"]
    child_states = [
        u["update"]["state"]
        for u in updates
        if u["sessionUpdate"] == "<child>" and u["update"]["sessionUpdate"] == "state_update"
    ]
    assert child_states == ["running", "idle"]
    assert all(u["sessionId"] == child for u in updates if u["sessionUpdate"] == "<child>")
    child_calls = [
        u["update"]
        for u in updates
        if u["sessionUpdate"] == "<child>" and "toolCallId" in u["update"]
    ]
    assert {c["sessionUpdate"] for c in child_calls} == {"tool_call_update"}
    assert "The subagent answered: Done: find the answer" in text_of(updates)
    assert idle["stopReason"] == "end_turn"


# -- resume with replay ------------------------------------------------------------------------


def test_resume_replays_from_the_start_then_reports_state(make_v2: Any) -> None:
    first = make_v2()
    first.initialize()
    sid = first.new_session("/proj")
    first.run(sid, "echo one")
    first.run(sid, "title Named")
    first.close()

    second = make_v2()
    second.initialize()
    params = {"sessionId": sid, "cwd": "/proj", "mcpServers": [], "replayFrom": {"type": "start"}}
    frames, response = second.until_response(second.request("session/resume", params))
    updates = [f["params"]["update"] for f in frames]
    assert kinds(updates) == [
        "user_message",
        "agent_message",
        "user_message",
        "agent_message",
        "session_info_update",
        "state_update",
    ]
    assert updates[0]["content"] == [{"type": "text", "text": "echo one"}]
    assert updates[1]["content"] == [{"type": "text", "text": "one"}]
    assert updates[-1]["state"] == "idle"
    assert set(response["result"]) == {"configOptions", "availableCommands"}

    # Without replayFrom: no history, but still the current state before the answer.
    frames, _ = second.until_response(
        second.request("session/resume", {"sessionId": sid, "cwd": "/proj"})
    )
    assert [f["params"]["update"]["sessionUpdate"] for f in frames] == ["state_update"]
    # The resumed session takes prompts.
    _, idle = second.run(sid, "echo again")
    assert idle["stopReason"] == "end_turn"


# -- auth --------------------------------------------------------------------------------------


def test_auth_login_and_logout(make_v2: Any) -> None:
    c = make_v2(ACPHOST_DEMO_REQUIRE_AUTH="1")
    c.initialize()
    _, response = c.until_response(c.request("session/new", {"cwd": "/tmp", "mcpServers": []}))
    assert response["error"]["code"] == -32000
    assert "auth/login" in response["error"]["message"]
    assert c.call("auth/login", {"methodId": "demo-login"}) == {}
    sid = c.new_session()
    assert c.call("auth/logout", {}) == {}
    _, response = c.until_response(c.start_prompt(sid, "echo hi"))
    assert response["error"]["code"] == -32000


# -- files and commands without the host's MCP server -------------------------------------------------


@pytest.mark.parametrize(
    ("prompt", "action"),
    [
        ("read /proj/a.txt", "read files"),
        ("write /proj/b.txt hi", "write files"),
        ("terminal ls -l", "run commands"),
    ],
)
def test_without_the_acphost_server_v2_cannot_touch_files(
    v2: RawV2Client, prompt: str, action: str
) -> None:
    updates, idle = v2.run(v2.new_session("/proj"), prompt)
    last = [u for u in updates if u["sessionUpdate"] == "tool_call_update"][-1]
    assert last["status"] == "failed"
    reason = last["content"][0]["content"]["text"]
    assert reason.startswith(f"I cannot {action}: the client offered no 'acphost' MCP server")
    assert reason in text_of(updates)
    assert not v2.answered  # no fs/*, no terminal/*, no permission asked
    assert idle["stopReason"] == "end_turn"


def test_notices_and_compaction_are_baseline(v2: RawV2Client) -> None:
    sid = v2.new_session()
    updates, _ = v2.run(sid, "notice warning Disk almost full")
    assert [u["title"] for u in updates if u["sessionUpdate"] == "notice"] == ["Disk almost full"]
    updates, _ = v2.run(sid, "compact")
    assert "compaction_update" in kinds(updates)


def test_session_methods_answer_v2_shapes(v2: RawV2Client) -> None:
    sid = v2.new_session("/proj")
    v2.run(sid, "echo one")
    listed = v2.call("session/list", {"cwd": "/proj"})
    assert [s["sessionId"] for s in listed["sessions"]] == [sid]
    fork = v2.call("session/fork", {"sessionId": sid, "cwd": "/proj", "mcpServers": []})
    assert set(fork) == {"sessionId", "configOptions", "availableCommands"}
    assert v2.call("session/set_title", {"sessionId": sid, "title": "Renamed"}) == {
        "title": "Renamed"
    }
    assert v2.call("session/status", {"sessionId": sid}) == {"status": "open"}
    assert v2.call("session/close", {"sessionId": sid}) == {}
    assert v2.call("session/delete", {"sessionId": fork["sessionId"]}) == {}


def test_every_keyword_speaks_valid_v2(v2: RawV2Client) -> None:
    # The make_v2 fixture validates every frame; each turn must end in idle.
    from acphost.agents.demo._scripts import KEYWORDS

    args = {
        "ask": "url",
        "wait": "0",
        "stream": "3",
        "flood": "50",
        "stderr": "1",
        "stop": "max_turn_requests",
        "subagent": "background look it up",
        "read": "/proj/a.txt",
        "write": "/proj/b.txt hi",
        "terminal": "ls",
    }
    sid = v2.new_session("/proj")
    ends = {}
    for keyword in KEYWORDS:
        if keyword in ("crash", "slow"):  # exits the agent / takes five seconds
            continue
        _, idle = v2.run(sid, f"{keyword} {args.get(keyword, '')}".strip())
        ends[keyword] = idle["stopReason"]
    assert ends.pop("error") == "error"
    assert ends.pop("refuse") == "refusal"
    assert ends.pop("limit") == "max_tokens"
    assert ends.pop("stop") == "max_turn_requests"
    assert set(ends.values()) == {"end_turn"}


def test_a_v1_only_demo_answers_1_to_a_v2_client(make_v2: Any) -> None:
    c = make_v2(ACPHOST_DEMO_PROTOCOL="1")
    c.v2 = False  # what comes back is v1
    result = c.call("initialize", {"protocolVersion": 2, "info": V2_INFO, "capabilities": {}})
    assert result["protocolVersion"] == 1 and "agentCapabilities" in result
