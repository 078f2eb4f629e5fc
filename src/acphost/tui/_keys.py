"""F1: the keys, the app's own first (send, queue, cancel, modes, model, tabs, log, quit).

The prompt editor's keys follow, read from Textual's ``TextArea`` bindings,
less those the app takes first (its priority bindings: Ctrl+C cancels, it
does not copy).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.events import Key
from textual.widgets import Static, TextArea

from ._modal import OnceModal

__all__ = ["APP_KEYS", "QUEUE_KEYS", "KeysScreen", "editor_keys", "pretty_key"]

#: The app's keys, in the order a new user needs them.
APP_KEYS: tuple[tuple[str, str], ...] = (
    ("Enter", "send the prompt (during a turn: queue it)"),
    ("Enter on nothing", "send the next queued prompt"),
    ("Shift+Tab", "to the queued prompts: edit, remove"),
    ("Ctrl+J", "new line (also Shift+Enter or Alt+Enter where the terminal reports it)"),
    ("Esc / Ctrl+C", "cancel the running turn, or the running subagents (Ctrl+C twice: quit)"),
    ("F2", "session mode"),
    ("F3", "model and other session options"),
    ("Ctrl+N", "new session in a new tab"),
    ("Ctrl+O", "conversations: this workspace's first, then the agent's sessions"),
    ("Ctrl+PgUp / Ctrl+PgDn", "previous / next tab (also Alt+Left / Alt+Right)"),
    ("F4", "close the tab"),
    ("F5", "subagents: open one in full (on a card: Enter folds, o opens)"),
    ("F6 / F7", "rename / archive the session (--unstable)"),
    ("Ctrl+L / F12", "protocol log"),
    ("Ctrl+R", "restart the agent"),
    ("F1", "this list"),
    ("Ctrl+Q", "quit"),
)

#: The queued prompts' keys (the list under the transcript has the focus).
QUEUE_KEYS: tuple[tuple[str, str], ...] = (
    ("Enter", "edit: back into the prompt box (Enter queues it in its place)"),
    ("Delete / Ctrl+X", "remove the prompt"),
    ("C", "remove every queued prompt"),
    ("Tab", "back to the prompt"),
)

#: What the prompt editor adds to a plain text field.
COMPOSER_KEYS: tuple[tuple[str, str], ...] = (
    ("@", "mention a workspace file (fuzzy list; Tab or Enter accepts)"),
    ("/", "the agent's slash commands, at the start of the prompt"),
    ("Up / Down", "prompt history, on the first / last line"),
)


def pretty_key(keys: str) -> str:
    """``ctrl+shift+left,home`` -> ``Ctrl+Shift+Left / Home``."""
    return " / ".join(
        "+".join(part.capitalize() for part in key.split("+")) for key in keys.split(",")
    )


def editor_keys(taken: Iterable[str]) -> list[tuple[str, str]]:
    """The editor's bindings as ``(keys, description)``, less the keys in ``taken``."""
    skip = set(taken)
    rows: list[tuple[str, str]] = []
    for binding in TextArea.BINDINGS:
        if not isinstance(binding, Binding):
            continue
        keys = [k for k in binding.key.split(",") if k not in skip]
        if keys and binding.description:
            rows.append((pretty_key(",".join(keys)), binding.description.lower()))
    return rows


def _section(title: str, rows: Sequence[tuple[str, str]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    table.title = title
    table.title_justify = "left"
    table.title_style = "bold underline"
    for keys, what in rows:
        table.add_row(keys, what)
    return table


def priority_keys(bindings: Iterable[BindingType]) -> set[str]:
    """The keys of the priority bindings among ``bindings``."""
    out: set[str] = set()
    for binding in bindings:
        if isinstance(binding, Binding) and binding.priority:
            out.update(binding.key.split(","))
    return out


class KeysScreen(OnceModal[None]):
    """The keys: the app's, then the editor's. F1 or Esc closes."""

    DEFAULT_CSS = """
    KeysScreen { align: center middle; }
    KeysScreen > Vertical {
        width: 90%; max-width: 100; height: 90%;
        border: thick $accent; background: $surface; padding: 0 1;
    }
    KeysScreen VerticalScroll { height: 1fr; }
    KeysScreen Static { margin-bottom: 1; }
    KeysScreen .keys-hint { color: $text-muted; margin: 0; }
    """

    def __init__(self, taken: Iterable[str]) -> None:
        super().__init__()
        self.taken = set(taken)

    def compose(self) -> ComposeResult:
        """Two sections and a hint."""
        with Vertical():
            with VerticalScroll():
                yield Static(_section("The app", APP_KEYS))
                yield Static(_section("The prompt", COMPOSER_KEYS))
                yield Static(_section("Queued prompts", QUEUE_KEYS))
                yield Static(_section("Editing", editor_keys(self.taken)))
            yield Static(Text("F1 or Esc closes · ↑↓ scroll"), classes="keys-hint")

    def on_key(self, event: Key) -> None:
        """F1 or Esc closes."""
        if event.key in ("escape", "f1"):
            event.stop()
            self.answer(None)
