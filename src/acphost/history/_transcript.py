"""A recorded session as the CLI's text output shows a live one.

:func:`transcript` gives tagged pieces (the faces style them by tag; the
terminal face sanitises them at its edge); :func:`transcript_text` joins them
into plain text, which is also what a new session is given as context when
the agent can neither load nor resume the old one. The text is the agent's,
unchanged: it is data here, not yet shown on a terminal.

The layout keeps the host's lines apart from the agent's text, which could
otherwise spell them (``[stop] end_turn``): a host line starts at column 0
with its bracketed tag, and every line of the agent's answers and thoughts
is indented under it. Values the agent names inside a host line (a tool
call's title, a plan entry, an error, a path) are put on that one line, so
no part of them starts a line of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .. import view as v
from .._difftext import hunk_lines
from ._model import SessionRecord, TurnRecord, Usage

if TYPE_CHECKING:
    from ._conversations import ConversationRecord

__all__ = [
    "Piece",
    "conversation_text",
    "conversation_transcript",
    "diff_text_lines",
    "local_time",
    "protocol_text",
    "transcript",
    "transcript_text",
    "usage_text",
]

_STATUS_MARK = {"completed": "✓", "in_progress": "→", "pending": "·"}
# What starts a new line for someone reading the text: "\n", and what a
# terminal (carriage return, vertical tab, form feed) or a reader splitting
# lines (str.splitlines) takes as a line's end.
_BREAK = re.compile("\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
# How far the agent's text is indented under the host's lines.
_INDENT = "  "


def _label(value: object) -> str:
    # A value named inside a host line, on that line.
    return _BREAK.sub(" ", str(value))


@dataclass(frozen=True, slots=True)
class Piece:
    """One piece of a transcript.

    Attributes:
        tag: ``header``, ``prompt``, ``text``, ``thought``, ``tool``, ``diff``,
            ``plan``, ``media``, ``permission``, ``subagent`` (a child
            session's line: its label and status), ``subagent_text`` (its
            answer, nested under that line), ``stop``, ``error`` or ``usage``.
        text: its text (several lines for prompts, answers, diffs and plans).
        status: a tool call's status or a decision, for styling.

    """

    tag: str
    text: str
    status: str | None = None


def local_time(iso: str | None) -> str:
    """A stored time as local ``YYYY-MM-DD HH:MM`` (``-`` when unknown)."""
    if not iso:
        return "-"
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except (ValueError, OverflowError):  # not a time, or not one in the local zone's range
        return iso


def diff_text_lines(diff: dict[str, Any]) -> list[str]:
    """A unified diff of a recorded ``{"path", "old_text", "new_text"}`` (no file header)."""
    old = diff.get("old_text")
    return hunk_lines(old if isinstance(old, str) else None, str(diff.get("new_text") or ""))


def _number(value: int) -> str:
    return f"{value:,}"


def usage_text(usage: Usage) -> str:
    """``tokens 1,234 (input 1,000, output 234) · context 12,000/200,000 · cost 0.0023 USD``.

    Empty when nothing is known.
    """
    parts = []
    tokens = usage.tokens()
    if tokens:
        total = tokens.pop("total", None)
        kinds = ", ".join(f"{k.replace('_', ' ')} {_number(v)}" for k, v in tokens.items())
        head = f"tokens {_number(total)}" if total is not None else "tokens"
        parts.append(f"{head} ({kinds})" if kinds else head)
    if usage.context_used is not None:
        size = f"/{_number(usage.context_size)}" if usage.context_size is not None else ""
        parts.append(f"context {_number(usage.context_used)}{size}")
    if usage.cost_amount is not None:
        parts.append(f"cost {usage.cost_amount:.4f} {usage.cost_currency or ''}".rstrip())
    return " · ".join(parts)


def _tool_line(title: str, kind: str | None, status: str | None) -> str:
    # The same line the CLI's text output prints for a tool call.
    return f"[tool] {_label(title or '(untitled)')} ({kind or 'other'}) {status or 'pending'}"


def _turn_pieces(turn: TurnRecord, *, thoughts: bool, diffs: bool) -> list[Piece]:
    out = [Piece("prompt", "\n".join("> " + line for line in turn.prompt.splitlines() or [""]))]
    calls = {c.tool_call_id: c for c in turn.tool_calls}
    shown: set[str] = set()
    decisions: dict[str | None, list[Any]] = {}
    for p in turn.permissions:
        decisions.setdefault(p.tool_call_id, []).append(p)
    for event in turn.events:
        if event.get("kind") == "tool" and event.get("id") in calls:
            call_id = str(event["id"])
            shown.add(call_id)
            out.extend(_call_pieces(calls[call_id], decisions.pop(call_id, []), diffs=diffs))
            continue
        # What a stored event shows is the view model's (acphost.view), as for a live one.
        for piece in v.stored_pieces(event):
            if isinstance(piece, v.Text):
                out.append(Piece("text", piece.text))
            elif isinstance(piece, v.Thought):
                if thoughts:
                    out.append(Piece("thought", piece.text))
            elif isinstance(piece, v.MediaPiece):
                out.append(Piece("media", _label(piece.line)))
            elif isinstance(piece, v.Plan):
                lines = [
                    f"  {_STATUS_MARK.get(e.status, '?')} {_label(e.content)}"
                    + (" (high)" if e.priority == "high" else "")
                    for e in piece.entries
                ]
                out.append(Piece("plan", "\n".join(["[plan]", *lines])))
            elif isinstance(piece, v.SubagentCard):
                out.extend(_subagent_pieces(piece, event.get("tools")))
    if not turn.events and turn.text:
        out.append(Piece("text", turn.text))
    for call in turn.tool_calls:  # calls only a permission request announced
        if call.tool_call_id not in shown:
            out.extend(_call_pieces(call, decisions.pop(call.tool_call_id, []), diffs=diffs))
    for rest in decisions.values():
        out.extend(_decision_pieces(rest))
    if turn.error:
        out.append(Piece("error", f"[error] {_label(turn.error)}"))
    if not turn.complete:
        out.append(Piece("stop", "[stop] incomplete: the host ended before the turn did"))
    elif turn.stop_reason:
        host = f" (stopped by the host: {turn.host_stop})" if turn.host_stop else ""
        out.append(Piece("stop", _label(f"[stop] {turn.stop_reason}{host}"), turn.stop_reason))
    usage = usage_text(turn.usage)
    if usage:
        out.append(Piece("usage", f"[usage] {usage}"))
    return out


def _subagent_pieces(card: v.SubagentCard, tools: object) -> list[Piece]:
    # The child's line and its tool calls are the host's (column 0, one line
    # each); its answer is the agent's, nested deeper than the parent's.
    out = [Piece("subagent", _label(f"[subagent] {card.label} · {card.status}"), card.activity)]
    if card.text:
        out.append(Piece("subagent_text", card.text))
    for call in tools if isinstance(tools, list) else ():
        if isinstance(call, dict):
            title, kind, status = (call.get(k) for k in ("title", "kind", "status"))
            line = _tool_line(str(title or ""), str(kind) if kind else None, status and str(status))
            out.append(Piece("tool", "[subagent " + line[1:], status and str(status)))
    return out


def _call_pieces(call: Any, decisions: list[Any], *, diffs: bool) -> list[Piece]:
    out = [Piece("tool", _tool_line(call.title, call.kind, call.status), call.status)]
    out.extend(_decision_pieces(decisions))
    if diffs:
        for diff in call.diffs:
            lines = diff_text_lines(diff)
            head = _label(f"[diff] {diff.get('path', '')}")
            out.append(Piece("diff", "\n".join([head, *lines])))
    return out


def _decision_pieces(decisions: list[Any]) -> list[Piece]:
    return [
        Piece(
            "permission",
            _label(
                f"[permission] {p.title or p.tool_call_id or '(unknown tool call)'}: {p.decision}"
                + (f" ({p.option_kind})" if p.option_kind else "")
            ),
            p.decision,
        )
        for p in decisions
    ]


def sandbox_line(sandbox: dict[str, Any] | None) -> str:
    """How a record's sandbox reads in a transcript's header ("" when the record does not say)."""
    if not sandbox:
        return ""
    mechanism = sandbox.get("mechanism", "")
    if mechanism == "none":
        reason = sandbox.get("reason")
        return "sandbox: none, the agent ran unconfined" + (f" ({reason})" if reason else "")
    abi = sandbox.get("abi")
    write = sandbox.get("write") or []
    deny = sandbox.get("deny") or []
    head = f"sandbox: {mechanism}" + (f" (ABI {abi})" if abi is not None else "")
    return f"{head}; writes: {', '.join(write) or 'none'}; {len(deny)} path(s) not readable"


def protocol_text(protocol: int) -> str:
    """How a record's protocol version reads in a transcript's header and the exports."""
    return f"ACP version {protocol}"


def transcript(record: SessionRecord, *, thoughts: bool = False, diffs: bool = True) -> list[Piece]:
    """The pieces of a session's transcript, in order.

    Args:
        record: the session.
        thoughts: include the agent's thoughts.
        diffs: include the diffs of edits.

    Returns:
        A header, then per turn: the prompt, the agent's text, tool calls,
        plans, permission decisions, the stop reason and usage.

    """
    title = f" ({record.title})" if record.title else ""
    header = _label(
        f"session {record.id[:12]} · {record.agent} · {record.cwd} · "
        f"{local_time(record.started_at)}{title}"
    )
    sandbox = sandbox_line(record.sandbox)
    if sandbox:
        header += "\n" + _label(sandbox)
    if record.protocol is not None:
        header += f"\nprotocol: {protocol_text(record.protocol)}"
    out = [Piece("header", header)]
    for turn in record.turns:
        out.extend(_turn_pieces(turn, thoughts=thoughts, diffs=diffs))
    totals = record.token_totals()
    total = Usage(
        input=totals.input,
        output=totals.output,
        thought=totals.thought,
        cached_read=totals.cached_read,
        cached_write=totals.cached_write,
        total=totals.total,
        cost_amount=record.usage.cost_amount,
        cost_currency=record.usage.cost_currency,
    )
    if len(record.turns) > 1 and not total.empty:
        out.append(Piece("usage", f"[session] {usage_text(total)}"))
    return out


def transcript_text(record: SessionRecord, *, thoughts: bool = False, diffs: bool = True) -> str:
    """A session's transcript as plain text, like the CLI's text output.

    Args:
        record: the session (``HistoryStore.get(id)``).
        thoughts: include the agent's thoughts.
        diffs: include the diffs of edits.

    Returns:
        The text, ending with a newline; agent text is exact (sanitise it
        before showing it on a terminal), each of its lines indented by
        two spaces, host lines at column 0.

    """
    return _text_of(transcript(record, thoughts=thoughts, diffs=diffs))


def conversation_transcript(
    conversation: ConversationRecord, *, thoughts: bool = False, diffs: bool = True
) -> list[Piece]:
    """The pieces of a whole conversation: each session's transcript, in order.

    A conversation of one session is that session's transcript. One of
    several starts with a ``conversation`` header line, and each session's
    header says which of them it is (``[session 2/3] session ...``), so the
    boundary where one run went on from another stays visible.

    Args:
        conversation: the conversation (``HistoryStore.get_conversation(id)``).
        thoughts: include the agent's thoughts.
        diffs: include the diffs of edits.

    Returns:
        The pieces, as :func:`transcript` gives them per session.

    """
    sessions = conversation.sessions
    if len(sessions) == 1:
        return transcript(sessions[0], thoughts=thoughts, diffs=diffs)
    count = len(sessions)
    title = f" ({conversation.title})" if conversation.title else ""
    name = f" · named {conversation.name}" if conversation.name else ""
    out = [
        Piece(
            "header",
            _label(
                f"conversation {conversation.id[:12]} · {count} sessions · "
                f"{conversation.turns} turns{name}{title}"
            ),
        )
    ]
    for number, record in enumerate(sessions, 1):
        pieces = transcript(record, thoughts=thoughts, diffs=diffs)
        out.append(Piece("header", f"[session {number}/{count}] {pieces[0].text}"))
        out.extend(pieces[1:])
    return out


def conversation_text(
    conversation: ConversationRecord, *, thoughts: bool = False, diffs: bool = True
) -> str:
    """A whole conversation as plain text (see :func:`conversation_transcript`).

    Returns:
        The text, laid out as :func:`transcript_text` lays out a session; a
        blank line before each session's header.

    """
    return _text_of(conversation_transcript(conversation, thoughts=thoughts, diffs=diffs))


def _text_of(pieces: list[Piece]) -> str:
    """Pieces as plain text: host lines at column 0, the agent's indented under them."""
    out: list[str] = []
    for piece in pieces:
        if piece.tag in ("prompt", "header") and out:
            out.append("")
        text = piece.text.rstrip("\n")
        if piece.tag in ("text", "thought"):
            out.extend(_agent_lines(text))
        elif piece.tag == "subagent_text":
            out.extend(_agent_lines(text, _INDENT * 2))
        else:
            out.append(text)
    return "\n".join(out) + "\n"


def _agent_lines(text: str, indent: str = _INDENT) -> list[str]:
    # The agent's text as lines indented under the host's; empty lines stay empty.
    return [indent + line if line else line for line in text.split("\n")]
