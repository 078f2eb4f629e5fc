"""Dispatch for the ``acphost`` command: a prompt run, or a subcommand.

Parsing stays free of asyncio, the schema and rich, so ``acphost --help``
costs little more than starting Python.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from ..launch import EXIT_USAGE
from . import _collector
from ._parser import build_parser, command_line, first_word, setup_logging, sub_parser

__all__ = ["SUBCOMMANDS", "build_parser", "run_cli", "subcommand_at"]


_setup_logging = setup_logging


def _agents(argv: list[str]) -> int:
    args = sub_parser(
        "agents", "List the agents: settings entries, registry presets, the demo."
    ).parse_args(argv)
    _setup_logging(args.verbose)
    from ._commands import list_agents  # noqa: PLC0415

    return list_agents(args)


def _sessions(argv: list[str]) -> int:
    p = sub_parser("sessions", "List the agent's sessions (session/list), newest first.")
    p.add_argument("action", nargs="?", choices=("list",), help="list (the default)")
    p.add_argument("--all", action="store_true", help="sessions of every directory, not only --cwd")
    p.add_argument("-o", "--output", choices=("text", "jsonl"), default="text")
    p.add_argument("-n", "--limit", type=int, default=20, metavar="N", help="default 20; 0: all")
    args = p.parse_args(argv)
    _setup_logging(args.verbose)
    from ._commands import list_sessions  # noqa: PLC0415

    return list_sessions(args)


def _doctor(argv: list[str]) -> int:
    p = sub_parser("doctor", "Check that an agent launches and initializes; show what it offers.")
    p.add_argument(
        "--permission-policy",
        metavar="FILE",
        help="also check a rules file: name the rules that let the agent run any command",
    )
    args = p.parse_args(argv)
    _setup_logging(args.verbose)
    from ._commands import doctor  # noqa: PLC0415

    return doctor(args)


#: Where ``acphost tui --serve`` listens unless ``--host``, ``--port`` say.
_SERVE_HOST = "127.0.0.1"
_SERVE_PORT = 8000
#: The TUI's flags that mean something only with another (see ``check_needed_flags``).
_TUI_NEEDS = (
    ("host", "--host", "serve", "--serve", "it is the address the served TUI listens on"),
    ("port", "--port", "serve", "--serve", "it is the port the served TUI listens on"),
)


def tui_parser() -> argparse.ArgumentParser:
    """The parser of ``acphost tui``."""
    p = sub_parser(
        "tui",
        "The interactive terminal client.",
        "the agent (default: the only one in settings; with several, the start screen "
        "asks which; with none, demo)",
    )
    p.add_argument(
        "path", nargs="?", help="the workspace directory (default: the current directory)"
    )
    p.add_argument(
        "--write", action="store_true", help="allow file writes (confined to the workspace)"
    )
    p.add_argument(
        "--yolo", action="store_true", help="reads anywhere, writes allowed (still confined)"
    )
    p.add_argument(
        "--serve",
        action="store_true",
        help="serve the TUI in a web browser (textual-serve): prints the address to open, "
        "with a token that works once (that browser keeps a key); each page runs its own agent",
    )
    p.add_argument(
        "--host",
        help="with --serve: the address to listen on (default 127.0.0.1, this machine only; "
        "localhost listens on 127.0.0.1 and ::1; on any other address, the token is the "
        "only lock and plain HTTP carries it in clear)",
    )
    p.add_argument("--port", type=int, help="with --serve: the port (default 8000)")
    p.add_argument(
        "--no-history",
        action="store_true",
        help="do not record the sessions in the local history (also ACPHOST_NO_HISTORY=1)",
    )
    p.add_argument(
        "--unstable",
        action="store_true",
        help="enable unstable ACP methods: rename (F6) and archive (F7) sessions "
        "where the agent offers them",
    )
    p.add_argument(
        "--no-subagents",
        dest="subagents",
        action="store_false",
        help="do not advertise subagents: the agent then runs no child sessions shown as "
        "cards (it may show a subagent as one tool call, or not at all)",
    )
    p.add_argument(
        "--max-cost",
        type=float,
        metavar="AMOUNT",
        help="each session's budget in the agent's currency: a turn that crosses it is cancelled",
    )
    p.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help="each session's token budget (tokens in the context window the agent reports)",
    )
    p.add_argument(
        "--system-prompt",
        metavar="TEXT|@FILE",
        help="each session's system prompt (@FILE reads a UTF-8 file; also system_prompt in "
        "the agent's settings entry; the flag wins)",
    )
    p.add_argument(
        "--system-prompt-mode",
        choices=("append", "override"),
        help="append the system prompt to the agent's own instructions (default) or override them",
    )
    return p


def _tui(argv: list[str]) -> int:
    p = tui_parser()
    args = p.parse_args(argv)
    # What each served page runs: the options as parsed (however abbreviated),
    # less the serving ones, taken before anything below changes them.
    app_argv = command_line(p, args, frozenset({"serve", "host", "port"}))
    from ..launch import UsageProblem  # noqa: PLC0415
    from ._prepare import check_needed_flags  # noqa: PLC0415

    try:
        check_needed_flags(args, _TUI_NEEDS)
    except UsageProblem as exc:
        p.error(str(exc))
    if args.path and args.cwd:
        p.error("PATH and --cwd both name the workspace: give one of them")
    args.cwd = args.cwd or args.path
    args.host = _SERVE_HOST if args.host is None else args.host
    args.port = _SERVE_PORT if args.port is None else args.port
    _setup_logging(args.verbose)
    try:
        from ..tui import run_tui, serve_tui  # noqa: PLC0415 - Textual loads only for the TUI
    except ImportError as exc:
        print(
            f"acphost: the TUI needs Textual: pip install 'acphost[tui]' ({exc})", file=sys.stderr
        )
        return EXIT_USAGE
    if args.serve:
        return serve_tui(args, app_argv)
    return run_tui(args)


def _validate(argv: list[str]) -> int:
    p = sub_parser(
        "validate", "Check a JSONL trace against the ACP schema and ordering rules.", unused=True
    )
    p.add_argument("trace", nargs="+", help="trace files (from --trace)")
    p.add_argument("--no-schema", action="store_true", help="check only the ordering rules")
    args = p.parse_args(argv)
    _setup_logging(args.verbose)
    from ._trace import validate  # noqa: PLC0415

    return validate(args.trace, schema=not args.no_schema)


def _replay(argv: list[str]) -> int:
    from ..agents.replay import main  # noqa: PLC0415
    from ._parser import Parser, add_global_flags  # noqa: PLC0415

    def global_flags(p: argparse.ArgumentParser) -> None:
        # Its own -v lists the differences; the other global options are accepted, unused.
        add_global_flags(p, skip=("verbose",), unused=True)

    code: int = main(argv, prog="acphost replay", parser_class=Parser, add_flags=global_flags)
    return code


def _history(argv: list[str]) -> int:
    from ._history import history_main  # noqa: PLC0415

    return history_main(argv)


def _usage(argv: list[str]) -> int:
    from ._history import usage_main  # noqa: PLC0415

    return usage_main(argv)


def _named_parser(name: str, description: str) -> argparse.ArgumentParser:
    p = sub_parser(name, description, "only the named sessions of this agent")
    p.add_argument("-s", "--session", metavar="NAME", help="only the named session NAME")
    p.add_argument("-o", "--output", choices=("text", "json"), default="text")
    return p


def _status(argv: list[str]) -> int:
    args = _named_parser(
        "status", "The named sessions of this workspace: idle or running, the queue, the agent."
    ).parse_args(argv)
    _setup_logging(args.verbose)
    from ._named_status import status_main  # noqa: PLC0415

    return status_main(args)


def _cancel(argv: list[str]) -> int:
    args = _named_parser(
        "cancel", "Cancel the running turn of a named session (its run exits 130)."
    ).parse_args(argv)
    _setup_logging(args.verbose)
    from ._named_status import cancel_main  # noqa: PLC0415

    return cancel_main(args)


def _trust(argv: list[str]) -> int:
    from ._trust import trust_main  # noqa: PLC0415

    return trust_main(argv)


def _batch(argv: list[str]) -> int:
    from ._batch import batch_main  # noqa: PLC0415

    return batch_main(argv, _setup_logging)


SUBCOMMANDS: dict[str, Callable[[list[str]], int]] = {
    "tui": _tui,
    "validate": _validate,
    "replay": _replay,
    "agents": _agents,
    "sessions": _sessions,
    "doctor": _doctor,
    "history": _history,
    "usage": _usage,
    "trust": _trust,
    "batch": _batch,
    "status": _status,
    "cancel": _cancel,
}


def subcommand_at(argv: list[str], parser: argparse.ArgumentParser) -> int | None:
    """The index of a subcommand word that follows only options, or None.

    ``acphost -a demo doctor`` runs ``doctor``; the options' values are
    skipped (``acphost -a doctor "hi"`` picks an agent named doctor), and
    after ``--`` every word is the prompt.

    Args:
        argv: the arguments.
        parser: the prompt parser, whose options say which take a value.

    Returns:
        The index of the subcommand word in ``argv``.

    """
    at = first_word(argv, parser)
    return at if at is not None and argv[at] in SUBCOMMANDS else None


def run_cli(argv: list[str]) -> int:
    """Parse ``argv`` and run; return the exit code."""
    if argv and argv[0] in SUBCOMMANDS:
        _collector.resume()  # a subcommand may run for long (the TUI): it gets the collector back
        return SUBCOMMANDS[argv[0]](argv[1:])
    parser = build_parser()
    at = subcommand_at(argv, parser)
    if at is not None:
        _collector.resume()
        # Global options before the word go to the subcommand, which takes
        # them as its own (`acphost -a demo doctor` is `acphost doctor -a demo`).
        return SUBCOMMANDS[argv[at]](argv[:at] + argv[at + 1 :])
    args = parser.parse_args(argv)
    _setup_logging(args.verbose)
    if args.session is not None:
        from ._named import run_named_main  # noqa: PLC0415

        return run_named_main(args, argv)
    from ._run import run_prompt  # noqa: PLC0415 - asyncio loads only when a prompt runs

    return run_prompt(args)
