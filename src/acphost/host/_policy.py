"""Permission models and the built-in policies.

A :class:`PermissionPolicy` looks at a :class:`PermissionRequest` and returns a
:class:`Verdict`: allow, reject or ask, with a reason. It never sees the
agent's option ids: the :class:`~acphost.host.PermissionBroker` maps the verdict
to an option *by kind* (ACP "Requesting Permission": option ids are opaque).
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from ._request import (
    OPERATION_FS_READ,
    OPERATION_TOOL_CALL,
    PermissionOption,
    PermissionRequest,
)

__all__ = [
    "READ_ONLY_TOOL_KINDS",
    "AllowAll",
    "AllowReads",
    "Decision",
    "DenyAll",
    "Interactive",
    "PermissionOption",
    "PermissionPolicy",
    "PermissionRequest",
    "Verdict",
]

_log = logging.getLogger("acphost.host.permissions")

READ_ONLY_TOOL_KINDS: frozenset[str] = frozenset({"read", "search", "think", "switch_mode"})
"""Tool kinds :class:`AllowReads` allows (``ToolKind`` in the schema).

``read``, ``search`` and ``think`` touch nothing. ``switch_mode`` only changes
the agent's mode; edits made in the new mode still pass this policy (and the
host's mediation), and it is only ever allowed *once*, so a mode such as
"accept edits" is not made sticky. ``fetch`` is **not** included: fetching a
URL the agent chose can carry workspace data out (exfiltration).
"""


class Decision(str, enum.Enum):
    """What a policy wants done with a request."""

    ALLOW = "allow"
    REJECT = "reject"
    ASK = "ask"


@dataclass(frozen=True, slots=True)
class Verdict:
    """A policy's answer.

    Attributes:
        decision: allow, reject or ask (defer to the interactive handler).
        always: remember the decision for the session (``*_always`` options).
        reason: why, for the audit log and error messages (e.g. "rule 3 in
            policy.json"); never file contents.
        names_protected: the verdict comes from a rule that names every
            protected area of the request (``PermissionRequest.protected``);
            without it the broker refuses to write there, whatever the decision.
        per_turn: an ``ask`` whose answer the broker keeps for the rest of
            the turn: the same request (every fact the question showed) is
            not asked again until the next prompt.

    """

    decision: Decision
    always: bool = False
    reason: str = ""
    names_protected: bool = False
    per_turn: bool = False

    @classmethod
    def allow(cls, reason: str = "", *, always: bool = False) -> Verdict:
        """Build an allow verdict.

        Args:
            reason: why, for the audit log.
            always: remember it for the rest of the session.

        Returns:
            The verdict.

        """
        return cls(Decision.ALLOW, always, reason)

    @classmethod
    def reject(cls, reason: str = "", *, always: bool = False) -> Verdict:
        """Build a reject verdict.

        Args:
            reason: why, for the audit log and the agent's error message.
            always: remember it for the rest of the session.

        Returns:
            The verdict.

        """
        return cls(Decision.REJECT, always, reason)

    @classmethod
    def ask(cls, reason: str = "", *, per_turn: bool = False) -> Verdict:
        """Build an ask verdict: defer to the broker's interactive handler.

        Args:
            reason: why, for the audit log.
            per_turn: keep the answer for the rest of the turn (ask once per turn).

        Returns:
            The verdict.

        """
        return cls(Decision.ASK, False, reason, per_turn=per_turn)


class PermissionPolicy(Protocol):
    """Decides permission requests; implement :meth:`decide`."""

    async def decide(self, request: PermissionRequest) -> Verdict:
        """Decide one request.

        Args:
            request: what is asked.

        Returns:
            The verdict. ``ask`` defers to the broker's interactive handler,
            or rejects when there is none.

        """
        ...


class DenyAll:
    """Rejects everything."""

    async def decide(self, request: PermissionRequest) -> Verdict:
        """Reject the request.

        Args:
            request: what is asked.

        Returns:
            A reject verdict.

        """
        return Verdict.reject("the host denies every operation (deny-all policy)")


class AllowAll:
    """Allows everything, once at a time (the broker still audits each request)."""

    async def decide(self, request: PermissionRequest) -> Verdict:
        """Allow the request.

        Args:
            request: what is asked.

        Returns:
            An allow verdict (not sticky).

        """
        return Verdict.allow("allow-all policy")


class AllowReads:
    """The default: allow read-only tool kinds, reject the rest.

    The allowed kinds are :data:`READ_ONLY_TOOL_KINDS`, and the host's own
    file reads; a request without a kind, with an unknown kind, or a mediated
    write or terminal is rejected.
    """

    async def decide(self, request: PermissionRequest) -> Verdict:
        """Allow read-only tool kinds; reject everything else.

        Args:
            request: what is asked.

        Returns:
            The verdict, never sticky.

        """
        kind = request.kind
        if request.operation == OPERATION_FS_READ:
            return Verdict.allow("file reads are allowed (read-only policy)")
        if request.operation == OPERATION_TOOL_CALL and kind in READ_ONLY_TOOL_KINDS:
            return Verdict.allow(f"read-only tool kind {kind!r}")
        shown = repr(kind) if kind else "unknown"
        return Verdict.reject(f"tool kind {shown} is not read-only (read-only policy)")


InteractiveCallback = Callable[[PermissionRequest], Awaitable[Verdict]]
"""The callback an :class:`Interactive` policy calls: show the request, return a verdict."""


class Interactive:
    """Asks a human through a callback the CLI or TUI implements.

    Args:
        callback: an async function that shows the request and returns the
            user's verdict; ``Verdict.allow(always=True)`` for "always allow".
            An ``ask`` answer, an exception or a non-verdict counts as reject.

    """

    __slots__ = ("_callback",)

    def __init__(self, callback: InteractiveCallback) -> None:
        self._callback = callback

    async def decide(self, request: PermissionRequest) -> Verdict:
        """Ask the user.

        Args:
            request: what is asked.

        Returns:
            The user's verdict, or a reject if the prompt failed.

        """
        try:
            verdict = await self._callback(request)
        except Exception:
            _log.exception("the interactive permission prompt failed; rejecting")
            return Verdict.reject("the interactive permission prompt failed")
        if not isinstance(verdict, Verdict) or verdict.decision is Decision.ASK:
            return Verdict.reject("the interactive prompt gave no decision")
        return verdict
