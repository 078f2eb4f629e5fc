"""The demo agent's scripts, chosen by the first word of the prompt (see docs/DEMO.md).

Each script takes the :class:`~._turn.Turn` and the rest of the prompt text, streams
its updates, and returns the ``stopReason``. Cancellation unwinds as
:class:`~._turn.Cancelled`; :class:`~._turn.ScriptError` turns into a JSON-RPC error.
"""

from __future__ import annotations

import os
import sys

from ._turn import ScriptError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from ._turn import Turn

    Script = Callable[[Turn, str], str]

PERMISSION_OPTIONS = [
    {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "allow-always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
    {"optionId": "reject-always", "name": "Always reject", "kind": "reject_always"},
]
_KINDS = {option["optionId"]: option["kind"] for option in PERMISSION_OPTIONS}


def _count(arg: str, default: int) -> int:
    word = arg.split(maxsplit=1)[0] if arg.strip() else ""
    return int(word) if word.isdigit() else default


def echo(turn: Turn, arg: str) -> str:
    """Answer the text back, then list any attachments."""
    turn.say(arg if arg else "(nothing to echo)")
    if turn.attachments:
        turn.say("\n\nAttached: " + "; ".join(turn.attachments))
    return "end_turn"


def think(turn: Turn, arg: str) -> str:
    """Stream thought chunks, then a short answer."""
    for text in ("Let me think", " about this", " step by step…"):
        turn.think(text)
        turn.pause()
    turn.say("Done thinking.")
    return "end_turn"


def plan(turn: Turn, arg: str) -> str:
    """Send a plan whose entries go pending → in_progress → completed."""
    entries = ["Read the code", "Write the change", "Run the tests"]
    for done in range(len(entries) + 1):
        turn.plan(entries, done)
        turn.pause()
    turn.say("All three steps are done.")
    return "end_turn"


def tool(turn: Turn, arg: str) -> str:
    """Run a pretend search tool: pending → in_progress → completed."""
    path = os.path.join(turn.session.cwd, "README.md")
    call = turn.tool_call("Searching for TODO", "search", rawInput={"pattern": "TODO"})
    turn.pause()
    turn.tool_update(call, status="in_progress", locations=[{"path": path}])
    turn.pause()
    turn.tool_update(
        call,
        status="completed",
        content=[
            {"type": "content", "content": {"type": "text", "text": "2 matches in README.md"}}
        ],
        locations=[{"path": path, "line": 3}, {"path": path, "line": 14}],
        rawOutput={"matches": 2},
    )
    turn.say("The search found 2 matches.")
    return "end_turn"


def _diff_call(turn: Turn) -> None:
    path = os.path.join(turn.session.cwd, "hello.py")
    diff = {
        "type": "diff",
        "path": path,
        "oldText": 'print("hello")\n',
        "newText": 'print("hello, world")\n',
    }
    call = turn.tool_call("Editing hello.py", "edit", locations=[{"path": path, "line": 1}])
    turn.pause()
    turn.tool_update(call, status="in_progress", content=[diff])
    turn.pause()
    turn.tool_update(call, status="completed")


def diff(turn: Turn, arg: str) -> str:
    """Propose an edit as a tool call with ``diff`` content."""
    _diff_call(turn)
    turn.say("I changed the greeting in `hello.py`.")
    return "end_turn"


def _ask(turn: Turn, call: str, kind: str) -> str:
    """Ask permission for tool call ``call``; return the option kind or ``"cancelled"``.

    An earlier "always" answer for the same ``kind`` of action is reused.
    """
    remembered = turn.session.always.get(kind)
    if remembered is not None:
        return "allow_always" if remembered else "reject_always"
    reply = turn.call(
        "session/request_permission",
        {"toolCall": {"toolCallId": call}, "options": PERMISSION_OPTIONS},
        string_id=True,
    )
    if reply.error is not None:
        raise ScriptError(-32603, f"permission request failed: {reply.error.get('message')}")
    outcome = reply.result.get("outcome", {}) if isinstance(reply.result, dict) else {}
    if outcome.get("outcome") == "selected":
        chosen = _KINDS.get(str(outcome.get("optionId")), "unknown")
        if chosen in ("allow_always", "reject_always"):
            turn.session.always[kind] = chosen == "allow_always"
        return chosen
    turn.check()  # a cancelled outcome usually means the client cancelled the turn
    return "cancelled"


def permission(turn: Turn, arg: str) -> str:
    """Ask for permission with all four option kinds and report the answer."""
    call = turn.tool_call("Delete build/ (demo)", "delete")
    chosen = _ask(turn, call, "delete")
    allowed = chosen.startswith("allow")
    turn.tool_update(call, status="completed" if allowed else "failed")
    if chosen == "cancelled":
        turn.say("The permission request was cancelled.")
    else:
        turn.say(f"You chose {chosen}.")
    return "end_turn"


def read(turn: Turn, arg: str) -> str:
    """Read a file through the client (``fs/read_text_file``)."""
    path = arg.strip()
    if not turn.can("readTextFile"):
        turn.say("The client did not advertise fs.readTextFile, so I cannot read files.")
        return "end_turn"
    if not os.path.isabs(path):
        turn.say("Usage: `read <absolute path>`")
        return "end_turn"
    call = turn.tool_call(f"Reading {path}", "read", locations=[{"path": path}])
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
        f"Writing {path}", "edit", content=[diff_content], locations=[{"path": path}]
    )
    chosen = _ask(turn, call, "edit")
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
    call = turn.tool_call(f"Running {arg.strip()}", "execute", rawInput={"command": words})
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


