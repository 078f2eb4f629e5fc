"""The view model: what a session's content looks like, decided once for every face.

Faces (the CLI's renderers, the TUI's widgets, history exports, batch reports)
style these pieces; they do not decide what a kind of content shows, and they
do not look at the wire update's class. A piece carries the agent's strings
as sent: each face makes them safe at its own edge (the terminal sanitiser,
HTML or Markdown escaping), so piped output stays exact.

- :class:`Viewer`: one session's updates as pieces (:class:`Text`,
  :class:`Thought`, :class:`ToolCard`, :class:`Terminal`, :class:`Plan` with
  what changed, :class:`Diff`, :class:`Notice`, :class:`Usage`,
  :class:`Compaction`, :class:`MediaPiece`, :class:`Setting`, :class:`Unknown`,
  and for the session tree :class:`SubagentCard` and :class:`InterMessage`);
  :func:`stored_pieces` and :func:`stored_tool`: a stored turn's events as the
  same pieces. A new kind of update is taught in :meth:`Viewer.pieces`.
  :data:`STREAMED` is the one update class a face's hot path may take as is.
  :func:`subagent_card` and :func:`message_piece`: a child's card and a
  message between sessions as a state holds them now (a face showing a
  state it did not see arrive: a loaded session, a child opened later).
- :func:`update_text`: any update as one short line of plain text;
  :func:`block_text`: a content block as message text.
- :func:`media_of`: a content block that is not text (image, audio, embedded
  resource, resource link, an unknown type) as a :class:`Media` placeholder:
  its kind, name, MIME type, size and annotations; :func:`media_line` is its
  one-line form (``[image] shot.png · image/png · 1.2 KB``).
- :func:`inert_markdown` and :func:`markdown_html`: the agent's Markdown for
  documents (exports, reports): kept as Markdown, or rendered to HTML, with
  nothing in it that links, fetches or injects.
"""

from __future__ import annotations

from ._markdown import inert_markdown, markdown_html
from ._media import Media, annotations_text, human_size, media_line, media_of
from ._pieces import (
    STREAMED,
    Compaction,
    Diff,
    MediaPiece,
    Notice,
    Piece,
    Plan,
    PlanChange,
    PlanItem,
    Setting,
    Terminal,
    Text,
    Thought,
    ToolCard,
    Unknown,
    Usage,
    Viewer,
    block_text,
    plan_changes,
    stored_pieces,
    stored_tool,
    update_text,
)
from ._subagents import InterMessage, SubagentCard, message_piece, stored_subagent, subagent_card

__all__ = [
    "STREAMED",
    "Compaction",
    "Diff",
    "InterMessage",
    "Media",
    "MediaPiece",
    "Notice",
    "Piece",
    "Plan",
    "PlanChange",
    "PlanItem",
    "Setting",
    "SubagentCard",
    "Terminal",
    "Text",
    "Thought",
    "ToolCard",
    "Unknown",
    "Usage",
    "Viewer",
    "annotations_text",
    "block_text",
    "human_size",
    "inert_markdown",
    "markdown_html",
    "media_line",
    "media_of",
    "message_piece",
    "plan_changes",
    "stored_pieces",
    "stored_subagent",
    "stored_tool",
    "subagent_card",
    "update_text",
]
