"""The permission dialog: exactly what will be approved, and the user's answer.

Keyboard-driven: ``a`` allow once, ``A`` always allow, ``r`` reject, ``R``
always reject (``y``/``n`` too), or the arrows and Enter; Esc rejects once.
The options offered are the agent's, by kind; "always" answers are
remembered per session by the :class:`~acphost.host.PermissionBroker`.

The dialog is guarded (:class:`~acphost.tui._modal.OnceModal`): keys typed
before it appeared, or in the first moment after, never answer it, and it
takes one answer only. Requests are shown one at a time, oldest first; the
title says how many more wait.
"""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.events import Key
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from .. import schema as s
from ..client import ToolCallState
from ..host import PermissionRequest, Verdict
from ._asks import Choice, choices_for
from ._diff import diff_text
from ._modal import OnceModal
from ._safe import agent_line, agent_text, clip

__all__ = ["PermissionScreen", "describe_request"]

_KIND_STYLE = {
    "allow_once": "green",
    "allow_always": "bold green",
    "reject_once": "red",
    "reject_always": "bold red",
}
_OPERATION = {
    "tool_call": "The agent asks permission",
    "fs_write": "The agent wants to write a file",
    "terminal_create": "The agent wants to run a command",
}
_ALIASES = {"y": "a", "n": "r"}


def describe_request(request: PermissionRequest) -> list[tuple[str, str]]:
    """What an approval covers, as ``(label, value)`` rows, values as the agent sent them.

    One function decides what the dialog promises: the full command line
    (environment assignments first, then the shell-quoted argv, as the
    policy judges it), the working directory and the paths concerned.
    """
    rows: list[tuple[str, str]] = []
    if request.command:
        rows.append(("command", request.command))
    path_label = "cwd" if request.operation == "terminal_create" else "path"
    rows.extend((path_label, path) for path in request.paths)
    return rows


def describe_text(request: PermissionRequest) -> Text:
    """:func:`describe_request` as aligned, inert text (controls visible)."""
    out = Text()
    rows = describe_request(request)
    width = max((len(label) for label, _ in rows), default=0)
    for i, (label, value) in enumerate(rows):
        if i:
            out.append("\n")
        out.append(f"{label:>{width}}  ", style="dim")
        out.append_text(agent_line(value, "bold" if label == "command" else ""))
    return out


class PermissionScreen(OnceModal[Verdict]):
    """Ask about one request; answered with the user's :class:`~acphost.host.Verdict`.

    Args:
        request: the request (with the agent's options).
        call: the tool call's merged state, for its input and diff preview.
        waiting: how many other requests wait behind this one.
        session_label: which session asks (there may be several tabs).
        guard: seconds during which keys are ignored after the dialog shows.

    """

    DEFAULT_CSS = """
    PermissionScreen { align: center middle; }
    PermissionScreen > Vertical {
        width: 90%;
        max-width: 100;
        height: auto;
        max-height: 90%;
        border: thick $warning;
        background: $surface;
        padding: 0 1;
    }
    PermissionScreen .perm-title { text-style: bold; color: $warning; }
    PermissionScreen .perm-what { margin-bottom: 1; }
    PermissionScreen VerticalScroll { height: auto; max-height: 12; }
    PermissionScreen OptionList { height: auto; margin-top: 1; }
    PermissionScreen .perm-hint { color: $text-muted; }
    """

    def __init__(
        self,
        request: PermissionRequest,
        call: ToolCallState | None = None,
        *,
        waiting: int = 0,
        session_label: str = "",
        guard: float | None = 0.5,
    ) -> None:
        super().__init__(guard=guard)
        self.request = request
        self.call = call
        self.waiting = waiting
        self.session_label = session_label
        self.choices: list[Choice] = choices_for(request)

    def compose(self) -> ComposeResult:
        """Title, what is asked, preview, the choices."""
        with Vertical():
            yield Static(self._title(), classes="perm-title")
            yield Static(self._summary(), classes="perm-what")
            preview = self._preview()
            if preview:
                with VerticalScroll():
                    yield from preview
            menu = OptionList(
                *[
                    Option(
                        Text.assemble(
                            (f"[{c.key}] ", "bold"), agent_line(c.label, _KIND_STYLE[c.kind])
                        ),
                        id=c.kind,
                    )
                    for c in self.choices
                ]
            )
            menu.can_focus = False  # keys go to the screen, which guards them
            yield menu
            yield Static(Text("keys in [ ] · ↑↓ Enter · Esc rejects once"), classes="perm-hint")

    def on_mount(self) -> None:
        """Highlight the safe default (reject once, when offered)."""
        kinds = [c.kind for c in self.choices]
        options = self.query_one(OptionList)
        options.highlighted = kinds.index("reject_once") if "reject_once" in kinds else 0

    def _title(self) -> Text:
        head = Text(_OPERATION.get(self.request.operation, "The agent asks permission"))
        if self.waiting:
            head.append(f"  · {self.waiting} more waiting", style="bold")
        if self.session_label:
            head.append("  · ")
            head.append_text(agent_line(clip(self.session_label, 30)))
        return head

    def set_waiting(self, waiting: int) -> None:
        """Update how many other requests wait (they keep arriving while this one shows)."""
        if waiting != self.waiting:
            self.waiting = waiting
            if self.is_mounted:
                self.query_one(".perm-title", Static).update(self._title())

    def _summary(self) -> Text:
        req = self.request
        call = self.call
        title = req.title or (call.title if call is not None else "") or "(untitled)"
        kind = req.kind or (call.kind if call is not None else None) or "other"
        text = agent_line(title, "bold")
        text.append("  ")
        text.append_text(agent_line(f"[{kind}]", "dim"))
        what = describe_text(req)
        if what:
            text.append("\n")
            text.append_text(what)
        return text

    def _preview(self) -> list[Static]:
        out: list[Static] = []
        call = self.call
        raw: Any = self.request.raw_input
        if raw is None and call is not None:
            raw = call.raw_input
        if raw is not None:
            dumped = json.dumps(raw, indent=2, ensure_ascii=False, default=str)
            if len(dumped) > 4000:
                dumped = dumped[:4000] + "\n… (truncated)"
            out.append(Static(agent_text(dumped, "dim")))
        if call is not None:
            for item in call.content:
                if isinstance(item, s.DiffToolCallContent):
                    out.append(Static(diff_text(item)))
        return out

    def _choose(self, choice: Choice) -> None:
        self.answer(choice.verdict)

    def on_key(self, event: Key) -> None:
        """Every key of the dialog, guarded: letters, arrows, Enter, Esc."""
        if not self.accepts_key(event):
            return
        options = self.query_one(OptionList)
        key = event.key
        char = _ALIASES.get(event.character or "", event.character or "")
        picked = next((c for c in self.choices if c.key == char), None)
        if picked is not None:
            self._choose(picked)
        elif key == "escape":
            self.answer(Verdict.reject("dismissed by the user"))
        elif key == "enter" and options.highlighted is not None:
            self._choose(self.choices[options.highlighted])
        elif key in ("up", "down"):
            current = options.highlighted or 0
            step = -1 if key == "up" else 1
            options.highlighted = (current + step) % len(self.choices)
        else:
            return
        event.stop()
        event.prevent_default()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.accepts():  # a click, guarded like a key
            self._choose(self.choices[event.option_index])
