"""Scripts that ask the client to act: permission, files and terminals.

Each one says so in a message, and calls nothing, when the client did not
advertise the capability it needs (ACP "Initialization" > "Client Capabilities").
Tool calls carry the tool's own ``name`` (``Bash``, ``Read``, ``Write``) beside
their title (schema, ``ToolCall.name``).
"""

from __future__ import annotations

import os

from ._permission import PERMISSION_OPTIONS, ask_permission
from ._turn import ScriptError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._turn import Turn

__all__ = ["PERMISSION_OPTIONS", "permission", "read", "terminal", "write"]


def _hosted(turn: Turn) -> bool:
    """Whether files and commands go through the client's ``acphost`` MCP server.

    They do when the session was given one, and on v2 always (v2 has no client
    ``fs/*`` or ``terminal/*``; without the server ``_hosted`` says so).
    """
    return turn.session.tools is not None or turn.protocol == 2


def permission(turn: Turn, arg: str) -> str:
    """Ask for permission with all four option kinds and report the answer."""
    call = turn.tool_call("Delete build/ (demo)", "delete", "Bash")
    chosen = ask_permission(
        turn, call, "delete", title="Delete build/ (demo)", kind="delete", name="Bash"
    )
    allowed = chosen.startswith("allow")
    turn.tool_update(call, status="completed" if allowed else "failed")
    if chosen == "cancelled":
        turn.say("The permission request was cancelled.")
    else:
        turn.say(f"You chose {chosen}.")
    return "end_turn"


def read(turn: Turn, arg: str) -> str:
    """Read a file through the client (``fs/read_text_file``)."""
    if _hosted(turn):
        from . import _hosted as hosted  # noqa: PLC0415 - loads the MCP client

        return hosted.read(turn, arg)
    path = arg.strip()
    if not turn.can("readTextFile"):
        turn.say("The client did not advertise fs.readTextFile, so I cannot read files.")
        return "end_turn"
    if not os.path.isabs(path):
        turn.say("Usage: `read <absolute path>`")
        return "end_turn"
    call = turn.tool_call(f"Reading {path}", "read", "Read", locations=[{"path": path}])
    reply = turn.call("fs/read_text_file", {"path": path})
    if reply.error is not None or not isinstance(reply.result, dict):
        message = (reply.error or {}).get("message", "bad result")
        turn.tool_update(call, status="failed")
        turn.say(f"Reading failed: {message} (code {(reply.error or {}).get('code')}).")
        return "end_turn"
    content = str(reply.result.get("content", ""))
    first = content.split("\n", 1)[0]
    turn.tool_update(
        call,
        status="completed",
        content=[{"type": "content", "content": {"type": "text", "text": content[:200]}}],
    )
    turn.say(f"Read {len(content)} characters; first line: {first!r}.")
    return "end_turn"


def write(turn: Turn, arg: str) -> str:
    """Ask permission, then write a file through the client (``fs/write_text_file``)."""
    if _hosted(turn):
        from . import _hosted as hosted  # noqa: PLC0415 - loads the MCP client

        return hosted.write(turn, arg)
    path, _, text = arg.strip().partition(" ")
    if not turn.can("writeTextFile"):
        turn.say("The client did not advertise fs.writeTextFile, so I cannot write files.")
        return "end_turn"
    if not os.path.isabs(path):
        turn.say("Usage: `write <absolute path> <text>`")
        return "end_turn"
    text = text or "Hello from the acphost demo agent.\n"
    diff_content = {"type": "diff", "path": path, "oldText": None, "newText": text}
    call = turn.tool_call(
        f"Writing {path}", "edit", "Write", content=[diff_content], locations=[{"path": path}]
    )
    chosen = ask_permission(turn, call, "edit", title=f"Writing {path}", kind="edit", name="Write")
    if not chosen.startswith("allow"):
        turn.tool_update(call, status="failed")
        turn.say(f"Not writing {path}: {chosen}.")
        return "end_turn"
    turn.tool_update(call, status="in_progress")
    reply = turn.call("fs/write_text_file", {"path": path, "content": text})
    if reply.error is not None:
        turn.tool_update(call, status="failed")
        error = reply.error
        turn.say(f"Writing failed: {error.get('message')} (code {error.get('code')}).")
        return "end_turn"
    turn.tool_update(call, status="completed")
    turn.say(f"Wrote {len(text)} characters to {path}.")
    return "end_turn"


def terminal(turn: Turn, arg: str) -> str:
    """Run a command in a client terminal: create, output, wait, output, release."""
    if _hosted(turn):
        from . import _hosted as hosted  # noqa: PLC0415 - loads the MCP client

        return hosted.terminal(turn, arg)
    if not turn.can("terminal"):
        turn.say("The client did not advertise terminal support, so I cannot run commands.")
        return "end_turn"
    import shlex  # noqa: PLC0415 - only this script needs it; keep it off start-up

    try:
        words = shlex.split(arg)
    except ValueError as exc:
        raise ScriptError(-32602, f"cannot parse the command: {exc}") from None
    if not words:
        turn.say("Usage: `terminal <command> [args...]`")
        return "end_turn"
    call = turn.tool_call(f"Running {arg.strip()}", "execute", "Bash", rawInput={"command": words})
    created = turn.call(
        "terminal/create",
        {"command": words[0], "args": words[1:], "cwd": turn.session.cwd, "outputByteLimit": 65536},
    )
    if created.error is not None or not isinstance(created.result, dict):
        turn.tool_update(call, status="failed")
        turn.say(f"Could not start the command: {(created.error or {}).get('message')}.")
        return "end_turn"
    terminal_id = str(created.result.get("terminalId"))
    ref = {"terminalId": terminal_id}
    try:
        turn.tool_update(
            call, status="in_progress", content=[{"type": "terminal", "terminalId": terminal_id}]
        )
        turn.call("terminal/output", ref)
        exited = turn.call("terminal/wait_for_exit", ref)
        output = turn.call("terminal/output", ref)
    except BaseException:
        # Cancelled (or worse) while the command ran: kill it, then free the terminal.
        turn.call_after_cancel("terminal/kill", ref)
        turn.call_after_cancel("terminal/release", ref)
        raise
    code = (exited.result or {}).get("exitCode") if isinstance(exited.result, dict) else None
    result = output.result if isinstance(output.result, dict) else {}
    text = str(result.get("output", ""))
    turn.tool_update(call, status="completed" if code == 0 else "failed")
    turn.call("terminal/release", ref)
    turn.say(f"The command exited with code {code}; it printed {len(text)} characters.")
    if text:
        turn.say("\n\n```\n" + text[-2000:] + "\n```")
    return "end_turn"
