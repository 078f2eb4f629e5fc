"""``acphost batch`` once the flags are parsed: plan, progress, Ctrl-C, exit code.

The work is :mod:`acphost.batch`'s; this module turns flags (and a ``--spec``
file) into a plan, shows progress (rich on a terminal, plain lines when
piped), turns Ctrl-C into a clean stop, and picks the exit code: 0 when
every run is ``ok``, 1 when any is not, 2 for a usage error, 130 when
interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import signal
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ..batch import (
    Batch,
    BatchError,
    ExecutorError,
    Limits,
    OutcomeError,
    OutDir,
    PlanError,
    Prompt,
    RunOutcome,
    WorkspaceError,
    inspect_workspace,
    load_report,
    load_spec,
    make_plan,
    numbered,
    read_prompts,
    uncommitted_changes,
    write_reports,
)
from ..client import Budget
from ..config import AgentSpec, Settings, SettingsError, settings_for, with_protocol_choice
from ..config import agent_from_command as config_agent_from_command
from ..host import PolicyFileError, RulesPolicy
from ..launch import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    HostChoices,
    UsageProblem,
    build_host_config,
    fail,
    read_system_prompt,
    resolve,
    with_sandbox_choice,
)
from ._batch_view import View, make_view
from ._parser import usage_error

__all__ = ["agent_from_command", "configure", "report_main", "run_batch_command"]

#: Spec keys that are lists of the repeatable flags: spec key -> argparse dest.
_SPEC_LISTS = {
    "agents": "agent",
    "agent_commands": "agent_command",
    "prompts": "prompt",
    "ray_env": "ray_env",
}
#: Spec keys whose argparse dest has another name.
_SPEC_RENAMES = {"prompts_file": "prompts", "permission_policy": "permission_policy"}
_DEFAULTS: dict[str, Any] = {
    "repeat": 1,
    "init_timeout": 60.0,
    "executor": "local",
    "ray_cpus": None,
    "write": False,
    "yolo": False,
    "no_terminal": False,
    "no_fs": False,
    "keep_workspaces": False,
    "no_history": False,
    "retry_failed": False,
    "subagents": True,
}


def _merge_spec(args: argparse.Namespace) -> dict[str, Any]:
    """Fill what the flags left unset from ``--spec``; return the spec's extras."""
    spec: dict[str, Any] = load_spec(args.spec) if args.spec else {}
    for key, value in spec.items():
        dest = _SPEC_LISTS.get(key) or _SPEC_RENAMES.get(key, key)
        if hasattr(args, dest) and getattr(args, dest) in (None, []):
            setattr(args, dest, value)
    if args.executor is None and args.ray_address:
        args.executor = "ray"  # an address says where to run
    for key, value in _DEFAULTS.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    return spec


def agent_from_command(text: str, name: str | None = None) -> AgentSpec:
    """An agent from a command line (``--agent-command``), as the CLI reads it.

    Raises:
        UsageProblem: an empty or unbalanced command line.

    """
    try:
        return config_agent_from_command(text, name=name)
    except SettingsError as exc:
        raise UsageProblem(f"--agent-command {text!r}: {exc}") from None


def _agents(
    args: argparse.Namespace, workspace: str, spec: dict[str, Any]
) -> tuple[list[AgentSpec], list[Any], Path | None]:
    """The batch's agents, the settings' MCP servers, and the settings file read, if any.

    Each agent's protocol is settled (:func:`~acphost.config.with_protocol_choice`):
    ``--protocol`` and ``--mcp-tools`` (or the spec's top-level keys), else its
    own entry or ``[[agent]]`` table, else the settings' top level.
    """
    agents: list[AgentSpec] = []
    mcp: list[Any] = []
    settings: Settings | None = None
    names = list(args.agent or [])
    commands = list(args.agent_command or [])
    inline = list(spec.get("agent_specs", []))
    for name in names or ([None] if not commands and not inline else []):
        _, settings, agent = resolve(
            SimpleNamespace(agent=name, settings=args.settings, cwd=workspace, sandbox=args.sandbox)
        )
        agents.append(agent)
        mcp = list(settings.mcp_servers)
    taken = {a.name for a in [*agents, *inline]}
    for text in commands:
        agent = with_sandbox_choice(args.sandbox, agent_from_command(text))
        base, n = agent.name, 2
        while agent.name in taken:
            agent = replace(agent, name=f"{base}-{n}")
            n += 1
        taken.add(agent.name)
        agents.append(agent)
    if settings is None:
        try:
            settings = settings_for(args.settings, workspace)
        except SettingsError as exc:
            raise UsageProblem(str(exc)) from None
    chosen = [
        with_protocol_choice(a, settings, protocol=args.protocol, mcp_tools=args.mcp_tools)
        for a in [*agents, *inline]
    ]
    return chosen, mcp, settings.path if names or not (commands or inline) else None


def _prompts(args: argparse.Namespace, spec: dict[str, Any]) -> list[Prompt]:
    prompts = numbered(list(args.prompt or []))
    if args.prompts:
        prompts += read_prompts(args.prompts, start=len(prompts) + 1)
    return prompts + list(spec.get("prompt_items", []))


