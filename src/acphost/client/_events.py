"""The typed event stream of a client: each fact told once, by the one place that knows it.

A session, the host bridge and the permission broker *emit*; everything that
wants to know what happened in a session (the history, budgets, audit, the
renderers, the TUI's session view, the live check) *observes*, by
subscribing to :attr:`AcpClient.events <acphost.AcpClient.events>`. Nobody
parses a frame for meaning a second time. Those who need the exact bytes (a
trace, ``-o jsonl``, a protocol log) still take frames through a tap, which
sees blocks of lines at once (see ``acphost.rpc``'s taps).

Events are small frozen classes named for what happened (as h11's events
are). Observers run inline, in the order the facts happened: updates in wire
order, a turn's start before its first update, its end after its last. An
observer must be quick and must not raise; one that raises is logged and the
others still run.

Updates travel as blocks: :class:`UpdatesReceived` carries every update a
read of the connection held for one session, so a flood of chunks costs an
observer one call per block, not one per chunk.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from .. import schema as s
    from ..host import PermissionOutcome, PermissionRequest
    from ._session import Session
    from ._turn import Turn, TurnResult

__all__ = [
    "Event",
    "EventStream",
    "Observer",
    "PermissionAsked",
    "PermissionDecided",
    "SessionClosed",
    "SessionOpened",
    "TerminalExited",
    "TerminalStarted",
    "TurnEnded",
    "TurnStarted",
    "UpdatesReceived",
]

logger = logging.getLogger("acphost.events")

#: How a session came to be open on this client.
OpenedHow = Literal["new", "load", "resume", "fork"]


@dataclass(frozen=True, slots=True)
class SessionOpened:
    """A session was opened (``session/new``, ``load``, ``resume`` or ``fork`` answered).

    Told when the agent's answer arrived: a load's replayed history comes
    before it (as :class:`UpdatesReceived` of the session being opened);
    updates a new session received before its answer come right after it.
    """

    session: Session
    how: OpenedHow


@dataclass(frozen=True, slots=True)
class UpdatesReceived:
    """Updates of one session, in wire order, already applied to its state.

    ``session`` is a :class:`~acphost.Session`, or a
    :class:`~acphost.client.Subagent` for the updates of a subagent's child
    session (its ``root`` is the session it belongs to).

    One event per run of consecutive updates of one session in a read of the
    connection (a block), split only where the reader waits for a full
    turn queue; a single update is one event. A closed session's late
    updates are not told.
    """

    session: Session
    updates: Sequence[s.SessionUpdate]


@dataclass(frozen=True, slots=True)
class TurnStarted:
    """A prompt was sent (``session/prompt``): the turn begins."""

    session: Session
    turn: Turn
    prompt: Sequence[s.ContentBlock]


@dataclass(frozen=True, slots=True)
class TurnEnded:
    """A turn ended: its result, or the error it failed with.

    ``host_stop`` says why the host stopped the turn, when it did
    (``"interrupted"``, ``"budget: ..."``, a face's own reason given to
    :meth:`Session.cancel <acphost.Session.cancel>`); None when the agent
    ended it on its own.
    """

    session: Session
    turn: Turn
    prompt: Sequence[s.ContentBlock]
    result: TurnResult | BaseException
    host_stop: str | None = None


@dataclass(frozen=True, slots=True)
class PermissionAsked:
    """The agent asked a permission question (``session/request_permission``)."""

    session_id: str
    request: PermissionRequest


@dataclass(frozen=True, slots=True)
class PermissionDecided:
    """The host answered a permission question or mediated an operation.

    ``asked`` is True for the agent's own ``session/request_permission``,
    False for an operation the host mediated without being asked (a file
    read or write, a terminal).
    """

    session_id: str
    request: PermissionRequest
    outcome: PermissionOutcome
    asked: bool


@dataclass(frozen=True, slots=True)
class TerminalStarted:
    """A terminal the agent asked for (``terminal/create``) is running."""

    session_id: str
    terminal_id: str
    command: str
    args: Sequence[str]
    cwd: str | None


@dataclass(frozen=True, slots=True)
class TerminalExited:
    """A terminal's command ended (or was killed); ``exit_status`` as the schema's."""

    session_id: str
    terminal_id: str
    exit_status: dict[str, Any]


@dataclass(frozen=True, slots=True)
class SessionClosed:
    """A session was closed (``session/close``, or its client closed)."""

    session: Session


#: Every event of the stream.
Event = (
    SessionOpened
    | UpdatesReceived
    | TurnStarted
    | TurnEnded
    | PermissionAsked
    | PermissionDecided
    | TerminalStarted
    | TerminalExited
    | SessionClosed
)

#: ``observer(event)``: called inline, in order; quick, and never raising.
Observer = Callable[[Event], object]


class EventStream:
    """Where a client's events are published and observed.

    Emitters call :meth:`emit`; observers :meth:`subscribe`. With no
    observer, emitting costs one attribute test: emitters read
    :attr:`observed` (a plain attribute, not a property: no call) before they
    build an event on a hot path.

    Attributes:
        observed: True when at least one observer is subscribed (read it;
            :meth:`subscribe` and its unsubscriber keep it up to date).

    """

    __slots__ = ("_observers", "observed")

    def __init__(self) -> None:
        self._observers: tuple[Observer, ...] = ()
        self.observed = False

    def subscribe(self, observer: Observer) -> Callable[[], None]:
        """Call ``observer(event)`` for every event from now on, in order.

        Args:
            observer: the callable; it runs inline in the connection's reader
                (or the task that caused the event): keep it quick.

        Returns:
            A function that unsubscribes it (calling it twice is harmless).

        """
        self._observers = (*self._observers, observer)
        self.observed = True

        subscribed = True

        def unsubscribe() -> None:
            nonlocal subscribed
            if not subscribed:
                return
            subscribed = False
            # This subscription only: the same callable subscribed twice stays once.
            observers = list(self._observers)
            for i, o in enumerate(observers):
                if o is observer:
                    del observers[i]
                    break
            self._observers = tuple(observers)
            self.observed = bool(observers)

        return unsubscribe

    def emit(self, event: Event) -> None:
        """Tell every observer, in subscription order; one that raises is logged."""
        for observer in self._observers:
            try:
                observer(event)
            except Exception:
                logger.exception("an event observer failed on %s", type(event).__name__)

    # -- the emitters' side (internal) ---------------------------------------------
    # The session, the peer and the host bridge emit through these, typed by
    # the structural ``Emitter`` of ``_peer``: the modules that emit do not
    # import this one, which names their classes (that would be an import
    # cycle). Each builds its event and emits it; callers test ``observed``
    # first where it matters.

    def _follow(
        self, session: object, on_updates: Callable[[Sequence[s.SessionUpdate]], object]
    ) -> Callable[[], None]:
        # An observer of one session's update blocks (Session.add_listener,
        # the session's budget): ``on_updates(updates)`` once per block.
        def observe(event: Event) -> None:
            if type(event) is UpdatesReceived and event.session is session:
                on_updates(event.updates)

        return self.subscribe(observe)

    def _follow_tree(
        self, session: object, on_updates: Callable[[Any, Sequence[s.SessionUpdate]], object]
    ) -> Callable[[], None]:
        # As _follow, also for the session's subagents (whose ``root`` is it):
        # ``on_updates(owner, updates)``, the owner the session or a Subagent.
        def observe(event: Event) -> None:
            if type(event) is UpdatesReceived:
                owner = event.session
                if owner is session or getattr(owner, "root", None) is session:
                    on_updates(owner, event.updates)

        return self.subscribe(observe)

    def _updates(self, session: Session, updates: Sequence[s.SessionUpdate]) -> None:
        self.emit(UpdatesReceived(session, updates))

    def _session_opened(self, session: Session, how: OpenedHow) -> None:
        self.emit(SessionOpened(session, how))

    def _session_closed(self, session: Session) -> None:
        self.emit(SessionClosed(session))

    def _turn_started(self, session: Session, turn: Turn, prompt: Sequence[s.ContentBlock]) -> None:
        self.emit(TurnStarted(session, turn, prompt))

    def _turn_ended(
        self,
        session: Session,
        turn: Turn,
        prompt: Sequence[s.ContentBlock],
        result: TurnResult | BaseException,
        host_stop: str | None,
    ) -> None:
        self.emit(TurnEnded(session, turn, prompt, result, host_stop))

    def _permission_asked(self, session_id: str, request: PermissionRequest) -> None:
        self.emit(PermissionAsked(session_id, request))

    def _permission_decided(
        self, request: PermissionRequest, outcome: PermissionOutcome, asked: bool
    ) -> None:
        self.emit(PermissionDecided(request.session_id, request, outcome, asked))

    def _terminal_started(
        self, session_id: str, terminal_id: str, command: str, args: Sequence[str], cwd: str | None
    ) -> None:
        self.emit(TerminalStarted(session_id, terminal_id, command, args, cwd))

    def _terminal_exited(self, session_id: str, terminal_id: str, status: dict[str, Any]) -> None:
        self.emit(TerminalExited(session_id, terminal_id, status))
