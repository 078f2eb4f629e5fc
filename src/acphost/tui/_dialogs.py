"""Small dialogs: pick one item (modes, models, auth, agents), type a line, agent crash.

Every dialog answers once (:class:`~acphost.tui._modal.OnceModal`); the crash
report, which the agent's death opens under the user's fingers, is guarded
against stray keys too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.events import Key
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ._modal import OnceModal
from ._safe import agent_line, agent_text

__all__ = ["CrashScreen", "PickItem", "PickerScreen", "TextScreen"]


class PickItem:
    """One entry of a :class:`PickerScreen` (label and description may be the agent's)."""

    __slots__ = ("current", "description", "label", "value")

    def __init__(
        self, value: str, label: str, description: str = "", *, current: bool = False
    ) -> None:
        self.value = value
        self.label = label
        self.description = description
        self.current = current


class PickerScreen(OnceModal[str | None]):
    """Choose one item with the arrows and Enter (or its number); Esc for none."""

    DEFAULT_CSS = """
    PickerScreen { align: center middle; }
    PickerScreen > Vertical {
        width: 80%; max-width: 80; height: auto; max-height: 80%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    PickerScreen .picker-title { text-style: bold; }
    PickerScreen OptionList { height: auto; max-height: 16; }
    PickerScreen .picker-hint { color: $text-muted; }
    """

    def __init__(self, title: str, items: Sequence[PickItem], hint: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.items = list(items)
        self.hint = hint

    def compose(self) -> ComposeResult:
        """Title, list, hint."""
        with Vertical():
            yield Static(agent_line(self.title_text), classes="picker-title")
            yield OptionList(*[Option(pick_label(n, item)) for n, item in enumerate(self.items, 1)])
            yield Static(
                Text(self.hint or "↑↓ Enter choose · 1-9 · Esc close"), classes="picker-hint"
            )

    def on_mount(self) -> None:
        """Highlight the current item."""
        options = self.query_one(OptionList)
        current = [i for i, item in enumerate(self.items) if item.current]
        if self.items:
            options.highlighted = current[0] if current else 0
        options.focus()

    def on_key(self, event: Key) -> None:
        """Digits pick directly; Esc closes."""
        char = event.character or ""
        if char.isdigit() and 0 < int(char) <= min(9, len(self.items)):
            event.stop()
            self.answer(self.items[int(char) - 1].value)
        elif event.key == "escape":
            event.stop()
            self.answer(None)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.answer(self.items[event.option_index].value)


def pick_label(n: int, item: PickItem) -> Text:
    """``1 ● Name  description`` for a picker row (name and description inert)."""
    label = Text()
    label.append(f"{n if n < 10 else ' '} ", style="dim")
    label.append("● " if item.current else "  ", style="green")
    label.append_text(agent_line(item.label, "bold" if item.current else ""))
    if item.description:
        label.append("  ")
        label.append_text(agent_line(item.description, "dim"))
    return label


class CrashScreen(OnceModal[str]):
    """The agent died: its exit status and (redacted) stderr tail; restart or quit.

    Answers ``"restart"``, ``"quit"`` or ``"dismiss"``.
    """

    DEFAULT_CSS = """
    CrashScreen { align: center middle; }
    CrashScreen > Vertical {
        width: 90%; height: auto; max-height: 90%;
        border: thick $error; background: $surface; padding: 0 1;
    }
    CrashScreen .crash-title { text-style: bold; color: $error; }
    CrashScreen VerticalScroll { height: auto; max-height: 14; background: $panel; }
    CrashScreen .crash-hint { color: $text-muted; }
    """

    _KEYS: ClassVar[dict[str, str]] = {"r": "restart", "q": "quit", "escape": "dismiss"}
    AUTO_FOCUS: ClassVar[str | None] = ""  # keys go to the screen, which guards them

    def __init__(self, message: str, stderr_tail: str, *, guard: float | None = 0.5) -> None:
        super().__init__(guard=guard)
        self.message = message
        self.stderr_tail = stderr_tail

    def compose(self) -> ComposeResult:
        """Message, stderr tail, keys."""
        with Vertical():
            title = Text("✗ ")
            title.append_text(agent_line(self.message))
            yield Static(title, classes="crash-title")
            with VerticalScroll():
                yield Static(agent_text(self.stderr_tail or "(the agent wrote nothing to stderr)"))
            yield Static(
                Text("r restart the agent · q quit · Esc close (Ctrl+R restarts later)"),
                classes="crash-hint",
            )

    def on_key(self, event: Key) -> None:
        """``r``, ``q`` or Esc, guarded (keys typed before it showed never count); arrows scroll."""
        what = self._KEYS.get(event.character or "") or self._KEYS.get(event.key)
        if what is None:
            self.note_key(event)
            scroll = _SCROLL_KEYS.get(event.key)
            if scroll is not None:  # reading the stderr tail answers nothing
                getattr(self.query_one(VerticalScroll), scroll)(animate=False)
                event.stop()
            return
        if self.accepts_key(event):
            event.stop()
            self.answer(what)


# Keys that scroll a guarded dialog's text (nothing has the focus to take them).
_SCROLL_KEYS = {
    "up": "scroll_up",
    "down": "scroll_down",
    "pageup": "scroll_page_up",
    "pagedown": "scroll_page_down",
}


class TextScreen(OnceModal[str | None]):
    """Type one line (a session's new title): Enter accepts, Esc cancels.

    Answers the text, stripped, or ``None`` (cancelled, or left empty).
    """

    DEFAULT_CSS = """
    TextScreen { align: center middle; }
    TextScreen > Vertical {
        width: 80%; max-width: 80; height: auto;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    TextScreen .text-title { text-style: bold; }
    TextScreen .text-hint { color: $text-muted; }
    """

    def __init__(self, title: str, value: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.value = value

    def compose(self) -> ComposeResult:
        """Title, field, hint."""
        with Vertical():
            yield Static(Text(self.title_text), classes="text-title")
            yield Input(self.value, select_on_focus=True)
            yield Static(Text("Enter save · Esc cancel"), classes="text-hint")

    def on_mount(self) -> None:
        """The field has the focus."""
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.answer(event.value.strip() or None)

    def on_key(self, event: Key) -> None:
        """Esc cancels."""
        if event.key == "escape":
            event.stop()
            self.answer(None)
