"""The updates codex-acp 2.6.0 sends for a command it runs itself (its own shell).

The shapes are those of a recorded run: ``tool_call`` with a ``terminal``
content item and ``_meta.terminal_info``, then ``tool_call_update`` with
``_meta.terminal_output_delta`` (appended) and ``_meta.terminal_exit``. The
client never created that terminal (no ``terminal/create``).
"""

from __future__ import annotations

from typing import Any


def start(call: str = "call_1", command: str = "make test", cwd: str = "/ws") -> dict[str, Any]:
    """The ``tool_call`` announcing the command and its terminal."""
    return {
        "sessionUpdate": "tool_call",
        "toolCallId": call,
        "kind": "execute",
        "title": command,
        "status": "in_progress",
        "content": [{"type": "terminal", "terminalId": call}],
        "rawInput": {"command": command, "cwd": cwd},
        "_meta": {"terminal_info": {"cwd": cwd, "terminal_id": call}},
    }


def meta_update(call: str, meta: Any, **fields: Any) -> dict[str, Any]:
    """A ``tool_call_update`` carrying ``meta`` as its ``_meta``."""
    return {"sessionUpdate": "tool_call_update", "toolCallId": call, **fields, "_meta": meta}


def delta(call: str, data: str, terminal: str | None = None) -> dict[str, Any]:
    """Output appended to the terminal (``terminal`` defaults to the call's own)."""
    return meta_update(
        call, {"terminal_output_delta": {"data": data, "terminal_id": terminal or call}}
    )


def exit_(call: str, code: int = 0) -> dict[str, Any]:
    """The terminal's exit, with the call's completion."""
    status = "completed" if code == 0 else "failed"
    return meta_update(
        call,
        {"terminal_exit": {"exit_code": code, "signal": None, "terminal_id": call}},
        status=status,
    )


def command_run(call: str = "call_1") -> list[dict[str, Any]]:
    """A whole command: announced, two pieces of output, the exit, then a message."""
    return [
        start(call),
        delta(call, "first line\nsecond "),
        delta(call, "line\n"),
        exit_(call, 2),
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Ran it."}},
    ]
