"""``acphost tui``: the interactive terminal client (Textual).

Only this package (and ``cli/``) imports Textual. Widgets read the library's
session state (:class:`acphost.SessionState`), never frames; the app drives
the library from workers on Textual's own asyncio loop.
"""

from __future__ import annotations

import argparse
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ._app import AcpApp

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..client import Budget
    from ..config import AgentSpec

__all__ = ["AcpApp", "run_tui", "serve_tui", "tui_app"]


class _AppLogHandler(logging.Handler):
    """Shows the library's errors as notifications instead of writing over the screen."""

    def __init__(self, app: AcpApp) -> None:
        super().__init__(logging.WARNING)
        self.app = app

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = self.app.redactor.redact_text(self.format(record))
            self.app.log(message)
            if record.levelno >= logging.ERROR and self.app.is_running:
                self.app.say(message, "error", 6)
        except Exception:  # a log handler must never raise (logging.Handler.handleError)
            self.handleError(record)


@contextmanager
def _logging_into(app: AcpApp) -> Iterator[None]:
    """Swap the ``acphost`` logger's stream handlers for one that feeds the app."""
    root = logging.getLogger("acphost")
    saved = [h for h in root.handlers if isinstance(h, logging.StreamHandler)]
    for handler in saved:
        root.removeHandler(handler)
    ours = _AppLogHandler(app)
    root.addHandler(ours)
    try:
        yield
    finally:
        root.removeHandler(ours)
        for handler in saved:
            root.addHandler(handler)


def run_tui(args: argparse.Namespace) -> int:
    """Run the TUI for the parsed ``acphost tui`` arguments; return the exit code.

    Args:
        args: ``agent``, ``settings``, ``cwd``, ``verbose``, ``init_timeout``,
            ``write``, ``yolo``, ``no_history``, ``unstable``, ``max_cost``,
            ``max_tokens``, ``subagents``, ``sandbox``, ``protocol``, ``mcp_tools``.

    Returns:
        0 after a normal quit, 1 when quitting after an agent crash, 2 for a
        usage or configuration problem.

    """
    from ..launch import EXIT_USAGE, UsageProblem, fail  # noqa: PLC0415

    try:
        app = tui_app(args)
    except UsageProblem as exc:
        fail(str(exc))
        return EXIT_USAGE
    with _logging_into(app):
        result = app.run()
    return result if isinstance(result, int) else 0


def tui_app(args: argparse.Namespace) -> AcpApp:
    """The app the parsed ``acphost tui`` arguments ask for (not running yet).

    ``--sandbox`` and ``--no-sandbox``, ``--protocol`` and ``--mcp-tools``
    apply to the named agent and to each one the start screen offers,
    exactly as a prompt run applies them. (An
    agent whose settings entry insists, ``"sandbox": true``, where the
    sandbox cannot be had is refused when it starts, in the crash dialog.)

    Args:
        args: as :func:`run_tui` takes them.

    Raises:
        UsageProblem: a bad option, settings file or agent name; ``--sandbox``
            where the OS sandbox cannot be had (one line for the face to print).

    """
    from ..config import resolve_agent, with_protocol_choice  # noqa: PLC0415
    from ..history import history_enabled  # noqa: PLC0415
    from ..launch import resolve, with_sandbox_choice  # noqa: PLC0415

    cwd, settings, spec = resolve(args)
    budget = _budget(args)
    with_system_prompt = _system_prompt(args)
    protocol, mcp_tools = getattr(args, "protocol", None), getattr(args, "mcp_tools", None)

    def with_prompt(agent: AgentSpec) -> AgentSpec:
        # The flags' system prompt and protocol (else the settings'), for each agent alike.
        chosen = with_protocol_choice(agent, settings, protocol=protocol, mcp_tools=mcp_tools)
        return with_system_prompt(chosen)

    confine: bool | None = getattr(args, "sandbox", None)
    # Several agents configured and none named: the start screen asks which.
    choices = [
        with_sandbox_choice(confine, with_prompt(resolve_agent(name, settings)))
        for name in (
            settings.agents
            if getattr(args, "agent", None) is None and len(settings.agents) > 1
            else ()
        )
    ]
    return AcpApp(
        with_prompt(spec),
        cwd,
        settings=settings,
        write=bool(getattr(args, "write", False)),
        yolo=bool(getattr(args, "yolo", False)),
        init_timeout=getattr(args, "init_timeout", 60.0),
        choices=choices,
        history=history_enabled(bool(getattr(args, "no_history", False))),
        unstable=bool(getattr(args, "unstable", False)),
        budget=budget,
        subagents=bool(getattr(args, "subagents", True)),
        confine=confine,
    )


def _system_prompt(args: argparse.Namespace) -> Callable[[AgentSpec], AgentSpec]:
    """What ``--system-prompt`` and ``--system-prompt-mode`` make of an agent (flags win).

    Raises:
        UsageProblem: an ``@FILE`` that cannot be read or is not UTF-8.

    """
    from dataclasses import replace  # noqa: PLC0415

    from ..launch import UsageProblem, read_system_prompt  # noqa: PLC0415

    text = read_system_prompt(getattr(args, "system_prompt", None))
    mode: str | None = getattr(args, "system_prompt_mode", None)
    if text is not None and not text.strip():
        raise UsageProblem("the system prompt is empty: give its text, or leave it out")

    def apply(spec: AgentSpec) -> AgentSpec:
        return replace(
            spec,
            system_prompt=text if text is not None else spec.system_prompt,
            system_prompt_mode=mode or spec.system_prompt_mode,
        )

    return apply


def _budget(args: argparse.Namespace) -> Budget | None:
    """The session budget of ``--max-cost`` and ``--max-tokens`` (None: no limit).

    Raises:
        UsageProblem: a limit that is negative or not a number.

    """
    from ..client import Budget  # noqa: PLC0415
    from ..launch import UsageProblem  # noqa: PLC0415

    max_cost = getattr(args, "max_cost", None)
    max_tokens = getattr(args, "max_tokens", None)
    if max_cost is not None and not max_cost >= 0:  # NaN too
        raise UsageProblem(f"--max-cost {max_cost} must be a number >= 0 (e.g. 0.50)")
    if max_tokens is not None and max_tokens < 0:
        raise UsageProblem(f"--max-tokens {max_tokens} must be >= 0")
    if max_cost is None and max_tokens is None:
        return None
    return Budget(max_tokens=max_tokens, max_cost=max_cost)


def serve_tui(args: argparse.Namespace, argv: list[str]) -> int:
    """Serve the TUI in a browser (``acphost tui --serve``); return the exit code.

    The options are checked here, once, so a bad agent name or settings file
    is reported at start, not in each page.

    Args:
        args: the parsed ``acphost tui`` arguments (``host``, ``port`` and
            those :func:`run_tui` takes).
        argv: the arguments of the app each page runs (``acphost tui``'s,
            less the serving options).

    Returns:
        0 after Ctrl+C, 2 for a usage or configuration problem.

    """
    from ..launch import EXIT_USAGE, UsageProblem, fail, resolve  # noqa: PLC0415
    from ._serve import serve  # noqa: PLC0415

    try:
        resolve(args)
        _budget(args)
    except UsageProblem as exc:
        fail(str(exc))
        return EXIT_USAGE
    if not 0 < args.port < 65536:
        fail(f"--port {args.port} is not a port number (1-65535)")
        return EXIT_USAGE
    return serve(argv, args.host, args.port)
