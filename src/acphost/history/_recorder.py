"""Recording sessions into the history as they happen.

A face attaches a :class:`HistoryRecorder` (the library never records on its
own)::

    recorder = HistoryRecorder.open(redactor=redactor)       # never raises
    async with AcpClient.start(argv, tap=recorder.tap) as client:
        session = await client.new_session(cwd)
        recording = recorder.open_session(name, argv, cwd, session)
        turn = session.prompt(prompt)
        recording.begin_turn(prompt)
        result = await turn
        recording.record_turn(prompt, result)
        recording.close()
    recorder.close()

The per-update listener only appends to lists in memory; the store is
written twice per turn (its start, then the whole turn in one transaction)
and once when the session ends. A store that cannot be used (damaged,
locked, unwritable) costs one warning on stderr: the run goes on and nothing
more is written. The optional :attr:`HistoryRecorder.tap` sees the frames of
the connection and records the answers to ``session/request_permission``;
it takes a block of received frames in one call (see ``acphost.rpc``'s
taps), so a flood of updates costs it one search per block, not one call
per frame.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .. import schema as s
from ..redact import Redactor
from ._errors import HistoryError, SessionRemovedError
from ._model import SessionRecord, now
from ._recording import SessionRecording
from ._store import DEFAULT_TIMEOUT, HistoryStore

if TYPE_CHECKING:
    from ..client import Session

__all__ = ["HistoryRecorder", "PermissionTap"]

Warn = Callable[[str], None]

_PERMISSION_METHOD = b'"' + s.SESSION_REQUEST_PERMISSION.encode() + b'"'


def _warn_stderr(message: str) -> None:
    print(f"acphost: warning: {message}", file=sys.stderr, flush=True)


class PermissionTap:
    """A recorder's frame tap (:attr:`HistoryRecorder.tap`): records permission answers.

    It parses only ``session/request_permission`` requests and, while one is
    pending, the frames the host sends. Called as a tap, one frame at a
    time, or with :meth:`receive_block`, a block of received frames at once.

    Args:
        recorder: the recorder whose recordings the answers belong to.

    """

    __slots__ = ("_recorder",)

    def __init__(self, recorder: HistoryRecorder) -> None:
        self._recorder = recorder

    def __call__(self, direction: str, line: bytes) -> None:
        """See one frame (``"receive"`` or ``"send"``), its exact bytes."""
        recorder = self._recorder
        if direction == "receive":
            if _PERMISSION_METHOD in line and recorder._recordings:
                recorder._asked_permission(line)
        elif recorder._asked:
            recorder._answered_permission(line)

    def receive_block(self, block: bytes) -> None:
        """See a block of received frames (whole lines, each ending with a newline).

        One search of the whole block: a flood of updates holds no
        permission request, and its lines are never split or looked at.
        """
        recorder = self._recorder
        if _PERMISSION_METHOD in block and recorder._recordings:
            for line in block.split(b"\n"):
                if _PERMISSION_METHOD in line:
                    recorder._asked_permission(line)


class HistoryRecorder:
    """Records the sessions of one run into a :class:`HistoryStore`.

    Args:
        store: the open store, or ``None`` for a recorder that records nothing.
        redactor: the host's redactor; every record passes it before it is stored.
        warn: how to tell the user the store failed (default: one line on stderr).

    Attributes:
        tap: the frame tap that records permission answers
            (``AcpClient.start(..., tap=recorder.tap)``); see :class:`PermissionTap`.

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
        self._recordings: dict[str, SessionRecording] = {}
        self._asked: dict[Any, tuple[str, str | None, dict[str, str | None]]] = {}
        self.tap = PermissionTap(self)

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

    def open_session(
        self, agent_name: str, command: Sequence[str], cwd: str, session: Session
    ) -> SessionRecording:
        """Start recording an open session.

        Args:
            agent_name: the agent's name (``-a``).
            command: the agent's argv (secret-looking values are redacted).
            cwd: the session's working directory.
            session: the session; its updates are recorded from now on.

        Returns:
            The recording: call ``record_turn`` after each turn, ``close`` at the end.

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
        record = SessionRecord(
            id=uuid.uuid4().hex,
            agent=agent_name,
            command=tuple(command),
            cwd=cwd,
            started_at=now(),
            agent_session_id=session.id,
            title=session.state.title,
        )
        recording = SessionRecording(self, record, session)
        if self.enabled:
            self._recordings[session.id] = recording
        return recording

    def _asked_permission(self, line: bytes) -> None:
        try:
            msg = json.loads(line)
            params = msg["params"]
            call = params["toolCall"]
            options = {o["optionId"]: o.get("kind") for o in params.get("options", ())}
            self._asked[msg["id"]] = (params["sessionId"], call.get("toolCallId"), options)
        except (ValueError, KeyError, TypeError, AttributeError):
            return  # malformed: the client answers it with an error; nothing to record

    def _answered_permission(self, line: bytes) -> None:
        try:
            msg = json.loads(line)
        except ValueError:
            return
        if not isinstance(msg, dict) or "method" in msg:
            return
        asked = self._asked.pop(msg.get("id"), None)
        if asked is None:
            return
        session_id, call_id, options = asked
        recording = self._recordings.get(session_id)
        if recording is None:
            return
        outcome = (msg.get("result") or {}).get("outcome") or {}
        option_id = outcome.get("optionId") if outcome.get("outcome") == "selected" else None
        kind = options.get(option_id) if option_id is not None else None
        if option_id is None:
            decision = "cancelled" if "result" in msg else "error"
        else:
            decision = "allow" if (kind or "").startswith("allow") else "reject"
        recording.add_permission(call_id, decision, kind, option_id)

    def _forget(self, recording: SessionRecording) -> None:
        if self._recordings.get(recording.agent_session_id) is recording:
            del self._recordings[recording.agent_session_id]

    def close(self) -> None:
        """Close the store. Idempotent."""
        if self.store is not None:
            self.store.close()
