"""Recording sessions into the history as they happen.

A face attaches a :class:`HistoryRecorder` (the library never records on its
own)::

    recorder = HistoryRecorder.open(redactor=redactor)       # never raises
    async with AcpClient.start(argv) as client:
        session = await client.new_session(cwd)
        recording = recorder.open_session(name, argv, cwd, session)
        result = await session.prompt(prompt)                 # recorded as it runs
        recording.close()
    recorder.close()

A recording is an observer of the client's typed event stream
(:attr:`AcpClient.events <acphost.AcpClient.events>`) for its own session:
a turn is begun from :class:`~acphost.client.TurnStarted` and written from
:class:`~acphost.client.TurnEnded` (whose ``host_stop`` says why the host
stopped it: ``Session.cancel(reason=...)``, a budget), updates come a block at
a time (:class:`~acphost.client.UpdatesReceived`), and permission answers
typed, from :class:`~acphost.client.PermissionDecided`. The store is written
when a turn starts, while a long text streams (in parts), when it ends, and
when the session ends. A store that cannot be used (damaged, locked,
unwritable) costs one warning on stderr: the run goes on and nothing more is
written.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .. import schema as s
from ..redact import Redactor
from ._errors import HistoryError, SessionRemovedError
from ._model import SessionRecord, now, protocol_record, sandbox_record
from ._recording import SessionRecording
from ._store import DEFAULT_TIMEOUT, HistoryStore

if TYPE_CHECKING:
    from ..client import EventStream, Session

__all__ = ["HistoryRecorder"]

#: How a session was opened when the agent had it before (``Session.opened_how``).
_REOPENED = ("load", "resume")

Warn = Callable[[str], None]


def _warn_stderr(message: str) -> None:
    print(f"acphost: warning: {message}", file=sys.stderr, flush=True)


class HistoryRecorder:
    """Records the sessions of one run into a :class:`HistoryStore`.

    Args:
        store: the open store, or ``None`` for a recorder that records nothing.
        redactor: the host's redactor; every record passes it before it is stored.
        warn: how to tell the user the store failed (default: one line on stderr).

    """

    def __init__(
        self,
        store: HistoryStore | None,
        redactor: Redactor | None = None,
        *,
        warn: Warn | None = None,
    ) -> None:
        self.store = store
        self.redactor = redactor if redactor is not None else Redactor()
        self._warn = warn if warn is not None else _warn_stderr
        self.failed = False
        self._join: str | None = None
        self._name: str | None = None

    @classmethod
    def open(
        cls,
        path: str | None = None,
        redactor: Redactor | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        warn: Warn | None = None,
    ) -> HistoryRecorder:
        """A recorder on the store at ``path`` (default: the user's history).

        Never raises: a store that cannot be opened gives one warning and a
        recorder that records nothing.

        Args:
            path: the database file.
            redactor: the host's redactor.
            timeout: seconds a write waits for another writer.
            warn: how to warn (default: stderr).

        Returns:
            The recorder.

        """
        recorder = cls(None, redactor, warn=warn)
        try:
            recorder.store = HistoryStore.open(path, timeout=timeout, warn=recorder._warn)
            recorder.store.for_recording()
        except HistoryError as exc:
            recorder.fail(exc)
        return recorder

    @property
    def enabled(self) -> bool:
        """True while the recorder writes (it has a store that has not failed)."""
        return self.store is not None and not self.failed

    def fail(self, exc: HistoryError) -> None:
        """Stop recording after a store error, warning once."""
        if not self.failed:
            self.failed = True
            if isinstance(exc, SessionRemovedError):  # its message says what is not recorded
                self._warn(str(exc))
            else:
                self._warn(f"{exc}; this run is not recorded in the history")

    def write(self, action: Callable[[HistoryStore], object]) -> bool:
        """Run one write on the store; on failure warn once and stop recording.

        Returns:
            True when it was written.

        """
        store = self.store
        if store is None or self.failed:
            return False
        try:
            action(store)
        except HistoryError as exc:
            self.fail(exc)
            return False
        return True

    def join(self, conversation: str | None = None, *, name: str | None = None) -> None:
        """Say which conversation the sessions this recorder opens from now on belong to.

        A face calls it before the run opens its session (the session is
        recorded as it opens, see :meth:`open_session`): ``--continue`` and
        ``--resume`` join the conversation of the session they go on with, a
        named session (``acphost -s NAME``) the conversation of its name.
        Without a call each session starts a conversation of its own.

        Args:
            conversation: a session's history id (or a conversation's id) the
                sessions go on from; one no longer in the store is ignored.
            name: the named session they run as: without ``conversation``
                (or when it is gone) they join the newest conversation of that
                name of the same agent and directory this machine recorded,
                else start one of that name.

        """
        self._join = conversation
        self._name = name

    def open_session(
        self,
        agent_name: str,
        command: Sequence[str],
        cwd: str,
        session: Session,
        *,
        events: EventStream | None = None,
        sandbox: dict[str, Any] | None = None,
        protocol: int | None = None,
        conversation: str | None = None,
        name: str | None = None,
    ) -> SessionRecording:
        """Start recording an open session.

        Args:
            agent_name: the agent's name (``-a``).
            command: the agent's argv (secret-looking values are redacted).
            cwd: the session's working directory.
            session: the session; its turns are recorded from now on.
            events: the event stream to observe (default: the session's
                client's, :attr:`AcpClient.events <acphost.AcpClient.events>`).
            sandbox: the OS sandbox the agent runs in, as the history keeps it
                (:func:`~acphost.history.sandbox_record`); None: not said.
            protocol: the ACP protocol version the session's connection agreed
                on (:attr:`AcpClient.protocol_version
                <acphost.AcpClient.protocol_version>`); None: the session's own
                connection's.
            conversation: the conversation this session goes on (a session's
                or a conversation's id: a TUI tab passes its recording's
                ``conversation``); default: the one given to :meth:`join`,
                else a new one (see :meth:`join`).
            name: the named session it runs as (default: :meth:`join`'s).

        Returns:
            The recording: call ``close`` at the end (a turn still running
            is then kept as incomplete).

        A session that earlier runs recorded (``--continue``) is told the cost
        the agent last reported for it (:meth:`Session.set_recorded_cost`),
        unless the agent has reported one since: ``session/load`` and
        ``session/resume`` report none, and without it the next turn's cost,
        and a budget on it, would have no start to count from.

        """
        usage = session.state.usage
        if usage is None or usage.cost is None:
            found: list[tuple[float, str] | None] = []
            self.write(lambda store: found.append(store.reported_cost(agent_name, session.id)))
            if found and found[0] is not None:
                amount, currency = found[0]
                session.set_recorded_cost(s.Cost(amount=amount, currency=currency))
        join = conversation if conversation is not None else self._join
        name = name if name is not None else self._name
        joined: list[str | None] = []
        # A session the agent reopened (load, resume) goes on with the
        # conversation it was recorded in, whichever face reopened it (a new
        # session's id says nothing: simple agents reuse theirs).
        reopened = session.id if getattr(session, "opened_how", None) in _REOPENED else None
        if join is not None or name is not None or reopened is not None:
            self.write(
                lambda store: joined.append(
                    store.find_conversation(
                        join=join,
                        agent=agent_name,
                        cwd=cwd,
                        name=name,
                        agent_session_id=reopened,
                    )
                )
            )
        record = SessionRecord(
            id=uuid.uuid4().hex,
            agent=agent_name,
            command=tuple(command),
            cwd=cwd,
            started_at=now(),
            agent_session_id=session.id,
            title=session.state.title,
            system_prompt=session.state.system_prompt,
            sandbox=sandbox_record(sandbox),
            protocol=protocol_record(
                protocol if protocol is not None else session.protocol_version
            ),
        )
        return SessionRecording(
            self, record, session, events, conversation=joined[0] if joined else None, name=name
        )

    def close(self) -> None:
        """Close the store. Idempotent."""
        if self.store is not None:
            self.store.close()
