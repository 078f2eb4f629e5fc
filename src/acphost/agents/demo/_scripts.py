"""The demo agent's scripts, chosen by the first word of the prompt (see docs/DEMO.md).

Each script takes the :class:`~._turn.Turn` and the rest of the prompt text, streams
its updates, and returns the ``stopReason``. Cancellation unwinds as
:class:`~._turn.Cancelled`; :class:`~._turn.ScriptError` turns into a JSON-RPC error.

The scripts here are loaded at start-up; the others live in their own modules
(``_requests``, ``_ask``, ``_live``, ``_media``), imported the first time a
prompt names one of their keywords, so start-up pays only for this table.
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
    call = turn.tool_call("Searching for TODO", "search", "Search", rawInput={"pattern": "TODO"})
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
    call = turn.tool_call("Editing hello.py", "edit", "Edit", locations=[{"path": path, "line": 1}])
    turn.pause()
    turn.tool_update(call, status="in_progress", content=[diff])
    turn.pause()
    turn.tool_update(call, status="completed")


def diff(turn: Turn, arg: str) -> str:
    """Propose an edit as a tool call with ``diff`` content."""
    _diff_call(turn)
    turn.say("I changed the greeting in `hello.py`.")
    return "end_turn"


def commands(turn: Turn, arg: str) -> str:
    """Send an ``available_commands_update``."""
    turn.commands()
    turn.say("Sent the list of slash commands.")
    return "end_turn"


def usage(turn: Turn, arg: str) -> str:
    """Send a ``usage_update``."""
    turn.usage_update()
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


def system(turn: Turn, arg: str) -> str:
    """Answer with the system prompt the session was opened (or reopened) with."""
    prompt = turn.session.system_prompt
    if prompt is None:
        turn.say("(no system prompt)")
    else:
        mode, text = prompt
        turn.say(f"system prompt ({mode}): {text}")
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
        f"- `{name}`: {(load(name).__doc__ or '').splitlines()[0].replace('``', '`')}"
        for name in KEYWORDS
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
    turn.usage_update()
    turn.plan(entries, 3)
    return "end_turn"


# keyword -> (module, function); "" is this module.
KEYWORDS: dict[str, tuple[str, str]] = {
    "echo": ("", "echo"),
    "system": ("", "system"),
    "think": ("", "think"),
    "plan": ("", "plan"),
    "tool": ("", "tool"),
    "diff": ("", "diff"),
    "permission": ("_requests", "permission"),
    "read": ("_requests", "read"),
    "write": ("_requests", "write"),
    "terminal": ("_requests", "terminal"),
    "elicit": ("_ask", "elicit"),
    "ask": ("_ask", "ask"),
    "subagent": ("_subagent", "subagent"),
    "notice": ("_live", "notice"),
    "compact": ("_live", "compact"),
    "spend": ("_live", "spend"),
    "wait": ("_live", "wait"),
    "stop": ("_live", "stop"),
    "image": ("_media", "image"),
    "audio": ("_media", "audio"),
    "resource": ("_media", "resource"),
    "link": ("_media", "link"),
    "media": ("_media", "media"),
    "commands": ("", "commands"),
    "usage": ("", "usage"),
    "title": ("", "title"),
    "stream": ("", "stream"),
    "slow": ("", "slow"),
    "flood": ("", "flood"),
    "crash": ("", "crash"),
    "stderr": ("", "stderr"),
    "unknown": ("", "unknown"),
    "error": ("", "error"),
    "refuse": ("", "refuse"),
    "limit": ("", "limit"),
    "help": ("", "help_"),
}


def load(keyword: str) -> Script:
    """Return the script for a keyword of :data:`KEYWORDS`, importing its module if needed."""
    module, name = KEYWORDS[keyword]
    if not module:
        script: Script = globals()[name]
        return script
    from importlib import import_module  # noqa: PLC0415 - keep it off start-up

    loaded: Script = getattr(import_module(f".{module}", __package__), name)
    return loaded


def choose(text: str) -> tuple[Script, str]:
    """Pick the script for a prompt: its first word (a leading ``/`` is allowed)."""
    stripped = text.strip()
    parts = stripped.split(None, 1)
    keyword = parts[0].lstrip("/").lower() if parts else ""
    if keyword not in KEYWORDS:
        return tour, stripped
    return load(keyword), parts[1] if len(parts) > 1 else ""