def elicit(turn: Turn, arg: str) -> str:
    """Ask the user for their name with a form (``elicitation/create``)."""
    capability = turn.client.get("elicitation")
    if not (isinstance(capability, dict) and isinstance(capability.get("form"), dict)):
        turn.say("The client did not advertise elicitation.form, so I cannot ask.")
        return "end_turn"
    reply = turn.call(
        "elicitation/create",
        {
            "mode": "form",
            "message": "What should the demo agent call you?",
            "requestedSchema": {
                "type": "object",
                "properties": {"name": {"type": "string", "title": "Your name", "minLength": 1}},
                "required": ["name"],
            },
        },
        string_id=True,
    )
    result = reply.result if isinstance(reply.result, dict) else {}
    if reply.error is not None:
        turn.say(f"The elicitation failed: {reply.error.get('message')}.")
    elif result.get("action") == "accept":
        content = result.get("content") or {}
        turn.say(f"Nice to meet you, {content.get('name', 'stranger')}.")
    else:
        turn.say(f"No name given ({result.get('action')}).")
    return "end_turn"


def commands(turn: Turn, arg: str) -> str:
    """Send an ``available_commands_update``."""
    turn.commands()
    turn.say("Sent the list of slash commands.")
    return "end_turn"


def usage(turn: Turn, arg: str) -> str:
    """Send a ``usage_update``."""
    turn.usage()
    turn.say("Sent a usage update.")
    return "end_turn"


def title(turn: Turn, arg: str) -> str:
    """Rename the session with a ``session_info_update``."""
    turn.title(arg.strip() or "Demo session")
    turn.say(f"Renamed the session to {turn.session.title!r}.")
    return "end_turn"


def stream(turn: Turn, arg: str) -> str:
    """Stream N message chunks (default 20), 10 ms apart."""
    count = _count(arg, 20)
    for index in range(count):
        turn.say(f"chunk {index + 1}/{count}\n")
        turn.pause(0.01)
    return "end_turn"


def slow(turn: Turn, arg: str) -> str:
    """Stream 20 chunks, 250 ms apart: time enough to press cancel."""
    for index in range(20):
        turn.say(f"slow chunk {index + 1}/20\n")
        turn.pause(0.25)
    return "end_turn"


def flood(turn: Turn, arg: str) -> str:
    """Send N message chunks (default 1000) as fast as possible."""
    count = _count(arg, 1000)
    for index in range(count):
        turn.say(f"flood {index + 1}\n")
    return "end_turn"


