"""The prompts a session tab queues while its turn runs: the model, no Textual.

A prompt sent while a turn runs waits here, in order, and is sent when the
turn ends, one at a time. Until it is sent it can be taken back into the
prompt box to edit (it goes back in its place when sent again) or removed.
A turn the user cancelled (or one that failed) leaves the queue waiting:
nothing more goes to the agent until the user says so (Enter on an empty
prompt), since the next prompt was probably written for an answer that
never came. Each session tab has a queue of its own.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

from ._safe import clip, sanitize_line

__all__ = ["FAILED", "PromptQueue", "QueuedPrompt"]

#: The view's stop reasons that are failures, not the agent's stop reasons.
FAILED = frozenset({"error", "agent exited", "budget"})

_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class QueuedPrompt:
    """One prompt waiting for its turn.

    Attributes:
        id: unique in the app (the list's option id).
        text: the prompt as typed (``@`` mentions are read when it is sent).

    """

    id: int
    text: str

    def line(self, width: int) -> str:
        """The prompt on one safe line of at most ``width`` characters (controls visible)."""
        return clip(sanitize_line(" ".join(self.text.split())), max(width, 1))


class PromptQueue:
    """One session's queued prompts.

    Args:
        on_change: called after every change (the list redraws).

    """

    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self.items: list[QueuedPrompt] = []
        #: Why the queue waits instead of sending the next prompt (``""``: it does not).
        self.held = ""
        self.on_change = on_change
        # Where the prompt last taken back to edit goes when it is sent again.
        self._slot: int | None = None

    def __len__(self) -> int:
        return len(self.items)

    def __bool__(self) -> bool:
        return bool(self.items)

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    def takes(self, busy: bool) -> bool:
        """Whether a prompt sent now waits here (a turn runs, or others wait to go first).

        A queue held after a cancel does not take a new prompt: one the user
        types then is sent at once, the queue still waiting behind it.
        """
        return busy or (bool(self.items) and not self.held)

    def add(self, text: str) -> QueuedPrompt:
        """Queue a prompt: last, or in the place of the one taken back to edit."""
        item = QueuedPrompt(next(_ids), text)
        slot, self._slot = self._slot, None
        if slot is None or slot > len(self.items):
            self.items.append(item)
        else:
            self.items.insert(slot, item)
        self._changed()
        return item

    def remove(self, item_id: int) -> QueuedPrompt | None:
        """Remove a prompt before it is sent (``None``: it was sent or removed already)."""
        for index, item in enumerate(self.items):
            if item.id == item_id:
                del self.items[index]
                if not self.items:
                    self.held = ""
                self._changed()
                return item
        return None

    def edit(self, item_id: int) -> str | None:
        """Take a prompt back to edit: its text (``None``: gone); it goes back in its place."""
        index = next((i for i, item in enumerate(self.items) if item.id == item_id), None)
        if index is None:
            return None
        item = self.items.pop(index)
        self._slot = index
        if not self.items:
            self.held = ""
        self._changed()
        return item.text

    def clear(self) -> None:
        """Drop every waiting prompt."""
        self.items.clear()
        self.held = ""
        self._slot = None
        self._changed()

    def next(self) -> QueuedPrompt | None:
        """Take the next prompt to send (``None``: none, or the queue waits)."""
        if not self.items or self.held:
            return None
        item = self.items.pop(0)
        if self._slot is not None and self._slot > 0:
            self._slot -= 1  # the prompt being edited moves up with the rest
        self._changed()
        return item

    def release(self) -> None:
        """The user says go on after a cancel: the next prompt may be sent."""
        if self.held:
            self.held = ""
            self._changed()

    def turn_ended(self, stop: str, *, cancelled: bool) -> str:
        """Note how a turn ended; return why the queue now waits (``""``: it goes on).

        Args:
            stop: the view's stop reason (the agent's, or ``error``, ``agent exited``,
                ``budget``; ``""`` when the prompt was not sent).
            cancelled: the user asked to cancel this turn (whatever the agent answered).

        """
        if not self.items:
            return ""
        if cancelled or stop == "cancelled":
            self.held = "the turn was cancelled"
        elif stop in FAILED or not stop:
            self.held = "the turn failed"
        if self.held:
            self._changed()
        return self.held
