"""Carrying out one run where it executes: workspace, agent, turn, changes, clean-up.

:func:`carry_out` is the same code on every executor: the local one calls it
in its event loop, a Ray worker in its own. It never raises for what the
agent or the workspace did: every failure becomes the outcome's ``status``
and ``error``. Stopping (Ctrl-C) and the timeout cancel the turn the way
ACP asks (``session/cancel``, then the agent ends the turn); an agent that
does not end it within the grace period loses its process group.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, cast

from .._outfile import open_output
from ..client import Session
from ..config import protocol_options
from ..content import prompt_with_mentions
from ..errors import AcpError, AgentExited, AgentStartError, AuthRequired, RequestError
from ..launch import Run as LaunchedRun
from ..launch import RunOptions, SessionChoice, UsageProblem, open_run
from ..redact import Redactor
from ..safetext import bounded
from ..trace import TraceWriter
from ._diff import DiffError
from ._model import Run, RunError, RunOutcome, redactor_for
from ._workspace import Checkout, WorkspaceError, open_checkout

if TYPE_CHECKING:
    from .. import schema as s
    from ..client import SystemPromptMode
    from ..config import ProtocolChoice
    from ..history import HistoryStore

__all__ = ["Place", "carry_out", "make_workspace"]

logger = logging.getLogger("acphost.batch")

#: Seconds an agent gets after EOF at the end of a run before its group is ended.
CLOSE_GRACE = 0.5

#: Characters of a subagent's text an outcome keeps, and the subagents it lists.
SUBAGENT_TEXT_LIMIT = 16 * 1024
MAX_SUBAGENTS = 64

DIFF_FILE = "diff.patch"
TRACE_FILE = "trace.jsonl"


@dataclass
class Place:
    """Where and how a run is carried out on this machine (not part of the description).

    Attributes:
        out_dir: the run's own result directory (absolute).
        rel_dir: the same, relative to the batch's output directory (for the
            paths the outcome names).
        workspace: the path the run's workspace is created at.
        baseline: the pristine tree the run starts from or is compared to.
        copy_workspace: copy the baseline even for a git workspace (on a
            machine without the repository).
        keep_workspace: leave the workspace in place after the run.
        history: the history store to record into, or None.
        node: where this is (``local``, a Ray node's address).
        stop: set to cancel the run (its turn first, then its agent).
        kill: set to end the agent's process group at once.
        warn: how to tell the user something non-fatal (a broken history store).

    """

    out_dir: str
    rel_dir: str
    workspace: str
    baseline: str | None = None
    copy_workspace: bool = False
    keep_workspace: bool = False
    history: HistoryStore | None = None
    node: str = "local"
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    kill: asyncio.Event = field(default_factory=asyncio.Event)
    warn: Callable[[str], None] | None = None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _snake(key: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key).lower()


def usage_of(response_usage: Any, update: s.UsageUpdate | None) -> dict[str, Any] | None:
    """What the agent reported: token counts (``PromptResponse.usage``), context and cost.

    Token counts keep the agent's names in snake case (``inputTokens`` becomes
    ``input_tokens``); the last ``usage_update`` gives ``context_used``,
    ``context_size`` and ``cost`` (``{"amount", "currency"}``, cumulative
    for the session, which is the run's).
    """
    out: dict[str, Any] = {}
    if isinstance(response_usage, dict):
        for key, value in response_usage.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                out[_snake(key)] = value
    if update is not None:
        out["context_used"] = update.used
        out["context_size"] = update.size
        if update.cost is not None:
            out["cost"] = {"amount": update.cost.amount, "currency": update.cost.currency}
    return out or None


@dataclass
class _Talk:
    """What the conversation with the agent produced."""

    status: str = "error"
    stop_reason: str | None = None
    text: str = ""
    usage: dict[str, Any] | None = None
    error: RunError | None = None
    history_id: str | None = None
    subagents: tuple[dict[str, Any], ...] = ()
    sandbox: dict[str, Any] | None = None
    protocol: int | None = None
    protocol_asked: ProtocolChoice | None = None


def subagents_of(session: Session | None, redactor: Redactor) -> tuple[dict[str, Any], ...]:
    """The subagents a run's session had, for its outcome (see ``RunOutcome.subagents``).

    Every descendant, parents before their children, at most
    :data:`MAX_SUBAGENTS`; each child's agent message text joined a
    paragraph apart, redacted, then bounded to :data:`SUBAGENT_TEXT_LIMIT`.
    """
    if session is None:
        return ()
    out: list[dict[str, Any]] = []
    todo = list(session.subagents)
    while todo and len(out) < MAX_SUBAGENTS:
        child = todo.pop(0)
        todo[:0] = child.subagents
        text = "\n\n".join(m.text for m in child.state.messages if m.role == "agent" and m.text)
        entry: dict[str, Any] = redactor(
            {
                "id": child.id,
                "label": child.label,
                "activity": child.activity,
                "stop_reason": child.stop_reason,
                "text": text,
            }
        )
        entry["text"] = bounded(entry["text"], SUBAGENT_TEXT_LIMIT)
        out.append(entry)
    return tuple(out)


class _Conversation:
    """The agent process, its session and its one turn; stoppable from outside."""

    def __init__(self, run: Run, place: Place, cwd: str, redactor: Redactor) -> None:
        self.run = run
        self.place = place
        self.cwd = cwd
        self.redactor = redactor
        self.opened: LaunchedRun | None = None
        self.session: Session | None = None
        self.host_stop: str | None = None
        self.talk = _Talk()

    def kill(self) -> None:
        """End the agent's process group now (asked during the spawn: once it is up)."""
        if self.opened is not None:
            self.opened.kill()

    async def interrupt(self, why: str, grace: float) -> None:
        """Cancel the running turn (``session/cancel``); kill the agent if it does not end it."""
        self.host_stop = why
        session = self.session
        if session is None or session.turn is None:
            return
        try:
            await session.cancel(timeout=grace, reason=why)
        except AcpError as exc:  # ignored the cancel (AcpTimeout), or went away meanwhile
            logger.info("run %s: %s; killing the agent", self.run.id, exc)
            self.kill()

    async def main(self, trace: TraceWriter) -> None:
        run, place, talk = self.run, self.place, self.talk
        recorder = None
        if place.history is not None:
            from ..history import HistoryRecorder  # noqa: PLC0415 - only when recording

            recorder = HistoryRecorder(place.history, self.redactor, warn=place.warn)
        limits = run.limits
        options = RunOptions(
            run.agent,
            self.cwd,
            close_grace=CLOSE_GRACE,
            client={
                "init_timeout": limits.init_timeout,
                "session_timeout": limits.init_timeout,
                "subagents": run.subagents,
            },
            host=run.host(run.agent) if run.host is not None else None,
            trace=trace,
            recorder=recorder,
            session=SessionChoice(mcp_servers=run.mcp_servers),
            system_prompt=run.system_prompt,
            # Checked where it was read (the spec, the flags); open_run checks again.
            system_prompt_mode=cast("SystemPromptMode | None", run.system_prompt_mode),
            **protocol_options(run.agent),
        )
        talk.protocol_asked = options.protocol
        self.opened = opened = open_run(options)
        async with opened:
            talk.sandbox = opened.sandbox_record()
            talk.protocol = opened.client.protocol_version
            session = opened.session
            self.session = session
            recording = opened.recording
            if recorder is not None and recording is not None:
                talk.history_id = recording.id if recorder.enabled else None
            blocks = prompt_with_mentions(run.prompt, self.cwd)
            turn = session.prompt(blocks, budget=limits.budget)
            result = await turn  # the history records the turn from its events
            talk.stop_reason = result.stop_reason
            talk.text = self.redactor(result.text)
            talk.usage = usage_of(result.usage, session.state.usage)
            if result.budget_exceeded is not None:
                talk.status = "budget"
                talk.error = RunError(str(result.budget_exceeded))
            else:
                talk.status = "ok"
            if result.subagents_running:
                # Children that go on after the answer belong to the run: it
                # ends when they are idle (the run's timeout bounds the wait).
                await session.wait_subagents()

    def failed(self, exc: BaseException) -> None:
        """Turn an exception into the outcome's error (secrets redacted, then bounded).

        The agent chooses its error message and its stderr: each is kept up to
        :data:`~acphost.safetext.AGENT_TEXT_LIMIT` characters in the report, as
        the CLI prints them.
        """
        tail = ""
        if isinstance(exc, AgentStartError):
            message = f"cannot start the agent {self.run.agent.name!r}: {exc}"
        elif isinstance(exc, AgentExited):
            message, tail = f"the agent ended: {exc.message}", exc.stderr_tail
        elif isinstance(exc, AuthRequired):
            message = (
                f"the agent needs authentication: {exc.message} "
                f"(log in once with `acphost -a {self.run.agent.name} --auth METHOD`)"
            )
        elif isinstance(exc, UsageProblem):  # e.g. a system prompt the agent cannot take
            message = str(exc)
        elif isinstance(exc, RequestError):
            message = f"the agent answered an error: {exc}"
        elif isinstance(exc, (AcpError, OSError)):
            message = str(exc)
        else:
            logger.debug("run %s: unexpected error", self.run.id, exc_info=exc)
            message = f"internal error: {type(exc).__name__}: {exc}"
        transport = self.opened.transport if self.opened is not None else None
        if not tail and transport is not None:
            tail = transport.stderr_tail()
        self.talk.status = "error"
        self.talk.error = RunError(bounded(self.redactor(message)), bounded(self.redactor(tail)))


async def _stop(
    conv: _Conversation, main: asyncio.Task[None], kill: asyncio.Task[bool], why: str
) -> None:
    """End the conversation early: cancel the turn if there is one, else the start-up.

    A task cancelled at the moment an inner wait of its ends can carry on
    (the cancellation is lost, and the turn may then start), so the state is
    looked at again until the conversation has ended; a kill ends the agent.
    """
    cancelling: asyncio.Task[None] | None = None
    while not main.done():
        if kill.done():
            conv.kill()
        session = conv.session
        if cancelling is None and session is not None and session.turn is not None:
            cancelling = asyncio.get_running_loop().create_task(
                conv.interrupt(why, conv.run.limits.cancel_grace)
            )
        elif cancelling is None:
            main.cancel()  # still starting: leaving the client's context ends the agent
        waiting: set[asyncio.Task[Any]] = {main, kill} if not kill.done() else {main}
        if cancelling is not None and not cancelling.done():
            waiting.add(cancelling)
        await asyncio.wait(waiting, timeout=0.1, return_when=asyncio.FIRST_COMPLETED)
    if cancelling is not None:
        await asyncio.wait({cancelling})


async def _converse(conv: _Conversation, trace: TraceWriter) -> None:
    """Run the conversation until it ends, the time is up, or the run is stopped."""
    run, place, talk = conv.run, conv.place, conv.talk
    loop = asyncio.get_running_loop()
    timeout = run.limits.timeout
    deadline = None if timeout is None else loop.time() + timeout
    main = loop.create_task(conv.main(trace), name="acphost.batch.run")
    stop = loop.create_task(place.stop.wait(), name="acphost.batch.stop")
    kill = loop.create_task(place.kill.wait(), name="acphost.batch.kill")
    why: str | None = None
    try:
        remaining = None if deadline is None else max(0.0, deadline - loop.time())
        await asyncio.wait({main, stop}, timeout=remaining, return_when=asyncio.FIRST_COMPLETED)
        if not main.done():
            why = "interrupted" if place.stop.is_set() else "timeout"
            await _stop(conv, main, kill, why)
    finally:
        for task in (stop, kill):
            task.cancel()
        if not main.done():  # we were cancelled ourselves: nothing may outlive the run
            main.cancel()
            conv.kill()
            await asyncio.wait({main})
    exc = None if main.cancelled() else main.exception()
    talk.subagents = subagents_of(conv.session, conv.redactor)
    if why is not None:
        # The turn ended because the host stopped it: say so, whatever the agent answered.
        talk.status = "cancelled" if why == "interrupted" else "timeout"
        if why == "timeout":
            talk.error = RunError(f"the run took longer than {timeout:g} s (--timeout)")
        if exc is not None and not isinstance(exc, AcpError):
            conv.failed(exc)
    elif exc is not None:
        conv.failed(exc)


def _write_text(path: str, text: str) -> None:
    # A run's file is never written through a link planted in its place.
    with open_output(path, append=False, binary=True) as f:
        f.write(text.encode("utf-8", "surrogateescape"))


def make_workspace(run: Run, place: Place) -> Checkout:
    """Create the run's workspace (blocking).

    Nothing about it is written to the results folder: a killed batch's
    workspaces are found again by the work directory's id alone (see
    :mod:`acphost.batch._workdir`).

    Raises:
        WorkspaceError: it could not be created (nothing is left behind).

    """
    return open_checkout(run.workspace, place.workspace, place.baseline, copy=place.copy_workspace)


async def carry_out(run: Run, place: Place, prepared: Checkout | None = None) -> RunOutcome:
    """Carry out one run and return its outcome (never raises for what the run did).

    The trace and the patch are written into ``place.out_dir``; the workspace
    is removed at the end unless ``place.keep_workspace``.

    Args:
        run: the description.
        place: where and how.
        prepared: the run's workspace, when it was made ahead
            (:func:`make_workspace`); else it is made first.

    Returns:
        The outcome; its file paths are relative to the batch's output directory.

    """
    started, t0 = _now(), time.monotonic()
    os.makedirs(place.out_dir, exist_ok=True)
    redactor = redactor_for([run.agent], run.mcp_servers)
    talk = _Talk()
    checkout: Checkout | None = None
    trace_rel: str | None = None
    changed: tuple[Any, ...] = ()
    diff_rel: str | None = None
    try:
        made = (
            prepared
            if prepared is not None
            else await asyncio.to_thread(make_workspace, run, place)
        )
        checkout = made
        trace = TraceWriter(os.path.join(place.out_dir, TRACE_FILE), redactor=redactor)
        trace_rel = f"{place.rel_dir}/{TRACE_FILE}"
        conv = _Conversation(run, place, made.cwd, redactor)
        try:
            await _converse(conv, trace)
        finally:
            trace.close()
        talk = conv.talk
        changes = await asyncio.to_thread(made.changes)
        if place.keep_workspace and place.warn is not None and made.git_replaced():
            place.warn(
                f"run {run.id}: the agent replaced the .git of the kept workspace {made.root}: "
                "git commands run there would use the agent's configuration (hooks, "
                "fsmonitor); look at it before running git in it"
            )
        # What the agent wrote may hold a configured secret: the patch and the
        # file names are shown in reports, so they are redacted as the trace is.
        changed = tuple(replace(f, path=redactor.redact_text(f.path)) for f in changes.files)
        if changes.patch:
            _write_text(os.path.join(place.out_dir, DIFF_FILE), redactor.redact_text(changes.patch))
            diff_rel = f"{place.rel_dir}/{DIFF_FILE}"
    except (WorkspaceError, DiffError, OSError) as exc:
        talk.status = "error"
        talk.error = RunError(redactor(f"workspace: {exc}"))
    finally:
        if checkout is not None and not place.keep_workspace:
            try:
                await asyncio.shield(asyncio.to_thread(checkout.remove))
            except WorkspaceError as exc:
                if place.warn is not None:
                    place.warn(str(exc))
    return RunOutcome(
        id=run.id,
        agent=run.agent.name,
        prompt_id=run.prompt_id,
        prompt=redactor(run.prompt),
        repeat=run.repeat,
        status=talk.status,
        stop_reason=talk.stop_reason,
        started_at=started,
        duration_s=time.monotonic() - t0,
        final_text=talk.text,
        usage=talk.usage,
        changed_files=changed,
        diff=diff_rel,
        trace=trace_rel,
        error=talk.error,
        history_id=talk.history_id,
        workspace=checkout.root if checkout is not None and place.keep_workspace else None,
        node=place.node,
        fingerprint=run.fingerprint,
        subagents=talk.subagents,
        sandbox=talk.sandbox,
        protocol=talk.protocol,
        protocol_asked=talk.protocol_asked,
    )
