"""Fleets of runs: prompts x agents x repeats, each in its own workspace, with a report.

Build a plan, run it, read the outcomes as they come::

    from acphost.batch import make_plan, numbered, run_batch, inspect_workspace
    from acphost.config import resolve_agent, load_settings

    settings = load_settings(None)
    plan = make_plan(
        [resolve_agent("demo", settings)],
        numbered(["echo hi", "plan"]),
        workspace=inspect_workspace("."),
        repeat=3,
    )
    async for outcome in run_batch(plan, out="results", jobs=8):
        print(outcome.id, outcome.status, outcome.duration_s)

- :class:`Run` is a pure description (agent, prompt, workspace source,
  limits) and :class:`RunOutcome` what came back (``report.json``'s entries);
- :func:`run_batch` runs a :class:`Plan` on an executor, ``jobs`` at a time,
  resuming from what the output directory already holds;
- executors: :class:`LocalExecutor` (one asyncio process, the default) and
  :class:`RayExecutor` (a Ray cluster; extra ``acphost[ray]``);
- :func:`load_report` and :func:`write_reports` (re)render report.json,
  report.md and report.html.

Importing this package is cheap; each part loads on first use.
"""

from __future__ import annotations

from .._lazy import lazy_exports

TYPE_CHECKING = False

__all__ = [
    "STATUSES",
    "Batch",
    "BatchError",
    "ChangedFile",
    "Executor",
    "ExecutorError",
    "HostFactory",
    "Limits",
    "LocalExecutor",
    "OutDir",
    "OutcomeError",
    "Plan",
    "PlanError",
    "Progress",
    "Prompt",
    "RayExecutor",
    "Report",
    "Run",
    "RunError",
    "RunHandle",
    "RunOutcome",
    "Setup",
    "WorkspaceError",
    "WorkspaceSource",
    "inspect_workspace",
    "load_report",
    "load_spec",
    "make_plan",
    "numbered",
    "read_prompts",
    "run_batch",
    "uncommitted_changes",
    "write_reports",
]

_LAZY = {
    "STATUSES": "._model",
    "ChangedFile": "._model",
    "HostFactory": "._model",
    "Limits": "._model",
    "OutcomeError": "._model",
    "Run": "._model",
    "RunError": "._model",
    "RunOutcome": "._model",
    "WorkspaceSource": "._model",
    "Plan": "._plan",
    "PlanError": "._plan",
    "Prompt": "._plan",
    "make_plan": "._plan",
    "numbered": "._plan",
    "read_prompts": "._plan",
    "Executor": "._executor",
    "ExecutorError": "._executor",
    "RunHandle": "._executor",
    "Setup": "._executor",
    "LocalExecutor": "._local",
    "RayExecutor": "._ray",
    "Batch": "._batch",
    "Progress": "._batch",
    "run_batch": "._batch",
    "BatchError": "._out",
    "OutDir": "._out",
    "Report": "._report",
    "load_report": "._report",
    "write_reports": "._render",
    "WorkspaceError": "._workspace",
    "inspect_workspace": "._workspace",
    "uncommitted_changes": "._workspace",
    "load_spec": "._spec",
}

if TYPE_CHECKING:
    from ._batch import Batch, Progress, run_batch
    from ._executor import Executor, ExecutorError, RunHandle, Setup
    from ._local import LocalExecutor
    from ._model import (
        STATUSES,
        ChangedFile,
        HostFactory,
        Limits,
        OutcomeError,
        Run,
        RunError,
        RunOutcome,
        WorkspaceSource,
    )
    from ._out import BatchError, OutDir
    from ._plan import Plan, PlanError, Prompt, make_plan, numbered, read_prompts
    from ._ray import RayExecutor
    from ._render import write_reports
    from ._report import Report, load_report
    from ._spec import load_spec
    from ._workspace import WorkspaceError, inspect_workspace, uncommitted_changes

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
