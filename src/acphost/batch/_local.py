"""The default executor: every run in this process's event loop, no service to start.

Runs wait on their agents (a model, a network) far more than they compute,
so one event loop carries dozens at once; the blocking parts (git, copies,
diffs) go to worker threads. Workspaces are made in a temporary directory
(under ``OUT/workspaces/`` when they are kept); a plain directory is copied
once into a baseline that every run copies and is compared to.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import shutil
import tempfile

from ._executor import Setup
from ._model import Run, RunError, RunOutcome, WorkspaceSource
from ._runner import MARKER_FILE, Place, carry_out, make_workspace
from ._workspace import Checkout, WorkspaceError, make_baseline

__all__ = ["WORKDIR_NOTE", "LocalExecutor", "error_outcome", "run_place"]

#: The file in the output directory that names the executor's work directory.
WORKDIR_NOTE = ".workdir"


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


_WORKDIR_PREFIX = "acphost-batch-"


def _new_workdir(out: str) -> str:
    """Remove the work directory a dead batch left for ``out``; make and note a new one.

    The caller holds the output directory's lock: no live batch uses the old one.
    """
    note = os.path.join(out, WORKDIR_NOTE)
    try:
        with open(note, encoding="utf-8") as f:
            old = f.read().strip()
    except OSError:
        old = ""
    # Only ever a directory this executor made: a temporary one with our prefix.
    if (
        os.path.basename(old).startswith(_WORKDIR_PREFIX)
        and os.path.dirname(old) == tempfile.gettempdir()
    ):
        shutil.rmtree(old, ignore_errors=True)
    new = tempfile.mkdtemp(prefix=_WORKDIR_PREFIX)
    with open(note, "w", encoding="utf-8") as f:
        f.write(new + "\n")
    return new


def _drop_workdir(out: str, workdir: str) -> None:
    shutil.rmtree(workdir, ignore_errors=True)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(os.path.join(out, WORKDIR_NOTE))


def _discard(checkout: Checkout, place: Place) -> None:
    """Remove a workspace that no run used, and its mark."""
    with contextlib.suppress(WorkspaceError):
        checkout.remove()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(place.out_dir, MARKER_FILE))


def run_place(run: Run, setup: Setup, out_dir: str, work_dir: str) -> Place:
    """Where a run's files go (``runs/<id>/``) and where its workspace is made."""
    keep = setup.keep_workspaces
    workspace = (
        os.path.join(setup.out, "workspaces", run.id) if keep else os.path.join(work_dir, run.id)
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
        self._tmp: str | None = None
        self._baselines: dict[WorkspaceSource, asyncio.Task[str]] = {}
        self._prepared: dict[str, tuple[Place, asyncio.Task[Checkout]]] = {}

    async def open(self, setup: Setup) -> None:
        """Make the temporary directory workspaces and baselines go in.

        Its path is noted in the output directory (``.workdir``), so the next
        batch there removes it if this process dies before it does.
        """
        self._setup = setup
        self._tmp = await asyncio.to_thread(_new_workdir, setup.out)
        if setup.keep_workspaces:
            os.makedirs(os.path.join(setup.out, "workspaces"), exist_ok=True)

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
        if not run.workspace.is_git:
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
            await asyncio.to_thread(_discard, checkout, place)
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
        for place, made in prepared:
            try:
                checkout = await asyncio.shield(made)
            except WorkspaceError:
                continue
            await asyncio.to_thread(_discard, checkout, place)
        for baseline in self._baselines.values():
            if not baseline.done():
                baseline.cancel()
        await asyncio.gather(*self._baselines.values(), return_exceptions=True)
        if self._tmp is not None and self._setup is not None:
            await asyncio.to_thread(_drop_workdir, self._setup.out, self._tmp)
            self._tmp = None
