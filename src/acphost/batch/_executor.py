"""The executor contract: submit a run, get its outcome, cancel it (and a hint to prepare one).

Two implementations: :class:`~acphost.batch.LocalExecutor` (every run in
this process's event loop) and :class:`~acphost.batch.RayExecutor` (each run
a Ray task on a cluster). The batch decides what runs when and how many at
once; an executor only carries runs out and hands back their outcomes with
their files (trace, patch) in the run's directory under the output directory.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..history import HistoryStore
    from ._model import Run, RunOutcome, WorkspaceSource

__all__ = ["Executor", "RunHandle", "Setup"]


@dataclass(frozen=True, slots=True)
class Setup:
    """What every run of a batch shares, handed to :meth:`Executor.open`.

    Attributes:
        out: the batch's output directory (absolute).
        keep_workspaces: leave each run's workspace in place (under
            ``OUT/workspaces/`` on this machine).
        history: the history store runs are recorded into, or None.
        exclude: absolute paths never copied into a workspace (the output
            directory when it is inside the workspace).
        warn: how to tell the user something non-fatal.
        sources: the workspaces the plan's runs start from (the repositories
            whose worktree entries a killed batch's clean-up looks at).

    """

    out: str
    keep_workspaces: bool = False
    history: HistoryStore | None = None
    exclude: Sequence[str] = ()
    warn: Callable[[str], None] | None = None
    sources: Sequence[WorkspaceSource] = ()


class RunHandle(Protocol):
    """A submitted run."""

    async def outcome(self) -> RunOutcome:
        """Wait for the run to end and return how it ended (never raises for the run's failures)."""
        ...

    def cancel(self) -> None:
        """Stop the run: cancel its turn (``session/cancel``), then end its agent.

        The outcome then has status ``cancelled`` (or whatever the run reached first).
        """
        ...

    def kill(self) -> None:
        """End the run's agent at once (a second Ctrl-C)."""
        ...


class Executor(Protocol):
    """Carries runs out: :meth:`open` once, :meth:`submit` each run, :meth:`close` at the end."""

    #: ``local`` or ``ray``.
    name: str

    async def open(self, setup: Setup) -> None:
        """Get ready for a batch.

        Raises:
            ExecutorError: it cannot be used (Ray missing, cluster unreachable).

        """
        ...

    def prepare(self, run: Run) -> None:
        """A hint: ``run`` is submitted soon; get ready what does not need the agent.

        The local executor makes the run's workspace ahead (a large checkout
        then costs no time of the run's slot); an executor may do nothing.
        """
        ...

    def submit(self, run: Run) -> RunHandle:
        """Start carrying out ``run`` now; the batch bounds how many run at once."""
        ...

    async def close(self) -> None:
        """Free what :meth:`open` took (temporary directories, the cluster connection)."""
        ...


class ExecutorError(Exception):
    """An executor cannot be used (the message says what to do)."""
