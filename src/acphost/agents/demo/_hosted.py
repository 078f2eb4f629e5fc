"""``read``, ``write`` and ``terminal`` through the client's ``acphost`` MCP server.

ACP v2 has no client ``fs/*`` or ``terminal/*``: a client lends its tools as
an MCP server in ``session/new`` (see ``_mcp``). When the session has one named
``acphost`` (on either version) these scripts call its ``read_text_file``,
``write_text_file`` and ``run_command`` tools; on v2 without it they fail the
tool call and say why. A tool result with ``isError`` carries the host's
reason in its text (a policy refusal, a missing file): the tool call fails with
that text as its content.
"""

from __future__ import annotations

import binascii
import os

from ._mcp import MCP_VERSION, TOOLS, Connection, tool_result
from ._permission import ask_permission
from ._turn import Cancelled, ScriptError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._turn import Turn

    Json = dict[str, Any]


#: How long a server may take to answer initialize and tools/list (a tool call
#: itself may run as long as the turn: a command can be slow).
def _seconds(text: str | None, default: float) -> float:
    try:
        value = float(text or default)
    except ValueError:
        return default
    return value if 0 < value < 86400 else default


HANDSHAKE_SECONDS = _seconds(os.environ.get("ACPHOST_DEMO_MCP_TIMEOUT"), 30.0)


def _text(text: str) -> list[Json]:
    return [{"type": "content", "content": {"type": "text", "text": text}}]


def _no_server(turn: Turn, call: str, action: str) -> str:
    reason = (
        f"I cannot {action}: the client offered no 'acphost' MCP server, "
        "and ACP v2 has no fs/* or terminal/* methods."
    )
    turn.tool_update(call, status="failed", content=_text(reason))
    turn.say(reason)
    return "end_turn"


def _connect(turn: Turn) -> Connection:
    """The session's MCP connection, opened and initialized on first use."""
    session = turn.session
    assert session.tools is not None
    connection = session.host
    if not isinstance(connection, Connection):
        connection = Connection(session.tools, session.cwd)
        session.host = connection
    if not connection.ready:
        hello = {
            "protocolVersion": MCP_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "acphost-demo", "version": "0.1.0"},
        }
        _answer(turn, connection, "initialize", hello, HANDSHAKE_SECONDS)
        connection.notify("notifications/initialized", {})
        listed = _answer(turn, connection, "tools/list", {}, HANDSHAKE_SECONDS)
        tools = listed.get("tools")
        names = (
            {t.get("name") for t in tools if isinstance(t, dict)}
            if isinstance(tools, list)
            else set()
        )
        connection.tools = {name for name in TOOLS if name in names}
        connection.ready = True
    return connection


class _Refused(Exception):
    """The MCP server could not be used, or answered with a JSON-RPC error."""


def _answer(
    turn: Turn, connection: Connection, method: str, params: Json, timeout: float | None = None
) -> Json:
    reply = connection.request(method, params, timeout)
    try:
        turn.wait_for(reply)
    except Cancelled:
        connection.cancel(reply)  # MCP notifications/cancelled
        raise
    if reply.error is not None:
        raise _Refused(f"the acphost MCP server failed: {reply.error.get('message')}")
    return reply.result if isinstance(reply.result, dict) else {}


def call_tool(turn: Turn, name: str, arguments: Json) -> tuple[bool, str, Json]:
    """Call one tool; return (is_error, text, structuredContent).

    A server that cannot be started or reached, a JSON-RPC error, or a missing
    tool come back as an error result whose text says what went wrong.
    """
    try:
        connection = _connect(turn)
        if name not in connection.tools:
            return True, f"the acphost MCP server offers no {name} tool", {}
        return tool_result(
            _answer(turn, connection, "tools/call", {"name": name, "arguments": arguments})
        )
    except _Refused as exc:
        return True, str(exc), {}


def _absolute(turn: Turn, path: str) -> str:
    return path if os.path.isabs(path) else os.path.join(turn.session.cwd, path)


def read(turn: Turn, arg: str) -> str:
    """Read a file with the host's ``read_text_file`` tool: `read PATH [LINE [LIMIT]]`."""
    words = arg.split()
    numbers: list[int] = []
    while len(words) > 1 and len(numbers) < 2 and words[-1].isdigit():
        numbers.insert(0, int(words.pop()))
    if not words:
        turn.say("Usage: `read <path> [line [limit]]`")
        return "end_turn"
    path = _absolute(turn, " ".join(words))
    arguments: Json = {"path": path}
    arguments.update(zip(("line", "limit"), numbers, strict=False))
    call = turn.tool_call(
        f"Reading {path}", "read", "Read", locations=[{"path": path}], rawInput=arguments
    )
    if turn.session.tools is None:
        return _no_server(turn, call, "read files")
    turn.tool_update(call, status="in_progress")
    failed, text, _ = call_tool(turn, "read_text_file", arguments)
    if failed:
        turn.tool_update(call, status="failed", content=_text(text))
        turn.say(f"Reading failed: {text}")
        return "end_turn"
    turn.tool_update(call, status="completed", content=_text(text[:200]))
    turn.say(f"Read {len(text)} characters; first line: {text.split(chr(10), 1)[0]!r}.")
    return "end_turn"


