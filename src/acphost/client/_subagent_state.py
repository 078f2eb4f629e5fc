"""The rules of the session tree: subagent children and the messages between sessions.

An agent that runs subagents announces each child on the parent session with
``subagent_update`` (schema ``SubagentUpdate``): an upsert keyed by the child's
``sessionId``. "Omitted patch fields keep their previous values. ``null``
clears them"; "a concrete state replaces the entire previous state object".
The child's own updates then arrive on its session id, and ``session_message``
(an upsert keyed by ``messageId``) with ``session_message_chunk`` (content
appended) carry what the sessions say to one another. The shapes are those of
the schema's unstable definitions, which the adapters of today send (the
feature is stable in the protocol; no released schema package has it yet).

Like :mod:`._state`, this module holds rules and data only: no I/O, no
asyncio. :class:`~._state.SessionState` applies these rules and keeps each
child as a :class:`~._state.SubagentState`; the client's
:class:`~acphost.client.Subagent` routes a child's own updates to its state.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from .. import schema as s
from ..content import block_text

if TYPE_CHECKING:
    from ..schema import unstable as u

__all__ = [
    "BUSY",
    "MAX_SESSION_MESSAGES",
    "MAX_SUBAGENTS",
    "TREE_KINDS",
    "SessionMessageState",
    "decode_tree_update",
    "stable_block",
]

logger = logging.getLogger("acphost.client")

#: The most messages between sessions one session keeps (later ids are ignored).
MAX_SESSION_MESSAGES = 4096

#: The most children one session keeps (a hostile agent could announce
#: children without end); later announcements are ignored, with a warning.
MAX_SUBAGENTS = 256

#: The activities during which a child works in the foreground: a host that
#: waits for the children of a turn waits while one of these holds. ``idle``
#: and ``unknown`` do not hold ("Idle does not terminate the child";
#: ``unknown`` "replaces previously confirmed activity without ending the
#: work"), nor does a state the agent never reported.
BUSY = frozenset(("running", "requires_action"))


class SessionMessageState:
    """One message between sessions, as this session's transcript has it.

    On the parent, an *outgoing view* (the parent's instructions to a child)
    or a child's reply; on a child, the *incoming view* of the same message.
    Its content is kept only where the session keeps message content
    (``keep_history``); its participants always.

    Attributes:
        message_id: its id in this session's transcript.
        sender_session_id: the session that sent it (None: not said).
        recipient_session_id: the session it is for.
        sender_message_id: on an incoming view, its id in the sender's transcript.
        recipient_message_id: on an outgoing view, its id in the recipient's.
        content: its content blocks, in arrival order (empty when not kept).
        meta: its last ``_meta``.
        position: how many messages of the session preceded it.

    """

    __slots__ = (
        "_text",
        "content",
        "message_id",
        "meta",
        "position",
        "recipient_message_id",
        "recipient_session_id",
        "sender_message_id",
        "sender_session_id",
    )

    def __init__(self, message_id: str, position: int = 0) -> None:
        self.message_id = message_id
        self.sender_session_id: str | None = None
        self.recipient_session_id: str | None = None
        self.sender_message_id: str | None = None
        self.recipient_message_id: str | None = None
        self.content: list[s.ContentBlock] = []
        self.meta: dict[str, Any] | None = None
        self.position = position
        self._text = ""  # the text of ``content``, kept as chunks arrive

    def __repr__(self) -> str:
        route = f"{self.sender_session_id!r}->{self.recipient_session_id!r}"
        return f"<SessionMessageState {self.message_id!r} {route}>"

    @property
    def text(self) -> str:
        """Its text blocks joined, links by URI (kept as it grows: no join per chunk)."""
        return self._text

    def patch(self, update: u.SessionMessage, *, keep_content: bool = True) -> None:
        """Apply one ``session_message`` upsert (omitted: unchanged, ``null``: cleared)."""
        for name in (
            "sender_session_id",
            "recipient_session_id",
            "sender_message_id",
            "recipient_message_id",
            "meta",
        ):
            value = getattr(update, name)
            if not isinstance(value, s.Unset):
                setattr(self, name, value)
        content = update.content
        if keep_content and not isinstance(content, s.Unset):
            self.content = [b for b in map(stable_block, content or ()) if b is not None]
            self._text = "".join(block_text(b) for b in self.content)

    def append(self, block: s.ContentBlock) -> None:
        """Append one streamed block (``session_message_chunk``)."""
        self.content.append(block)
        self._text += block_text(block)


#: The ``sessionUpdate`` kinds of the session tree: stable in the protocol,
#: defined so far only in the unstable schema (see the module docstring).
TREE_KINDS = frozenset(("subagent_update", "session_message", "session_message_chunk"))


def decode_tree_update(kind: str, raw: dict[str, Any]) -> Any:
    """Decode a session-tree update the stable schema keeps as ``Unknown``.

    Returns:
        The unstable schema's class for it (``SubagentUpdate``,
        ``SessionMessage`` or ``SessionMessageChunk``), or None when it is
        not one of them or is malformed (the caller keeps it as it was).

    """
    if kind not in TREE_KINDS:
        return None
    from ..schema import unstable as u  # noqa: PLC0415 - only for agents that send them

    decode = {
        "subagent_update": u.SubagentUpdate.from_wire,
        "session_message": u.SessionMessage.from_wire,
        "session_message_chunk": u.SessionMessageChunk.from_wire,
    }[kind]
    try:
        return decode(raw, "update")
    except s.SchemaError as exc:
        logger.warning("a %s update kept as Unknown: %s", kind, exc)
        return None


def stable_block(block: Any) -> s.ContentBlock | None:
    """A content block of the unstable schema as the stable one's class (None: malformed).

    The faces and :func:`~acphost.content.block_text` know the stable
    classes; the two schemas' content blocks have the same wire shape.
    """
    try:
        return s.decode_content_block(block.to_wire(), "content")
    except s.SchemaError:
        return None
