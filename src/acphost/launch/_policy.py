"""The permission policies the faces build from the user's flags.

Reads and terminals are advertised by default. Reads are allowed. Writing
operations (file writes; the ``edit``, ``delete`` and ``move`` tool kinds) and
commands (terminals; the ``execute`` tool kind: running a program can do
anything a write can, and more) are allowed only with ``--write``/``--yolo``,
``--approve-all``, an asker (``--ask``, the TUI's dialog) or a rule. Every
decision still goes through a policy, so ``--deny-all`` and
``--permission-policy`` can deny anything, reads included.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import IO

from ..host import (
    AllowAll,
    AllowReads,
    DenyAll,
    Interactive,
    PermissionBroker,
    PermissionPolicy,
    PermissionRequest,
    RulesPolicy,
    Verdict,
)
from ..trace import Redactor

__all__ = ["Asker", "AskPolicy", "DefaultPolicy", "build_broker"]

WRITE_KINDS = frozenset({"edit", "delete", "move"})
EXECUTE_KIND = "execute"

_NEEDS_WRITE = (
    "writing operations need --write (or --yolo), --approve-all, --ask, "
    "or an allow rule in --permission-policy"
)
_NEEDS_EXECUTE = (
    "running commands needs --write (or --yolo), --approve-all, --ask, "
    "or an allow rule in --permission-policy"
)

#: Asks the user about one request (the CLI on its terminal, the TUI in a dialog).
Asker = Callable[[PermissionRequest], Awaitable[Verdict]]


class DefaultPolicy:
    """Allow reads; writing operations and commands need ``--write``.

    Commands are gated like writes (terminals and ``execute`` tool calls):
    this is stricter than a host that runs whatever the agent asks, on
    purpose: a command can write anything and reach the network.

    Args:
        write: whether ``--write``/``--yolo`` was given.

    """

    def __init__(self, *, write: bool) -> None:
        self.write = write

    async def decide(self, request: PermissionRequest) -> Verdict:
        """Reject writing operations and commands unless writes were enabled; allow the rest.

        Args:
            request: what is asked.

        Returns:
            The verdict; a refusal names the flags that would allow it.

        """
        if request.kind in WRITE_KINDS and not self.write:
            return Verdict.reject(_NEEDS_WRITE)
        if request.kind == EXECUTE_KIND and not self.write:
            return Verdict.reject(_NEEDS_EXECUTE)
        return Verdict.allow("allowed by the command line's default policy")


class AskPolicy:
    """Ask the user about everything, except what the flags settle.

    ``--yolo`` allows everything; the host's file reads are allowed without
    asking; without ``--write`` a host-mediated file write is rejected
    outright (the agent was not offered writes anyway). Commands are asked.
    """

    def __init__(self, *, write: bool, yolo: bool) -> None:
        self.write = write
        self.yolo = yolo

    async def decide(self, request: PermissionRequest) -> Verdict:
        """Allow (yolo, file reads), reject (writes without --write) or ask.

        Args:
            request: what is asked.

        Returns:
            The verdict.

        """
        if self.yolo:
            return Verdict.allow("--yolo")
        if request.operation == "fs_read":
            return Verdict.allow("file reads are allowed")
        if request.operation == "fs_write" and not self.write:
            return Verdict.reject("file writes need --write")
        return Verdict.ask("the user is asked")


def build_broker(
    *,
    approve: str | None,
    policy_file: str | None,
    write: bool,
    yolo: bool = False,
    asker: Asker | None,
    audit_log: str | IO[str] | None,
    redactor: Redactor | None = None,
) -> PermissionBroker:
    """The broker for the user's permission flags.

    Args:
        approve: ``all``, ``reads``, ``deny`` or None (the default policy).
        policy_file: a rules file (``--permission-policy``).
        write: writes were enabled.
        yolo: ``--yolo``: with an asker, nothing is asked.
        asker: how to ask the user (``--ask``, the TUI's dialog); rules
            answering ``ask`` use it, and without a policy flag it decides
            everything the flags do not settle. None: nobody can be asked.
        audit_log: a JSONL file for every decision (a path, or a stream
            already opened with :func:`acphost.host.open_output`).
        redactor: masks the configured secrets in the audit log.

    Raises:
        PolicyFileError: the rules file is unreadable or malformed.
        OutputFileError: the audit log cannot be opened safely.

    """
    policy: PermissionPolicy
    if policy_file is not None:
        policy = RulesPolicy.from_file(os.path.expanduser(policy_file))
    elif approve == "all":
        policy = AllowAll()
    elif approve == "reads":
        policy = AllowReads()
    elif approve == "deny":
        policy = DenyAll()
    elif asker is not None:
        policy = AskPolicy(write=write, yolo=yolo)
    else:
        policy = DefaultPolicy(write=write)
    return PermissionBroker(
        policy,
        ask=Interactive(asker) if asker is not None else None,
        audit_log=os.path.expanduser(audit_log) if isinstance(audit_log, str) else audit_log,
        redactor=redactor,
    )
