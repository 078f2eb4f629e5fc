"""A batch: runs the plan on an executor, ``jobs`` at a time, and keeps every outcome.

Iterate it for the outcomes as runs end::

    batch = run_batch(plan, out="results", jobs=8)
    async for outcome in batch:
        print(outcome.id, outcome.status)

Each outcome is on disk (``runs/<id>/result.json``, written atomically after
the run's trace and patch) before it is yielded, so a batch killed at any
point loses only the runs in progress; run it again with the same output
directory and the runs already finished are skipped. :meth:`Batch.cancel`
(the CLI's Ctrl-C) stops starting runs and cancels the running ones; the
reports are written when the iteration ends, however it ends.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from ._executor import Executor, RunHandle, Setup
from ._local import LocalExecutor, error_outcome
from ._model import OutcomeError, Run, RunOutcome
from ._out import FORMAT, VERSION, BatchError, OutDir
from ._render import write_reports
from ._report import Report

if TYPE_CHECKING:
    from ..history import HistoryStore
    from ._plan import Plan

__all__ = ["Batch", "Progress", "run_batch"]


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a batch is.

    Attributes:
        total: runs in the plan.
        done: runs with an outcome (earlier ones skipped included).
        running: runs in progress.
        failed: runs that ended with a status other than ``ok``.
        skipped: runs finished by an earlier batch in the same directory.
        elapsed: seconds since this batch started.
        eta: estimated seconds left, once a run has ended.

    """

    total: int
    done: int
    running: int
    failed: int
    skipped: int
    elapsed: float
    eta: float | None


