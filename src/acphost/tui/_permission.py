"""The permission dialog: what the agent wants to do, and the user's answer.

Keyboard-driven: ``a`` allow once, ``A`` always allow, ``r`` reject, ``R``
always reject, or the arrows and Enter; Esc rejects once. The options offered
are the agent's, by kind; "always" answers are remembered per session by the
:class:`~acphost.host.PermissionBroker`.
"""

from __future__ import annotations

import json
from typing import Any

from rich.syntax import Syntax
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from .. import schema as s
from ..client import ToolCallState
from ..host import PermissionRequest, Verdict
from ._model import Choice, choices_for
from ._toolcard import unified_diff

__all__ = ["PermissionScreen"]

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


class PermissionScreen(ModalScreen[Verdict]):
    """Ask about one request; dismissed with the user's :class:`~acphost.host.Verdict`.

    Args:
        request: the request (with the agent's options).
        call: the tool call's merged state, for its input and diff preview.
        position: ``(index, total)`` in the queue, shown when more wait.
        session_label: which session asks (there may be several tabs).

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
    PermissionScreen VerticalScroll { height: auto; max-height: 12; }
    PermissionScreen OptionList { height: auto; margin-top: 1; }
    PermissionScreen .perm-hint { color: $text-muted; }
    """

    BINDINGS = [  # noqa: RUF012 - Textual's idiom
        Binding("escape", "reject", "Reject", show=False),
    ]

    def __init__(
        self,
        request: PermissionRequest,
        call: ToolCallState | None = None,
        *,
        position: tuple[int, int] = (1, 1),
        session_label: str = "",
    ) -> None:
        super().__init__()
        self.request = request
        self.call = call
        self.position = position
        self.session_label = session_label
        self.choices: list[Choice] = choices_for(request)

    def compose(self) -> ComposeResult:
        """Title, what is asked, preview, the choices."""
        req = self.request
        index, total = self.position
        head = _OPERATION.get(req.operation, "The agent asks permission")
        if total > 1:
            head += f"  ({index} of {total})"
        if self.session_label:
            head += f"  [{self.session_label}]"
        with Vertical():
            yield Static(Text(head), classes="perm-title")
            yield Static(self._summary())
            with VerticalScroll():
                yield from self._preview()
            yield OptionList(
                *[
                    Option(
                        Text.assemble((f"[{c.key}] ", "bold"), (c.label, _KIND_STYLE[c.kind])),
                        id=c.kind,
                    )
                    for c in self.choices
                ]
            )
            yield Static(Text("keys in [ ] · ↑↓ Enter · Esc rejects once"), classes="perm-hint")

    def on_mount(self) -> None:
        """Highlight the safe default (reject once, when offered)."""
        options = self.query_one(OptionList)
        kinds = [c.kind for c in self.choices]
        options.highlighted = kinds.index("reject_once") if "reject_once" in kinds else 0
        options.focus()

    def _summary(self) -> Text:
        req = self.request
        call = self.call
        title = req.title or (call.title if call is not None else "") or "(untitled)"
        kind = req.kind or (call.kind if call is not None else None) or "other"
        text = Text()
        text.append(title, style="bold")
        text.append(f"  [{kind}]", style="dim")
        if req.command:
            text.append("\n$ ")
            text.append(req.command, style="bold")
        for path in req.paths:
            text.append(f"\n↳ {path}", style="dim")
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
            out.append(
                Static(Syntax(dumped, "json", theme="ansi_dark", background_color="default"))
            )
        if call is not None:
            for item in call.content:
                if isinstance(item, s.DiffToolCallContent):
                    out.append(
                        Static(
                            Syntax(
                                unified_diff(item),
                                "diff",
                                theme="ansi_dark",
                                background_color="default",
                            )
                        )
                    )
        return out

    def _choose(self, choice: Choice) -> None:
        self.dismiss(choice.verdict)

    def on_key(self, event: Key) -> None:
        """Answer by key (``a``, ``A``, ``r``, ``R``, or ``y``/``n``)."""
        key = event.character or ""
        aliases = {"y": "a", "n": "r"}
        key = aliases.get(key, key)
        for choice in self.choices:
            if choice.key == key:
                event.stop()
                self._choose(choice)
                return

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._choose(self.choices[event.option_index])

    def action_reject(self) -> None:
        """Esc: reject once."""
        self.dismiss(Verdict.reject("dismissed by the user"))
