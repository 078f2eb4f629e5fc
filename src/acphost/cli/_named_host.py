"""The process that hosts a named session: ``python -m acphost.cli._named_host``.

Started by the run that found no host for its name (:mod:`acphost.cli._named`),
detached from it: its own session and process group, stdin read to its end
then ``/dev/null``, stdout and stderr in the name's ``host.log``. It gets the
name's locked lock file (``--lock-fd``, held for its life), a pipe to say
it listens (``--ready-fd``: ``ok``, or an exit code and the lines to print),
and on stdin the starting run's flags (JSON). From the flags it builds the
run options as a prompt run does (the same :class:`~acphost.cli._run.PromptRun`
code: agent, sandbox, permissions, system prompt, mode, model, history), so a
named session's agent is set up exactly as ``acphost`` would set it up.

Each run's turn is rendered here, for that run's output and terminal
(:class:`~acphost.cli._named_view.RunView`), and sent to the run as text.
Permissions are decided on the host's side by the policy flags (``--write``,
``--approve-*``, ``--permission-policy``...): no terminal's keys reach the
host, so ``--ask`` is refused with ``--session``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import logging
import os
import sys
from typing import TYPE_CHECKING, Any

from ..launch import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..client import Budget, Session, TurnResult
    from ..launch import RunOptions
    from ._named_view import RunView
    from ._prepare import Prepared

__all__ = ["main"]

#: The largest configuration a run hands its host on stdin.
_CONFIG_MAX = 1 << 20
#: The longest prompt label ``status`` shows.
_LABEL = 60


def _tell(fd: int, text: str) -> None:
    with contextlib.suppress(OSError):
        os.write(fd, text.encode("utf-8", "replace"))
        os.close(fd)


def main(argv: list[str] | None = None) -> int:
    """Run a named session's host until its agent has been idle for the keep-alive."""
    p = argparse.ArgumentParser(prog="acphost-named-host")
    p.add_argument("--lock-fd", type=int, required=True)
    p.add_argument("--ready-fd", type=int, required=True)
    ns = p.parse_args(argv)
    ready_fd = ns.ready_fd
    try:
        raw = sys.stdin.buffer.read(_CONFIG_MAX + 1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        config = json.loads(raw) if len(raw) <= _CONFIG_MAX else None
        if not isinstance(config, dict):
            raise ValueError("the run's configuration is not a JSON object")
        host = _build(config)
    except Exception as exc:  # the run prints it: one line, its exit code
        from ..launch import UsageProblem  # noqa: PLC0415

        code = EXIT_USAGE if isinstance(exc, UsageProblem) else EXIT_ERROR
        _tell(ready_fd, f"{code}\n{exc}")
        return code

    def ready() -> None:
        _tell(ready_fd, "ok\n")

    try:
        asyncio.run(host.serve(ready))
    finally:
        host.close()
    return EXIT_OK


class _Host:
    """The named host with the command line's decisions (:class:`~acphost.launch.HostHooks`)."""

    def __init__(self, prepared: Prepared, config: dict[str, Any]) -> None:
        from ..launch import HostHooks, NamedHost, place_of  # noqa: PLC0415
        from ._run import PromptRun  # noqa: PLC0415

        self.prepared = prepared
        self.prompt_run = PromptRun(prepared)
        place = config["place"]
        command = place.get("command")
        self.place = place_of(
            place["agent"],
            place["cwd"],
            place["name"],
            command=command if isinstance(command, str) else None,
        )
        hooks = HostHooks(
            options=self.options,
            fingerprint=config["fingerprint"],
            end_report=self.end_report,
            error_report=self.error_report,
            budget=self.budget,
            view=self.view,
            label=self.label,
        )
        keep_alive = config.get("keep_alive")
        self.named = NamedHost(self.place, hooks, None if keep_alive is None else float(keep_alive))

    async def serve(self, ready: Any) -> None:
        handler = _RunLog(self.named)
        root = logging.getLogger("acphost")
        root.addHandler(handler)
        try:
            await self.named.serve(ready)
        finally:
            root.removeHandler(handler)

    def close(self) -> None:
        self.prepared.outputs.close()

    def options(self, session_id: str | None) -> RunOptions:
        """The prompt run's options (no prompt), continuing ``session_id`` when given."""
        from ..launch import SessionChoice  # noqa: PLC0415
        from ._continue import agent_key  # noqa: PLC0415

        options = self.prompt_run.run_options(None)
        prepared = self.prepared
        if session_id is not None:
            options.session = SessionChoice("reopen", session_id, prepared.settings.mcp_servers)
        prepare = options.prepare

        def prepare_and_record(options: RunOptions) -> None:
            if prepare is not None:
                prepare(options)
            # Every turn of the named session goes to its one history record.
            options.recorder = prepared.outputs.open_history()
            if options.recorder is not None:
                options.record_as = agent_key(prepared.spec, prepared.outputs)

        options.prepare = prepare_and_record
        return options

    def view(self, request: dict[str, Any], send: Callable[[dict[str, Any]], None]) -> RunView:
        """A run's view of its turn: the command line's renderers, for its terminal."""
        from ._named_view import RunView  # noqa: PLC0415

        return RunView(request, send, self.prepared.spec)

    def label(self, prompt: str) -> str:
        """What ``status`` shows of a prompt: its first line, redacted, shortened."""
        redact = self.prepared.outputs.redactor.redact_text
        first = redact(prompt.strip()).splitlines()[0] if prompt.strip() else ""
        return first if len(first) <= _LABEL else first[: _LABEL - 1] + "…"

    def budget(self, limits: Any) -> Budget | None:
        """A run's ``--max-tokens`` and ``--max-cost``, else the agent's settings entry's."""
        from ._budget import run_budget  # noqa: PLC0415

        limits = limits if isinstance(limits, dict) else {}
        tokens = limits.get("max_tokens")
        cost = limits.get("max_cost")
        flags = argparse.Namespace(
            max_tokens=tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None,
            max_cost=tuple(cost) if isinstance(cost, list) and len(cost) == 2 else None,
        )
        return run_budget(flags, self.prepared.spec)

    def end_report(
        self, result: TurnResult, session: Session, interrupted: bool, budgeted: bool
    ) -> dict[str, Any]:
        """How the command line ends a turn: its usage line, its warnings, its exit code."""
        from ..launch import EXIT_BUDGET  # noqa: PLC0415
        from ._budget import NO_USAGE_AT_END, usage_line  # noqa: PLC0415

        redact = self.prepared.outputs.redactor.redact_text
        line = usage_line(result, session.state.usage, session.turn_cost, session.cost_start)
        warnings: list[str] = []
        code = EXIT_OK
        if interrupted:
            code = EXIT_INTERRUPTED
        elif result.budget_exceeded is not None:
            warnings.append(str(result.budget_exceeded))
            code = EXIT_BUDGET
        else:
            if budgeted and not result.usage_reported:
                warnings.append(NO_USAGE_AT_END)
            elif result.budget_warning is not None:
                warnings.append(result.budget_warning)
            if result.stop_reason != "end_turn":
                warnings.append(f"stop reason: {result.stop_reason}")
        refusals = self.prompt_run.refusals
        if refusals is not None:  # what the policy refused during this turn, as a run says it
            warnings.extend(refusals.take_lines())
        return {
            "code": code,
            "stop_reason": result.stop_reason,
            "usage": redact(line) if line else None,
            "warnings": [redact(w) for w in warnings],
        }

    def error_report(self, exc: BaseException) -> dict[str, Any]:
        """What the run prints for an error of the agent or the host, and its exit code."""
        from ._failure import report  # noqa: PLC0415

        buffer = io.StringIO()
        with contextlib.redirect_stderr(buffer):
            if isinstance(exc, Exception):
                code = report(exc, self.prepared.spec, self.prepared.outputs.redactor)
            else:
                code = EXIT_ERROR
        return {"code": code, "text": buffer.getvalue()}


class _RunLog(logging.Handler):
    """The host's warnings during a turn go to that turn's run too, as a plain run shows them.

    (An agent's malformed frame, a notice it sent: ``acphost: NAME: MESSAGE``
    on the run's stderr.) The host's own bookkeeping (``acphost.launch.named``)
    stays in its log.
    """

    def __init__(self, named: Any) -> None:
        super().__init__(logging.WARNING)
        self.named = named
        self.busy = False

    def emit(self, record: logging.LogRecord) -> None:
        if self.busy or record.name.startswith("acphost.launch.named"):
            return
        view = self.named.running_view()
        if view is None:
            return
        self.busy = True  # what the view does is not logged back to it
        try:
            view.note(f"{record.name}: {record.getMessage()}")
        except Exception:  # a log line must never end the host
            self.handleError(record)
        finally:
            self.busy = False


def _build(config: dict[str, Any]) -> _Host:
    """The host from the starting run's configuration (its flags, parsed)."""
    from ..history import default_path, history_enabled  # noqa: PLC0415
    from ..launch import resolve  # noqa: PLC0415
    from ._outputs import RunOutputs  # noqa: PLC0415
    from ._parser import setup_logging  # noqa: PLC0415
    from ._prepare import Prepared  # noqa: PLC0415

    args = argparse.Namespace(**config["args"])
    setup_logging(args.verbose)
    cwd, settings, spec = resolve(args)
    history = default_path() if history_enabled(args.no_history) else None
    outputs = RunOutputs(args, spec, settings, history_path=history)
    outputs.open_early()
    return _Host(Prepared(args, cwd, settings, spec, None, outputs, None), config)


if __name__ == "__main__":
    raise SystemExit(main())
