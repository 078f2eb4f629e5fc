"""The Ray executor: each run a Ray task on a cluster's nodes (extra ``acphost[ray]``).

The workspace travels with the task: packed once per batch (``git archive``
of the commit, or a tar of the directory), put in Ray's object store, and
unpacked by the worker into a baseline that the run's workspace is copied
from and compared to. The worker carries the run out with the same code as
the local executor (:func:`~acphost.batch._runner.carry_out`: the agent
started there with the same command, environment and host settings) and
sends back the outcome, the trace, the patch and the run's history record;
the driver writes them under the output directory and into its history.

Cancelling a task (``ray.cancel``) interrupts the worker with SIGINT: the
worker turns it into the run's stop, so the turn is cancelled the ACP way
and the outcome still comes back. ``kill`` forces the worker to exit; the
agent dies with it (``kill_on_host_death``).

Every node needs acphost installed (``pip install 'acphost[ray]'``) and the
agents' commands on its ``PATH``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import logging
import os
import shutil
import signal
import tempfile
from collections.abc import Sequence
from typing import Any

from ._executor import ExecutorError, Setup
from ._local import error_outcome
from ._model import Run, RunOutcome, WorkspaceSource
from ._out import OutDir, write_atomic
from ._pack import pack, unpack
from ._runner import DIFF_FILE, TRACE_FILE, Place, carry_out
from ._workdir import free_path, private_dir
from ._workspace import WorkspaceError

__all__ = ["RayExecutor"]

logger = logging.getLogger("acphost.batch")

#: Where a worker keeps workspaces asked to be kept (on the worker's node).
KEPT_DIR = "acphost-batch-workspaces"


def _import_ray() -> Any:
    try:
        ray = importlib.import_module("ray")  # an optional dependency
    except ImportError:
        raise ExecutorError("--executor ray needs Ray: pip install 'acphost[ray]'") from None
    return ray


class _DropSigtermNotice(logging.Filter):
    """Ray's notice that it left SIGTERM alone (what ``open`` wants) is not news to the user."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "SIGTERM handler is not set" not in record.getMessage()


