"""``--ask``: permission questions and the agent's forms on the controlling terminal.

- One question at a time, in arrival order; the question says how many more
  are waiting. An answer can only apply to the question on screen.
- The question shows what would be approved, with control characters made
  visible (:func:`question_lines`).
- The answer line (``allow? [y/N/a=always]``) appears only after the
  question has been on screen for :data:`GUARD` seconds (longer, with a
  note, right after the agent withdrew a question), and keys typed before
  it are discarded: a user typing ahead, or answering a question the agent
  has just swapped for another, must not approve a command by accident.
- The terminal is read without a thread: when the turn is cancelled (Ctrl-C
  sends SIGINT, the run cancels the turn, the broker cancels this question)
  the question goes away at once and its request is answered ``cancelled``.
- Without a terminal (``/dev/tty`` cannot be opened) that is said once on
  stderr, and every question is answered no.
- A form the agent asks the user to fill in (ACP ``elicitation/create``,
  form mode) is asked field by field in the same line of questions
  (:class:`TtyForms`); Ctrl-D declines it, a cancelled turn withdraws it
  (the client answers it with the ``cancel`` action).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import termios
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ..host import PermissionRequest, Verdict, describe_request, workspace_code_note
from ..safetext import bounded, sanitize_line
from ._edge import terminal_held, warn

if TYPE_CHECKING:
    from .. import schema as s
    from ..host import FormField

__all__ = ["TtyAsker", "TtyForms", "question_lines"]

T = TypeVar("T")

_SETTLE = 0.05  # seconds between a question's turn coming and its display
# Seconds a question is on screen before its answer line appears; keys typed
# until then are discarded. Someone answering the question before (which the
# agent may withdraw and replace just before the key lands) must not answer
# this one. Longer right after the agent withdrew a question.
GUARD = 0.5
GUARD_AFTER_WITHDRAWAL = 1.5
_WITHDRAWAL_WINDOW = 5.0


def question_lines(request: PermissionRequest) -> list[str]:
    """What a permission question shows, one sanitised line each.

    The host's own description (:func:`acphost.host.describe_request`: the
    action, the whole command line, cwd, environment overrides, every path
    and protected area, the tool, its kind and raw input, the title) is
    exactly what an answer approves. A command known to run what the agent
    can write (``npm test``: the scripts of ``package.json``) gets a last
    line saying that allowing it while writes are allowed allows any command.

    Args:
        request: the request to describe.

    Returns:
        The lines, in display order, with control characters made visible.

    """
    lines = describe_request(request)
    note = workspace_code_note(request.argv, request.shell_line, request.env)
    if note is not None:
        lines = [*lines, f"note: {note}"]
    return [sanitize_line(line) for line in lines]


def _question(request: PermissionRequest, waiting: int) -> str:
    more = f" ({waiting} more waiting)" if waiting else ""
    body = "\n".join(f"  {line}" for line in question_lines(request))
    return f"\nacphost: the agent asks permission{more}\n{body}\n"


class TtyAsker:
    """Asks on ``/dev/tty``; see the module docstring.

    Use :meth:`open` to create one; call it with a request (it is the
    ``Asker`` the permission broker awaits); :meth:`close` at the end.
    """

    def __init__(self, fd: int | None) -> None:
        self._fd = fd
        self._lock = asyncio.Lock()  # FIFO: questions in arrival order
        self._waiting = 0
        self._withdrawn_at: float | None = None  # loop time the agent last withdrew one

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

    @property
    def can_ask(self) -> bool:
        """Whether there is a terminal to ask on."""
        return self._fd is not None

    async def __call__(self, request: PermissionRequest) -> Verdict:
        """Ask about ``request`` once the questions before it are answered.

        Raises:
            asyncio.CancelledError: the turn was cancelled (the broker
                answers the request ``cancelled``).

        """
        if self._fd is None:
            return Verdict.reject("no terminal to ask on (--ask)")
        return await self._in_turn(lambda fd: self._answer(fd, request))

    async def fill_in(self, request: s.CreateElicitationRequest) -> dict[str, Any]:
        """Ask for a form's fields once the questions before it are answered.

        Args:
            request: the agent's ``elicitation/create`` in form mode.

        Returns:
            The ``CreateElicitationResponse`` wire object: ``accept`` with the
            content, or ``decline`` (Ctrl-D, or a field this terminal
            cannot ask for is required).

        Raises:
            asyncio.CancelledError: the turn was cancelled (the client
                answers the form with the ``cancel`` action).

        """
        if self._fd is None:
            return {"action": "decline"}
        return await self._in_turn(lambda fd: self._fill_in(fd, request))

    async def _in_turn(self, ask: Callable[[int], Awaitable[T]]) -> T:
        fd = self._fd
        assert fd is not None
        self._waiting += 1
        acquired = False
        try:
            await self._lock.acquire()
            acquired = True
            self._waiting -= 1
            # A short settle: requests that arrived together are all counted
            # as waiting, and keys pressed just before the question are discarded.
            await asyncio.sleep(_SETTLE)
            with terminal_held():  # a live display on this terminal steps aside and waits
                try:
                    return await ask(fd)
                except asyncio.CancelledError:
                    self._withdrawn_at = asyncio.get_running_loop().time()
                    with contextlib.suppress(OSError):
                        os.write(fd, b"\nacphost: cancelled; the request is answered 'cancelled'\n")
                    raise
        finally:
            if acquired:
                self._lock.release()
            else:
                self._waiting -= 1

    async def _show(self, fd: int, text: str) -> None:
        """Show a new question; its answer line comes after :meth:`_guard`."""
        loop = asyncio.get_running_loop()
        recent = self._withdrawn_at is not None and (
            loop.time() - self._withdrawn_at < _WITHDRAWAL_WINDOW
        )
        if recent:
            text = "\nacphost: the agent withdrew its last question; this one is different" + text
        os.write(fd, text.encode("utf-8", "replace"))
        await asyncio.sleep(GUARD_AFTER_WITHDRAWAL if recent else GUARD)

    async def _read_reply(self, fd: int, prompt: str) -> bytes:
        """Show the answer line ``prompt`` and wait for a line (``b""`` at end of input).

        Keys typed before the answer line appeared are discarded first.
        """
        loop = asyncio.get_running_loop()
        with contextlib.suppress(termios.error):
            termios.tcflush(fd, termios.TCIFLUSH)  # typed-ahead keys never answer
        os.write(fd, prompt.encode("utf-8", "replace"))
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
        finally:
            loop.remove_reader(fd)
        if not data.endswith(b"\n"):
            os.write(fd, b"\n")  # end of input (Ctrl-D)
        return data

    async def _answer(self, fd: int, request: PermissionRequest) -> Verdict:
        await self._show(fd, _question(request, self._waiting))
        data = await self._read_reply(fd, "allow? [y/N/a=always] ")
        answer = data.decode("utf-8", "replace").strip().lower()
        if answer in ("a", "always"):
            return Verdict.allow("allowed always by the user", always=True)
        if answer in ("y", "yes"):
            return Verdict.allow("allowed by the user")
        return Verdict.reject("rejected by the user")

    async def _fill_in(self, fd: int, request: s.CreateElicitationRequest) -> dict[str, Any]:
        from ..host import check_form, form_fields, parse_field  # noqa: PLC0415 - only for forms

        fields = form_fields(request.requested_schema)
        more = f" ({self._waiting} more waiting)" if self._waiting else ""
        head = [f"\nacphost: the agent asks you to fill in a form{more}"]
        head += [f"  {line}" for line in _message_lines(request.message)]
        head.append("  (Enter keeps the value in brackets; Ctrl-D declines the form)\n")
        await self._show(fd, "\n".join(head))
        raw: dict[str, Any] = {}
        for f in fields:
            if f.kind == "unsupported":
                if f.required:
                    os.write(fd, _field_line(f, "cannot be asked here: declined\n").encode())
                    return {"action": "decline"}
                continue
            while True:
                data = await self._read_reply(fd, _field_prompt(f))
                if not data:
                    return {"action": "decline"}
                value = _typed_value(f, data.decode("utf-8", "replace").rstrip("\r\n"))
                if value is _BAD:
                    problem = _BAD_WORDS[f.kind]
                else:
                    _, problem = parse_field(f, value)
                if not problem:
                    raw[f.name] = value
                    break
                os.write(fd, f"    ✗ {problem}\n".encode())
        content, problems = check_form(fields, raw)
        if problems:  # parse_field accepted each one; kept as a guard
            return {"action": "decline"}
        data = await self._read_reply(fd, "  send these answers to the agent? [Y/n] ")
        if not data or data.decode("utf-8", "replace").strip().lower() in ("n", "no"):
            return {"action": "decline"}
        return {"action": "accept", "content": content}


# What a form shows of the agent's strings: enough to answer, never so much
# that the question scrolls away (a value sent back is the agent's own, whole).
_FIELD_LIMIT = 200
_TEXT_LIMIT = 1_000
_MESSAGE_LINES = 20
_CHOICES_SHOWN = 30


def _field(text: str, limit: int = _FIELD_LIMIT) -> str:
    """One line of the agent's, bounded, then made safe for the terminal."""
    return sanitize_line(bounded(text, limit))