def write(turn: Turn, arg: str) -> str:
    """Ask permission, then write a file with the host's ``write_text_file`` tool."""
    given, _, text = arg.strip().partition(" ")
    if not given:
        turn.say("Usage: `write <path> <text>`")
        return "end_turn"
    path = _absolute(turn, given)
    text = text or "Hello from the acphost demo agent.\n"
    diff_content = {"type": "diff", "path": path, "oldText": None, "newText": text}
    call = turn.tool_call(
        f"Writing {path}",
        "edit",
        "Write",
        content=[diff_content],
        locations=[{"path": path}],
        rawInput={"path": path, "content": text},
    )
    if turn.session.tools is None:
        return _no_server(turn, call, "write files")
    chosen = ask_permission(turn, call, "edit", title=f"Writing {path}", kind="edit", name="Write")
    if not chosen.startswith("allow"):
        turn.tool_update(call, status="failed")
        turn.say(f"Not writing {path}: {chosen}.")
        return "end_turn"
    turn.tool_update(call, status="in_progress")
    failed, reason, _ = call_tool(turn, "write_text_file", {"path": path, "content": text})
    if failed:
        turn.tool_update(call, status="failed", content=[diff_content, *_text(reason)])
        turn.say(f"Writing failed: {reason}")
        return "end_turn"
    turn.tool_update(call, status="completed")
    turn.say(f"Wrote {len(text)} characters to {path}.")
    return "end_turn"


def _b64(text: str) -> str:
    return binascii.b2a_base64(text.encode("utf-8", "surrogatepass"), newline=False).decode("ascii")


def terminal(turn: Turn, arg: str) -> str:
    """Run a command with the host's ``run_command`` tool; on v2 it is shown as a terminal."""
    import shlex  # noqa: PLC0415 - only this script needs it

    try:
        words = shlex.split(arg)
    except ValueError as exc:
        raise ScriptError(-32602, f"cannot parse the command: {exc}") from None
    if not words:
        turn.say("Usage: `terminal <command> [args...]`")
        return "end_turn"
    call = turn.tool_call(f"Running {arg.strip()}", "execute", "Bash", rawInput={"command": words})
    if turn.session.tools is None:
        return _no_server(turn, call, "run commands")
    v2 = turn.protocol == 2
    terminal_id = f"{call}-terminal"
    if v2:
        # An agent-owned terminal (schema TerminalUpdate), shown in the tool call.
        turn.update(
            {
                "sessionUpdate": "terminal_update",
                "terminalId": terminal_id,
                "command": arg.strip(),
                "cwd": turn.session.cwd,
            }
        )
        turn.tool_update(
            call, status="in_progress", content=[{"type": "terminal", "terminalId": terminal_id}]
        )
    else:
        turn.tool_update(call, status="in_progress")
    arguments = {"command": words[0], "args": words[1:], "cwd": turn.session.cwd}
    failed, text, structured = call_tool(turn, "run_command", arguments)
    output = structured.get("output")
    output = output if isinstance(output, str) else text
    exit_status = structured.get("exitStatus")
    exit_status = exit_status if isinstance(exit_status, dict) else {}
    code, signal = exit_status.get("exitCode"), exit_status.get("signal")
    if failed and not structured:  # refused or unreachable: it never ran
        if v2:
            turn.update(
                {"sessionUpdate": "terminal_update", "terminalId": terminal_id, "exitStatus": {}}
            )
        turn.tool_update(call, status="failed", content=_text(text))
        turn.say(f"The command did not run: {text}")
        return "end_turn"
    if v2:
        data = _b64(output)
        turn.update(
            {"sessionUpdate": "terminal_output_chunk", "terminalId": terminal_id, "data": data}
        )
        status = {"exitCode": code if isinstance(code, int) else None, "signal": signal}
        turn.update(
            {
                "sessionUpdate": "terminal_update",
                "terminalId": terminal_id,
                "output": {"data": data},
                "exitStatus": status,
            }
        )
        turn.tool_update(call, status="completed" if code == 0 and not failed else "failed")
    else:
        turn.tool_update(
            call,
            status="completed" if code == 0 and not failed else "failed",
            content=_text(output),
        )
    cut = " (cut)" if structured.get("truncated") is True else ""
    ending = f"code {code}" if signal is None else f"signal {signal}"
    turn.say(f"The command exited with {ending}; it printed {len(output)} characters{cut}.")
    if output:
        turn.say("\n\n```\n" + output[-2000:] + "\n```")
    return "end_turn"
