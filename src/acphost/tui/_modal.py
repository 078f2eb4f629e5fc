"""The base of every dialog: one answer only, and no answer from stray keys.

Three ways a dialog goes wrong under a fast typist:

- a second key arrives while the first one's answer is closing the screen,
  and dismisses it again (Textual raises ``ScreenStackError``); so a
  dialog takes one answer and ignores all input after it (and gives up the
  focus, so no field of it takes keys either);
- a dialog the agent opens (a permission request, an elicitation, a crash)
  pops up under someone typing a message, and their next key answers it.
  So such a dialog is *guarded*: keys created before it was shown, or within
  ``guard`` seconds after (again after it returns from under another
  screen), are ignored. Key events carry the monotonic time they were read
  at (``Message.time``), so keys queued before the dialog appeared are told
  apart from keys typed at it, however late they are processed;
- someone typing steadily for longer than the guard time: the keys after
  the guard are still their message, not an answer. So the first key a
  guarded dialog takes must also come after a pause in typing: ``guard``
  seconds without a key (every key the dialog sees counts, refused, taken
  or meaningless to it). Once it has taken a key, the next keys need no
  pause (``↓ ↓ Enter``); a key that means nothing to the dialog is noted
  (:meth:`OnceModal.note_key`), not taken, so a pause followed by more of a
  message still answers nothing.

The clock is the keys' own: a key's ``time`` decides, and a click or a
timer asks about "now" on the same monotonic clock.
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

    Subclasses answer with :meth:`answer` (never ``dismiss``). For each key
    the dialog handles, they call :meth:`accepts_key` before acting on it,
    and :meth:`note_key` for a key that means nothing to them; a click is
    checked with :meth:`accepts`.

    Args:
        guard: seconds after showing during which keys are ignored; ``None``
            for a dialog the user opened (keys typed ahead are welcome there).

    """

    def __init__(self, *, guard: float | None = None) -> None:
        super().__init__()
        self.guard = guard
        self.answered = False
        #: When the dialog last came to the top (``time.monotonic``), or None.
        self.shown_at: float | None = None
        self._last_key: float | None = None  # the latest key seen, taken or refused
        self._taken = False  # a key was taken since the dialog came to the top
        self._deferred: tuple[ResultT] | None = None

    def on_screen_resume(self) -> None:
        """(Re)arm the guard each time the dialog comes to the top."""
        self.shown_at = time.monotonic()
        self._taken = False
        deferred = self._deferred
        if deferred is not None:
            self._deferred = None
            result = deferred[0]

            def close() -> None:
                # Not awaited: Textual refuses a dismiss awaited from the
                # screen's own message handler (ScreenError).
                self.dismiss(result)

            self.call_later(close)

    def accepts(self, event_time: float | None = None) -> bool:
        """Whether input created at ``event_time`` (default: now) may act on the dialog.

        Args:
            event_time: when the input was read (``time.monotonic`` clock).

        Returns:
            False once answered; for a guarded dialog, also before the guard
            time has passed, and before a first pause in typing.

        """
        if self.answered:
            return False
        guard = self.guard
        if guard is None:
            return True
        shown = self.shown_at
        when = time.monotonic() if event_time is None else event_time
        if shown is None or when < shown + guard:
            return False
        last = self._last_key
        return self._taken or last is None or when - last >= guard

    @property
    def armed(self) -> bool:
        """Whether a key pressed now would be taken."""
        return self.accepts()

    def engage(self) -> None:
        """Count the dialog as taken up (a form gave a field the focus once armed).

        From here on, input needs no pause before it, as after a first taken key.
        """
        self._taken = True

    def note_key(self, event: Key) -> None:
        """Count a key as typing without taking it (a key the dialog has no use for)."""
        if self._last_key is None or event.time > self._last_key:
            self._last_key = event.time

    def accepts_key(self, event: Key) -> bool:
        """Whether a key that means something to the dialog may act on it.

        A refused key is swallowed, and counts as typing all the same (see
        the module docstring).

        Args:
            event: the key.

        Returns:
            True when the dialog should act on the key.

        """
        taken = self.accepts(event.time)
        self.note_key(event)
        if taken:
            self._taken = True
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
        if self.is_mounted:
            self.set_focus(None)  # a focused field of it takes no more keys
        if self.is_active:
            self.dismiss(result)
        else:
            self._deferred = (result,)
        return True
