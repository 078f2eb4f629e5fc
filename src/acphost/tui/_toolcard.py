"""Tool call cards: title, kind, status, follow-along locations, content.

A card takes a :class:`~acphost.ToolCallState` (merged by the session state,
never by the UI) and re-reads it on :meth:`ToolCard.refresh_call`.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Collapsible, Log, Static

from .. import schema as s
from ..client import ToolCallState
from ._model import TerminalBuffers, location_text

__all__ = ["DiffView", "TerminalView", "ToolCard", "status_of", "unified_diff"]

_ICONS = {
    "pending": "○",
    "in_progress": "◐",
    "completed": "✓",
    "failed": "✗",
    "cancelled": "⊘",
}
_KIND_ICONS = {
    "read": "📖",
    "edit": "✎",
    "delete": "🗑",
    "move": "⇄",
    "search": "🔍",
    "execute": "▶",
    "think": "💭",
    "fetch": "🌐",
    "switch_mode": "⇆",
}


def status_of(call: ToolCallState) -> str:
    """The status to show; the host's own ``cancelled`` wins over a stale status."""
    if call.cancelled and call.status not in ("completed", "failed"):
        return "cancelled"
    return call.status or "pending"


def unified_diff(item: s.DiffToolCallContent) -> str:
    """The hunks of a ``diff`` content item (the path is shown above them).

    ``oldText`` absent means a new file (seeds/002 §19 "Diff Review").
    """
    old = (item.old_text or "").splitlines()
    new = item.new_text.splitlines()
    lines = list(difflib.unified_diff(old, new, lineterm="", n=3))[2:]
    if not lines:
        return "(no changes)"
    return "\n".join(lines)


class DiffView(Static):
    """A syntax-highlighted unified diff."""

    DEFAULT_CSS = """
    DiffView { height: auto; max-height: 20; overflow-y: auto; background: $surface; }
    """

    def __init__(self, item: s.DiffToolCallContent, **kwargs: Any) -> None:
        self.item = item
        self.diff_text = unified_diff(item)
        super().__init__(
            Syntax(self.diff_text, "diff", theme="ansi_dark", background_color="default"),
            **kwargs,
        )


class TerminalView(Log):
    """Live output of a terminal the agent created, replayed then followed."""

    DEFAULT_CSS = """
    TerminalView { height: auto; max-height: 10; background: $surface-darken-1; }
    """

    def __init__(self, terminals: TerminalBuffers, terminal_id: str, **kwargs: Any) -> None:
        super().__init__(highlight=False, auto_scroll=True, **kwargs)
        self.terminals = terminals
        self.terminal_id = terminal_id
        self._unwatch: Any = None

    def on_mount(self) -> None:
        """Replay what was printed so far, then follow new output."""
        buf = self.terminals.get(self.terminal_id)
        if buf.command:
            self.write_line(f"$ {buf.command}")
        if buf.text:
            self.write(buf.text)
        if buf.exit_text:
            self.write_line(f"[{buf.exit_text}]")
        self._unwatch = self.terminals.watch(self.terminal_id, self._on_output)

    def on_unmount(self) -> None:
        """Stop following the terminal."""
        if self._unwatch is not None:
            self._unwatch()

    def _on_output(self, text: str) -> None:
        if text:
            self.write(text)
        else:
            buf = self.terminals.get(self.terminal_id)
            self.write_line(f"\n[{buf.exit_text}]")


def _content_key(item: s.ToolCallContent) -> tuple[Any, ...]:
    if isinstance(item, s.DiffToolCallContent):
        return ("diff", item.path, item.old_text, item.new_text)
    if isinstance(item, s.TerminalToolCallContent):
        return ("terminal", item.terminal_id)
    if isinstance(item, s.ContentToolCallContent):
        return ("content", getattr(item.content, "type", ""), getattr(item.content, "text", ""))
    return ("other", id(item))


