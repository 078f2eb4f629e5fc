"""The permission policies the faces build from the user's flags.

Reads and terminals are advertised by default. Reads are allowed. Writing
operations (file writes; the ``edit``, ``delete`` and ``move`` tool kinds) and
commands (terminals; the ``execute`` tool kind: running a program can do
anything a write can, and more) are allowed only with ``--write``/``--yolo``,
``--approve-all``, an asker (``--ask``, the TUI's dialog) or a rule. Every
decision still goes through a policy, so ``--deny-all`` and
``--permission-policy`` can deny anything, reads included.

A face that shows no dialog (the command line without ``--ask``) passes a
:class:`Refusals` tally: every refusal is counted there by kind, protected
paths apart, so that the run can end with one line saying what was refused
and which flag would allow it, instead of an exit 0 with nothing written.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import IO

from ..host import (
    AllowAll,
    AllowReads,
    Decision,
    DenyAll,
    Interactive,
    PermissionBroker,
    PermissionPolicy,
    PermissionRequest,
    RulesPolicy,
    Verdict,
)
from ..redact import Redactor

__all__ = ["AskPolicy", "Asker", "DefaultPolicy", "Refusals", "build_broker"]

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


_KINDS_SHOWN = ("writes", "commands", "reads", "other")


def _what(request: PermissionRequest) -> str:
    """The kind of refusal a request counts as: ``writes``, ``commands``, ``reads`` or ``other``."""
    if request.kind in WRITE_KINDS or request.operation == "fs_write":
        return "writes"
    if request.kind == EXECUTE_KIND or request.operation == "terminal_create":
        return "commands"
    if request.kind == "read" or request.operation == "fs_read":
        return "reads"
    return "other"


class Refusals:
    """What the policy refused during a run, by kind, to be said once at its end.

    Without a dialog the agent's requests are answered without a word to the
    user; a run that wrote nothing and exits 0 must still say why. The
    tally is filled by the broker's policy (:func:`build_broker` wraps it)
    and read by the face when the run ends (:meth:`lines`).

    Args:
        hint: what would allow the refused requests, for the summary line
            (``use --write, --ask or --approve-all``); empty: no hint.

    """

    __slots__ = ("_kinds", "_protected", "hint")

    def __init__(self, hint: str = "") -> None:
        self.hint = hint
        self._kinds: Counter[str] = Counter()
        self._protected: dict[str, None] = {}

    def note(self, request: PermissionRequest, verdict: Verdict, *, can_ask: bool) -> None:
        """Count one decision if it refuses the request.

        Args:
            request: what was asked.
            verdict: the policy's verdict.
            can_ask: an ``ask`` verdict reaches a user (else it is refused).

        """
        if request.protected and not verdict.names_protected:
            # The broker refuses these whatever the verdict (only a rule naming them opens them).
            self._protected.update(dict.fromkeys(request.protected))
            return
        if verdict.decision is Decision.REJECT or (
            verdict.decision is Decision.ASK and not can_ask
        ):
            self._kinds[_what(request)] += 1

    def take_lines(self) -> list[str]:
        """The summary so far (see :meth:`lines`), then count again from nothing.

        For a face that serves several turns with one policy (a named
        session's host): each turn's run says what was refused during it.
        """
        out = self.lines()
        self._kinds.clear()
        self._protected.clear()
        return out

    def lines(self) -> list[str]:
        """The summary: nothing when nothing was refused, else one line, two with protected paths.

        Returns:
            Lines for the face to print (without its ``acphost:`` prefix).

        """
        out = []
        total = sum(self._kinds.values())
        if total:
            kinds = ", ".join(k for k in _KINDS_SHOWN if self._kinds[k])
            noun = "request" if total == 1 else "requests"
            hint = f"; {self.hint}" if self.hint else ""
            out.append(f"rejected {total} {noun} ({kinds}){hint}")
        if self._protected:
            # Bounded: an agent can ask for thousands of protected paths, and
            # one line must not bury the terminal.
            shown = [_clip(area) for area in list(self._protected)[:_AREAS_SHOWN]]
            more = len(self._protected) - len(shown)
            areas = ", ".join(shown) + (f" and {more} more" if more else "")
            out.append(
                f"refused to touch protected paths ({areas}): git metadata and hooks, "
                "acphost's settings and its own files open only to a --permission-policy "
                "rule whose path names them"
            )
        return out


#: How many protected areas the summary names, and how long each may be.
_AREAS_SHOWN = 5
_AREA_CHARS = 120


def _clip(area: str) -> str:
    # A path's end says what it is (``…/.git``): a long one keeps its end.
    return area if len(area) <= _AREA_CHARS else "…" + area[-(_AREA_CHARS - 1) :]


class _Tallied:
    """A policy whose refusals are also counted in a :class:`Refusals`."""

    __slots__ = ("_can_ask", "_policy", "_refusals")

    def __init__(self, policy: PermissionPolicy, refusals: Refusals, *, can_ask: bool) -> None:
        self._policy = policy
        self._refusals = refusals
        self._can_ask = can_ask

    async def decide(self, request: PermissionRequest) -> Verdict:
        verdict = await self._policy.decide(request)
        if isinstance(verdict, Verdict):
            self._refusals.note(request, verdict, can_ask=self._can_ask)
        return verdict


def build_broker(
    *,
    approve: str | None,
    policy_file: str | None,
    write: bool,
    yolo: bool = False,
    asker: Asker | None,
    audit_log: str | IO[str] | None,
    redactor: Redactor | None = None,
    refusals: Refusals | None = None,
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
        refusals: where to count what is refused (a face with no dialog
            says it at the end of the run); its hint is set here when the
            flags chose the default policy.

    Raises:
        PolicyFileError: the rules file is unreadable or malformed.
        OutputFileError: the audit log cannot be opened safely.

    """
    policy: PermissionPolicy
    if policy_file is not None:
        policy = RulesPolicy.from_file(os.path.expanduser(policy_file))
        if refusals is not None:
            refusals.hint = f"by the rules in {policy_file}"
    elif approve == "all":
        policy = AllowAll()
    elif approve == "reads":
        policy = AllowReads()
    elif approve == "deny":
        policy = DenyAll()
    elif asker is not None:
        policy = AskPolicy(write=write, yolo=yolo)
        if refusals is not None and not write:
            refusals.hint = "file writes need --write"
    else:
        policy = DefaultPolicy(write=write)
        if refusals is not None and not write:
            refusals.hint = "use --write, --ask or --approve-all"
    if refusals is not None:
        policy = _Tallied(policy, refusals, can_ask=asker is not None)
    return PermissionBroker(
        policy,
        ask=Interactive(asker) if asker is not None else None,
        audit_log=os.path.expanduser(audit_log) if isinstance(audit_log, str) else audit_log,
        redactor=redactor,
    )
