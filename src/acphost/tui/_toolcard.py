"""Tool call cards: title, kind, status, follow-along locations, content.

A card takes a :class:`~acphost.ToolCallState` (merged by the session state,
never by the UI) and re-reads it on :meth:`ToolCard.refresh_call`. The agent
decides how many updates a call gets: a flood of them (thousands a second)
asks for one redraw per frame, not one per update; an update that arrives
for a card no longer on screen is ignored.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Log, Static

from .. import schema as s
from ..client import AgentTerminal, ToolCallState
from ..view import block_text
from ._blocks import MediaCard, is_card
from ._diff import diff_lines, render_diff, unified_diff
from ._model import location_text
from ._safe import InertCollapsible, agent_line, agent_text, sanitize
from ._terminals import TerminalBuffers

__all__ = [
    "DiffView",
    "ReportedTerminalView",
    "TerminalView",
    "ToolCard",
    "status_of",
    "unified_diff",
]

#: Seconds between two redraws of a card at most once per (60 Hz) frame.
FRAME = 1 / 60

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


class DiffView(Static):
    """A unified diff: hunk headers dim, deletions red, additions green (inert text)."""

    DEFAULT_CSS = """
    DiffView { height: auto; max-height: 20; overflow-y: auto; background: $surface; }
    """

    def __init__(self, item: s.DiffToolCallContent, **kwargs: Any) -> None:
        self.item = item
        lines = diff_lines(item)  # computed once: it can be the costly part
        #: The whole diff as text (what is drawn stops at ``MAX_SHOWN_LINES``).
        self.diff_text = "\n".join(lines)
        super().__init__(render_diff(lines), **kwargs)


class TerminalOutput(Log):
    """The output of a terminal, flush left, without padding."""

    DEFAULT_CSS = """
    TerminalOutput {
        height: auto; max-height: 10; padding: 0; margin: 0; background: $surface-darken-1;
    }
    """


class TerminalLook(Vertical):
    """How a terminal is drawn: its command, then its output, then how it ended."""

    DEFAULT_CSS = """
    TerminalLook { height: auto; padding: 0; margin: 0; }
    TerminalLook .term-command { text-style: bold; }
    TerminalLook .term-exit { color: $text-muted; }
    """

    def __init__(self, terminal_id: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.terminal_id = terminal_id
        self.output = TerminalOutput(highlight=False, auto_scroll=True)

    @property
    def lines(self) -> list[str]:
        """The output's lines so far."""
        return list(self.output.lines)

    def command_text(self) -> str:
        """The command shown after ``$``."""
        return self.terminal_id

    def compose(self) -> ComposeResult:
        """Command, output, exit line."""
        command = Text("$ ", style="dim")
        command.append_text(agent_line(self.command_text() or self.terminal_id))
        yield Static(command, classes="term-command")
        yield self.output
        yield Static(classes="term-exit")

    def show_exit(self, exit_text: str | None) -> None:
        """Show how it ended (nothing while it runs)."""
        exit_line = self.query_one(".term-exit", Static)
        exit_line.display = exit_text is not None
        if exit_text is not None:
            exit_line.update(Text(f"[{exit_text}]"))


class TerminalView(TerminalLook):
    """A terminal the host created for the agent: its buffer replayed, then followed live."""

    def __init__(self, terminals: TerminalBuffers, terminal_id: str, **kwargs: Any) -> None:
        super().__init__(terminal_id, **kwargs)
        self.terminals = terminals
        self._unwatch: Any = None

    def command_text(self) -> str:
        """The command the host ran."""
        return self.terminals.get(self.terminal_id).command

    def on_mount(self) -> None:
        """Replay what was printed so far, then follow new output."""
        buf = self.terminals.get(self.terminal_id)
        self.output.display = bool(buf.text)
        if buf.text:
            self.output.write(sanitize(buf.text))
        self.show_exit(buf.exit_text)
        self._unwatch = self.terminals.watch(self.terminal_id, self._on_output)

    def on_unmount(self) -> None:
        """Stop following the terminal."""
        if self._unwatch is not None:
            self._unwatch()

    def _on_output(self, text: str) -> None:
        if text:
            self.output.display = True
            self.output.write(sanitize(text))
        else:
            self.show_exit(self.terminals.get(self.terminal_id).exit_text)


class ReportedTerminalView(TerminalLook):
    """A terminal the agent ran itself, drawn as the host's own terminals are, read-only.

    Its output and exit come only in the tool call's ``_meta``; the session
    state keeps them (:class:`~acphost.client.AgentTerminal`) and the card
    calls :meth:`sync` when it re-reads the call, so a flood of deltas costs
    one write per frame.
    """

    def __init__(self, terminal: AgentTerminal, command: str, **kwargs: Any) -> None:
        super().__init__(terminal.terminal_id, **kwargs)
        self.terminal = terminal
        self.command = command
        self._mark = -1  # nothing shown yet: the first sync writes the whole output
        self._ready = False

    def command_text(self) -> str:
        """The command, as the call's raw input names it."""
        return self.command

    def on_mount(self) -> None:
        """Show what was reported so far."""
        self._ready = True
        self.sync()

    def sync(self) -> None:
        """Write the output reported since the last sync, and the exit once it came."""
        if not self._ready:
            return  # on_mount syncs
        run = self.terminal
        new = run.since(self._mark) if self._mark >= 0 else None
        if new is None:  # the first time, or older output was dropped meanwhile
            self.output.clear()
            new = run.output
            if run.truncated:
                self.output.write_line("[earlier output dropped]")
        self._mark = run.written
        if new:
            self.output.write(sanitize(new))
        self.output.display = bool(self.output.line_count)
        self.show_exit(run.exit_text)


