"""A run's prompt as a named session's host holds it, and what the host tells runs.

What the face decides (:class:`HostHooks`), how a run's turn is shown
(:class:`RunView`, the face's), one run's prompt from its arrival to its
turn's end, and the messages the host sends (:func:`send`, bounded for a run
that stops reading) or refuses with. The host itself is
:mod:`acphost.launch._named_host`; the wire, :mod:`acphost.launch._named`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .._namedwire import MAX_KEEP_ALIVE
from ._named import send_message

if TYPE_CHECKING:
    from ..client import Budget, Session, Turn, TurnResult
    from ._open import RunOptions

__all__ = [
    "MAX_WAITING",
    "NO_TOKEN",
    "ON_DROP",
    "OTHER_VERSION",
    "HostHooks",
    "Prompt",
    "RunView",
    "denied",
    "differs_message",
    "is_count",
    "keep_alive_seconds",
    "options_digest",
    "prompt_blocks",
    "refused",
    "send",
]

logger = logging.getLogger("acphost.launch.named")

#: The most prompts waiting in one session; more are refused (``full``), as ``busy`` is.
MAX_WAITING = 256
#: Bytes the host holds for a run that does not read; past them, that run is dropped.
_OUT_LIMIT = 32 * 1024 * 1024


class RunView(Protocol):
    """One run's turn as its run shows it: the face renders, the host only calls.

    Everything a view writes reaches its run as text for the run's stdout
    and stderr (wire messages ``o`` and ``e``); the run exits with the code
    :meth:`end` or :meth:`failed` returns.
    """

    def started(self, session: Session, budgeted: bool) -> None:
        """The run's turn began (with a budget, or not)."""
        ...

    def update(self, update: Any) -> None:
        """One update of the session, in wire order."""
        ...

    def child(self, child: Any, update: Any) -> None:
        """One update of a subagent the run's turn began."""
        ...

    def frame(self, direction: str, line: bytes) -> None:
        """One frame of the turn as it crossed the wire (``-o jsonl``)."""
        ...

    def note(self, text: str) -> None:
        """A line for the run's stderr."""
        ...

    def close(self) -> None:
        """Finish what is shown; send what is held."""
        ...

    def end(self, report: dict[str, Any]) -> int:
        """The turn ended (:attr:`HostHooks.end_report`): the run's exit code."""
        ...

    def failed(self, report: dict[str, Any]) -> int:
        """The turn failed (:attr:`HostHooks.error_report`): the run's exit code."""
        ...


@dataclass(eq=False)
class HostHooks:
    """What the face that starts the host decides (the command line's rules).

    Attributes:
        options: the run options for the session to continue (its id) or
            None for a new session.
        fingerprint: the options a run must share with the host to use it.
        end_report: a turn's result, the session, whether its run (or
            ``acphost cancel``) interrupted it, whether it had a budget ->
            ``{code, stop_reason, usage, warnings}``.
        error_report: what ended a turn or the host -> ``{code, text}``.
        budget: a run's budget flags -> the turn's budget.
        view: a run's request and a way to send it messages -> its view.
        label: a prompt's text -> what ``status`` shows of it (redacted).

    """

    options: Callable[[str | None], RunOptions]
    fingerprint: dict[str, Any]
    end_report: Callable[[TurnResult, Session, bool, bool], dict[str, Any]]
    error_report: Callable[[BaseException], dict[str, Any]]
    budget: Callable[[Any], Budget | None]
    view: Callable[[dict[str, Any], Callable[[dict[str, Any]], None]], RunView]
    label: Callable[[str], str]


@dataclass(eq=False)
class Prompt:
    """One run's prompt, from its arrival to the end of its turn."""

    writer: asyncio.StreamWriter
    ticket: int
    blocks: list[Any]
    view: RunView
    label: str
    limits: Any
    turn: Turn | None = None
    budgeted: bool = False
    started: bool = False
    interrupted: bool = False
    #: Its run was dropped for not reading (its turn goes on).
    dropped: bool = False
    #: Seconds to wait for the subagents that outlive the turn's answer (None: no bound).
    subagent_timeout: float | None = 600.0
    done: asyncio.Event = field(default_factory=asyncio.Event)


NO_TOKEN = (
    "the request does not carry the session host's token (from acphost's state folder): "
    "only this user's acphost, outside any sandbox, may use a named session"
)
OTHER_VERSION = "this acphost differs from the one running the session's host"


#: What the host does as it drops a run's connection (it marks the run's prompt,
#: and says so where the run will look).
ON_DROP: weakref.WeakKeyDictionary[asyncio.StreamWriter, Callable[[], None]] = (
    weakref.WeakKeyDictionary()
)


def send(writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
    """Send a run one message; drop a run that has not read the last :data:`_OUT_LIMIT` bytes.

    The host never waits for a run to read (one slow run must not hold the
    session's other runs or the agent): what it has not read is buffered,
    up to a bound. Its turn goes on; only its connection ends.
    """
    send_message(writer, message)
    transport = writer.transport
    if not transport.is_closing() and transport.get_write_buffer_size() > _OUT_LIMIT:
        logger.warning("named: a run that stopped reading is dropped (its turn goes on)")
        dropped = ON_DROP.pop(writer, None)
        if dropped is not None:
            dropped()  # before its connection ends: the run reads it when it does
        transport.abort()


def keep_alive_seconds(value: object) -> float | None:
    """A keep-alive from the wire or a file: seconds from 0 to a week, else None."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    seconds = float(value)
    return seconds if 0.0 <= seconds <= MAX_KEEP_ALIVE else None  # NaN fails both


def is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 1 << 53


def denied(message: str) -> dict[str, Any]:
    # Not a usage problem: the run says it cannot use the session, and why (exit 1).
    return {"t": "denied", "message": message}


def refused(message: str) -> dict[str, Any]:
    # A usage problem: the run exits 2 with the message.
    return {"t": "refused", "message": message}


def differs_message(name: str, differs: list[str]) -> str:
    flags = ", ".join(differs)
    return (
        f"session {name!r} is busy with other options than this run's ({flags}): once "
        f"its turns are done (acphost status -s {name}), its host makes way for a run "
        "with other options; or use another name"
    )


def options_digest(options: dict[str, Any]) -> str:
    """A digest of a run's session options, as a shortcut sends them (never the options)."""
    text = json.dumps(options, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def prompt_blocks(raw: object) -> list[Any] | None:
    """The prompt's content blocks, decoded as the schema says; None if malformed."""
    from .. import schema as s  # noqa: PLC0415

    if not isinstance(raw, list) or not raw:
        return None
    try:
        blocks = list(s.PromptRequest.from_wire({"sessionId": "-", "prompt": raw}).prompt)
    except s.SchemaError:
        return None
    try:  # what JSON carried as lone surrogates (\\udcff) cannot be sent on: refused here
        json.dumps(raw, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return None
    return blocks
