"""The command line's permission choices.

The default follows seeds/003 §17.2: reads and terminals are advertised;
writing operations (file writes; ``edit``, ``delete`` and ``move`` tool kinds)
are allowed only with ``--write``/``--yolo``; other operations are allowed.
Every decision still goes through a policy, so ``--permission-policy`` can
deny anything.
"""

from __future__ import annotations

import asyncio
import os
import sys

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

__all__ = ["CliDefaultPolicy", "build_broker"]

WRITE_KINDS = frozenset({"edit", "delete", "move"})


class CliDefaultPolicy:
    """Allow everything but writing operations, which need ``--write``.

    Args:
        write: whether ``--write``/``--yolo`` was given.

    """

    def __init__(self, *, write: bool) -> None:
        self.write = write

    async def decide(self, request: PermissionRequest) -> Verdict:
        """Reject writing operations unless writes were enabled; allow the rest."""
        if request.kind in WRITE_KINDS and not self.write:
            return Verdict.reject("writing operations need --write (or --yolo)")
        return Verdict.allow("allowed by the command line's default policy")


def _describe(request: PermissionRequest) -> str:
    parts = [request.title or request.kind or "an operation"]
    if request.command:
        parts.append(f"command: {request.command}")
    parts.extend(f"path: {p}" for p in request.paths)
    return "\n  ".join(parts)


async def ask_on_tty(request: PermissionRequest) -> Verdict:
    """Ask y/N (or a = always) on the controlling terminal; anything else rejects."""

    def ask() -> str:
        # Two handles: a tty opened "r+" in text mode is not seekable and fails.
        with (
            open("/dev/tty", "w", encoding="utf-8") as out,
            open("/dev/tty", encoding="utf-8") as inp,
        ):
            out.write(
                f"\nacphost: the agent asks to run\n  {_describe(request)}\nallow? [y/N/a=always] "
            )
            out.flush()
            return inp.readline().strip().lower()

    try:
        answer = await asyncio.to_thread(ask)
    except OSError:
        return Verdict.reject("no terminal to ask on")
    if answer in ("a", "always"):
        return Verdict.allow("allowed always by the user", always=True)
    if answer in ("y", "yes"):
        return Verdict.allow("allowed by the user")
    return Verdict.reject("rejected by the user")


def build_broker(
    *,
    approve: str | None,
    policy_file: str | None,
    write: bool,
    ask: bool,
    audit_log: str | None,
) -> PermissionBroker:
    """The broker for the CLI's flags.

    Args:
        approve: ``all``, ``reads``, ``deny`` or None (the default policy).
        policy_file: a rules file (``--permission-policy``).
        write: writes were enabled.
        ask: ``--ask``: rules answering ``ask`` (and the default) prompt y/N on the TTY.
        audit_log: a JSONL file for every decision.

    Raises:
        PolicyFileError: the rules file is unreadable or malformed.

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
    elif ask and sys.stdin is not None:
        policy = Interactive(ask_on_tty)
    else:
        policy = CliDefaultPolicy(write=write)
    asker = Interactive(ask_on_tty) if ask else None
    return PermissionBroker(policy, ask=asker, audit_log=audit_log)