class ToolCard(Vertical):
    """One tool call: header, locations, content, raw input on demand."""

    DEFAULT_CSS = """
    ToolCard {
        height: auto;
        margin: 0 0 1 0;
        padding: 0 1;
        border-left: wide $secondary;
    }
    ToolCard.-completed { border-left: wide $success; }
    ToolCard.-failed { border-left: wide $error; }
    ToolCard.-cancelled { border-left: wide $warning; }
    ToolCard .tool-header { text-style: bold; }
    ToolCard .tool-locations { color: $text-muted; }
    ToolCard .tool-body { height: auto; }
    ToolCard .tool-text { color: $text-muted; }
    ToolCard Collapsible { padding: 0; border: none; }
    """

    def __init__(
        self, call: ToolCallState, cwd: str, terminals: TerminalBuffers, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.call = call
        self.cwd = cwd
        self.terminals = terminals
        self._content_keys: list[tuple[Any, ...]] = []
        self._has_raw = False
        self._ready = False  # set in on_mount (is_mounted is still False there)

    def compose(self) -> ComposeResult:
        """Header, locations and an empty body (filled by :meth:`refresh_call`)."""
        yield Static(classes="tool-header")
        yield Static(classes="tool-locations")
        yield Vertical(classes="tool-body")

    def on_mount(self) -> None:
        """Show the call as it is now."""
        self._ready = True
        self.refresh_call()

    def header_text(self) -> Text:
        """``◐ ✎ Editing hello.py  edit · in_progress``."""
        call = self.call
        status = status_of(call)
        text = Text()
        style = {"completed": "green", "failed": "red", "cancelled": "yellow"}.get(status, "cyan")
        text.append(f"{_ICONS.get(status, '?')} ", style=style)
        kind = call.kind or "other"
        text.append(f"{_KIND_ICONS.get(kind, '•')} ")
        text.append(call.title or call.tool_call_id)
        text.append(f"  {kind} · {status}", style="dim")
        return text

    def refresh_call(self) -> None:
        """Re-read the call's state: status, locations, content, raw input."""
        if not self._ready:
            return
        call = self.call
        status = status_of(call)
        for st in ("completed", "failed", "cancelled"):
            self.set_class(status == st, f"-{st}")
        self.query_one(".tool-header", Static).update(self.header_text())
        locs = self.query_one(".tool-locations", Static)
        if call.locations:
            shown = ", ".join(location_text(loc, self.cwd) for loc in call.locations[:4])
            more = f" (+{len(call.locations) - 4})" if len(call.locations) > 4 else ""
            locs.update(Text(f"↳ {shown}{more}"))
            locs.display = True
        else:
            locs.display = False
        keys = [_content_key(c) for c in call.content]
        if keys != self._content_keys:
            self._content_keys = keys
            body = self.query_one(".tool-body", Vertical)
            body.remove_children()
            body.mount_all(self._content_widgets())
        if call.raw_input is not None and not self._has_raw:
            self._has_raw = True
            raw = json.dumps(call.raw_input, indent=2, ensure_ascii=False, default=str)
            self.mount(
                Collapsible(
                    Static(Syntax(raw, "json", theme="ansi_dark", background_color="default")),
                    title="raw input",
                    collapsed=True,
                )
            )

    def _content_widgets(self) -> list[Static | Log]:
        out: list[Static | Log] = []
        for item in self.call.content:
            if isinstance(item, s.DiffToolCallContent):
                where = location_text(s.ToolCallLocation(path=item.path), self.cwd)
                label = f"{'new file' if item.old_text is None else 'diff'} {where}"
                out.append(Static(Text(label, style="bold"), classes="tool-locations"))
                out.append(DiffView(item))
            elif isinstance(item, s.TerminalToolCallContent):
                out.append(TerminalView(self.terminals, item.terminal_id))
            elif isinstance(item, s.ContentToolCallContent):
                block = item.content
                if isinstance(block, s.ResourceLinkContentBlock):
                    out.append(Static(Text(f"🔗 {block.name} {block.uri}"), classes="tool-text"))
                else:
                    text = getattr(block, "text", "") or f"[{getattr(block, 'type', 'content')}]"
                    out.append(Static(Text(text), classes="tool-text"))
        return out