class RayExecutor:
    """Carries each run out as a Ray task.

    Args:
        address: the cluster (``HOST:PORT`` of a head node, ``ray://HOST:10001``
            for Ray Client, ``auto``); None: Ray's default, which starts a
            local cluster when none is running (and stops it at :meth:`close`).
        cpus_per_run: the CPUs Ray reserves for one run; None (the
            default) reserves none: agents mostly wait on their model, and
            the batch's ``jobs`` bounds the runs in flight, as on one
            machine (a reservation would cap them at the cluster's CPUs
            divided by it, whatever ``jobs`` says); Ray spreads the runs
            over the nodes.
        forward_env: names of variables of this process's environment to
            set for the agents on the workers (API keys...): a worker's
            environment is its node's, not the driver's.
        init_options: more keyword arguments for ``ray.init``.

    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        cpus_per_run: float | None = None,
        forward_env: Sequence[str] = (),
        init_options: dict[str, Any] | None = None,
    ) -> None:
        self.address = address
        self.cpus_per_run = cpus_per_run
        self.forward_env = tuple(forward_env)
        self.init_options = init_options or {}
        self._ray: Any = None
        self._owns_connection = False
        self._remote: Any = None
        self._setup: Setup | None = None
        self._snapshots: dict[WorkspaceSource, asyncio.Task[Any]] = {}

    async def open(self, setup: Setup) -> None:
        """Connect to the cluster (or start a local one).

        Raises:
            ExecutorError: Ray is not installed, or the cluster cannot be reached.

        """
        ray = _import_ray()
        self._ray, self._setup = ray, setup
        if not ray.is_initialized():
            options = {
                "log_to_driver": False,
                "logging_level": logging.WARNING,
                **self.init_options,
            }
            quiet = _DropSigtermNotice()
            ray_logger = logging.getLogger("ray._private.worker")
            ray_logger.addFilter(quiet)
            try:
                await asyncio.to_thread(ray.init, address=self.address, **options)
            except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError...
                where = self.address or "a local cluster"
                raise ExecutorError(f"cannot connect to Ray at {where}: {exc}") from None
            finally:
                ray_logger.removeFilter(quiet)
            self._owns_connection = True
        if self.cpus_per_run is None:
            placement: dict[str, Any] = {"num_cpus": 0, "scheduling_strategy": "SPREAD"}
        else:
            placement = {"num_cpus": self.cpus_per_run}
        self._remote = ray.remote(_run_on_worker).options(
            max_retries=0, name="acphost.batch.run", **placement
        )

    def _snapshot(self, source: WorkspaceSource) -> asyncio.Task[Any]:
        task = self._snapshots.get(source)
        if task is None:
            assert self._setup is not None
            exclude = list(self._setup.exclude)
            ray = self._ray

            def packed() -> Any:
                return ray.put(pack(source, exclude))

            task = asyncio.get_running_loop().create_task(asyncio.to_thread(packed))
            self._snapshots[source] = task
        return task

    def prepare(self, run: Run) -> None:
        """Pack the run's workspace now (once per workspace)."""
        self._snapshot(run.workspace)

    def submit(self, run: Run) -> _RayHandle:
        """Pack the run's workspace (once per batch) and start the task."""
        assert self._setup is not None, "open() the executor first"
        forwarded = {k: os.environ[k] for k in self.forward_env if k in os.environ}
        if forwarded:
            agent = dataclasses.replace(run.agent, env={**forwarded, **run.agent.env})
            run = dataclasses.replace(run, agent=agent)
        return _RayHandle(self, run, self._setup)

    async def close(self) -> None:
        """Drop the packed workspaces; stop a cluster this executor started."""
        for task in self._snapshots.values():
            task.cancel()
        await asyncio.gather(*self._snapshots.values(), return_exceptions=True)
        self._snapshots.clear()
        if self._owns_connection and self._ray is not None:
            await asyncio.to_thread(self._ray.shutdown)
            self._owns_connection = False


class _RayHandle:
    def __init__(self, executor: RayExecutor, run: Run, setup: Setup) -> None:
        self._executor = executor
        self._run = run
        self._setup = setup
        self._ref: Any = None
        self._stopped = False
        self._task = asyncio.get_running_loop().create_task(self._go())

    async def _go(self) -> RunOutcome:
        run, ex = self._run, self._executor
        ray = ex._ray
        try:
            snapshot = await asyncio.shield(ex._snapshot(run.workspace))
        except WorkspaceError as exc:
            return error_outcome(run, f"workspace: {exc}")
        if self._stopped:
            return dataclasses.replace(error_outcome(run, ""), status="cancelled", error=None)
        record = self._setup.history is not None
        self._ref = ex._remote.remote(run, snapshot, self._setup.keep_workspaces, record)
        try:
            reply = await self._ref
        except ray.exceptions.RayError as exc:
            # A cancelled task raises TaskCancelledError; a killed one (force) a worker error.
            if self._stopped or isinstance(exc, ray.exceptions.TaskCancelledError):
                return dataclasses.replace(error_outcome(run, ""), status="cancelled", error=None)
            return error_outcome(run, f"the Ray task failed: {type(exc).__name__}: {exc}")
        outcome = await asyncio.to_thread(self._receive, reply)
        self._record(reply.get("history"))
        return outcome

    def _receive(self, reply: dict[str, Any]) -> RunOutcome:
        """Write the files that came back (blocking: called in a worker thread).

        Each replaces its name (a link planted there is replaced, not followed),
        in the run's own directory (:meth:`OutDir.own_dir`).
        """
        run_dir = OutDir(self._setup.out).own_dir(f"runs/{self._run.id}")
        for name, data in reply["files"].items():
            if name in (TRACE_FILE, DIFF_FILE):
                write_atomic(os.path.join(run_dir, name), data)
        return RunOutcome.from_json(reply["outcome"], f"the outcome of {self._run.id}")

    def _record(self, exported: str | None) -> None:
        """Add the run's history record to this machine's history.

        In the loop's thread: the store's connection belongs to it.
        """
        store = self._setup.history
        if store is None or not exported:
            return
        from ..history import HistoryError, import_sessions  # noqa: PLC0415

        try:
            import_sessions(store, exported, source=f"run {self._run.id}")
        except HistoryError as exc:
            if self._setup.warn is not None:
                self._setup.warn(f"{exc}; the run is not in the history")

    async def outcome(self) -> RunOutcome:
        return await self._task

    def cancel(self) -> None:
        self._stopped = True
        if self._ref is not None:
            self._executor._ray.cancel(self._ref, force=False)

    def kill(self) -> None:
        self._stopped = True
        if self._ref is not None:
            self._executor._ray.cancel(self._ref, force=True)


