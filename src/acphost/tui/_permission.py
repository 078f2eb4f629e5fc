"""The permission dialog: exactly what will be approved, and the user's answer.

Keyboard-driven: ``a`` allow once, ``A`` always allow, ``r`` reject, ``R``
always reject (``y``/``n`` too), or the arrows and Enter; Esc rejects once;
PageUp/PageDown scroll the description. The options offered are the agent's,
by kind; "always" answers are remembered per session by the
:class:`~acphost.host.PermissionBroker`.

Everything the agent wrote is untrusted, so the dialog states what an answer
does in its own words: a choice is labelled by its *kind* ("Always allow"),
and the agent's name for it follows, dim, quoted and attributed (an option of
kind ``allow_always`` named "Reject" shows as ``Always allow  agent's name:
"Reject"``). What is approved is the host's own description
(:func:`acphost.host.describe_request`, the rows the command line's ``--ask``
shows: the whole command line, cwd, environment overrides, every path),
sanitised, in an area that scrolls while the choices stay on screen however
long it is.

The dialog is guarded (:class:`~acphost.tui._modal.OnceModal`): keys typed
before it appeared, in the first moment after, or before a pause in typing
never answer it, and it takes one answer only. Requests are shown one at a
time, oldest first; the title says how many more wait.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.events import Key
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from .. import schema as s
from ..client import ToolCallState
from ..host import PermissionRequest, Verdict, describe_request, workspace_code_note
from ._asks import Choice, choices_for
from ._diff import diff_text
from ._modal import OnceModal
from ._safe import agent_line, clip

__all__ = ["PermissionScreen", "choice_text", "description_text"]

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


# Rows whose value is what runs: shown bold.
_RUNS = frozenset({"argv", "shell line", "command"})


def description_text(request: PermissionRequest) -> Text:
    """:func:`acphost.host.describe_request` as inert text, one row a line, labels dim.

    The rows are the command line's (``--ask``): one description of what an
    answer approves, for both faces, with its last line when the command is
    known to run what the agent can write (``npm test``: the scripts of
    ``package.json``; :func:`acphost.host.workspace_code_note`). Each is
    made safe on one line, so a value cannot forge a row of its own.
    """
    out = Text()
    for i, line in enumerate(describe_request(request)):
        if i:
            out.append("\n")
        label, sep, value = line.partition(": ")
        if not sep:
            out.append_text(agent_line(line))
            continue
        out.append(f"{label}: ", style="dim")
        out.append_text(agent_line(value, "bold" if label in _RUNS else ""))
    note = workspace_code_note(request.argv, request.shell_line, request.env)
    if note is not None:  # it may quote the agent's program: inert text too
        out.append("\nnote: ", style="dim")
        out.append_text(agent_line(note, "bold yellow"))
    return out


def choice_text(choice: Choice) -> Text:
    """``[A] Always allow  agent's name: "Reject"``: the host's label, then the agent's.

    A name that only repeats the label is left out.
    """
    text = Text.assemble((f"[{choice.key}] ", "bold"), (choice.label, _KIND_STYLE[choice.kind]))
    name = " ".join(choice.agent_name.split())
    if name and name.casefold() != choice.label.casefold():
        text.append("  agent's name: ", style="dim")
        text.append_text(agent_line(f"\u201c{clip(name, 60)}\u201d", "dim italic"))
    return text


class PermissionScreen(OnceModal[Verdict]):
    """Ask about one request; answered with the user's :class:`~acphost.host.Verdict`.

    Args:
        request: the request (with the agent's options).
        call: the tool call's merged state, for its diff preview.
        waiting: how many other requests wait behind this one.
        session_label: which session asks (there may be several tabs).
        guard: seconds during which keys are ignored after the dialog shows
            (and the pause in typing that must come before a first answer).

    """

    DEFAULT_CSS = """
    PermissionScreen { align: center middle; }
    PermissionScreen > #perm-box {
        width: 90%;
        max-width: 100;
        height: auto;
        max-height: 90%;
        border: thick $warning;
        background: $surface;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    PermissionScreen .perm-title { dock: top; text-style: bold; color: $warning; }
    PermissionScreen .perm-choices { dock: bottom; height: auto; }
    PermissionScreen OptionList { height: auto; border: none; padding: 0; margin-top: 1; }
    PermissionScreen .perm-hint { color: $text-muted; }
    """
    AUTO_FOCUS: ClassVar[str | None] = ""  # nothing takes keys: the screen guards them

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
        """Title (docked), what is asked and the diffs (scrolling), the choices (docked)."""
        # One scrolling box with the title and the choices docked in it: the
        # description scrolls between them, and however long it is (an agent
        # can make it as long as it likes) the choices stay on screen.
        box = VerticalScroll(id="perm-box")
        box.can_focus = False
        with box:
            yield Static(self._title(), classes="perm-title")
            yield Static(description_text(self.request), classes="perm-what")
            yield from self._preview()
            with Vertical(classes="perm-choices"):
                menu = OptionList(*[Option(choice_text(c), id=c.kind) for c in self.choices])
                menu.can_focus = False  # keys go to the screen, which guards them
                yield menu
                yield Static(
                    Text("keys in [ ] · ↑↓ Enter · PgUp PgDn scroll · Esc rejects once"),
                    classes="perm-hint",
                )

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

    def _preview(self) -> list[Static]:
        call = self.call
        if call is None:
            return []
        return [
            Static(diff_text(item))
            for item in call.content
            if isinstance(item, s.DiffToolCallContent)
        ]

    def _choose(self, choice: Choice) -> None:
        self.answer(choice.verdict)

    def on_key(self, event: Key) -> None:
        """Every key of the dialog, guarded: letters, arrows, Enter, Esc, paging."""
        key = event.key
        if key in ("pageup", "pagedown"):  # reading is not answering: never guarded
            self.note_key(event)
            box = self.query_one("#perm-box", VerticalScroll)
            if key == "pageup":
                box.scroll_page_up(animate=False)
            else:
                box.scroll_page_down(animate=False)
            event.stop()
            return
        char = _ALIASES.get(event.character or "", event.character or "")
        picked = next((c for c in self.choices if c.key == char), None)
        if picked is None and key not in ("escape", "enter", "up", "down"):
            self.note_key(event)
            return
        if not self.accepts_key(event):
            return
        event.stop()
        event.prevent_default()
        options = self.query_one(OptionList)
        if picked is not None:
            self._choose(picked)
        elif key == "escape":
            self.answer(Verdict.reject("dismissed by the user"))
        elif key == "enter":
            if options.highlighted is not None:
                self._choose(self.choices[options.highlighted])
        else:
            current = options.highlighted or 0
            step = -1 if key == "up" else 1
            options.highlighted = (current + step) % len(self.choices)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if self.accepts():  # a click, guarded like a key
            self._choose(self.choices[event.option_index])