def _message_lines(message: str) -> list[str]:
    lines = message.split("\n")
    shown = [_field(line, _TEXT_LIMIT) for line in lines[:_MESSAGE_LINES]]
    if len(lines) > _MESSAGE_LINES:
        shown.append(f"… ({len(lines) - _MESSAGE_LINES} more lines)")
    return shown


_BAD = object()
_BAD_WORDS = {
    "boolean": "y or n",
    "choice": "a number from the list",
    "multi": "numbers from the list",
}
_HOW = {"boolean": "[y/n]", "choice": "number", "multi": "numbers, comma-separated"}


def _field_line(f: FormField, rest: str) -> str:
    required = " (required)" if f.required else ""
    return f"  {_field(f.title)}{required}: {rest}"


def _field_prompt(f: FormField) -> str:
    lines = []
    if f.description:
        lines.append(f"  {_field(f.description, _TEXT_LIMIT)}")
    hint = f.hint()
    if hint:
        lines.append(f"  ({_field(hint)})")
    for n, (_, label) in enumerate(f.choices[:_CHOICES_SHOWN], 1):
        lines.append(f"    {n}) {_field(label)}")
    if len(f.choices) > _CHOICES_SHOWN:
        more = len(f.choices) - _CHOICES_SHOWN
        lines.append(f"    … and {more} more (type the number or the value)")
    default = _default_words(f)
    ask = _HOW.get(f.kind, "")
    tail = " ".join(p for p in (ask, f"[{_field(default)}]" if default else "") if p)
    lines.append(_field_line(f, f"{tail} " if tail else ""))
    return "\n".join(lines)


