"""Notes in the transcript that are not messages: notices, markers, compactions."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.widgets import Static

from ._safe import InertCollapsible, agent_text

__all__ = ["CompactionBlock", "Marker", "Notice", "stop_note"]

_STOP_NOTES = {
    "end_turn": ("", ""),
    "cancelled": ("⊘ turn cancelled", "warning"),
    "refusal": ("⚠ the agent refused to continue (refusal)", "warning"),
    "max_tokens": ("⚠ the agent hit its token limit (max_tokens)", "warning"),
    "max_turn_requests": ("⚠ the turn hit its request limit (max_turn_requests)", "warning"),
}


def stop_note(stop_reason: str) -> tuple[str, str]:
    """The note a turn's stop reason gets in the transcript (``""``: none), and its level."""
    return _STOP_NOTES.get(stop_reason, (f"stop reason: {stop_reason}", ""))


class Notice(Static):
    """A one-line note in the transcript (stop reasons, errors, the agent's notices)."""

    DEFAULT_CSS = """
    Notice { color: $text-muted; padding: 0 1; margin: 0; }
    Notice.-error { color: $error; }
    Notice.-warning { color: $warning; }
    """


class Marker(Static):
    """A rule across the transcript with a label (agent restarted, session reloaded...)."""

    DEFAULT_CSS = """
    Marker { color: $accent; text-style: bold; padding: 0 1; margin: 0; }
    """


class CompactionBlock(InertCollapsible):
    """A compaction marker: the agent summarised earlier turns; the summary, collapsed."""

    DEFAULT_CSS = """
    CompactionBlock { padding: 0; margin: 0; border: none; background: transparent; }
    CompactionBlock CollapsibleTitle { color: $accent; text-style: bold; padding: 0 1; }
    CompactionBlock Static { color: $text-muted; padding: 0 1; }
    """

    _TITLES: ClassVar[dict[str, str]] = {
        "in_progress": "⟲ context compacting…",
        "completed": "⟲ context compacted: earlier turns summarised",
        "failed": "⟲ context compaction failed",
        "cancelled": "⟲ context compaction cancelled",
    }

    def __init__(self) -> None:
        self.parts: list[str] = []
        self._body = Static(Text("(no summary yet)"))
        super().__init__(self._body, title=self._TITLES["in_progress"], collapsed=True)

    def add_summary(self, text: str, *, replace: bool = False) -> None:
        """Add summary text (or replace it whole)."""
        if replace:
            self.parts = [text]
        elif text:
            self.parts.append(text)
        self._body.update(agent_text("".join(self.parts) or "(no summary)"))

    def set_status(self, status: str, error: str = "") -> None:
        """Title the marker by the compaction's status (the error is the agent's: inert)."""
        title = self._TITLES.get(status, f"⟲ context compaction: {status}")
        if error:
            title += f": {error}"
        self.title = title
