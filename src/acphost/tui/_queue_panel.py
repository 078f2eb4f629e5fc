"""The queued prompts under a session's transcript: one line each, to edit or remove.

Shown only while prompts wait. Shift+Tab from the prompt box reaches the
list; there Enter takes the highlighted prompt back into the prompt box to
edit, Delete (or Ctrl+X) removes it, ``C`` clears them all. Prompts are
shown as inert single lines (controls made visible, never markup), whoever
wrote them.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ._composer import PromptArea
from ._queue import PromptQueue

__all__ = ["QueueList", "QueuePanel"]


class QueueList(OptionList):
    """The queued prompts; Enter edits, Delete or Ctrl+X removes, ``C`` clears."""

    BINDINGS = [  # noqa: RUF012 - Textual's idiom
        Binding("delete,ctrl+x", "remove", "Remove", show=False),
        Binding("C", "clear", "Clear all", show=False),
    ]

    class Edit(Message):
        """Take this queued prompt back into the prompt box."""

        def __init__(self, queue: PromptQueue, item_id: int) -> None:
            super().__init__()
            self.queue = queue
            self.item_id = item_id

    def __init__(self, queue: PromptQueue, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.queue = queue

    def _highlighted_id(self) -> int | None:
        index = self.highlighted
        if index is None or index >= self.option_count:
            return None
        option_id = self.get_option_at_index(index).id
        return int(option_id) if option_id else None

    def action_remove(self) -> None:
        """Remove the highlighted prompt."""
        item_id = self._highlighted_id()
        if item_id is not None:
            self.queue.remove(item_id)

    def action_clear(self) -> None:
        """Remove every queued prompt."""
        self.queue.clear()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter (or a click) edits the prompt."""
        event.stop()
        if event.option.id:
            self.post_message(self.Edit(self.queue, int(event.option.id)))


class QueuePanel(Vertical):
    """A heading (how many wait, and whether the queue is held) over the list."""

    DEFAULT_CSS = """
    QueuePanel { height: auto; max-height: 8; display: none; border-top: dashed $accent; }
    QueuePanel.-visible { display: block; }
    QueuePanel .queue-heading { color: $text-muted; padding: 0 1; }
    QueuePanel .queue-heading.-held { color: $warning; }
    QueuePanel QueueList { height: auto; max-height: 6; border: none; padding: 0 1; }
    """

    def __init__(self, queue: PromptQueue, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.queue = queue
        self.heading = Static("", classes="queue-heading")
        self.list = QueueList(queue)

    def compose(self) -> ComposeResult:
        """The heading, the list."""
        yield self.heading
        yield self.list

    def on_mount(self) -> None:
        """Show what already waits."""
        self.show()

    def show(self) -> None:
        """Redraw from the queue (called after each change)."""
        queue = self.queue
        self.set_class(bool(queue), "-visible")
        count = len(queue)
        what = f"{count} queued"
        if queue.held:
            heading = f"⏸ {what} wait ({queue.held}): Enter on an empty prompt sends the next"
        else:
            heading = f"⏳ {what}, sent when the turn ends"
        heading += " · Shift+Tab: Enter edits, Del removes"
        self.heading.update(Text(heading))
        self.heading.set_class(bool(queue.held), "-held")
        width = max(self.size.width - 6, 20) if self.size.width else 70
        highlighted = self.list.highlighted
        self.list.clear_options()
        self.list.add_options(
            [
                Option(Text(f"{n}. {item.line(width)}"), id=str(item.id))
                for n, item in enumerate(queue.items, 1)
            ]
        )
        if queue:
            self.list.highlighted = min(highlighted or 0, count - 1)
        if not queue and self.list.has_focus:
            for area in self.app.query(PromptArea):
                area.focus()
