"""``--ask``: permission questions on the controlling terminal.

- One question at a time, in arrival order; the question says how many more
  are waiting. An answer can only apply to the question on screen.
- The question shows what would be approved, with control characters made
  visible (:func:`question_lines`).
- Keys typed before the question appeared are discarded (a user typing
  ahead must not approve a command by accident).
- The terminal is read without a thread: when the turn is cancelled (Ctrl-C
  sends SIGINT, the run cancels the turn, the broker cancels this question)
  the question goes away at once and its request is answered ``cancelled``.
- Without a terminal (``/dev/tty`` cannot be opened) that is said once on
  stderr, and every question is answered no.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import termios

from ..host import PermissionRequest, Verdict, describe_request
from ..safetext import sanitize_line
from ._edge import terminal_held, warn

__all__ = ["TtyAsker", "question_lines"]

_SETTLE = 0.05  # seconds between a question's turn coming and its display


def question_lines(request: PermissionRequest) -> list[str]:
    """What a permission question shows, one sanitised line each.

    The host's own description (:func:`acphost.host.describe_request`: the
    action, the whole command line, cwd, environment overrides, every path
    and protected area, the tool, its kind and raw input, the title) is
    exactly what an answer approves.

    Args:
        request: the request to describe.

    Returns:
        The lines, in display order, with control characters made visible.

    """
    return [sanitize_line(line) for line in describe_request(request)]


def _question(request: PermissionRequest, waiting: int) -> str:
    more = f" ({waiting} more waiting)" if waiting else ""
    body = "\n".join(f"  {line}" for line in question_lines(request))
    return f"\nacphost: the agent asks permission{more}\n{body}\nallow? [y/N/a=always] "


class TtyAsker:
    """Asks on ``/dev/tty``; see the module docstring.

    Use :meth:`open` to create one; call it with a request (it is the
    ``Asker`` the permission broker awaits); :meth:`close` at the end.
    """

    def __init__(self, fd: int | None) -> None:
        self._fd = fd
        self._lock = asyncio.Lock()  # FIFO: questions in arrival order
        self._waiting = 0

    @classmethod
    def open(cls, path: str = "/dev/tty") -> TtyAsker:
        """Open the controlling terminal; without one, say so once on stderr.

        Args:
            path: the terminal device.

        Returns:
            The asker (one that answers every question no when there is no terminal).

        """
        try:
            fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        except OSError:
            warn("--ask: there is no terminal to ask on; every permission question is answered no")
            return cls(None)
        return cls(fd)

    def close(self) -> None:
        """Close the terminal."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    async def __call__(self, request: PermissionRequest) -> Verdict:
        """Ask about ``request`` once the questions before it are answered.

        Raises:
            asyncio.CancelledError: the turn was cancelled (the broker
                answers the request ``cancelled``).

        """
        if self._fd is None:
            return Verdict.reject("no terminal to ask on (--ask)")
        self._waiting += 1
        acquired = False
        try:
            await self._lock.acquire()
            acquired = True
            self._waiting -= 1
            return await self._ask(self._fd, request)
        finally:
            if acquired:
                self._lock.release()
            else:
                self._waiting -= 1

    async def _ask(self, fd: int, request: PermissionRequest) -> Verdict:
        # A short settle: requests that arrived together are all counted as
        # waiting, and keys pressed just before the question are discarded.
        await asyncio.sleep(_SETTLE)
        with terminal_held():  # a live display on this terminal steps aside and waits
            return await self._answer(fd, request)

    async def _answer(self, fd: int, request: PermissionRequest) -> Verdict:
        loop = asyncio.get_running_loop()
        with contextlib.suppress(termios.error):
            termios.tcflush(fd, termios.TCIFLUSH)  # typed-ahead keys never answer
        os.write(fd, _question(request, self._waiting).encode("utf-8", "replace"))
        answered: asyncio.Future[bytes] = loop.create_future()

        def readable() -> None:
            try:
                data = os.read(fd, 4096)
            except OSError:
                data = b""
            if not answered.done():
                answered.set_result(data)

        loop.add_reader(fd, readable)
        try:
            data = await answered
        except asyncio.CancelledError:
            with contextlib.suppress(OSError):
                os.write(fd, b"\nacphost: cancelled; the request is answered 'cancelled'\n")
            raise
        finally:
            loop.remove_reader(fd)
        answer = data.decode("utf-8", "replace").strip().lower()
        if not data.endswith(b"\n"):
            os.write(fd, b"\n")  # end of input (Ctrl-D): answered no
        if answer in ("a", "always"):
            return Verdict.allow("allowed always by the user", always=True)
        if answer in ("y", "yes"):
            return Verdict.allow("allowed by the user")
        return Verdict.reject("rejected by the user")
