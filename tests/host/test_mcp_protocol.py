"""The MCP server core without I/O, and the tools' translation into ACP client requests.

Core tests: bytes in, events out, no event loop. Tool tests: a recording
``call`` stands for the host and shows the ACP requests each tool makes.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import pytest

from acphost.errors import InternalError, InvalidParams
from acphost.host._mcp import (
    SUPPORTED_VERSIONS,
    CallTool,
    CancelCall,
    McpConnection,
    Reply,
)
from acphost.host._mcptools import (
    MAX_CONTENT_BYTES,
    MCP_OUTPUT_BYTE_LIMIT,
    ToolRunner,
    host_tools,
)

ALL = host_tools(fs_read=True, fs_write=True, terminal=True)


def frame(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode()


def request(rid: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        message["params"] = params
    return frame(message)


def only_reply(events: list[Any]) -> dict[str, Any]:
    assert len(events) == 1 and isinstance(events[0], Reply), events
    decoded: dict[str, Any] = json.loads(events[0].frame)
    return decoded


def initialized(version: str = "2025-06-18") -> McpConnection:
    conn = McpConnection(ALL)
    only_reply(conn.receive_data(request(0, "initialize", {"protocolVersion": version})))
    return conn


# -- lifecycle -------------------------------------------------------------------


@pytest.mark.parametrize("version", SUPPORTED_VERSIONS)
def test_initialize_answers_the_clients_version_when_supported(version: str) -> None:
    conn = McpConnection(ALL)
    answer = only_reply(
        conn.receive_data(
            request(1, "initialize", {"protocolVersion": version, "capabilities": {}})
        )
    )
    assert answer["id"] == 1
    assert answer["result"]["protocolVersion"] == version
    assert answer["result"]["capabilities"] == {"tools": {"listChanged": False}}
    assert answer["result"]["serverInfo"]["name"] == "acphost"
    assert conn.version == version


def test_initialize_answers_the_newest_version_to_an_unknown_one() -> None:
    conn = McpConnection(ALL)
    answer = only_reply(
        conn.receive_data(request(1, "initialize", {"protocolVersion": "1999-01-01"}))
    )
    assert answer["result"]["protocolVersion"] == SUPPORTED_VERSIONS[0]


def test_tools_are_refused_before_initialize_but_ping_is_answered() -> None:
    conn = McpConnection(ALL)
    assert only_reply(conn.receive_data(request(1, "ping")))["result"] == {}
    error = only_reply(conn.receive_data(request(2, "tools/list")))["error"]
    assert error["code"] == -32600 and "initialize" in error["message"]


def test_notifications_get_no_answer() -> None:
    conn = initialized()
    note = frame({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert conn.receive_data(note) == []


def test_a_cancellation_names_the_request() -> None:
    conn = initialized()
    note = frame(
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}
    )
    assert conn.receive_data(note) == [CancelCall(7)]


# -- malformed messages ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"{not json", -32700),
        (b"[" * 100_000, -32700),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "\\ud800"}', -32700),
        (b'{"jsonrpc": "2.0", "id": 1, "method": "\xff"}', -32700),
        (b"[]", -32600),
        (frame({"jsonrpc": "1.0", "id": 1, "method": "ping"}), -32600),
        (frame({"jsonrpc": "2.0", "id": None, "method": "ping"}), -32600),
        (frame({"jsonrpc": "2.0", "id": True, "method": "ping"}), -32600),
        (frame({"jsonrpc": "2.0", "id": 1, "method": 5}), -32600),
        (frame({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": [1]}), -32602),
        (request(1, "resources/list"), -32601),
        (request(1, "tools/call", {"name": "rm_rf", "arguments": {}}), -32602),
        (request(1, "tools/call", {"arguments": {}}), -32602),
    ],
)
def test_malformed_messages_get_the_json_rpc_error(data: bytes, code: int) -> None:
    conn = initialized()
    assert only_reply(conn.receive_data(data))["error"]["code"] == code


def test_a_response_from_the_client_is_ignored() -> None:
    conn = initialized()
    assert conn.receive_data(frame({"jsonrpc": "2.0", "id": 3, "result": {}})) == []


# -- tools/list and tools/call ------------------------------------------------------------


def test_tools_list_has_object_schemas_and_output_schema_only_for_new_clients() -> None:
    new = only_reply(initialized().receive_data(request(1, "tools/list")))["result"]["tools"]
    assert [t["name"] for t in new] == ["read_text_file", "write_text_file", "run_command"]
    for tool in new:
        assert tool["inputSchema"]["type"] == "object"
        assert tool["inputSchema"]["additionalProperties"] is False
    run = new[2]
    assert run["outputSchema"]["required"] == ["output", "exitStatus", "truncated", "timedOut"]
    assert new[0]["annotations"]["readOnlyHint"] is True
    old = initialized("2024-11-05").receive_data(request(1, "tools/list"))
    assert all("outputSchema" not in t for t in only_reply(old)["result"]["tools"])


@pytest.mark.parametrize(
    ("flags", "names"),
    [
        ({"fs_read": True, "fs_write": False, "terminal": False}, ["read_text_file"]),
        ({"fs_read": False, "fs_write": False, "terminal": True}, ["run_command"]),
        ({"fs_read": False, "fs_write": False, "terminal": False}, []),
    ],
)
def test_tools_follow_the_capabilities(flags: dict[str, bool], names: list[str]) -> None:
    conn = McpConnection(host_tools(**flags))
    conn.receive_data(request(0, "initialize", {"protocolVersion": "2025-06-18"}))
    listed = only_reply(conn.receive_data(request(1, "tools/list")))["result"]["tools"]
    assert [t["name"] for t in listed] == names
    call = conn.receive_data(request(2, "tools/call", {"name": "write_text_file"}))
    assert only_reply(call)["error"]["code"] == -32602


def test_tools_call_becomes_a_call_event_and_its_result_a_reply() -> None:
    conn = initialized("2025-03-26")
    params = {"name": "read_text_file", "arguments": {"path": "a"}}
    assert conn.receive_data(request(5, "tools/call", params)) == [
        CallTool(5, "read_text_file", {"path": "a"})
    ]
    result = {"content": [], "structuredContent": {"x": 1}}
    reply = json.loads(conn.tool_result(5, result).frame)
    # 2025-03-26 has no structuredContent: it is left out.
    assert reply == {"jsonrpc": "2.0", "id": 5, "result": {"content": []}}


def test_arguments_that_are_not_an_object_are_a_tool_error() -> None:
    conn = initialized()
    answer = only_reply(
        conn.receive_data(request(5, "tools/call", {"name": "run_command", "arguments": [1]}))
    )
    assert answer["result"]["isError"] is True


# -- the tools, through a recording host --------------------------------------------------


class Recorder:
    """A host that records each ACP request and answers from a script."""

    def __init__(self, answers: dict[str, Any] | None = None) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.answers = answers or {}

    async def __call__(self, method: str, params: dict[str, Any]) -> Any:
        self.calls.append((method, params))
        answer = self.answers.get(method, {})
        if isinstance(answer, BaseException):
            raise answer
        if callable(answer):
            return await answer(params)
        return answer

    @property
    def methods(self) -> list[str]:
        return [m for m, _ in self.calls]


def runner(host: Recorder) -> ToolRunner:
    return ToolRunner(host, "sess-1", "/work/project")


async def test_read_resolves_a_relative_path_against_the_session_cwd() -> None:
    host = Recorder({"fs/read_text_file": {"content": "text\n"}})
    result = await runner(host).run("read_text_file", {"path": "src/a.py", "line": 2, "limit": 3})
    assert result == {"content": [{"type": "text", "text": "text\n"}]}
    assert host.calls == [
        (
            "fs/read_text_file",
            {"sessionId": "sess-1", "path": "/work/project/src/a.py", "line": 2, "limit": 3},
        )
    ]


async def test_an_absolute_path_is_passed_as_given() -> None:
    host = Recorder()
    await runner(host).run("write_text_file", {"path": "/etc/passwd", "content": "x"})
    assert host.calls == [
        ("fs/write_text_file", {"sessionId": "sess-1", "path": "/etc/passwd", "content": "x"})
    ]


@pytest.mark.parametrize(
    ("name", "arguments", "words"),
    [
        ("read_text_file", {}, "'path' is required"),
        ("read_text_file", {"path": 3}, "'path' must be a string"),
        ("read_text_file", {"path": ""}, "must not be empty"),
        ("read_text_file", {"path": "a\x00b"}, "NUL"),
        ("read_text_file", {"path": "a" * 70_000}, "longer than"),
        ("read_text_file", {"path": "a", "line": 0}, "'line' must be between 1"),
        ("read_text_file", {"path": "a", "line": 1.5}, "'line' must be an integer"),
        ("read_text_file", {"path": "a", "limit": True}, "'limit' must be an integer"),
        ("read_text_file", {"path": "a", "limit": 1 << 40}, "'limit' must be between"),
        ("read_text_file", {"path": "a", "mode": "r"}, "unknown argument 'mode'"),
        ("write_text_file", {"path": "a"}, "'content' is required"),
        ("write_text_file", {"path": "a", "content": 5}, "must be a string"),
        ("run_command", {}, "'command' is required"),
        ("run_command", {"command": "  "}, "must not be empty"),
        ("run_command", {"command": "ls", "args": "-l"}, "'args' must be a list"),
        ("run_command", {"command": "ls", "args": [1]}, "'args[0]' must be a string"),
        ("run_command", {"command": "ls", "env": [["A", "1"]]}, "'env' must be an object"),
        ("run_command", {"command": "ls", "env": {"A=B": "1"}}, "not a variable name"),
        ("run_command", {"command": "ls", "env": {"A": 1}}, "must be a string"),
        ("run_command", {"command": "ls", "timeoutSeconds": 0}, "'timeoutSeconds' must be"),
        ("run_command", {"command": "ls", "timeoutSeconds": 1e9}, "'timeoutSeconds' must be"),
        ("run_command", {"command": "ls", "timeoutSeconds": "5"}, "'timeoutSeconds' must be"),
        ("run_command", {"command": "ls", "args": ["x" * 60_000] * 20}, "exceed"),
    ],
)
async def test_bad_arguments_are_a_tool_error_and_reach_no_host(
    name: str, arguments: dict[str, Any], words: str
) -> None:
    host = Recorder()
    result = await runner(host).run(name, arguments)
    assert result["isError"] is True
    assert words in result["content"][0]["text"]
    assert host.calls == []


async def test_content_over_the_bound_is_refused_before_the_host() -> None:
    host = Recorder()
    # Few characters, many bytes: the bound is on the UTF-8 size.
    content = "\u20ac" * (MAX_CONTENT_BYTES // 3 + 1)
    result = await runner(host).run("write_text_file", {"path": "a", "content": content})
    assert result["isError"] is True and "MiB" in result["content"][0]["text"]
    assert host.calls == []


async def test_a_host_refusal_is_a_tool_error_with_the_hosts_message() -> None:
    refusal = InternalError("permission denied by the host's policy: write a file /x (no)")
    host = Recorder({"fs/write_text_file": refusal})
    result = await runner(host).run("write_text_file", {"path": "x", "content": ""})
    assert result == {
        "content": [{"type": "text", "text": refusal.message}],
        "isError": True,
    }


async def test_an_unexpected_failure_says_internal_error_and_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    host = Recorder({"fs/read_text_file": RuntimeError("secret /home/me/.token")})
    result = await runner(host).run("read_text_file", {"path": "x"})
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert text.startswith("internal error") and "secret" not in text
    assert "secret /home/me/.token" in caplog.text


async def test_run_command_creates_waits_reads_and_releases() -> None:
    host = Recorder(
        {
            "terminal/create": {"terminalId": "t-1"},
            "terminal/wait_for_exit": {"exitCode": 3},
            "terminal/output": {
                "output": "out\n",
                "truncated": True,
                "exitStatus": {"exitCode": 3, "signal": None},
            },
        }
    )
    result = await runner(host).run(
        "run_command",
        {"command": "make", "args": ["-j2"], "cwd": "sub", "env": {"CC": "gcc"}},
    )
    ids = {"sessionId": "sess-1", "terminalId": "t-1"}
    assert host.calls == [
        (
            "terminal/create",
            {
                "sessionId": "sess-1",
                "command": "make",
                "args": ["-j2"],
                "env": [{"name": "CC", "value": "gcc"}],
                "cwd": "/work/project/sub",
                "outputByteLimit": MCP_OUTPUT_BYTE_LIMIT,
            },
        ),
        ("terminal/wait_for_exit", ids),
        ("terminal/output", ids),
        ("terminal/release", ids),
    ]
    assert result["structuredContent"] == {
        "output": "out\n",
        "exitStatus": {"exitCode": 3, "signal": None},
        "truncated": True,
        "timedOut": False,
    }
    text = result["content"][0]["text"]
    assert text.startswith("out\n") and "exit code 3" in text and "cut" in text
    assert "isError" not in result


async def test_run_command_without_args_sends_a_shell_line() -> None:
    host = Recorder({"terminal/create": {"terminalId": "t"}, "terminal/output": {"output": ""}})
    await runner(host).run("run_command", {"command": "ls | wc -l"})
    assert "args" not in host.calls[0][1]


async def test_run_command_kills_at_the_timeout_and_still_releases() -> None:
    exited = asyncio.Event()

    async def wait(params: dict[str, Any]) -> Any:
        await exited.wait()
        return {"signal": "SIGKILL"}

    async def kill(params: dict[str, Any]) -> Any:
        exited.set()
        return {}

    host = Recorder(
        {
            "terminal/create": {"terminalId": "t"},
            "terminal/wait_for_exit": wait,
            "terminal/kill": kill,
            "terminal/output": {"output": "", "exitStatus": {"signal": "SIGKILL"}},
        }
    )
    result = await runner(host).run("run_command", {"command": "sleep 100", "timeoutSeconds": 0.01})
    assert host.methods == [
        "terminal/create",
        "terminal/wait_for_exit",
        "terminal/kill",
        "terminal/wait_for_exit",
        "terminal/output",
        "terminal/release",
    ]
    assert result["structuredContent"]["timedOut"] is True
    assert result["structuredContent"]["exitStatus"] == {"exitCode": None, "signal": "SIGKILL"}


async def test_run_command_releases_its_terminal_when_cancelled() -> None:
    started = asyncio.Event()

    async def wait(params: dict[str, Any]) -> Any:
        started.set()
        await asyncio.Event().wait()

    host = Recorder({"terminal/create": {"terminalId": "t"}, "terminal/wait_for_exit": wait})
    task = asyncio.ensure_future(runner(host).run("run_command", {"command": "sleep 100"}))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert host.methods[-1] == "terminal/release"


async def test_a_refused_command_is_a_tool_error_and_nothing_is_released() -> None:
    host = Recorder({"terminal/create": InvalidParams("cwd is outside the workspace")})
    result = await runner(host).run("run_command", {"command": "ls", "cwd": "/"})
    assert result["isError"] is True
    assert result["content"][0]["text"] == "cwd is outside the workspace"
    assert host.methods == ["terminal/create"]


def test_importing_the_host_package_loads_no_mcp_server() -> None:
    """``HostTools`` is loaded on first use: a run without it does not pay for the listeners."""
    code = (
        "import sys, acphost.host as h; "
        "print(sorted(m for m in sys.modules if m.startswith('acphost.host._mcp'))); "
        "h.HostTools; "
        "print(sorted(m for m in sys.modules if m.startswith('acphost.host._mcp')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.splitlines()
    assert out[0] == "[]"
    assert "'acphost.host._mcpserve'" in out[1]
