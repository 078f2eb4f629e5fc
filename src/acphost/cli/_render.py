"""Rendering a turn's updates for the terminal (text and simple modes).

Rendering is kept apart from data (STYLE.md, after rich and Textual): the
renderers read typed updates and the session state, never frames.

- ``PlainRenderer``: for pipes and files. The assistant's text streams as
  is; everything else is one tagged line (``[plan]``, ``[tool]``,
  ``[diff]``, ``[commands]``) starting on a line of its own. ``simple`` mode
  writes only the assistant's text.
- ``RichRenderer``: for a TTY. Markdown rendered live as it streams, dimmed
  thoughts, coloured unified diffs.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from .. import schema as s

if TYPE_CHECKING:
    from ..client import SessionState

__all__ = ["PlainRenderer", "Renderer", "RichRenderer", "diff_lines", "plan_lines"]

_STATUS_MARK = {"completed": "✓", "in_progress": "→", "pending": "·"}


class Renderer(Protocol):
    """Shows one turn's updates as they arrive."""

    def update(self, update: s.SessionUpdate) -> None:
        """Show one update."""
        ...

    def close(self) -> None:
        """The turn ended: finish the output (final newline, stop live displays)."""
        ...


def plan_lines(entries: list[s.PlanEntry]) -> list[str]:
    """One line per plan entry: a status mark, the entry, its priority when high."""
    lines = []
    for e in entries:
        mark = _STATUS_MARK.get(e.status, "?")
        prio = " (high)" if e.priority == "high" else ""
        lines.append(f"  {mark} {e.content}{prio}")
    return lines


def diff_lines(diff: s.DiffToolCallContent) -> list[str]:
    """A unified diff of one ``diff`` content item (``oldText`` may be absent: a new file)."""
    old = (diff.old_text or "").splitlines()
    new = diff.new_text.splitlines()
    return list(
        difflib.unified_diff(
            old, new, fromfile=f"a/{diff.path}", tofile=f"b/{diff.path}", lineterm=""
        )
    )[2:]  # the ---/+++ header repeats the path the [diff] line already shows


def _tool_line(title: str, kind: str | None, status: str | None) -> str:
    return f"[tool] {title or '(untitled)'} ({kind or 'other'}) {status or 'pending'}"


class PlainRenderer:
    """Tagged plain text; see the module docstring.

    Args:
        out: where to write (stdout).
        state: the session state, for tool-call titles on partial updates.
        simple: write only the assistant's text.

    """

    def __init__(self, out: TextIO, state: SessionState, *, simple: bool = False) -> None:
        self.out = out
        self.state = state
        self.simple = simple
        self._at_line_start = True
        self._wrote_text = False

    def _text(self, text: str) -> None:
        if text:
            self.out.write(text)
            self._at_line_start = text.endswith("\n")
            self._wrote_text = True
            self.out.flush()

    def _line(self, line: str) -> None:
        if not self._at_line_start:
            self.out.write("\n")
        self.out.write(line + "\n")
        self._at_line_start = True
        self.out.flush()

    def update(self, update: s.SessionUpdate) -> None:
        """Show one update."""
        if isinstance(update, s.AgentMessageChunk):
            self._text(update.text)
            return
        if self.simple:
            return
        if isinstance(update, s.PlanUpdate):
            self._line("\n".join(["[plan]", *plan_lines(list(update.entries))]))
        elif isinstance(update, s.ToolCallStart):
            self._line(_tool_line(update.title, update.kind, update.status))
            self._diffs(update.content)
        elif isinstance(update, s.ToolCallProgress):
            call = self.state.tool_calls.get(update.tool_call_id)
            if update.status is not None and call is not None:
                self._line(_tool_line(call.title, call.kind, update.status))
            self._diffs(update.content)
        elif isinstance(update, s.AvailableCommandsUpdate):
            names = " ".join("/" + c.name for c in update.available_commands)
            self._line(f"[commands] {names}")

    def _diffs(self, content: list[s.ToolCallContent] | None) -> None:
        for item in content or ():
            if isinstance(item, s.DiffToolCallContent):
                self._line("\n".join([f"[diff] {item.path}", *diff_lines(item)]))

    def close(self) -> None:
        """End with a newline when text was written."""
        if self._wrote_text and not self._at_line_start:
            self.out.write("\n")
            self.out.flush()


class RichRenderer:
    """Live Markdown, dimmed thoughts and coloured diffs on a TTY.

    Args:
        console: a ``rich.console.Console``.
        state: the session state.

    """

    def __init__(self, console: Any, state: SessionState) -> None:
        from rich.live import Live  # noqa: PLC0415 - rich loads only for a TTY
        from rich.markdown import Markdown  # noqa: PLC0415

        self._live_cls = Live
        self._md_cls = Markdown
        self.console = console
        self.state = state
        self._buffer: list[str] = []
        self._kind: str | None = None
        self._live: Any = None

    def _flush(self) -> None:
        if self._live is not None:
            self._live.update(self._renderable(), refresh=True)
            self._live.stop()
            self._live = None
        self._buffer = []
        self._kind = None

    def _renderable(self) -> Any:
        text = "".join(self._buffer)
        if self._kind == "thought":
            from rich.text import Text  # noqa: PLC0415

            return Text(text, style="dim italic")
        return self._md_cls(text)

    def _stream(self, kind: str, text: str) -> None:
        if self._kind != kind:
            self._flush()
            self._kind = kind
            self._live = self._live_cls(
                console=self.console, refresh_per_second=10, vertical_overflow="visible"
            )
            self._live.start()
        self._buffer.append(text)
        self._live.update(self._renderable())

    def update(self, update: s.SessionUpdate) -> None:
        """Show one update."""
        if isinstance(update, s.AgentMessageChunk):
            self._stream("agent", update.text)
            return
        if isinstance(update, s.AgentThoughtChunk):
            self._stream("thought", update.text)
            return
        print_ = self.console.print
        if isinstance(update, s.PlanUpdate):
            self._flush()
            print_("[bold]plan[/bold]", highlight=False)
            for line in plan_lines(list(update.entries)):
                print_(line, style="cyan", highlight=False, markup=False)
        elif isinstance(update, (s.ToolCallStart, s.ToolCallProgress)):
            call = self.state.tool_calls.get(update.tool_call_id)
            if isinstance(update, s.ToolCallStart) or update.status is not None:
                self._flush()
                title = call.title if call is not None else update.tool_call_id
                kind = call.kind if call is not None else None
                status = update.status or (call.status if call is not None else None)
                colour = {"completed": "green", "failed": "red"}.get(status or "", "yellow")
                print_(_tool_line(title, kind, status), style=colour, highlight=False, markup=False)
            for item in update.content or ():
                if isinstance(item, s.DiffToolCallContent):
                    self._flush()
                    self._print_diff(item)
        elif isinstance(update, s.AvailableCommandsUpdate):
            self._flush()
            names = " ".join("/" + c.name for c in update.available_commands)
            print_(f"[commands] {names}", style="dim", highlight=False, markup=False)

    def _print_diff(self, item: s.DiffToolCallContent) -> None:
        self.console.print(f"[diff] {item.path}", style="bold", highlight=False, markup=False)
        for line in diff_lines(item):
            style = (
                "green"
                if line.startswith("+")
                else "red"
                if line.startswith("-")
                else ("cyan" if line.startswith("@@") else None)
            )
            self.console.print(line, style=style, highlight=False, markup=False)

    def close(self) -> None:
        """Stop the live display."""
        self._flush()
