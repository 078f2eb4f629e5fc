"""The subagents of a recorded turn: each child session's card and answer, within the turn.

An agent announces a subagent with ``subagent_update`` on the parent session
(schema ``SubagentUpdate``); the child's own updates then arrive on its
session id (:class:`~acphost.client.UpdatesReceived` whose session is a
:class:`~acphost.client.Subagent`). The recording keeps each child announced
during a turn as one event of that turn, at its place::

    {"kind": "subagent", "id", "label", "description", "activity",
     "stop_reason", "text", "tools": [{"title", "kind", "status"}]}

``text`` is the child's agent message text; ``tools`` its tool calls (at most
:data:`MAX_TOOLS`).

A child may go on after the parent's turn ended (codex-acp's do): the turn is
written when it ends, with the child as it was then (``running``, the text it
had streamed held back), and the child's event is **updated when the child
goes idle** (its text so far appended, a paragraph apart from what was
written before: each part is redacted on its own) and, for a child still
running, **finished when the recording closes** (the end of the run: the
command line waits for running children first). A child's text is bounded:
:data:`CHILD_TEXT_LIMIT` characters each over its life, and
:data:`PENDING_LIMIT` characters held, unwritten, for all the children of
a session at once; what goes past either is counted, not kept, and the
event says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..client import SubagentState

__all__ = [
    "CHILD_TEXT_LIMIT",
    "MAX_CHILDREN",
    "MAX_TOOLS",
    "PENDING_LIMIT",
    "Child",
    "not_kept",
]

#: Characters of one child's text the history keeps.
CHILD_TEXT_LIMIT = 1024 * 1024
#: Characters of children's text a recording holds before writing them.
PENDING_LIMIT = 8 * 1024 * 1024
#: Children one recording follows (later ones are not recorded).
MAX_CHILDREN = 1024
#: Tool calls kept per child (the first ones).
MAX_TOOLS = 100


def not_kept(characters: int) -> str:
    """The note that ends a child's text past its bound."""
    return (
        f"\n\n[acphost: {characters:,} more characters of this subagent's text were not kept "
        "in the history]\n"
    )


@dataclass(slots=True)
class Child:
    """One recorded child: where its event is, and its text not yet written.

    Attributes:
        seq: the turn it belongs to (the one running when it was announced).
        index: its event's index in that turn's events.
        info: what its parent says of it (the client's live state).
        pieces: its message text since its event was last written.
        kept: characters of its text recorded so far (the bound's count).
        dropped: characters it streamed past its bound.
        saved: its turn has been written (later changes update the event).
        written: its event in the store has text already (more is appended).
        dirty: something changed since its event was last written.

    """

    seq: int
    index: int
    info: SubagentState
    pieces: list[str] = field(default_factory=list)
    kept: int = 0
    dropped: int = 0
    saved: bool = False
    written: bool = False
    dirty: bool = True

    @property
    def id(self) -> str:
        """The child's session id."""
        return self.info.session_id

    def take_text(self) -> str:
        """Its pending text (with the note when some was not kept), then forgotten."""
        text = "".join(self.pieces)
        self.pieces.clear()
        if self.dropped:
            text += not_kept(self.dropped)
            self.dropped = 0
        return text

    def fields(self) -> dict[str, Any]:
        """Its event's fields but the text: what the parent says of it now, its tool calls."""
        info = self.info
        event: dict[str, Any] = {
            "kind": "subagent",
            "id": info.session_id,
            "label": info.label,
            "description": info.description or "",
            "activity": info.activity or "",
            "stop_reason": info.stop_reason or "",
        }
        if info.error:
            event["error"] = info.error
        calls = list(info.state.tool_calls.values())[:MAX_TOOLS]
        if calls:
            event["tools"] = [
                {
                    "title": c.title,
                    "kind": c.kind,
                    "status": "cancelled" if c.cancelled else c.status,
                }
                for c in calls
            ]
        return event
