"""The plan panel: the agent's current plan, replaced whole on each update."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

from .. import schema as s
from ._safe import sanitize_line

__all__ = ["PlanPanel", "plan_text"]

_STATUS = {
    "pending": ("○", "dim"),
    "in_progress": ("◐", "bold yellow"),
    "completed": ("●", "green"),
}
_PRIORITY = {"high": ("high", "bold red"), "medium": ("med", "yellow"), "low": ("low", "dim")}


def plan_text(entries: Sequence[s.PlanEntry]) -> Text:
    """One line per entry: status mark, priority badge, content (done entries struck, inert)."""
    text = Text()
    done = sum(1 for e in entries if e.status == "completed")
    text.append(f"Plan {done}/{len(entries)}", style="bold")
    for entry in entries:
        mark, style = _STATUS.get(entry.status, ("?", ""))
        label, pstyle = _PRIORITY.get(entry.priority, (entry.priority, ""))
        text.append("\n")
        text.append(f"{mark} ", style=style)
        text.append(f"{sanitize_line(label):<4} ", style=pstyle)
        text.append(
            sanitize_line(entry.content),
            style="strike dim" if entry.status == "completed" else style,
        )
    return text


class PlanPanel(Static):
    """Shows a session's plan (ACP "Agent Plan": each update replaces the plan)."""

    DEFAULT_CSS = """
    PlanPanel {
        height: auto;
        max-height: 7;
        padding: 0 1;
        border-left: thick $accent;
        background: $boost;
        display: none;
    }
    PlanPanel.-visible { display: block; }
    """

    def show_plan(self, entries: Sequence[s.PlanEntry]) -> None:
        """Replace the shown plan; an empty plan hides the panel."""
        self.set_class(bool(entries), "-visible")
        self.update(plan_text(entries) if entries else "")
