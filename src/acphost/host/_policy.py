"""Permission models and the built-in policies.

A :class:`PermissionPolicy` looks at a :class:`PermissionRequest` and returns a
:class:`Verdict`: allow, reject or ask, with a reason. It never sees the
agent's option ids: the :class:`~acphost.host.PermissionBroker` maps the verdict
to an option *by kind* (ACP "Requesting Permission": option ids are opaque).
"""

from __future__ import annotations

import enum
import logging
import os
import shlex
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

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

# The operation a request describes. "tool_call" is the agent's own
# session/request_permission; the others are the host mediating a request the
# agent made without asking (DESIGN.md "The host is in charge").
OPERATION_TOOL_CALL = "tool_call"
OPERATION_FS_WRITE = "fs_write"
OPERATION_TERMINAL_CREATE = "terminal_create"

# The tool kind a mediated operation counts as, when the request carries none.
_KIND_OF_OPERATION = {OPERATION_FS_WRITE: "edit", OPERATION_TERMINAL_CREATE: "execute"}


@dataclass(frozen=True, slots=True)
class PermissionOption:
    """One choice the agent offers in ``session/request_permission``.

    Attributes:
        option_id: the agent's opaque id, echoed back when chosen.
        name: the label to show.
        kind: ``allow_once``, ``allow_always``, ``reject_once``,
            ``reject_always``, or an unknown string (never chosen automatically).

    """

    option_id: str
    name: str
    kind: str


@dataclass(frozen=True, slots=True)
class PermissionRequest:
    """What a policy decides on: an agent's request or a host-mediated operation.

    Attributes:
        session_id: the session asking.
        tool_call_id: the tool call concerned, when known.
        title: the tool call's title, as the agent wrote it.
        tool_kind: the ``ToolKind`` (``read``, ``edit``, ``execute``...) or ``None``.
        paths: the files concerned (tool-call locations, or the path written).
        command: the command line, for terminals and execute tools.
        options: the agent's options (empty for mediated operations).
        raw_input: the tool call's raw input, for display only.
        operation: ``"tool_call"``, ``"fs_write"`` or ``"terminal_create"``.

    """

    session_id: str
    tool_call_id: str | None = None
    title: str | None = None
    tool_kind: str | None = None
    paths: tuple[str, ...] = ()
    command: str | None = None
    options: tuple[PermissionOption, ...] = ()
    raw_input: object = field(default=None, compare=False)
    operation: str = OPERATION_TOOL_CALL

    @property
    def kind(self) -> str | None:
        """The tool kind, or the one a mediated operation implies (``edit``, ``execute``)."""
        return self.tool_kind or _KIND_OF_OPERATION.get(self.operation)

    @classmethod
    def for_fs_write(
        cls, session_id: str, path: str, *, tool_call_id: str | None = None
    ) -> PermissionRequest:
        """Describe an ``fs/write_text_file`` for mediation by the broker.

        Args:
            session_id: the session writing.
            path: the absolute path to be written.
            tool_call_id: the tool call it belongs to, when known.

        Returns:
            A request with operation ``fs_write`` and tool kind ``edit``.

        """
        return cls(
            session_id=session_id,
            tool_call_id=tool_call_id,
            title=f"write {path}",
            tool_kind="edit",
            paths=(os.path.normpath(path),),
            operation=OPERATION_FS_WRITE,
        )

    @classmethod
    def for_terminal(
        cls,
        session_id: str,
        command: str,
        args: Sequence[str] | None = None,
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
        tool_call_id: str | None = None,
    ) -> PermissionRequest:
        """Describe a ``terminal/create`` for mediation by the broker.

        The environment the agent asks for is part of what runs: an overlay
        such as ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_0=core.fsmonitor``,
        ``PATH`` or ``LD_PRELOAD`` turns an allowed ``git status`` into any
        program. So its ``NAME=value`` assignments, shell-quoted, come first in
        ``command`` (as a shell would spell them): a rule for ``git status``
        or ``git *`` does not match, and a prompt shows them.

        Args:
            session_id: the session creating the terminal.
            command: the command (a shell line when ``args`` is empty).
            args: the arguments, if the agent gave an argv.
            cwd: the working directory asked for, shown in ``paths``.
            env: the environment variables the agent sets, in its order.
            tool_call_id: the tool call it belongs to, when known.

        Returns:
            A request with operation ``terminal_create``, tool kind
            ``execute`` and ``command`` the shell-quoted command line,
            preceded by the environment assignments.

        """
        line = shlex.join([command, *args]) if args else command
        if env:
            assignments = [
                f"{shlex.quote(name)}={shlex.quote(value)}" for name, value in env.items()
            ]
            line = " ".join([*assignments, line])
        return cls(
            session_id=session_id,
            tool_call_id=tool_call_id,
            title=f"run {line}",
            tool_kind="execute",
            paths=(os.path.normpath(cwd),) if cwd else (),
            command=line,
            operation=OPERATION_TERMINAL_CREATE,
        )


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

    """

    decision: Decision
    always: bool = False
    reason: str = ""

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
    def ask(cls, reason: str = "") -> Verdict:
        """Build an ask verdict: defer to the broker's interactive handler.

        Args:
            reason: why, for the audit log.

        Returns:
            The verdict.

        """
        return cls(Decision.ASK, False, reason)


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

    The allowed kinds are :data:`READ_ONLY_TOOL_KINDS`; a request without a
    kind, with an unknown kind, or a mediated write or terminal is rejected.
    """

    async def decide(self, request: PermissionRequest) -> Verdict:
        """Allow read-only tool kinds; reject everything else.

        Args:
            request: what is asked.

        Returns:
            The verdict, never sticky.

        """
        kind = request.kind
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
