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

from ._app import AcpApp

__all__ = ["AcpApp", "run_tui", "serve_tui"]


class _AppLogHandler(logging.Handler):
    """Shows the library's errors as notifications instead of writing over the screen."""

    def __init__(self, app: AcpApp) -> None:
        super().__init__(logging.WARNING)
        self.app = app

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = self.format(record)
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
            ``write``, ``yolo``.

    Returns:
        0 after a normal quit, 1 when quitting after an agent crash, 2 for a
        usage or configuration problem.

    """
    from ..config import resolve_agent  # noqa: PLC0415
    from ..launch import EXIT_USAGE, UsageProblem, fail, resolve  # noqa: PLC0415

    try:
        cwd, settings, spec = resolve(args)
    except UsageProblem as exc:
        fail(str(exc))
        return EXIT_USAGE
    # Several agents configured and none named: the start screen asks which.
    choices = (
        [resolve_agent(name, settings) for name in settings.agents]
        if getattr(args, "agent", None) is None and len(settings.agents) > 1
        else []
    )
    app = AcpApp(
        spec,
        cwd,
        settings=settings,
        write=bool(getattr(args, "write", False)),
        yolo=bool(getattr(args, "yolo", False)),
        init_timeout=getattr(args, "init_timeout", 60.0),
        choices=choices,
    )
    with _logging_into(app):
        result = app.run()
    return result if isinstance(result, int) else 0


def serve_tui(args: argparse.Namespace, argv: list[str]) -> int:
    """Serve the TUI in a browser (``acphost tui --serve``); return the exit code.

    The options are checked here, once, so a bad agent name or settings file
    is reported at start, not in each page.

    Args:
        args: the parsed ``acphost tui`` arguments (``host``, ``port`` and
            those :func:`run_tui` takes).
        argv: the arguments as given, passed on to the app each page runs.

    Returns:
        0 after Ctrl+C, 2 for a usage or configuration problem.

    """
    from ..launch import EXIT_USAGE, UsageProblem, fail, resolve  # noqa: PLC0415
    from ._serve import serve  # noqa: PLC0415

    try:
        resolve(args)
    except UsageProblem as exc:
        fail(str(exc))
        return EXIT_USAGE
    if not 0 < args.port < 65536:
        fail(f"--port {args.port} is not a port number (1-65535)")
        return EXIT_USAGE
    return serve(argv, args.host, args.port)
