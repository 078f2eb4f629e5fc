"""Elicitation scripts: ask the user through the client (``elicitation/create``).

``ask form`` sends a form whose fields cover every property type the schema
defines (string, number, integer, boolean, single-select enum, multi-select),
with required fields and defaults; ``ask url`` sends a URL-mode request and,
once the client accepts it, ``elicitation/complete``. Each mode is used only if
the client advertised it (``clientCapabilities.elicitation.form``/``.url``). The
reply reports what came back: accepted values, decline or cancel.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._turn import Turn

    Json = dict[str, Any]

FORM_SCHEMA: Json = {
    "type": "object",
    "title": "Demo preferences",
    "description": "Tell the demo agent how you like to work.",
    "properties": {
        "name": {
            "type": "string",
            "title": "Your name",
            "description": "How the agent addresses you.",
            "minLength": 1,
            "maxLength": 40,
        },
        "email": {"type": "string", "title": "Email", "format": "email"},
        "temperature": {
            "type": "number",
            "title": "Creativity",
            "description": "0 is careful, 1 is adventurous.",
            "minimum": 0,
            "maximum": 1,
            "default": 0.5,
        },
        "retries": {
            "type": "integer",
            "title": "Retries",
            "minimum": 0,
            "maximum": 5,
            "default": 2,
        },
        "tests": {
            "type": "boolean",
            "title": "Run the tests after each edit",
            "default": True,
        },
        "language": {
            "type": "string",
            "title": "Language",
            "oneOf": [
                {"const": "python", "title": "Python"},
                {"const": "rust", "title": "Rust"},
                {"const": "typescript", "title": "TypeScript"},
            ],
            "default": "python",
        },
        "tone": {"type": "string", "title": "Tone", "enum": ["terse", "friendly", "formal"]},
        "tools": {
            "type": "array",
            "title": "Tools the agent may use",
            "minItems": 1,
            "items": {
                "anyOf": [
                    {"const": "read", "title": "Read files"},
                    {"const": "edit", "title": "Edit files"},
                    {"const": "bash", "title": "Run commands"},
                ]
            },
            "default": ["read"],
        },
    },
    "required": ["name", "language", "tools"],
}


def _capable(turn: Turn, mode: str) -> bool:
    capability = turn.client.get("elicitation")
    return isinstance(capability, dict) and isinstance(capability.get(mode), dict)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


def _outcome(
    turn: Turn, reply_error: Json | None, result: Json, what: str, required: list[str]
) -> str | None:
    """Say how the client answered; return the action (``None`` on an error).

    An accepted answer that lacks a ``required`` field is reported as such.
    """
    if reply_error is not None:
        turn.say(f"The {what} failed: {reply_error.get('message')}.")
        return None
    action = str(result.get("action"))
    if action == "accept":
        content = result.get("content")
        if isinstance(content, dict) and content:
            values = ", ".join(f"{key}={_value(content[key])}" for key in sorted(content))
            turn.say(f"You accepted the {what} with {values}.")
        else:
            turn.say(f"You accepted the {what}.")
        given = content if isinstance(content, dict) else {}
        missing = [name for name in required if name not in given]
        if missing:
            turn.say(f" The answer lacks the required field(s) {', '.join(missing)}.")
    elif action == "decline":
        turn.say(f"You declined the {what}.")
    elif action == "cancel":
        turn.say(f"You cancelled the {what}.")
    else:
        turn.say(f"The client answered the {what} with the unknown action {action!r}.")
    return action


def elicit(turn: Turn, arg: str) -> str:
    """Ask the user for their name with a form (``elicitation/create``)."""
    if not _capable(turn, "form"):
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


def ask(turn: Turn, arg: str) -> str:
    """Ask through the client: `ask form` (every field type) or `ask url` (URL mode)."""
    mode = arg.strip().lower()
    if mode not in ("form", "url"):
        turn.say("Usage: `ask form` or `ask url`.")
        return "end_turn"
    if not _capable(turn, mode):
        turn.say(f"The client did not advertise elicitation.{mode}, so I cannot ask.")
        return "end_turn"
    if mode == "form":
        reply = turn.call(
            "elicitation/create",
            {
                "mode": "form",
                "message": "A few preferences for this session.",
                "requestedSchema": FORM_SCHEMA,
            },
            string_id=True,
        )
        result = reply.result if isinstance(reply.result, dict) else {}
        _outcome(turn, reply.error, result, "form", list(FORM_SCHEMA["required"]))
        return "end_turn"
    elicitation_id = f"{turn.message_id}-url"
    url = f"https://example.com/acphost-demo/authorize?elicitation={elicitation_id}"
    reply = turn.call(
        "elicitation/create",
        {
            "mode": "url",
            "message": "Authorize the demo agent in your browser (nothing is sent anywhere).",
            "elicitationId": elicitation_id,
            "url": url,
        },
        string_id=True,
    )
    result = reply.result if isinstance(reply.result, dict) else {}
    if _outcome(turn, reply.error, result, "URL request", []) == "accept":
        # The out-of-band step "happens" now; tell the client it is over
        # (schema, CompleteElicitationNotification).
        turn.pause()
        turn.wire.notify("elicitation/complete", {"elicitationId": elicitation_id})
        turn.say(" The URL flow is complete.")
    return "end_turn"
