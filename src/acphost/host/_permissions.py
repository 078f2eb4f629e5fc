"""The permission broker: the one object the client asks about permissions.

It answers the agent's ``session/request_permission`` (:meth:`PermissionBroker.request`)
and mediates operations the agent did not ask about (:meth:`PermissionBroker.check`):
the host is in charge, so every file and terminal operation passes the policy
whether or not the agent asked permission first.

Decisions, and why:

* Options are chosen **by kind, never by id** (ids are the agent's opaque
  strings). Allow prefers ``allow_once`` (``allow_always`` for an "always"
  verdict) and falls back to the other allow kind; reject likewise. With no
  option of the wanted kind at all, an allow picks a reject option (the safe
  side) and a reject with no reject option answers ``cancelled``.
* ``always`` verdicts are remembered per session under the operation and
  the facts :func:`~acphost.host.describe_request` shows for the request, in full:
  an "always" covers exactly what the prompt showed (title, tool name, kind,
  argv or shell line, cwd, environment, resolved paths) and nothing more, so
  "always allow `git status`" does not allow ``rm``, whatever the title says.
  With ``remember_per_agent`` the memory is shared by every session of this
  broker (make one broker per agent).
* Protected paths (``PermissionRequest.protected``: git hooks and config,
  ``.acphost``, the host's output files) are written only when the policy's
  verdict comes from a rule naming them (``Verdict.names_protected``): any
  other allow, an "always" remembered earlier, a grant from earlier in the
  turn and a human's answer to a prompt no rule named are all refused, and
  the human is not asked.
* An ``ask`` verdict marked ``per_turn`` (a rule's ``"once": "turn"``) is
  asked once per turn: the answer covers the same request (every fact the
  question showed) until :meth:`PermissionBroker.begin_turn`, never a
  protected path.
* ``cancel_session`` resolves every pending request of the session as
  ``cancelled`` at once, and answers new ones ``cancelled`` until
  :meth:`PermissionBroker.begin_turn` (ACP "Cancellation": the client MUST
  answer pending permission requests with ``cancelled``).
* A mediated operation the agent already obtained an allow for in this turn
  passes without asking again, and only for what the allowed request's kind
  covers: a write needs an allowed ``edit``, ``delete`` or ``move`` request
  (or mediated write) naming that path; a terminal needs an allowed
  ``execute`` request (or mediated terminal) for the same command (argv,
  shell line or ``sh -c`` line: the same words) in the same directory,
  environment included; a read needs an allowed ``read`` request (or
  mediated read) naming that path (an allowed edit is no grant to read the
  file's old content). An allowed ``read`` grants no write and no command,
  so a read-only policy cannot be stretched into either by a tool call that
  names them in its locations or ``rawInput``.
* A denied mediated operation raises :class:`~acphost.InternalError` (-32603):
  the schema's ``ErrorCode`` says -32603 is "reserved for implementation-defined
  server errors". -32602 would tell the agent its parameters are malformed,
  -32000 starts an authentication flow and -32002 claims the file is missing.
  ``data`` is ``{"reason": "permission_denied"}`` so programs can tell.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

from ..errors import InternalError, RequestCancelled
from ..redact import Redactor
from ._audit import AuditLog
from ._policy import AllowReads, Decision, Interactive, PermissionPolicy, Verdict
from ._request import (
    OPERATION_FS_READ,
    OPERATION_FS_WRITE,
    OPERATION_TERMINAL_CREATE,
    OPERATION_TOOL_CALL,
    PermissionRequest,
    request_facts,
)

__all__ = ["DecisionObserver", "PermissionBroker", "PermissionOutcome"]

_log = logging.getLogger("acphost.host.permissions")

_StickyKey = tuple[str, tuple[tuple[str, str], ...]]
# The tool kinds whose allowed permission request lets the agent write the
# request's paths; only "execute" lets it run the request's command.
_WRITE_KINDS = frozenset({"edit", "delete", "move"})
_EXECUTE_KIND = "execute"


@dataclass(frozen=True, slots=True)
class PermissionOutcome:
    """The answer to a ``session/request_permission``.

    Attributes:
        option_id: the chosen option's id, or ``None`` when cancelled.
        option_kind: the chosen option's kind, or ``None`` when cancelled.
        decision: ``allow``, ``reject`` or ``cancelled``, for the host's UI.
        reason: why, as recorded in the audit log.

    """

    option_id: str | None
    option_kind: str | None = None
    decision: str = "cancelled"
    reason: str = ""

    @property
    def cancelled(self) -> bool:
        """``True`` when the answer is the ``cancelled`` outcome.

        The decision, not the missing option: a mediated operation (a file
        read, a terminal) has no option and is allowed or rejected all the same.
        """
        return self.decision == "cancelled"


#: ``observer(request, outcome, asked)``: told every decision the broker
#: records (the audit log's line), ``asked`` True for the agent's own
#: ``session/request_permission`` and False for an operation it mediated
#: (whose outcome has no option: read its ``decision``). Called inline; an
#: observer that raises is logged and the decision stands.
DecisionObserver = Callable[[PermissionRequest, PermissionOutcome, bool], None]


@dataclass
class _SessionState:
    cancelled: bool = False
    pending: set[asyncio.Future[Verdict]] = field(default_factory=set)
    sticky: dict[_StickyKey, Verdict] = field(default_factory=dict)
    # This turn's grants, typed: paths the agent may write, commands it may run.
    write_paths: set[str] = field(default_factory=set)
    read_paths: set[str] = field(default_factory=set)
    commands: set[object] = field(default_factory=set)
    # This turn's answers to questions asked "once per turn" (Verdict.per_turn).
    turn_answers: dict[_StickyKey, Verdict] = field(default_factory=dict)


def _sticky_key(request: PermissionRequest) -> _StickyKey:
    """What an ``always`` verdict covers: every fact a prompt shows, in full, nothing more."""
    return (request.operation, tuple(request_facts(request)))


class PermissionBroker:
    """Decides permission requests with a policy, remembers, audits and mediates.

    Args:
        policy: the policy; :class:`AllowReads` by default.
        ask: the policy consulted when ``policy`` answers ``ask`` (usually an
            :class:`Interactive`); without one, ``ask`` means reject.
        audit_log: a path or text stream for the JSONL audit log, or ``None``.
        redactor: what masks secrets in the audit log (the host's configured
            :class:`~acphost.trace.Redactor`).
        remember_per_agent: share ``always`` decisions between the sessions of
            this broker instead of forgetting them with the session.

    """

    def __init__(
        self,
        policy: PermissionPolicy | None = None,
        *,
        ask: PermissionPolicy | None = None,
        audit_log: str | os.PathLike[str] | IO[str] | None = None,
        redactor: Redactor | None = None,
        remember_per_agent: bool = False,
    ) -> None:
        self._policy: PermissionPolicy = policy if policy is not None else AllowReads()
        self._ask = ask
        self._audit = AuditLog(audit_log, redactor=redactor) if audit_log is not None else None
        self._per_agent = remember_per_agent
        self._agent_sticky: dict[_StickyKey, Verdict] = {}
        self._sessions: dict[str, _SessionState] = {}
        self._closed = False
        self._observers: tuple[DecisionObserver, ...] = ()

    def observe(self, observer: DecisionObserver) -> Callable[[], None]:
        """Tell ``observer`` every decision from now on, as it is recorded.

        The client's host bridge turns them into
        :class:`~acphost.client.PermissionDecided` events.

        Args:
            observer: see :data:`DecisionObserver`.

        Returns:
            A function that stops telling it (calling it twice is harmless).

        """
        self._observers = (*self._observers, observer)

        def forget() -> None:
            self._observers = tuple(o for o in self._observers if o is not observer)

        return forget

    def _state(self, session_id: str) -> _SessionState:
        state = self._sessions.get(session_id)
        if state is None:
            state = self._sessions[session_id] = _SessionState()
        # A closed broker answers everything "cancelled" (the client is going away).
        state.cancelled = state.cancelled or self._closed
        return state

    async def request(self, request: PermissionRequest) -> PermissionOutcome:
        """Answer the agent's ``session/request_permission``.

        Args:
            request: the request, with the agent's options.

        Returns:
            The selected option (chosen by kind) or the cancelled outcome.

        """
        state = self._state(request.session_id)
        if state.cancelled:
            return self._finish(request, PermissionOutcome(None, reason="turn cancelled"))
        verdict = await self._verdict(state, request)
        if verdict is None:
            return self._finish(request, PermissionOutcome(None, reason="turn cancelled"))
        outcome = _choose(request, verdict)
        if outcome.decision == "allow":
            self._grant(state, request)
        return self._finish(request, outcome)

    async def check(self, request: PermissionRequest) -> None:
        """Mediate an operation the agent did not ask permission for.

        Call it before serving ``fs/read_text_file``
        (:meth:`PermissionRequest.for_fs_read`), ``fs/write_text_file``
        (:meth:`PermissionRequest.for_fs_write`) or ``terminal/create``
        (:meth:`PermissionRequest.for_terminal`), with the canonical paths
        the jail resolved.

        Args:
            request: the operation.

        Raises:
            InternalError: the policy denied it (-32603, ``data.reason`` is
                ``"permission_denied"``); answer the agent with it.
            RequestCancelled: the session's turn was cancelled.

        """
        state = self._state(request.session_id)
        if state.cancelled:
            self._mediated(request, "cancelled", "turn cancelled")
            raise RequestCancelled("the turn was cancelled; the operation was not performed")
        if self._granted(state, request):
            self._mediated(request, "allow", "allowed earlier in this turn")
            return
        verdict = await self._verdict(state, request)
        if verdict is None:
            self._mediated(request, "cancelled", "turn cancelled")
            raise RequestCancelled("the turn was cancelled; the operation was not performed")
        if verdict.decision is Decision.ALLOW:
            self._grant(state, request)
            self._mediated(request, "allow", verdict.reason)
            return
        self._mediated(request, "reject", verdict.reason)
        raise InternalError(
            f"permission denied by the host's policy: {_describe(request)}"
            + (f" ({verdict.reason})" if verdict.reason else ""),
            {"reason": "permission_denied"},
        )

    def cancel_session(self, session_id: str) -> None:
        """Resolve the session's pending requests as cancelled, and refuse new ones.

        New requests of the session are answered ``cancelled`` (mediation
        raises :class:`RequestCancelled`) until :meth:`begin_turn`. A pending
        interactive prompt sees its task cancelled and should close itself.

        Args:
            session_id: the session whose turn is cancelled.

        """
        state = self._state(session_id)
        state.cancelled = True
        for pending in list(state.pending):
            pending.cancel()
        _log.info("session %s cancelled: %d pending request(s)", session_id, len(state.pending))

    def begin_turn(self, session_id: str) -> None:
        """Start a new prompt turn: accept requests again and forget this turn's grants.

        Args:
            session_id: the session starting a ``session/prompt``.

        """
        state = self._state(session_id)
        state.cancelled = self._closed
        state.write_paths.clear()
        state.read_paths.clear()
        state.commands.clear()
        state.turn_answers.clear()

    def forget_session(self, session_id: str) -> None:
        """Drop everything remembered for a session (its sticky decisions too).

        Args:
            session_id: the closed session.

        """
        state = self._sessions.pop(session_id, None)
        if state is not None:
            for pending in state.pending:
                pending.cancel()

    def close(self) -> None:
        """Cancel every pending request and close the audit log. Idempotent.

        The client calls it when it closes, also for a broker the host passed
        in. Afterwards every request is answered ``cancelled`` (mediation
        raises :class:`RequestCancelled`) and nothing more is audited.
        """
        self._closed = True
        for session_id in list(self._sessions):
            self.cancel_session(session_id)
        if self._audit is not None:
            self._audit.close()
            self._audit = None

    # -- internals -------------------------------------------------------------

    async def _verdict(self, state: _SessionState, request: PermissionRequest) -> Verdict | None:
        """Sticky memory, then the policy, then the ask handler; ``None`` if cancelled."""
        key = _sticky_key(request)
        protected = bool(request.protected)
        remembered = None if protected else state.sticky.get(key)
        if remembered is None and self._per_agent and not protected:
            remembered = self._agent_sticky.get(key)
        if remembered is not None:
            return Verdict(remembered.decision, False, f"remembered: {remembered.reason}".strip())
        if protected and isinstance(self._policy, Interactive):
            # A human's answer never names a protected path: do not ask in vain.
            return Verdict.reject(_protected_reason(request))
        verdict = await self._run(state, self._policy, request)
        if verdict is not None and protected and not verdict.names_protected:
            reason = _protected_reason(request)
            if verdict.decision is Decision.REJECT and verdict.reason:
                reason = f"{verdict.reason}; {reason}"
            return Verdict.reject(reason)
        if verdict is not None and verdict.decision is Decision.ASK:
            per_turn = verdict.per_turn and not protected
            answered = state.turn_answers.get(key) if per_turn else None
            if answered is not None:
                verdict = Verdict(
                    answered.decision, False, f"answered earlier in this turn: {answered.reason}"
                )
            elif self._ask is None:
                verdict = Verdict.reject(
                    f"{verdict.reason + ': ' if verdict.reason else ''}"
                    "asking is not possible (non-interactive)"
                )
            else:
                verdict = await self._run(state, self._ask, request)
                if verdict is not None and verdict.decision is Decision.ASK:
                    verdict = Verdict.reject("the prompt gave no decision")
                if verdict is not None and per_turn:
                    state.turn_answers[key] = verdict
        if verdict is not None and verdict.always and not protected:
            state.sticky[key] = verdict
            if self._per_agent:
                self._agent_sticky[key] = verdict
        return verdict

    async def _run(
        self, state: _SessionState, policy: PermissionPolicy, request: PermissionRequest
    ) -> Verdict | None:
        task: asyncio.Future[Verdict] = asyncio.ensure_future(policy.decide(request))
        state.pending.add(task)
        try:
            await asyncio.wait({task})
        finally:
            state.pending.discard(task)
            if not task.done():
                task.cancel()  # we were cancelled ourselves ($/cancel_request)
        if task.cancelled() or state.cancelled:
            return None
        exc = task.exception()
        if exc is not None:
            _log.error("permission policy %r failed; rejecting", policy, exc_info=exc)
            return Verdict.reject("the permission policy failed")
        verdict = task.result()
        if not isinstance(verdict, Verdict):
            _log.error("permission policy %r returned %r; rejecting", policy, verdict)
            return Verdict.reject("the permission policy gave no verdict")
        return verdict

    def _grant(self, state: _SessionState, request: PermissionRequest) -> None:
        """Remember what an allowed request lets later mediated operations do.

        Typed by kind: a ``read`` (or any other kind) that names a path or a
        command in its raw input grants nothing.
        """
        if request.operation == OPERATION_TOOL_CALL:
            writes = request.tool_kind in _WRITE_KINDS
            runs = request.tool_kind == _EXECUTE_KIND
            reads = request.tool_kind == "read"
        else:
            writes = request.operation == OPERATION_FS_WRITE
            runs = request.operation == OPERATION_TERMINAL_CREATE
            reads = request.operation == OPERATION_FS_READ
        if writes:
            state.write_paths.update(os.path.normpath(p) for p in request.paths)
        if reads:
            state.read_paths.update(os.path.normpath(p) for p in request.paths)
        key = request.command_key
        if runs and key is not None:
            state.commands.add((request.cwd, key))

    def _granted(self, state: _SessionState, request: PermissionRequest) -> bool:
        """Tell whether an allow earlier in the turn covers this mediated operation.

        The tool call id is not enough: the agent chooses it, and one tool
        call's allow must not cover a different path or command.
        """
        if request.protected:
            return False  # only a rule naming it opens a protected path, every time
        if request.operation == OPERATION_TERMINAL_CREATE:
            key = request.command_key
            return key is not None and (request.cwd, key) in state.commands
        if request.operation == OPERATION_FS_WRITE and request.paths:
            return all(os.path.normpath(p) in state.write_paths for p in request.paths)
        if request.operation == OPERATION_FS_READ and request.paths:
            return all(os.path.normpath(p) in state.read_paths for p in request.paths)
        return False

    def _finish(self, request: PermissionRequest, outcome: PermissionOutcome) -> PermissionOutcome:
        self._record(request, outcome, asked=True)
        return outcome

    def _mediated(self, request: PermissionRequest, decision: str, reason: str) -> None:
        self._record(request, PermissionOutcome(None, None, decision, reason), asked=False)

    def _record(
        self, request: PermissionRequest, outcome: PermissionOutcome, *, asked: bool
    ) -> None:
        decision, option_kind, reason = outcome.decision, outcome.option_kind, outcome.reason
        _log.info(
            "permission %s for session %s tool call %s (%s, kind %s): %s%s",
            decision,
            request.session_id,
            request.tool_call_id,
            request.operation,
            request.kind,
            option_kind or "-",
            f" ({reason})" if reason else "",
        )
        if self._audit is not None:
            self._audit.record(request, decision, option_kind=option_kind, reason=reason)
        for observer in self._observers:
            try:
                observer(request, outcome, asked)
            except Exception:
                _log.exception("a permission decision observer failed")


def _choose(request: PermissionRequest, verdict: Verdict) -> PermissionOutcome:
    """Pick an option by kind for a verdict (see the module docstring)."""
    by_kind: dict[str, str] = {}
    for option in request.options:
        by_kind.setdefault(option.kind, option.option_id)

    def pick(preferred: tuple[str, ...]) -> tuple[str, str] | None:
        for kind in preferred:
            if kind in by_kind:
                return by_kind[kind], kind
        return None

    allow = ("allow_once", "allow_always")
    reject = ("reject_once", "reject_always")
    if verdict.always:
        allow, reject = allow[::-1], reject[::-1]
    reason = verdict.reason
    if verdict.decision is Decision.ALLOW:
        chosen = pick(allow)
        if chosen is not None:
            return PermissionOutcome(chosen[0], chosen[1], "allow", reason)
        reason = f"{reason}; but the agent offered no allow option".lstrip("; ")
    chosen = pick(reject)
    if chosen is not None:
        return PermissionOutcome(chosen[0], chosen[1], "reject", reason)
    return PermissionOutcome(None, None, "cancelled", f"{reason}; no reject option".lstrip("; "))


def _protected_reason(request: PermissionRequest) -> str:
    areas = ", ".join(request.protected)
    return (
        f"{areas} is protected (git metadata, the user's git and shell startup files, "
        "acphost's settings, history and own files are never touched on a general "
        "permission); only a permission rule whose path names "
        "it can allow this"
    )


def _describe(request: PermissionRequest) -> str:
    if request.operation == OPERATION_FS_READ and request.paths:
        return "reading " + ", ".join(request.paths)
    if request.operation == OPERATION_FS_WRITE and request.paths:
        return "writing " + ", ".join(request.paths)
    if request.operation == OPERATION_TERMINAL_CREATE and request.command:
        return f"running {request.command!r}"
    return request.title or request.operation
