"""The base of every dialog: one answer only, and no answer from stray keys.

Two ways a dialog goes wrong under a fast typist:

- a second key arrives while the first one's answer is closing the screen,
  and dismisses it again (Textual raises ``ScreenStackError``); so a
  dialog takes one answer and ignores all input after it;
- a dialog the agent opens (a permission request, an elicitation, a crash)
  pops up under someone typing a message, and their next key answers it.
  So such a dialog is *guarded*: keys created before it was shown, or within
  ``guard`` seconds after (again after it returns from under another
  screen), are ignored. Key events carry the monotonic time they were read
  at (``Message.time``), so keys queued before the dialog appeared are told
  apart from keys typed at it, however late they are processed.
"""

from __future__ import annotations

import time
from typing import Generic, TypeVar

from textual.events import Key
from textual.screen import ModalScreen

__all__ = ["OnceModal"]

ResultT = TypeVar("ResultT")


class OnceModal(ModalScreen[ResultT], Generic[ResultT]):
    """A modal screen that is answered once; optionally guarded against stray keys.

    Subclasses answer with :meth:`answer` (never ``dismiss``), and check
    :meth:`accepts` before acting on a key when the dialog is guarded.

    Args:
        guard: seconds after showing during which keys are ignored; ``None``
            for a dialog the user opened (keys typed ahead are welcome there).

    """

    def __init__(self, *, guard: float | None = None) -> None:
        super().__init__()
        self.guard = guard
        self.answered = False
        self._shown_at: float | None = None
        self._deferred: tuple[ResultT] | None = None

    def on_screen_resume(self) -> None:
        """(Re)arm the guard each time the dialog comes to the top."""
        self._shown_at = time.monotonic()
        deferred = self._deferred
        if deferred is not None:
            self._deferred = None
            self.call_later(self.dismiss, deferred[0])

    def accepts(self, event_time: float | None = None) -> bool:
        """Whether input created at ``event_time`` (default: now) may answer the dialog."""
        if self.answered:
            return False
        if self.guard is None:
            return True
        shown = self._shown_at
        when = time.monotonic() if event_time is None else event_time
        return shown is not None and when >= shown + self.guard

    @property
    def armed(self) -> bool:
        """Whether a key pressed now would be taken."""
        return self.accepts()

    def accepts_key(self, event: Key) -> bool:
        """Whether a key may act on the dialog; a refused key is swallowed."""
        if self.accepts(event.time):
            return True
        event.stop()
        event.prevent_default()
        return False

    def answer(self, result: ResultT) -> bool:
        """Close the dialog with ``result``; later calls do nothing and return False.

        A dialog under another screen (the protocol log over a permission
        request that was just withdrawn) closes when it is back on top:
        ``dismiss`` pops whichever screen is on top.
        """
        if self.answered:
            return False
        self.answered = True
        if self.is_active:
            self.dismiss(result)
        else:
            self._deferred = (result,)
        return True
