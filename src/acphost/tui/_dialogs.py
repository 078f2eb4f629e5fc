"""Small modal dialogs: pick one item (modes, models, sessions, auth), agent crash."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

__all__ = ["CrashScreen", "PickItem", "PickerScreen"]


class PickItem:
    """One entry of a :class:`PickerScreen`."""

    __slots__ = ("current", "description", "label", "value")

    def __init__(
        self, value: str, label: str, description: str = "", *, current: bool = False
    ) -> None:
        self.value = value
        self.label = label
        self.description = description
        self.current = current


class PickerScreen(ModalScreen[str | None]):
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

    BINDINGS = [Binding("escape", "cancel", "Close", show=False)]  # noqa: RUF012

    def __init__(self, title: str, items: Sequence[PickItem], hint: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.items = list(items)
        self.hint = hint

    def compose(self) -> ComposeResult:
        """Title, list, hint."""
        with Vertical():
            yield Static(Text(self.title_text), classes="picker-title")
            options = []
            for n, item in enumerate(self.items, 1):
                label = Text()
                label.append(f"{n if n < 10 else ' '} ", style="dim")
                label.append("● " if item.current else "  ", style="green")
                label.append(item.label, style="bold" if item.current else "")
                if item.description:
                    label.append(f"  {item.description}", style="dim")
                options.append(Option(label))
            yield OptionList(*options)
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

    def on_key(self, event: object) -> None:
        """Digits pick directly."""
        char = getattr(event, "character", None) or ""
        if char.isdigit() and 0 < int(char) <= min(9, len(self.items)):
            self.dismiss(self.items[int(char) - 1].value)

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.items[event.option_index].value)

    def action_cancel(self) -> None:
        """Close without choosing."""
        self.dismiss(None)


class CrashScreen(ModalScreen[str]):
    """The agent died: its exit status and stderr tail; restart or quit."""

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

    BINDINGS = [  # noqa: RUF012
        Binding("r", "choose('restart')", "Restart"),
        Binding("q", "choose('quit')", "Quit"),
        Binding("escape", "choose('dismiss')", "Close"),
    ]

    def __init__(self, message: str, stderr_tail: str) -> None:
        super().__init__()
        self.message = message
        self.stderr_tail = stderr_tail

    def compose(self) -> ComposeResult:
        """Message, stderr tail, keys."""
        with Vertical():
            yield Static(Text(f"✗ {self.message}"), classes="crash-title")
            with VerticalScroll():
                yield Static(Text(self.stderr_tail or "(the agent wrote nothing to stderr)"))
            yield Static(Text("r restart the agent · q quit · Esc close"), classes="crash-hint")

    def action_choose(self, what: str) -> None:
        """Close with the chosen action."""
        self.dismiss(what)