def _default_words(f: FormField) -> str:
    d = f.default
    if d is None or d == []:
        return ""
    labels = dict(f.choices)
    if f.kind == "boolean":
        return "y" if d else "n"
    if f.kind == "choice":
        return str(labels.get(d, d))
    if f.kind == "multi":
        return ", ".join(str(labels.get(v, v)) for v in d)
    return str(d)


def _typed_value(f: FormField, text: str) -> Any:
    """What was typed for ``f``, in the form :func:`acphost.host.parse_field` takes."""
    word = text.strip()
    if not word:
        if f.kind == "boolean":
            return bool(f.default)
        return f.default
    if f.kind == "string":
        return text
    if f.kind == "boolean":
        yes = word.lower() in ("y", "yes", "true", "1")
        return yes if yes or word.lower() in ("n", "no", "false", "0") else _BAD
    if f.kind in ("choice", "multi"):
        picked = []
        for item in word.split(",") if f.kind == "multi" else [word]:
            part = item.strip()
            if part.isdigit() and 1 <= int(part) <= len(f.choices):
                picked.append(f.choices[int(part) - 1][0])
            elif part in dict(f.choices):
                picked.append(part)
            else:
                return _BAD
        return picked if f.kind == "multi" else picked[0]
    return word


class TtyForms:
    """The command line's elicitation handler: forms asked on the terminal.

    Only form mode is offered (``clientCapabilities.elicitation.form``): a
    URL the user should open is not something a headless run can wait for.

    Args:
        asker: the terminal's line of questions (shared with permissions).
    """

    form = True
    url = False

    def __init__(self, asker: TtyAsker) -> None:
        self.asker = asker

    async def __call__(self, request: s.CreateElicitationRequest) -> dict[str, Any]:
        """Answer one ``elicitation/create`` (a mode not offered is declined)."""
        if request.mode != "form":
            return {"action": "decline"}
        return await self.asker.fill_in(request)