def configure(args: argparse.Namespace, view: View) -> Batch:
    """Turn the flags into a :class:`~acphost.batch.Batch` (warnings go to ``view``).

    Raises:
        UsageProblem, PlanError, WorkspaceError, PolicyFileError: bad input.

    """
    if args.ask:
        raise UsageProblem(
            "--ask cannot be used with batch: nobody is there to answer; decide up front "
            "with --write, --approve-all, --approve-reads, --deny-all or --permission-policy"
        )
    spec = _merge_spec(args)
    for flag in ("repeat", "jobs"):
        value = getattr(args, flag)
        if value is not None and value < 1:
            raise UsageProblem(f"--{flag} must be at least 1, got {value}")
    # The default name is in the current directory, which may be a checkout
    # shipping a link of that name: only a folder the user named is followed.
    out = OutDir(args.out or "acphost-batch", chosen=args.out is not None)
    try:
        out.check()
    except BatchError as exc:
        raise UsageProblem(str(exc)) from None
    source = inspect_workspace(args.workspace or os.getcwd())
    if uncommitted_changes(source):
        view.note(
            "warning: "
            f"the workspace has uncommitted changes: runs start from commit {source.commit[:12]}"
            if source.commit
            else "the workspace has uncommitted changes"
        )
    agents, mcp, settings_file = _agents(args, source.path, spec)
    choices = HostChoices(
        write=args.write,
        yolo=args.yolo,
        approve=args.approve,
        policy_file=args.permission_policy,
        audit_log=args.audit_log,
        fs=not args.no_fs,
        terminal=not args.no_terminal,
        settings_file=settings_file,
    )
    if args.permission_policy:  # a bad rules file is a usage error now, not 64 failed runs later
        RulesPolicy.from_file(os.path.expanduser(args.permission_policy))
    budget = None
    if args.max_tokens is not None or args.max_cost is not None:
        try:
            budget = Budget(
                max_tokens=args.max_tokens, max_cost=args.max_cost, currency=args.currency
            )
        except ValueError as exc:
            raise UsageProblem(str(exc)) from None
    limits = Limits(timeout=args.timeout, budget=budget, init_timeout=args.init_timeout)
    plan = make_plan(
        agents,
        _prompts(args, spec),
        workspace=source,
        repeat=args.repeat,
        limits=limits,
        host=functools.partial(build_host_config, choices),
        mcp_servers=mcp,
        system_prompt=read_system_prompt(args.system_prompt),
        system_prompt_mode=args.system_prompt_mode,
        subagents=args.subagents,
    )
    return Batch(
        plan,
        out,
        executor=_executor(args),
        jobs=args.jobs,
        keep_workspaces=args.keep_workspaces,
        history=_history(args, view),
        retry_failed=args.retry_failed,
        warn=lambda message: view.note(f"warning: {message}"),
    )


def _executor(args: argparse.Namespace) -> Any:
    if args.executor != "ray":
        return None
    from ..batch import RayExecutor  # noqa: PLC0415 - Ray loads only when asked for

    return RayExecutor(args.ray_address, cpus_per_run=args.ray_cpus, forward_env=args.ray_env or ())


def _history(args: argparse.Namespace, view: View) -> Any:
    from ..history import HistoryError, HistoryStore, history_enabled  # noqa: PLC0415

    if not history_enabled(args.no_history):
        return None
    try:
        return HistoryStore.open()
    except HistoryError as exc:
        view.note(f"warning: {exc}; the runs are not recorded in the history")
        return None


async def _drive(batch: Batch, view: View) -> None:
    loop = asyncio.get_running_loop()
    presses = 0

    def on_signal() -> None:
        nonlocal presses
        presses += 1
        if presses == 1:
            view.note("cancelling the running runs (Ctrl-C again to kill their agents)")
            batch.cancel()
        else:
            batch.kill()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, on_signal)
    view.start(batch)
    try:
        async for outcome in batch:
            view.finished(outcome)
    finally:
        view.stop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)


def _exit_code(batch: Batch) -> int:
    if batch.cancelled:
        return EXIT_INTERRUPTED
    outcomes: list[RunOutcome] = list(batch.outcomes.values())
    complete = len(outcomes) == len(batch.plan.runs)
    return EXIT_OK if complete and all(o.status == "ok" for o in outcomes) else EXIT_ERROR


def run_batch_command(args: argparse.Namespace) -> int:
    """Run the batch the parsed flags describe; return the exit code."""
    view = make_view(sys.stderr, verbose=args.verbose)
    try:
        batch = configure(args, view)
    except (UsageProblem, PlanError, WorkspaceError, PolicyFileError) as exc:
        return usage_error(str(exc), "acphost batch")
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    try:
        asyncio.run(_drive(batch, view))
    except (BatchError, ExecutorError, OutcomeError) as exc:
        fail(str(exc))
        return EXIT_USAGE if isinstance(exc, ExecutorError) else EXIT_ERROR
    except KeyboardInterrupt:  # before the handlers were in place
        return EXIT_INTERRUPTED
    finally:
        if batch.history is not None:
            batch.history.close()
    view.summary(batch)
    return _exit_code(batch)


def report_main(argv: list[str]) -> int:
    """``acphost batch report OUT``: render report.json, .md and .html again."""
    from ._parser import Parser, add_global_flags, setup_logging  # noqa: PLC0415 - report only

    p = Parser(
        prog="acphost batch report",
        description="Render OUT/report.json, report.md and report.html again from the results.",
    )
    p.add_argument("out", help="a batch's output directory")
    add_global_flags(p, unused=True)
    args = p.parse_args(argv)
    setup_logging(args.verbose)
    try:
        report = load_report(args.out)
        paths = write_reports(report)
    except (BatchError, OutcomeError) as exc:
        return usage_error(str(exc), "acphost batch report")
    except OSError as exc:
        fail(f"cannot write the reports: {exc}")
        return EXIT_ERROR
    for path in paths:
        print(path)
    return EXIT_OK
