"""The demo agent over real pipes, every frame validated against the ACP schema."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _raw_client import ROOT, RawClient, kinds, texts, tool_contents

DEMO_DIR = ROOT / "src" / "acphost" / "agents" / "demo"


# -- initialize, auth, errors -------------------------------------------------------


def test_initialize_advertises_capabilities(make_client: Any) -> None:
    c = make_client()
    result = c.call("initialize", {"protocolVersion": 7}, request_id="init-1")
    assert result["protocolVersion"] == 1
    caps = result["agentCapabilities"]
    assert caps["loadSession"] is True
    assert caps["promptCapabilities"] == {"image": True, "audio": False, "embeddedContext": True}
    # Stable, then the unstable ones where schema.unstable.json puts them.
    assert set(caps["sessionCapabilities"]) == {
        "list",
        "resume",
        "close",
        "delete",
        "fork",
        "title",
        "status",
        "archive",
        "systemPrompt",
    }
    assert caps["sessionCapabilities"]["systemPrompt"] == {"mode": {"override": {}}}
    assert caps["auth"] == {"logout": {}, "status": {}}
    assert [m["id"] for m in result["authMethods"]] == ["demo-login"]
    assert result["agentInfo"]["name"] == "acphost-demo"


def test_ids_are_echoed_exactly_and_errors_have_codes(client: RawClient) -> None:
    _, response = client.until_response(client.request("no/such_method", {}, request_id="s-1"))
    assert response["id"] == "s-1" and response["error"]["code"] == -32601
    client.notify("no/such_notification", {})
    client.notify("$/cancel_request", {"requestId": 99})
    client.send({"id": 0, "method": "authenticate", "params": {"methodId": "nope"}})
    client._sent[0] = "authenticate"
    _, response = client.until_response(0)
    assert response["error"]["code"] == -32602
    assert client.proc.stdin is not None
    client.proc.stdin.write(b"{not json\n")
    client.proc.stdin.flush()
    frame = client.next_frame()
    assert frame is not None and frame["id"] is None and frame["error"]["code"] == -32700


def test_auth_is_optional_by_default(client: RawClient) -> None:
    assert client.call("authenticate", {"methodId": "demo-login"}) == {}
    assert client.call("logout", {}) == {}
    assert client.new_session()


def test_auth_required_mode(make_client: Any) -> None:
    c = make_client(ACPHOST_DEMO_REQUIRE_AUTH="1")
    c.initialize()
    _, response = c.until_response(c.request("session/new", {"cwd": "/tmp", "mcpServers": []}))
    assert response["error"]["code"] == -32000
    c.call("authenticate", {"methodId": "demo-login"})
    session_id = c.new_session()
    c.call("logout", {})
    _, response = c.until_response(c.request("session/list", {}))
    assert response["error"]["code"] == -32000
    assert session_id


# -- sessions ---------------------------------------------------------------------


def test_new_session_then_commands_update(client: RawClient) -> None:
    request_id = client.request("session/new", {"cwd": "/work", "mcpServers": []})
    _, response = client.until_response(request_id)
    result = response["result"]
    assert result["modes"]["currentModeId"] == "ask"
    assert {m["id"] for m in result["modes"]["availableModes"]} == {"ask", "code", "architect"}
    options = {o["id"]: o for o in result["configOptions"]}
    assert options["model"]["category"] == "model"
    assert [v["value"] for v in options["model"]["options"]] == ["demo-fast", "demo-smart"]
    assert options["verbose"]["type"] == "boolean"
    follow = client.next_frame()
    assert follow is not None
    update = follow["params"]["update"]
    assert follow["params"]["sessionId"] == result["sessionId"]
    assert update["sessionUpdate"] == "available_commands_update"
    echo = next(c for c in update["availableCommands"] if c["name"] == "echo")
    assert echo["input"] == {"hint": "text to echo back"}


def test_boolean_options_only_when_client_opts_in(make_client: Any) -> None:
    c = make_client()
    c.initialize({"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False})
    result = c.call("session/new", {"cwd": "/tmp", "mcpServers": []})
    assert [o["id"] for o in result["configOptions"]] == ["model"]


def test_relative_cwd_is_invalid(client: RawClient) -> None:
    _, response = client.until_response(
        client.request("session/new", {"cwd": "relative/dir", "mcpServers": []})
    )
    assert response["error"]["code"] == -32602


def test_set_mode_and_config_option(client: RawClient) -> None:
    sid = client.new_session()
    frames, response = client.until_response(
        client.request("session/set_mode", {"sessionId": sid, "modeId": "code"})
    )
    assert response["result"] == {}
    assert [f["params"]["update"] for f in frames] == [
        {"sessionUpdate": "current_mode_update", "currentModeId": "code"}
    ]
    _, response = client.until_response(
        client.request("session/set_mode", {"sessionId": sid, "modeId": "yolo"})
    )
    assert response["error"]["code"] == -32602

    frames, response = client.until_response(
        client.request(
            "session/set_config_option",
            {"sessionId": sid, "configId": "model", "value": "demo-smart"},
        )
    )
    options = {o["id"]: o for o in response["result"]["configOptions"]}
    assert options["model"]["currentValue"] == "demo-smart"
    assert frames[0]["params"]["update"]["sessionUpdate"] == "config_option_update"
    result = client.call(
        "session/set_config_option",
        {"sessionId": sid, "configId": "verbose", "type": "boolean", "value": True},
    )
    assert {o["id"]: o for o in result["configOptions"]}["verbose"]["currentValue"] is True
    for params in (
        {"sessionId": sid, "configId": "model", "value": "gpt-9"},
        {"sessionId": sid, "configId": "nope", "value": "x"},
    ):
        _, response = client.until_response(client.request("session/set_config_option", params))
        assert response["error"]["code"] == -32602


def test_persisted_sessions_list_load_resume_close_delete(make_client: Any, tmp_path: Path) -> None:
    env = {"ACPHOST_DEMO_STATE_DIR": str(tmp_path), "ACPHOST_DEMO_SEED": "t"}
    first = make_client(**env)
    first.initialize()
    ids = [first.new_session(f"/work/p{i}") for i in range(3)]
    first.prompt(ids[0], "echo hello there")
    first.prompt(ids[0], "title My demo")
    assert first.close() == 0

    second = make_client(**env)
    second.initialize()
    page = second.call("session/list", {})
    assert [s["sessionId"] for s in page["sessions"]] == ids[:2]
    assert page["sessions"][0]["title"] == "My demo"
    rest = second.call("session/list", {"cursor": page["nextCursor"]})
    assert [s["sessionId"] for s in rest["sessions"]] == ids[2:]
    assert "nextCursor" not in rest
    only = second.call("session/list", {"cwd": "/work/p1"})
    assert [s["sessionId"] for s in only["sessions"]] == [ids[1]]
    _, bad = second.until_response(second.request("session/list", {"cursor": "garbage"}))
    assert bad["error"]["code"] == -32602

    frames, response = second.until_response(
        second.request("session/load", {"sessionId": ids[0], "cwd": "/work/p0", "mcpServers": []})
    )
    replay = [f["params"]["update"] for f in frames]
    # The history, then the title (metadata, not history).
    assert kinds(replay) == ["user_message_chunk", "agent_message_chunk"] * 2 + [
        "session_info_update"
    ]
    assert replay[-1]["title"] == "My demo"
    assert replay[0]["content"]["text"] == "echo hello there"
    assert replay[1]["content"]["text"] == "hello there"
    assert replay[0]["messageId"] != replay[1]["messageId"]
    assert response["result"]["modes"]["currentModeId"] == "ask"
    follow = second.next_frame()
    assert follow is not None and follow["params"]["update"]["sessionUpdate"] == (
        "available_commands_update"
    )

    assert second.call("session/close", {"sessionId": ids[0]}) == {}
    _, closed = second.prompt(ids[0], "echo closed?")
    assert closed["error"]["code"] == -32002
    frames, _ = second.until_response(
        second.request("session/resume", {"sessionId": ids[0], "cwd": "/work/p0"})
    )
    assert kinds([f["params"]["update"] for f in frames]) == []  # resume does not replay
    _, response = second.prompt(ids[0], "echo back again")
    assert response["result"]["stopReason"] == "end_turn"

    assert second.call("session/delete", {"sessionId": ids[1]}) == {}
    _, gone = second.until_response(
        second.request("session/load", {"sessionId": ids[1], "cwd": "/w", "mcpServers": []})
    )
    assert gone["error"]["code"] == -32002
    assert not (tmp_path / f"{ids[1]}.json").exists()


def test_seeded_session_ids_are_reproducible(make_client: Any) -> None:
    a, b = make_client(ACPHOST_DEMO_SEED="x"), make_client(ACPHOST_DEMO_SEED="x")
    a.initialize()
    b.initialize()
    assert a.new_session() == b.new_session()


# -- prompt keywords -------------------------------------------------------------------


def test_echo_with_resource_link(client: RawClient) -> None:
    sid = client.new_session()
    request_id = client.request(
        "session/prompt",
        {
            "sessionId": sid,
            "prompt": [
                {"type": "text", "text": "echo hi "},
                {"type": "text", "text": "there"},
                {"type": "resource_link", "name": "notes", "uri": "file:///tmp/notes.md"},
            ],
        },
    )
    frames, response = client.until_response(request_id)
    updates = [f["params"]["update"] for f in frames]
    assert updates[0]["content"]["text"] == "hi there"
    assert "notes <file:///tmp/notes.md>" in texts(updates)
    assert all(u["messageId"] == updates[0]["messageId"] for u in updates)
    assert response["result"] == {"stopReason": "end_turn"}


@pytest.mark.parametrize(
    ("prompt", "expected_kinds", "stop"),
    [
        ("think", {"agent_thought_chunk", "agent_message_chunk"}, "end_turn"),
        ("commands", {"available_commands_update"}, "end_turn"),
        ("usage", {"usage_update"}, "end_turn"),
        ("title Renamed", {"session_info_update"}, "end_turn"),
        ("refuse", {"agent_message_chunk"}, "refusal"),
        ("limit", {"agent_message_chunk"}, "max_tokens"),
        ("/help", {"agent_message_chunk"}, "end_turn"),
    ],
)
def test_simple_keywords(
    client: RawClient, prompt: str, expected_kinds: set[str], stop: str
) -> None:
    sid = client.new_session()
    updates, response = client.prompt(sid, prompt)
    assert expected_kinds <= set(kinds(updates))
    assert response["result"]["stopReason"] == stop


def test_plan_progresses(client: RawClient) -> None:
    updates, _ = client.prompt(client.new_session(), "plan")
    plans = [[e["status"] for e in u["entries"]] for u in updates if u["sessionUpdate"] == "plan"]
    assert plans[0] == ["in_progress", "pending", "pending"]
    assert plans[-1] == ["completed"] * 3
    assert len(plans) == 4


def test_tool_and_diff(client: RawClient) -> None:
    sid = client.new_session("/proj")
    updates, _ = client.prompt(sid, "tool")
    statuses = [u.get("status") for u in updates if u["sessionUpdate"].startswith("tool_call")]
    assert statuses == ["pending", "in_progress", "completed"]
    done = next(u for u in updates if u.get("status") == "completed")
    assert (
        done["content"][0]["type"] == "content"
        and done["locations"][0]["path"] == "/proj/README.md"
    )

    updates, _ = client.prompt(sid, "diff")
    diffs = [c for c in tool_contents(updates) if c["type"] == "diff"]
    assert diffs == [
        {
            "type": "diff",
            "path": "/proj/hello.py",
            "oldText": 'print("hello")\n',
            "newText": 'print("hello, world")\n',
        }
    ]


@pytest.mark.parametrize(
    ("option_id", "kind"),
    [
        ("allow-once", "allow_once"),
        ("allow-always", "allow_always"),
        ("reject-once", "reject_once"),
        ("reject-always", "reject_always"),
    ],
)
def test_permission_reports_the_chosen_kind(client: RawClient, option_id: str, kind: str) -> None:
    client.responses["session/request_permission"] = {
        "outcome": {"outcome": "selected", "optionId": option_id}
    }
    updates, response = client.prompt(client.new_session(), "permission")
    asked = client.answered[-1]
    assert isinstance(asked["id"], str)  # the agent uses string ids for permission requests
    assert {o["kind"] for o in asked["params"]["options"]} == {
        "allow_once",
        "allow_always",
        "reject_once",
        "reject_always",
    }
    assert f"You chose {kind}." in texts(updates)
    assert response["result"]["stopReason"] == "end_turn"


def test_cancel_while_permission_pending(client: RawClient) -> None:
    client.auto_answer = False
    sid = client.new_session()
    request_id = client.start_prompt(sid, "permission")
    while True:
        frame = client.next_frame()
        assert frame is not None
        if frame.get("method") == "session/request_permission":
            break
    client.notify("session/cancel", {"sessionId": sid})
    client.answer(frame, {"outcome": {"outcome": "cancelled"}})  # as ACP requires of clients
    _, response = client.until_response(request_id)
    assert response["result"] == {"stopReason": "cancelled"}


def test_read_write_terminal(client: RawClient) -> None:
    sid = client.new_session("/proj")
    updates, _ = client.prompt(sid, "read /proj/a.txt")
    read = client.answered[-1]
    assert read["method"] == "fs/read_text_file" and isinstance(read["id"], int)
    assert read["params"] == {"sessionId": sid, "path": "/proj/a.txt"}
    assert "Read 23 characters; first line: 'first line'." in texts(updates)

    updates, _ = client.prompt(sid, "write /proj/out.txt some text")
    methods = [f["method"] for f in client.answered[-2:]]
    assert methods == ["session/request_permission", "fs/write_text_file"]
    assert client.answered[-1]["params"]["content"] == "some text"
    assert "Wrote 9 characters to /proj/out.txt." in texts(updates)

    client.responses["fs/write_text_file"] = ("error", {"code": -32602, "message": "outside jail"})
    updates, _ = client.prompt(sid, "write /etc/passwd x")
    assert "Writing failed: outside jail (code -32602)." in texts(updates)

    start = len(client.answered)
    updates, response = client.prompt(sid, "terminal echo 'hello world'")
    calls = client.answered[start:]
    assert [f["method"] for f in calls] == [
        "terminal/create",
        "terminal/output",
        "terminal/wait_for_exit",
        "terminal/output",
        "terminal/release",
    ]
    assert calls[0]["params"]["command"] == "echo"
    assert calls[0]["params"]["args"] == ["hello world"]
    assert {"type": "terminal", "terminalId": "term-1"} in tool_contents(updates)
    assert "exited with code 0" in texts(updates)
    assert response["result"]["stopReason"] == "end_turn"


def test_cancel_while_command_runs_kills_and_releases(client: RawClient) -> None:
    sid = client.new_session()
    client.auto_answer = False
    request_id = client.start_prompt(sid, "terminal sleep 60")
    while True:
        frame = client.next_frame()
        assert frame is not None
        if "id" in frame and frame.get("method") == "terminal/wait_for_exit":
            break
        if "id" in frame and "method" in frame:
            client.answer(frame)
    client.notify("session/cancel", {"sessionId": sid})
    client.auto_answer = True
    _, response = client.until_response(request_id)
    assert response["result"] == {"stopReason": "cancelled"}
    assert [f["method"] for f in client.answered[-2:]] == ["terminal/kill", "terminal/release"]
    client.answer(frame)  # a late answer to an abandoned request is ignored
    _, again = client.prompt(sid, "echo ok")
    assert again["result"]["stopReason"] == "end_turn"


def test_elicit(client: RawClient) -> None:
    sid = client.new_session()
    updates, _ = client.prompt(sid, "elicit")
    asked = client.answered[-1]
    assert asked["method"] == "elicitation/create" and isinstance(asked["id"], str)
    assert "Nice to meet you, Ada." in texts(updates)
    client.responses["elicitation/create"] = {"action": "decline"}
    updates, _ = client.prompt(sid, "elicit")
    assert "No name given (decline)." in texts(updates)


def test_capability_gated_keywords(make_client: Any) -> None:
    c = make_client()
    c.initialize({})
    sid = c.new_session()
    for prompt in ("read /etc/hosts", "write /tmp/x y", "terminal ls", "elicit"):
        updates, _ = c.prompt(sid, prompt)
        assert "did not advertise" in texts(updates)
    assert c.answered == []


def test_tour(client: RawClient) -> None:
    updates, response = client.prompt(client.new_session(), "Hello there, what can you do?")
    seen = kinds(updates)
    for kind in (
        "agent_thought_chunk",
        "plan",
        "tool_call",
        "tool_call_update",
        "agent_message_chunk",
        "available_commands_update",
        "usage_update",
    ):
        assert kind in seen
    assert any(c["type"] == "diff" for c in tool_contents(updates))
    plans = [u for u in updates if u["sessionUpdate"] == "plan"]
    assert all(e["status"] == "completed" for e in plans[-1]["entries"])
    assert all(u.get("messageId") for u in updates if u["sessionUpdate"].endswith("_chunk"))
    assert "**tour**" in texts(updates)
    assert response["result"] == {"stopReason": "end_turn"}


def test_unknown_variant_and_error(client: RawClient) -> None:
    sid = client.new_session()
    updates, response = client.prompt(sid, "unknown")
    future = [u for u in updates if u["sessionUpdate"] == "future_variant"]
    assert future and future[0]["futureField"] == {"answer": 42, "nested": ["a", "b"]}
    assert [f for f, _ in client.invalid] == [
        f for f in client.received if f.get("params", {}).get("update") in future
    ]
    _, response = client.prompt(sid, "error")
    assert response["error"]["code"] == -32603


def test_stream_flood_and_stderr(client: RawClient) -> None:
    sid = client.new_session()
    updates, _ = client.prompt(sid, "stream 5")
    assert texts(updates).count("chunk ") == 5
    updates, _ = client.prompt(sid, "flood 500")
    assert len(updates) == 500
    updates, response = client.prompt(sid, "stderr 300")
    assert len(client.stderr) >= 300 * 1024 or response  # drained while it wrote
    assert "Wrote 300 KB to stderr." in texts(updates)


def test_cancel_mid_stream(client: RawClient) -> None:
    sid = client.new_session()
    request_id = client.start_prompt(sid, "stream 200")
    for _ in range(5):
        assert client.next_frame() is not None
    client.notify("session/cancel", {"sessionId": sid})
    frames, response = client.until_response(request_id)
    assert response["result"] == {"stopReason": "cancelled"}
    assert len(frames) < 100
    _, again = client.prompt(sid, "echo still here")
    assert again["result"]["stopReason"] == "end_turn"


def test_crash_exits_with_code_3(client: RawClient) -> None:
    sid = client.new_session()
    client.start_prompt(sid, "crash")
    assert client.proc.wait(5) == 3
    client.stderr_done.wait(5)
    assert b"crashing on purpose" in client.stderr


def test_eof_mid_turn_exits_cleanly(client: RawClient) -> None:
    sid = client.new_session()
    client.start_prompt(sid, "stream 100000")
    assert client.next_frame() is not None
    client.start_prompt(client.new_session(), "wait 600")
    # A ten-minute turn: the agent exits within close()'s deadline only because
    # the end of stdin cancels every turn.
    assert client.close() == 0


# -- hygiene -----------------------------------------------------------------------------


def test_stdlib_only_and_self_contained() -> None:
    allowed = {"os", "sys", "threading", "time", "_json", "json", "shlex", "__future__"}
    allowed |= {"importlib", "binascii", "traceback"}
    # The MCP client for the host's tools (ACP v2): a stdio server is a child process,
    # an http one is reached with urllib; both load only when a session names one.
    allowed |= {"subprocess", "urllib"}
    for path in DEMO_DIR.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            assert all(n.split(".")[0] in allowed | {"collections", "typing"} for n in names), (
                path,
                names,
            )


def test_startup_imports_stay_light() -> None:
    # Only what the demo agent itself adds: acphost/__init__.py has its own budget.
    code = (
        "import sys, acphost; before = set(sys.modules); "
        "import acphost.agents.demo._agent; "
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        env={"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"},
        check=True,
        timeout=10,
        text=True,
    )
    added = set(out.stdout.split())
    assert not added & {"asyncio", "re", "json", "typing", "enum", "dataclasses", "uuid", "shlex"}
    # The scripts outside the start-up table load when a prompt first needs them.
    assert not {m.rsplit(".", 1)[-1] for m in added} & {"_requests", "_ask", "_live", "_media"}
    assert {m for m in added if m.startswith("acphost")} <= {
        "acphost.agents",
        "acphost.agents.demo",
        "acphost.agents.demo._agent",
        "acphost.agents.demo._codec",
        "acphost.agents.demo._scripts",
        "acphost.agents.demo._sessions",
        "acphost.agents.demo._store",
        "acphost.agents.demo._turn",
        "acphost.agents.demo._wire",
    }