def crash(turn: Turn, arg: str) -> str:
    """Write to stderr and exit with code 3 in the middle of the turn."""
    turn.say("About to crash…")
    sys.stderr.write("acphost-demo: crashing on purpose (the 'crash' keyword), exit code 3\n")
    sys.stderr.flush()
    os._exit(3)


def stderr(turn: Turn, arg: str) -> str:
    """Write N KB (default 256) of noise to stderr, then answer."""
    kilobytes = _count(arg, 256)
    line = "acphost-demo: stderr noise " + "x" * 995 + "\n"  # 1024 bytes
    for _ in range(kilobytes):
        sys.stderr.write(line)
    sys.stderr.flush()
    turn.say(f"Wrote {kilobytes} KB to stderr.")
    return "end_turn"


def unknown(turn: Turn, arg: str) -> str:
    """Send a ``session/update`` variant from the future, then answer."""
    turn.update(
        {
            "sessionUpdate": "future_variant",
            "futureField": {"answer": 42, "nested": ["a", "b"]},
            "note": "clients must keep or skip unknown variants, never fail",
        }
    )
    turn.say("Sent an update with the unknown variant 'future_variant'.")
    return "end_turn"


def error(turn: Turn, arg: str) -> str:
    """Answer the prompt with a JSON-RPC error."""
    raise ScriptError(-32603, "Internal error", {"reason": "the 'error' keyword fails the turn"})


def refuse(turn: Turn, arg: str) -> str:
    """End the turn with ``stopReason: "refusal"``."""
    turn.say("I won't do that (demo refusal).")
    return "refusal"


def limit(turn: Turn, arg: str) -> str:
    """End the turn with ``stopReason: "max_tokens"``."""
    turn.say("This answer is cut sho")
    return "max_tokens"


def help_(turn: Turn, arg: str) -> str:
    """List the keywords."""
    lines = [
        f"- `{name}`: {(func.__doc__ or '').splitlines()[0].replace('``', '`')}"
        for name, func in KEYWORDS.items()
    ]
    turn.say("The demo agent knows these keywords (first word of the prompt):\n")
    turn.say("\n".join(lines) + "\n\nAnything else runs the tour.")
    return "end_turn"


def tour(turn: Turn, arg: str) -> str:
    """Run the tour: thoughts, a plan, tool calls, a diff, markdown, commands, usage."""
    turn.think("No keyword in the prompt, ")
    turn.pause()
    turn.think("so I will show everything an ACP agent can stream.")
    entries = ["Look around the workspace", "Propose an edit", "Summarise"]
    turn.plan(entries, 0)
    turn.pause()
    tool(turn, "")
    turn.plan(entries, 1)
    _diff_call(turn)
    turn.plan(entries, 2)
    turn.say("## The acphost demo agent\n\n")
    turn.pause()
    turn.say("This was a **tour**: thoughts, a plan, a search tool call and an edit as a diff.\n")
    if turn.attachments:
        turn.say("\nYou attached: " + "; ".join(turn.attachments) + "\n")
    turn.say("\nTry `help` for the keywords, or `/` to see the slash commands.\n")
    turn.commands()
    turn.usage()
    turn.plan(entries, 3)
    return "end_turn"


KEYWORDS: dict[str, Script] = {
    "echo": echo,
    "think": think,
    "plan": plan,
    "tool": tool,
    "diff": diff,
    "permission": permission,
    "read": read,
    "write": write,
    "terminal": terminal,
    "elicit": elicit,
    "commands": commands,
    "usage": usage,
    "title": title,
    "stream": stream,
    "slow": slow,
    "flood": flood,
    "crash": crash,
    "stderr": stderr,
    "unknown": unknown,
    "error": error,
    "refuse": refuse,
    "limit": limit,
    "help": help_,
}


def choose(text: str) -> tuple[Script, str]:
    """Pick the script for a prompt: its first word (a leading ``/`` is allowed)."""
    stripped = text.strip()
    parts = stripped.split(None, 1)
    script = KEYWORDS.get(parts[0].lstrip("/").lower()) if parts else None
    if script is None:
        return tour, stripped
    return script, parts[1] if len(parts) > 1 else ""