# -- on the worker ------------------------------------------------------------------------


def _run_on_worker(run: Run, snapshot: bytes, keep: bool, record: bool) -> dict[str, Any]:
    """The Ray task: carry the run out on this node, return what the driver needs."""
    return asyncio.run(_worker_main(run, snapshot, keep, record))


def _collect(out_dir: str) -> dict[str, bytes]:
    """The run's files, to send back to the driver."""
    files = {}
    for name in (TRACE_FILE, DIFF_FILE):
        path = os.path.join(out_dir, name)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                files[name] = f.read()
    return files


async def _worker_main(run: Run, snapshot: bytes, keep: bool, record: bool) -> dict[str, Any]:
    ray: Any = importlib.import_module("ray")  # present on every worker
    node = str(ray.util.get_node_ip_address())
    tmp = tempfile.mkdtemp(prefix="acphost-ray-")
    workspace = os.path.join(tmp, "ws")
    place = Place(
        out_dir=os.path.join(tmp, "out"),
        rel_dir=f"runs/{run.id}",
        workspace=workspace,
        copy_workspace=True,
        keep_workspace=keep,
        node=node,
    )
    loop = asyncio.get_running_loop()
    # ray.cancel(force=False) interrupts the task with SIGINT: stop the run the ACP way.
    loop.add_signal_handler(signal.SIGINT, place.stop.set)
    store = None
    try:
        try:
            if keep:
                # A fixed name in a shared directory: this user's own, and an
                # earlier batch's workspace there is left as it is.
                kept = private_dir(os.path.join(tempfile.gettempdir(), KEPT_DIR))
                place.workspace = free_path(kept, run.id, lambda m: logger.warning("%s", m))
            place.baseline = os.path.join(tmp, "baseline")
            await asyncio.to_thread(unpack, snapshot, place.baseline)
        except WorkspaceError as exc:
            return {"outcome": error_outcome(run, f"workspace: {exc}", node).to_json(), "files": {}}
        if record:
            from ..history import HistoryError, HistoryStore  # noqa: PLC0415

            try:
                store = HistoryStore.open(os.path.join(tmp, "history.sqlite3"))
            except HistoryError as exc:
                logger.warning("run %s is not recorded: %s", run.id, exc)
        place.history = store
        outcome = await carry_out(run, place)
        files = await asyncio.to_thread(_collect, place.out_dir)
        exported = None
        if store is not None and outcome.history_id is not None:
            from ..history import export_session  # noqa: PLC0415

            exported = export_session(store.get(outcome.history_id), "json")
        return {"outcome": outcome.to_json(), "files": files, "history": exported}
    finally:
        loop.remove_signal_handler(signal.SIGINT)
        if store is not None:
            store.close()
        await asyncio.to_thread(shutil.rmtree, tmp, True)
