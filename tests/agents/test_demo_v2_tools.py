"""The demo agent uses the client's ``acphost`` MCP server for files and commands.

v2 has no client ``fs/*`` or ``terminal/*``: the tools come as an MCP server in
``session/new``. A tiny MCP server (``mcp_tools_server.py``, a test fixture jailed
to a workspace) stands in for acphost's; it runs as a real stdio subprocess the
agent starts, or as a real HTTP server on 127.0.0.1.
"""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from _raw_v2 import RawV2Client
from mcp_tools_server import Tools, serve_http

SERVER = Path(__file__).resolve().parent / "mcp_tools_server.py"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("first line\nsecond line\n", encoding="utf-8")
    return root


@pytest.fixture
def log(tmp_path: Path) -> Path:
    return tmp_path / "calls.jsonl"


def stdio_server(workspace: Path, log: Path) -> dict[str, Any]:
    return {
        "type": "stdio",
        "name": "acphost",
        "command": sys.executable,
        "args": [str(SERVER), str(workspace), str(log)],
        "env": [{"name": "MCP_TEST_MARK", "value": "from-the-entry"}],
    }


def calls(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def tool_updates(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [u for u in updates if u["sessionUpdate"] == "tool_call_update"]


def said(updates: list[dict[str, Any]]) -> str:
    return "".join(
        u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"
    )


def test_write_inside_lands_and_outside_is_refused(
    v2: RawV2Client, workspace: Path, log: Path, tmp_path: Path
) -> None:
    sid = v2.new_session(str(workspace), [stdio_server(workspace, log)])
    inside = workspace / "created.txt"
    updates, idle = v2.run(sid, f"write {inside} hello")
    assert inside.read_text(encoding="utf-8") == "hello"
    assert tool_updates(updates)[-1]["status"] == "completed"
    asked = [f for f in v2.answered if f["method"] == "session/request_permission"]
    assert asked[-1]["params"]["subject"]["toolCall"]["toolCallId"] == updates[3]["toolCallId"]
    assert idle["stopReason"] == "end_turn"

    outside = tmp_path / "escape.txt"
    updates, _ = v2.run(sid, f"write {outside} nope")
    assert not outside.exists()
    last = tool_updates(updates)[-1]
    assert last["status"] == "failed"
    reason = last["content"][-1]["content"]["text"]
    assert "outside the workspace" in reason and "refused by policy" in reason
    assert f"Writing failed: {reason}" in said(updates)

    # The entry's env reached the server; each call went through tools/call.
    logged = calls(log)
    assert logged[0] == {"env": "from-the-entry"}
    assert [c["name"] for c in logged[1:]] == ["write_text_file", "write_text_file"]
    assert logged[1]["arguments"] == {"path": str(inside), "content": "hello"}


def test_read_through_the_server(v2: RawV2Client, workspace: Path, log: Path) -> None:
    sid = v2.new_session(str(workspace), [stdio_server(workspace, log)])
    updates, _ = v2.run(sid, "read notes.txt")  # relative to the session's cwd
    last = tool_updates(updates)[-1]
    assert last["status"] == "completed"
    assert last["content"][0]["content"]["text"] == "first line\nsecond line\n"
    assert "first line: 'first line'" in said(updates)

    updates, _ = v2.run(sid, "read notes.txt 2 1")  # from line 2, one line
    assert tool_updates(updates)[-1]["content"][0]["content"]["text"] == "second line\n"
    assert calls(log)[-1]["arguments"] == {
        "path": str(workspace / "notes.txt"),
        "line": 2,
        "limit": 1,
    }

    updates, _ = v2.run(sid, f"read {workspace}/missing.txt")
    last = tool_updates(updates)[-1]
    assert last["status"] == "failed"
    assert "cannot read" in last["content"][0]["content"]["text"]


def test_command_output_is_a_v2_terminal(v2: RawV2Client, workspace: Path, log: Path) -> None:
    sid = v2.new_session(str(workspace), [stdio_server(workspace, log)])
    updates, _ = v2.run(sid, "terminal echo hi")
    terminal = [u for u in updates if u["sessionUpdate"].startswith("terminal_")]
    terminal_id = terminal[0]["terminalId"]
    assert terminal == [
        {
            "sessionUpdate": "terminal_update",
            "terminalId": terminal_id,
            "command": "echo hi",
            "cwd": str(workspace),
        },
        {"sessionUpdate": "terminal_output_chunk", "terminalId": terminal_id, "data": "aGkK"},
        {
            "sessionUpdate": "terminal_update",
            "terminalId": terminal_id,
            "output": {"data": "aGkK"},
            "exitStatus": {"exitCode": 0, "signal": None},
        },
    ]
    assert base64.b64decode(terminal[1]["data"]) == b"hi\n"
    calls_ = tool_updates(updates)
    assert {"type": "terminal", "terminalId": terminal_id} in calls_[1]["content"]
    assert calls_[-1]["status"] == "completed"
    assert "exited with code 0" in said(updates)
    assert calls(log)[-1]["arguments"] == {"command": "echo", "args": ["hi"], "cwd": str(workspace)}

    updates, _ = v2.run(sid, "terminal false")
    assert tool_updates(updates)[-1]["status"] == "failed"
    assert "exited with code 1" in said(updates)


def test_http_server_with_headers(v2: RawV2Client, workspace: Path, log: Path) -> None:
    server, url = serve_http(Tools(workspace, log), "sekrit")
    try:
        entry = {
            "type": "http",
            "name": "acphost",
            "url": url,
            "headers": [{"name": "Authorization", "value": "Bearer sekrit"}],
        }
        sid = v2.new_session(str(workspace), [entry])
        updates, _ = v2.run(sid, f"write {workspace}/via-http.txt over http")
        assert (workspace / "via-http.txt").read_text(encoding="utf-8") == "over http"
        assert tool_updates(updates)[-1]["status"] == "completed"

        wrong = {**entry, "headers": [{"name": "Authorization", "value": "Bearer wrong"}]}
        sid = v2.new_session(str(workspace), [wrong])
        updates, _ = v2.run(sid, "read notes.txt")
        last = tool_updates(updates)[-1]
        assert last["status"] == "failed"
        assert "HTTP 401" in last["content"][0]["content"]["text"]
    finally:
        server.shutdown()
        server.server_close()


def test_a_server_that_cannot_start_fails_the_call(v2: RawV2Client, tmp_path: Path) -> None:
    entry = {"type": "stdio", "name": "acphost", "command": str(tmp_path / "no-such-server")}
    sid = v2.new_session(str(tmp_path), [entry])
    updates, idle = v2.run(sid, "read notes.txt")
    last = tool_updates(updates)[-1]
    assert last["status"] == "failed"
    assert "cannot start the MCP server" in last["content"][0]["content"]["text"]
    assert idle["stopReason"] == "end_turn"


def test_a_malformed_acphost_entry_is_refused(v2: RawV2Client) -> None:
    entry = {"type": "stdio", "name": "acphost", "command": "relative/server"}
    rid = v2.request_unchecked("session/new", {"cwd": "/tmp", "mcpServers": [entry]})
    _, response = v2.until_response(rid)
    assert response["error"]["code"] == -32602
    assert "absolute path" in response["error"]["message"]


def test_cancel_while_a_tool_runs(v2: RawV2Client, workspace: Path, log: Path) -> None:
    sid = v2.new_session(str(workspace), [stdio_server(workspace, log)])
    v2.start_prompt(sid, "terminal sleep 5")
    while True:  # until the command is shown as running
        frame = v2.next_frame()
        assert frame is not None
        if frame.get("params", {}).get("update", {}).get("sessionUpdate") == "terminal_update":
            break
    v2.notify("session/cancel", {"sessionId": sid})
    while True:
        frame = v2.next_frame()
        assert frame is not None
        update = frame.get("params", {}).get("update", {})
        if update.get("sessionUpdate") == "state_update":
            break
    assert (update["state"], update["stopReason"]) == ("idle", "cancelled")


def test_v1_uses_the_server_when_offered(make_client: Any, workspace: Path, log: Path) -> None:
    # v1 with an acphost MCP server (a host's --mcp-tools): the same tools, not fs/*.
    c = make_client()
    c.initialize()
    entry = {k: v for k, v in stdio_server(workspace, log).items() if k != "type"}
    result = c.call("session/new", {"cwd": str(workspace), "mcpServers": [entry]})
    c.next_frame()  # the commands update
    updates, response = c.prompt(result["sessionId"], f"write {workspace}/v1.txt from v1")
    assert (workspace / "v1.txt").read_text(encoding="utf-8") == "from v1"
    assert response["result"]["stopReason"] == "end_turn"
    assert [f["method"] for f in c.answered] == ["session/request_permission"]
    assert updates[-1]["sessionUpdate"] == "agent_message_chunk"


def test_debug_log_hides_the_servers_credentials(make_v2: Any, workspace: Path, log: Path) -> None:
    c = make_v2(ACPHOST_DEMO_DEBUG="1")
    c.initialize()
    entry = {
        "type": "http",
        "name": "acphost",
        "url": "http://127.0.0.1:9/mcp",
        "headers": [{"name": "Authorization", "value": "Bearer sekrit-token"}],
    }
    stdio = {**stdio_server(workspace, log), "name": "other"}
    stdio["env"] = [{"name": "TOKEN", "value": "sekrit-env"}]
    c.new_session(str(workspace), [entry, stdio])
    c.close()
    assert c.stderr_done.wait(5)
    err = bytes(c.stderr)
    assert b'"mcpServers"' in err and b"<hidden>" in err
    assert b"sekrit" not in err


def _recording_server(status: int, location: str = "") -> tuple[Any, str, list[dict[str, str]]]:
    """An HTTP server that records each request's headers and answers ``status``."""
    import http.server
    import threading

    seen: list[dict[str, str]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append(dict(self.headers))
            self.send_response(status)
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/mcp", seen


def test_credentials_go_to_the_server_only(make_v2: Any, workspace: Path, log: Path) -> None:
    # Neither a proxy from the environment nor a redirect gets the bearer token.
    elsewhere, elsewhere_url, elsewhere_seen = _recording_server(200)
    proxy, proxy_url, proxy_seen = _recording_server(502)
    redirecting, redirect_url, _ = _recording_server(307, elsewhere_url)
    real, real_url = serve_http(Tools(workspace, log), "sekrit")
    try:
        c = make_v2(http_proxy=proxy_url, HTTP_PROXY=proxy_url, no_proxy="", NO_PROXY="")
        c.initialize()
        header = [{"name": "Authorization", "value": "Bearer sekrit"}]
        entry = {"type": "http", "name": "acphost", "url": real_url, "headers": header}
        updates, _ = c.run(c.new_session(str(workspace), [entry]), "read notes.txt")
        assert tool_updates(updates)[-1]["status"] == "completed"
        assert proxy_seen == []

        entry = {**entry, "url": redirect_url}
        updates, _ = c.run(c.new_session(str(workspace), [entry]), "read notes.txt")
        last = tool_updates(updates)[-1]
        assert last["status"] == "failed"
        assert "HTTP 307" in last["content"][0]["content"]["text"]
        assert elsewhere_seen == [] and proxy_seen == []
    finally:
        for server in (elsewhere, proxy, redirecting, real):
            server.shutdown()
            server.server_close()


def test_a_server_ping_is_answered(v2: RawV2Client, workspace: Path, log: Path) -> None:
    entry = stdio_server(workspace, log)
    entry["env"] = [{"name": "MCP_TEST_PING", "value": "1"}]
    sid = v2.new_session(str(workspace), [entry])
    updates, _ = v2.run(sid, "read notes.txt")
    assert tool_updates(updates)[-1]["status"] == "completed"
    assert {"pong": {"jsonrpc": "2.0", "id": "srv-1", "result": {}}} in calls(log)


def test_a_silent_server_fails_the_call_in_time(make_v2: Any, tmp_path: Path) -> None:
    c = make_v2(ACPHOST_DEMO_MCP_TIMEOUT="0.5")
    c.initialize()
    silent = {
        "type": "stdio",
        "name": "acphost",
        "command": sys.executable,
        "args": ["-c", "import sys; sys.stdin.read()"],  # reads, never answers
    }
    updates, idle = c.run(c.new_session(str(tmp_path), [silent]), "read notes.txt")
    last = tool_updates(updates)[-1]
    assert last["status"] == "failed"
    assert "no answer to initialize in 0.5 s" in last["content"][0]["content"]["text"]
    assert idle["stopReason"] == "end_turn"
