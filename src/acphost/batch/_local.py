"""The default executor: every run in this process's event loop, no service to start.

Runs wait on their agents (a model, a network) far more than they compute,
so one event loop carries dozens at once; the blocking parts (git, copies,
diffs) go to worker threads. Workspaces are made in the executor's own work
directory (:mod:`._workdir`; under ``OUT/workspaces/`` when they are kept);
each workspace source gets one baseline that every run is compared to (and a
plain directory's runs are copied from).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os

from ._executor import Setup
from ._model import Run, RunError, RunOutcome, WorkspaceSource
from ._out import BatchError, OutDir
from ._runner import Place, carry_out, make_workspace
from ._workdir import WORKDIR_NOTE, WorkDir, free_path, remove_stale
from ._workspace import Checkout, WorkspaceError, make_baseline

__all__ = ["WORKDIR_NOTE", "LocalExecutor", "error_outcome", "run_place"]


def error_outcome(run: Run, message: str, node: str = "local") -> RunOutcome:
    """The outcome of a run that failed before it could start (or whose executor failed)."""
    return RunOutcome(
        id=run.id,
        agent=run.agent.name,
        prompt_id=run.prompt_id,
        prompt=run.prompt,
        repeat=run.repeat,
        status="error",
        error=RunError(message),
        node=node,
        fingerprint=run.fingerprint,
    )


def _discard(checkout: Checkout) -> None:
    """Remove a workspace that no run used."""
    with contextlib.suppress(WorkspaceError):
        checkout.remove()


def run_place(run: Run, setup: Setup, out_dir: str, work_dir: str) -> Place:
    """Where a run's files go (``runs/<id>/``) and where its workspace is made.

    A kept workspace goes to ``OUT/workspaces/<id>``, or beside it when an
    earlier batch left one there (never removed: this batch did not make it).
    """
    keep = setup.keep_workspaces
    workspace = (
        free_path(os.path.join(setup.out, "workspaces"), run.id, setup.warn)
        if keep
        else os.path.join(work_dir, run.id)
    )
    return Place(
        out_dir=out_dir,
        rel_dir=f"runs/{run.id}",
        workspace=workspace,
        keep_workspace=keep,
        history=setup.history,
        warn=setup.warn,
    )


class _LocalHandle:
    def __init__(self, task: asyncio.Task[RunOutcome], place: Place) -> None:
        self._task = task
        self._place = place

    async def outcome(self) -> RunOutcome:
        return await self._task

    def cancel(self) -> None:
        self._place.stop.set()

    def kill(self) -> None:
        self._place.stop.set()
        self._place.kill.set()


class LocalExecutor:
    """Carries every run out in this process (the default).

    Concurrency is the batch's ``jobs``; nothing else is needed.
    """

    name = "local"

    def __init__(self) -> None:
        self._setup: Setup | None = None
        self._workdir: WorkDir | None = None
        self._tmp: str | None = None
        self._baselines: dict[WorkspaceSource, asyncio.Task[str]] = {}
        self._prepared: dict[str, tuple[Place, asyncio.Task[Checkout]]] = {}

    async def open(self, setup: Setup) -> None:
        """Make the work directory workspaces and baselines go in.

        Its id is noted in the output directory (``.workdir``), so the next
        batch there removes it if this process dies before it does; the
        one a killed batch noted there is removed first, when it is ours
        (:func:`~acphost.batch._workdir.remove_stale`).

        Raises:
            BatchError: ``OUT/workspaces`` is not a directory acphost made, or
                the work directory cannot be made.

        """
        self._setup = setup
        for message in await asyncio.to_thread(remove_stale, setup.out, setup.sources):
            if setup.warn is not None:
                setup.warn(message)
        if setup.keep_workspaces:
            OutDir(setup.out).own_dir("workspaces")
        try:
            workdir = await asyncio.to_thread(WorkDir.make)
        except WorkspaceError as exc:
            raise BatchError(str(exc)) from None
        try:
            workdir.note(setup.out)
        except OSError as exc:
            workdir.remove()
            raise BatchError(f"cannot write {WORKDIR_NOTE} in {setup.out}: {exc}") from None
        self._workdir, self._tmp = workdir, workdir.path

    def _place(self, run: Run) -> Place:
        assert self._setup is not None and self._tmp is not None, "open() the executor first"
        return run_place(run, self._setup, os.path.join(self._setup.out, "runs", run.id), self._tmp)

    def prepare(self, run: Run) -> None:
        """Make the run's workspace now, while other runs wait on their agents."""
        if run.id not in self._prepared:
            place = self._place(run)
            task = asyncio.get_running_loop().create_task(self._make_workspace(run, place))
            self._prepared[run.id] = (place, task)

    async def _make_workspace(self, run: Run, place: Place) -> Checkout:
        place.baseline = await asyncio.shield(self._baseline(run.workspace))
        return await asyncio.to_thread(make_workspace, run, place)

    def submit(self, run: Run) -> _LocalHandle:
        """Start the run as a task of the running loop."""
        place, prepared = self._prepared.pop(run.id, (None, None))
        if place is None or prepared is None:
            place = self._place(run)
            prepared = asyncio.get_running_loop().create_task(self._make_workspace(run, place))
        task = asyncio.get_running_loop().create_task(
            self._carry(run, place, prepared), name=f"acphost.batch.{run.id}"
        )
        return _LocalHandle(task, place)

    async def _carry(self, run: Run, place: Place, prepared: asyncio.Task[Checkout]) -> RunOutcome:
        try:
            checkout = await asyncio.shield(prepared)
        except WorkspaceError as exc:
            return error_outcome(run, f"workspace: {exc}")
        if place.stop.is_set():  # stopped before it started
            await asyncio.to_thread(_discard, checkout)
            return dataclasses.replace(error_outcome(run, ""), status="cancelled", error=None)
        return await carry_out(run, place, checkout)

    def _baseline(self, source: WorkspaceSource) -> asyncio.Task[str]:
        task = self._baselines.get(source)
        if task is None:
            assert self._tmp is not None and self._setup is not None
            dest = os.path.join(self._tmp, f".baseline-{len(self._baselines)}")
            exclude = list(self._setup.exclude)
            task = asyncio.get_running_loop().create_task(
                asyncio.to_thread(self._make_baseline, source, dest, exclude)
            )
            self._baselines[source] = task
        return task

    @staticmethod
    def _make_baseline(source: WorkspaceSource, dest: str, exclude: list[str]) -> str:
        make_baseline(source, dest, exclude)
        return dest

    async def close(self) -> None:
        """Remove the temporary directory (baselines and any workspace left in it)."""
        # Workspaces made ahead for runs that never started: let each finish, then remove it.
        prepared = list(self._prepared.values())
        self._prepared.clear()
        for _place, made in prepared:
            try:
                checkout = await asyncio.shield(made)
            except WorkspaceError:
                continue
            await asyncio.to_thread(_discard, checkout)
        for baseline in self._baselines.values():
            if not baseline.done():
                baseline.cancel()
        await asyncio.gather(*self._baselines.values(), return_exceptions=True)
        if self._workdir is not None and self._setup is not None:
            await asyncio.to_thread(self._workdir.remove, self._setup.out)
            self._workdir = self._tmp = None