class Batch:
    """Runs a plan; an async iterator of :class:`RunOutcome` (see :func:`run_batch`)."""

    def __init__(
        self,
        plan: Plan,
        out: str | OutDir,
        *,
        executor: Executor | None = None,
        jobs: int | None = None,
        keep_workspaces: bool = False,
        history: HistoryStore | None = None,
        retry_failed: bool = False,
        meta: dict[str, Any] | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        if jobs is not None and jobs < 1:
            raise ValueError(f"jobs must be at least 1, got {jobs}")
        self.plan = plan
        self.out = out if isinstance(out, OutDir) else OutDir(out)
        self.executor: Executor = executor if executor is not None else LocalExecutor()
        self.jobs = jobs or os.cpu_count() or 1
        self.keep_workspaces = keep_workspaces
        self.history = history
        self.retry_failed = retry_failed
        self.meta = meta or {}
        self._warn = warn
        self._warned: set[str] = set()
        #: Every outcome of the plan's runs known so far (earlier batches' included), by id.
        self.outcomes: dict[str, RunOutcome] = {}
        self.skipped = 0
        self.report_paths: list[str] = []
        self._running: dict[str, RunHandle] = {}
        self._stopping = False
        self._killing = False
        self._started = time.monotonic()
        self._finished_now = 0
        self._used = False
        self._tasks: dict[asyncio.Task[RunOutcome], Run] = {}

    # -- control -----------------------------------------------------------------------

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called."""
        return self._stopping

    def cancel(self) -> None:
        """Start no more runs and cancel the running ones (their turns, then their agents)."""
        self._stopping = True
        for handle in self._running.values():
            handle.cancel()

    def kill(self) -> None:
        """Like :meth:`cancel`, and end every running agent at once."""
        self._stopping = self._killing = True
        for handle in self._running.values():
            handle.kill()

    def progress(self) -> Progress:
        """Where the batch is now."""
        done = len(self.outcomes)
        elapsed = time.monotonic() - self._started
        left = len(self.plan.runs) - done
        eta = elapsed / self._finished_now * left if self._finished_now else None
        return Progress(
            total=len(self.plan.runs),
            done=done,
            running=len(self._running),
            failed=sum(o.status != "ok" for o in self.outcomes.values()),
            skipped=self.skipped,
            elapsed=elapsed,
            eta=eta if left else 0.0,
        )

    def _warn_once(self, message: str) -> None:
        if message not in self._warned:
            self._warned.add(message)
            if self._warn is not None:
                self._warn(message)

    # -- the run -----------------------------------------------------------------------

    def __aiter__(self) -> AsyncIterator[RunOutcome]:
        if self._used:
            raise RuntimeError("a Batch can be iterated only once: make a new one to run again")
        self._used = True
        return self._iterate()

    def _earlier(self, run: Run) -> RunOutcome | None:
        try:
            outcome = self.out.load_outcome(run.id)
        except OutcomeError as exc:
            self._warn_once(f"{exc}; the run is carried out again")
            return None
        if outcome is None or not outcome.finished or outcome.fingerprint != run.fingerprint:
            return None
        if self.retry_failed and outcome.status != "ok":
            return None
        return outcome

    def _own_run_dirs(self, runs: list[Run]) -> None:
        """Make each run's directory, or find it a real one (a planted link is refused).

        Raises:
            BatchError: a run's directory is a symbolic link or not a directory.

        """
        for run in runs:
            self.out.own_dir(f"runs/{run.id}")

    async def _iterate(self) -> AsyncIterator[RunOutcome]:
        with self.out.lock():
            # First: the mark that makes the folder a batch's (OutDir.check) is there at once.
            self.out.write_json("batch.json", self._plan_json())
            todo = []
            for run in self.plan.runs:
                earlier = self._earlier(run)
                if earlier is not None:
                    self.outcomes[run.id] = earlier
                else:
                    todo.append(run)
            self.skipped = len(self.outcomes)
            await asyncio.to_thread(self._own_run_dirs, todo)
            self.out.write_json("batch.json", self._plan_json())
            self._started = time.monotonic()
            try:
                await self.executor.open(self._setup())
                async for outcome in self._schedule(todo):
                    yield outcome
            finally:
                try:
                    await self._finish()
                finally:
                    await self.executor.close()
                    self.report_paths = await asyncio.to_thread(self._write_reports)

    def _setup(self) -> Setup:
        return Setup(
            out=self.out.path,
            keep_workspaces=self.keep_workspaces,
            history=self.history,
            exclude=(self.out.path,),
            warn=self._warn_once,
            sources=tuple(dict.fromkeys(r.workspace for r in self.plan.runs)),
        )

    def _plan_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "updated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            **self.meta,
            "executor": self.executor.name,
            "jobs": self.jobs,
            **self.plan.to_json(),
        }

    async def _schedule(self, todo: list[Run]) -> AsyncIterator[RunOutcome]:
        tasks = self._tasks
        loop = asyncio.get_running_loop()
        at = 0  # the next run to submit
        while True:
            while not self._stopping and len(tasks) < self.jobs and at < len(todo):
                run = todo[at]
                at += 1
                handle = self.executor.submit(run)
                self._running[run.id] = handle
                tasks[loop.create_task(self._outcome(run, handle))] = run
            if not self._stopping:
                # The next runs' workspaces are made while these wait on their agents.
                for run in todo[at : at + self.jobs]:
                    self.executor.prepare(run)
            if not tasks:
                return
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                run = tasks.pop(task)
                del self._running[run.id]
                outcome = task.result()
                self._record(outcome)
                yield outcome

    async def _outcome(self, run: Run, handle: RunHandle) -> RunOutcome:
        try:
            return await handle.outcome()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the executor failed (a Ray worker died...): the run did
            return error_outcome(run, f"the executor failed: {type(exc).__name__}: {exc}")

    def _record(self, outcome: RunOutcome) -> None:
        self.outcomes[outcome.id] = outcome
        self._finished_now += 1
        try:
            self.out.save_outcome(outcome)
        except OSError as exc:
            raise BatchError(f"cannot write the result of run {outcome.id}: {exc}") from None

    async def _finish(self) -> None:
        """The iteration ended early (a break, an error): cancel and collect what still runs."""
        tasks = self._tasks
        if not tasks:
            return
        if not self._killing:
            self.cancel()
        done, _ = await asyncio.wait(tasks)
        for task in done:
            run = tasks.pop(task)
            self._running.pop(run.id, None)
            if not task.cancelled() and task.exception() is None:
                self._record(task.result())

    def _write_reports(self) -> list[str]:
        outcomes = tuple(self.outcomes[r.id] for r in self.plan.runs if r.id in self.outcomes)
        return write_reports(Report(self.out.path, self._plan_json(), outcomes))


def run_batch(
    plan: Plan,
    out: str | OutDir,
    *,
    executor: Executor | None = None,
    jobs: int | None = None,
    keep_workspaces: bool = False,
    history: HistoryStore | None = None,
    retry_failed: bool = False,
    meta: dict[str, Any] | None = None,
    warn: Callable[[str], None] | None = None,
) -> Batch:
    """Run a plan; iterate the result (``async for``) for each run's outcome as it ends.

    Args:
        plan: the runs (:func:`~acphost.batch.make_plan`).
        out: the output directory (a path the caller chose, or an
            :class:`OutDir`); it is made, or must be empty or a batch's
            (:meth:`OutDir.check`); runs it already holds outcomes for are
            skipped (a cancelled run is carried out again).
        executor: :class:`LocalExecutor` (default) or :class:`RayExecutor`.
        jobs: runs at once (default: the number of CPUs).
        keep_workspaces: leave each run's workspace (``OUT/workspaces/<id>``).
        history: record every run into this history store.
        retry_failed: carry out again the runs whose earlier outcome is not ``ok``.
        meta: extra fields for ``batch.json`` and the report (e.g. the workspace).
        warn: how to report non-fatal problems (default: silently skip them).

    Returns:
        The :class:`Batch`: iterate it once; :meth:`Batch.cancel` stops it,
        :meth:`Batch.progress` says where it is.

    Raises:
        ValueError: ``jobs < 1``.

    """
    return Batch(
        plan,
        out,
        executor=executor,
        jobs=jobs,
        keep_workspaces=keep_workspaces,
        history=history,
        retry_failed=retry_failed,
        meta=meta,
        warn=warn,
    )
