"""The pieces of the session tree: a subagent's card and a message between sessions.

A subagent is a child session the agent runs (schema ``SubagentUpdate``); its
own updates are viewed like any session's, by a :class:`~._pieces.Viewer` of
its state, and a face attributes their pieces to it by its label. What the
parent says of it becomes a :class:`SubagentCard`; what the sessions say to
one another (``session_message``) an :class:`InterMessage`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..client import SessionState

__all__ = [
    "InterMessage",
    "SubagentCard",
    "message_piece",
    "stored_subagent",
    "subagent_card",
    "wire_text",
]


@dataclass(frozen=True, slots=True)
class SubagentCard:
    """A subagent (a child session) as the parent last described it.

    Attributes:
        session_id: the child's session id.
        label: its title, else its description, else its id.
        description: its description (``""``: none).
        activity: ``running``, ``idle``, ``requires_action``, ``unknown`` or
            as sent (``""``: not said).
        stop_reason: why its last work ended, on ``idle`` (``""``: not said).
        changed: it appeared, or its activity or stop reason changed, with
            this update (a line-oriented face prints a line only then).
        text: its answer (its agent text), for a stored one; ``""`` live
            (a live face streams the child's own pieces instead).

    """

    session_id: str
    label: str
    description: str = ""
    activity: str = ""
    stop_reason: str = ""
    changed: bool = True
    text: str = ""

    @property
    def status(self) -> str:
        """``running``, or ``idle (end_turn)``: the activity with its stop reason."""
        if self.stop_reason:
            return f"{self.activity or 'idle'} ({self.stop_reason})"
        return self.activity or "announced"


@dataclass(frozen=True, slots=True)
class InterMessage:
    """A message between this session and another (``session_message``).

    Attributes:
        message_id: its id in this session's transcript.
        outgoing: this session sent it (else it received it).
        peer: the other session's label (a subagent's, or its id).
        text: the text the session keeps of it so far ("" where the
            session keeps no message content: see ``added``).
        added: the text this update carried: a chunk's, or the whole text
            of an upsert that (re)wrote it.
        chunk: the update was a ``session_message_chunk`` (``added`` goes on
            the message's text; it need not end a line).

    """

    message_id: str
    outgoing: bool
    peer: str
    text: str
    added: str = ""
    chunk: bool = False


def subagent_card(
    state: SessionState, session_id: str, seen: dict[str, tuple[str, str]]
) -> SubagentCard | None:
    """The card of the child ``session_id`` after a ``subagent_update`` applied to ``state``.

    Args:
        state: the parent's state (the update was applied to it).
        session_id: the child the update named.
        seen: the activity and stop reason last shown per child, updated
            here (what makes :attr:`SubagentCard.changed`).

    Returns:
        The card, or None when the state keeps no such child (past its bound).

    """
    child = state.subagents.get(session_id)
    if child is None:
        return None
    now = (child.activity or "", child.stop_reason or "")
    changed = seen.get(session_id) != now
    seen[session_id] = now
    return SubagentCard(
        session_id,
        child.label,
        child.description or "",
        now[0],
        now[1],
        changed,
    )


def message_piece(
    state: SessionState, message_id: str, added: str | None, *, chunk: bool = False
) -> InterMessage | None:
    """The piece of the message ``message_id`` after a ``session_message(_chunk)``.

    Args:
        state: the session's state (the update was applied to it).
        message_id: the message the update named.
        added: the text the update carried; None for the whole text the
            state keeps (a state shown after the fact).
        chunk: the update was a chunk.

    """
    message = state.session_messages.get(message_id)
    if message is None:
        return None
    sender = message.sender_session_id
    recipient = message.recipient_session_id
    # A child's reply comes from one of this session's subagents; an
    # instruction goes to one. Otherwise (a child's own transcript, whose
    # parent is no subagent of its): an incoming view names the sender's
    # copy of the message (schema ``SessionMessage.senderMessageId``).
    if sender is not None and sender in state.subagents:
        outgoing = False
    elif recipient is not None and recipient in state.subagents:
        outgoing = True
    else:
        outgoing = message.sender_message_id is None
    other = recipient if outgoing else sender
    child = state.subagents.get(other or "")
    peer = child.label if child is not None else (other or "")
    text = message.text
    return InterMessage(message_id, outgoing, peer, text, text if added is None else added, chunk)


def wire_text(blocks: Any) -> str:
    """The text blocks' text of an update's content, joined (either schema's classes)."""
    parts = []
    for block in blocks or ():
        text = getattr(block, "text", None)
        if getattr(block, "type", None) == "text" and isinstance(text, str):
            parts.append(text)
    return "".join(parts)


def stored_subagent(event: Mapping[str, Any]) -> SubagentCard:
    """A stored ``{"kind": "subagent", ...}`` event of the history as a card.

    Keys: ``id``, ``label``, ``description``, ``activity``, ``stop_reason``
    and ``text`` (the child's answer); each optional but ``id``.
    """

    def field(key: str) -> str:
        value = event.get(key)
        return value if isinstance(value, str) else ""

    return SubagentCard(
        field("id"),
        field("label") or field("id"),
        field("description"),
        field("activity"),
        field("stop_reason"),
        True,
        field("text"),
    )