def _command_of(call: ToolCallState) -> str:
    """The command an agent-run terminal ran, from the call's raw input if it says."""
    raw = call.raw_input
    command = raw.get("command") if isinstance(raw, dict) else None
    if isinstance(command, str):
        return command
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        return shlex.join(command)
    return ""


def _content_key(item: s.ToolCallContent) -> tuple[Any, ...]:
    if isinstance(item, s.DiffToolCallContent):
        return ("diff", item.path, item.old_text, item.new_text)
    if isinstance(item, s.TerminalToolCallContent):
        return ("terminal", item.terminal_id)
    if isinstance(item, s.ContentToolCallContent):
        return ("content", getattr(item.content, "type", ""), block_text(item.content))
    return ("other", id(item))


class ToolCard(Vertical):
    """One tool call: header, locations, content, raw input on demand."""

    DEFAULT_CSS = """
    ToolCard {
        height: auto;
        margin: 0;
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
    ToolCard Collapsible { padding: 0; margin: 0; border: none; background: transparent; }
    ToolCard Collapsible > Contents { padding: 0; }
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
        self._redraw_due = False

    def compose(self) -> ComposeResult:
        """Header, locations and an empty body (filled by :meth:`refresh_call`)."""
        yield Static(classes="tool-header")
        yield Static(classes="tool-locations")
        yield Vertical(classes="tool-body")

    def on_mount(self) -> None:
        """Show the call as it is now."""
        self._ready = True
        self.redraw()

    def header_text(self) -> Text:
        """``◐ ✎ Editing hello.py  edit · in_progress``."""
        call = self.call
        status = status_of(call)
        text = Text()
        style = {"completed": "green", "failed": "red", "cancelled": "yellow"}.get(status, "cyan")
        text.append(f"{_ICONS.get(status, '?')} ", style=style)
        kind = call.kind or "other"
        text.append(f"{_KIND_ICONS.get(kind, '•')} ")
        text.append_text(agent_line(call.title or call.tool_call_id))
        name = call.shown_name  # the tool's own name, where it adds something
        if name:
            text.append("  ")
            text.append_text(agent_line(name, "bold dim"))
        text.append_text(agent_line(f"  {kind} · {status}", "dim"))
        return text

    def refresh_call(self) -> None:
        """Re-read the call's state at the next frame (updates in between coalesce).

        Nothing happens for a card not yet mounted (it draws itself when it
        is) or no longer on screen.
        """
        if not self._ready or self._redraw_due or not self.is_attached:
            return
        self._redraw_due = True
        self.set_timer(FRAME, self.redraw)

    def redraw(self) -> None:
        """Re-read the call's state now: status, locations, content, raw input."""
        self._redraw_due = False
        if not self._ready or not self.is_attached:
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
            locs.update(agent_line(f"↳ {shown}{more}"))
            locs.display = True
        else:
            locs.display = False
        keys = [_content_key(c) for c in call.content]
        # An agent-run terminal announced after its card's content was drawn
        # draws it afresh (as the agent's own report, not the host's terminal).
        keys.extend(("reported", tid) for tid in call.terminals)
        if keys != self._content_keys:
            self._content_keys = keys
            body = self.query_one(".tool-body", Vertical)
            body.remove_children()
            body.mount_all(self._content_widgets())
        for view in self.query(ReportedTerminalView):
            view.sync()
        if call.raw_input is not None and not self._has_raw:
            self._has_raw = True
            raw = json.dumps(call.raw_input, indent=2, ensure_ascii=False, default=str)
            self.mount(InertCollapsible(Static(agent_text(raw)), title="raw input", collapsed=True))

    def _content_widgets(self) -> list[Widget]:
        out: list[Widget] = []
        for item in self.call.content:
            if isinstance(item, s.DiffToolCallContent):
                where = location_text(s.ToolCallLocation(path=item.path), self.cwd)
                label = f"{'new file' if item.old_text is None else 'diff'} {where}"
                out.append(Static(agent_line(label, "bold"), classes="tool-locations"))
                out.append(DiffView(item))
            elif isinstance(item, s.TerminalToolCallContent):
                run = self.call.terminals.get(item.terminal_id)
                if run is not None:
                    out.append(ReportedTerminalView(run, _command_of(self.call)))
                else:
                    out.append(TerminalView(self.terminals, item.terminal_id))
            elif isinstance(item, s.ContentToolCallContent):
                block = item.content
                if is_card(block):
                    out.append(MediaCard(block))
                else:
                    out.append(Static(agent_text(block_text(block)), classes="tool-text"))
        return out
