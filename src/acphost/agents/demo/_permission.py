"""Asking the client for permission (``session/request_permission``), with all four option kinds.

An "always" answer is remembered per session for the same action, as agents
do, so the client is not asked again (schema ``PermissionOptionKind``).
"""

from __future__ import annotations

from ._turn import ScriptError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._turn import Turn

PERMISSION_OPTIONS = [
    {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
    {"optionId": "allow-always", "name": "Always allow", "kind": "allow_always"},
    {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
    {"optionId": "reject-always", "name": "Always reject", "kind": "reject_always"},
]
_KINDS = {option["optionId"]: option["kind"] for option in PERMISSION_OPTIONS}


def ask_permission(turn: Turn, call: str, action: str, **described: Any) -> str:
    """Ask permission for tool call ``call``; return the option kind or ``"cancelled"``.

    ``described`` repeats the call's fields (``title``, ``kind``, ``name``) in
    the request's ``toolCall``, so a client can decide from the request alone. An
    earlier "always" answer for the same ``action`` (a tool kind) is reused.
    """
    remembered = turn.session.always.get(action)
    if remembered is not None:
        return "allow_always" if remembered else "reject_always"
    reply = turn.call(
        "session/request_permission",
        {"toolCall": {"toolCallId": call, **described}, "options": PERMISSION_OPTIONS},
        string_id=True,
    )
    if reply.error is not None:
        raise ScriptError(-32603, f"permission request failed: {reply.error.get('message')}")
    outcome = reply.result.get("outcome", {}) if isinstance(reply.result, dict) else {}
    if outcome.get("outcome") == "selected":
        chosen = _KINDS.get(str(outcome.get("optionId")), "unknown")
        if chosen in ("allow_always", "reject_always"):
            turn.session.always[action] = chosen == "allow_always"
        return chosen
    turn.check()  # a cancelled outcome usually means the client cancelled the turn
    return "cancelled"
