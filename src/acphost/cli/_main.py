"""Argument parsing and dispatch for the ``acphost`` command.

Parsing stays free of asyncio, the schema and rich, so ``acphost --help``
costs little more than starting Python.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import NoReturn

from .._version import __version__
from ..launch import EXIT_USAGE

_EPILOG = """\
subcommands:
  agents            list the agents you can pick with -a (settings, presets, demo)
  sessions [list]   list the agent's sessions (session/list)
  doctor            check that an agent starts, time initialize, show capabilities
  tui [PATH]        the interactive terminal client
  validate TRACE    check a recorded trace against the schema and ordering rules
  replay TRACE      act as the agent of a recorded trace (use it as an agent command)
  history [ACTION]  the local history: list, show, export, import, delete, prune, info
  usage             tokens and cost of the recorded sessions by agent, day or directory
  trust [PATH]      trust a project's .acphost/settings.json (--list, --revoke PATH)

examples:
  acphost "show me around"                    # the built-in demo agent
  acphost -a claude --write "fix the tests"   # a registry preset, writes allowed
  echo "summarise @README.md" | acphost -o simple
  acphost -o jsonl "hello" > frames.jsonl     # every frame, both directions

exit codes: 0 turn completed, 1 agent/protocol error, 2 usage/configuration
error, 130 interrupted. Use `acphost -- WORD` to send a subcommand's name as
the prompt."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line and a pointer to ``--help``."""

    def error(self, message: str) -> NoReturn:
        """Print ``PROG: MESSAGE; see 'PROG --help'`` on stderr and exit 2."""
        self.exit(EXIT_USAGE, f"{self.prog}: {message}; see '{self.prog} --help'\n")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-a",
        "--agent",
        metavar="NAME",
        help="the agent (default: the first in settings, else demo)",
    )
    p.add_argument(
        "--agent-command",
        metavar='"CMD ARGS..."',
        help="run this agent command instead (split like a shell would, never run by one)",
    )
    p.add_argument(
        "--settings", metavar="PATH", help="settings.json to use (also $ACPHOST_SETTINGS)"
    )
    p.add_argument(
        "--cwd", metavar="DIR", help="the session's workspace (default: the current directory)"
    )
    p.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="log to stderr (-vv: also the agent's stderr)",
    )
    p.add_argument(
        "--init-timeout",
        type=float,
        default=60.0,
        metavar="SEC",
        help="seconds to wait for initialize and session setup (default 60)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The parser of a prompt run: ``acphost [options] [--] [prompt]``."""
    p = _Parser(
        prog="acphost",
        description="Run one prompt against an ACP agent and stream the answer "
        "(stdin is read when no prompt is given).",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "prompt", nargs="*", help="the prompt; @path and @url mentions become resource links"
    )
    _common(p)
    p.add_argument(
        "-o",
        "--output",
        choices=("text", "simple", "jsonl", "json"),
        default="text",
        help="text (default), simple (assistant text only), jsonl or json (every frame, "
        "exactly as on the wire: not redacted)",
    )
    g = p.add_argument_group("listing (combinable; caps, then modes, then commands)")
    g.add_argument("--list-caps", action="store_true", help="print the agent's capabilities")
    g.add_argument("--list-modes", action="store_true", help="print the session's modes")
    g.add_argument("--list-commands", action="store_true", help="print the agent's slash commands")
    g.add_argument(
        "--commands-timeout",
        type=float,
        default=3.0,
        metavar="SEC",
        help="how long --list-commands waits for the agent's commands (default 3)",
    )
    g = p.add_argument_group("files, terminals, permissions")
    g.add_argument(
        "--write",
        action="store_true",
        help="allow file writes and edits (confined to the workspace)",
    )
    g.add_argument(
        "--yolo", action="store_true", help="reads anywhere, writes allowed (still confined)"
    )
    x = g.add_mutually_exclusive_group()
    x.add_argument(
        "--approve-all",
        dest="approve",
        action="store_const",
        const="all",
        help="allow every request",
    )
    x.add_argument(
        "--approve-reads",
        dest="approve",
        action="store_const",
        const="reads",
        help="allow read-only operations only",
    )
    x.add_argument(
        "--deny-all",
        dest="approve",
        action="store_const",
        const="deny",
        help="reject every request",
    )
    x.add_argument(
        "--permission-policy", metavar="FILE", help="a JSON rules file deciding each request"
    )
    g.add_argument(
        "--ask", action="store_true", help="ask y/N on the terminal when a rule says ask"
    )
    g.add_argument("--no-terminal", action="store_true", help="do not offer terminals")
    g.add_argument("--no-fs", action="store_true", help="do not offer file reads or writes")
    g.add_argument("--audit-log", metavar="FILE", help="append every permission decision (JSONL)")
    g = p.add_argument_group("sessions")
    g.add_argument(
        "--resume",
        metavar="ID",
        help="continue a session (session/load or session/resume); "
        "a file written by --save-session also works",
    )
    g.add_argument(
        "--save-session", metavar="PATH", help="save the session id (and agent, cwd) to PATH"
    )
    g.add_argument("--mode", metavar="ID", help="switch to this mode before prompting")
    g.add_argument(
        "--model", metavar="ID", help="choose the model (the config option of category model)"
    )
    g.add_argument(
        "--config",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="set a config option (repeatable; true/false for boolean options)",
    )
    g.add_argument("--auth", metavar="METHOD", help="authenticate with this method first")
    g = p.add_argument_group("traces")
    g.add_argument("--trace", metavar="FILE", help="record every frame (secrets redacted) as JSONL")
    g.add_argument(
        "--strict",
        action="store_true",
        help="validate live traffic against the schema; stop at the agent's first violation "
        "(default: protocol violations are logged as warnings)",
    )
    p.add_argument("--version", action="version", version=f"acphost {__version__}")
    return p


def _sub_parser(name: str, description: str) -> argparse.ArgumentParser:
    p = _Parser(prog=f"acphost {name}", description=description)
    _common(p)
    return p


def _setup_logging(verbose: int) -> None:
    import logging  # noqa: PLC0415 - not for --help

    from ._edge import stderr_log_handler  # noqa: PLC0415

    handler = stderr_log_handler()
    handler.setFormatter(logging.Formatter("acphost: %(name)s: %(message)s"))
    root = logging.getLogger("acphost")
    root.addHandler(handler)
    root.propagate = False
    root.setLevel(
        logging.WARNING if verbose == 0 else logging.INFO if verbose == 1 else logging.DEBUG
    )
    if verbose < 2:
        logging.getLogger("acphost.agent.stderr").setLevel(logging.WARNING)


def _agents(argv: list[str]) -> int:
    args = _sub_parser(
        "agents", "List the agents: settings entries, registry presets, the demo."
    ).parse_args(argv)
    _setup_logging(args.verbose)
    from ._commands import list_agents  # noqa: PLC0415

    return list_agents(args)


def _sessions(argv: list[str]) -> int:
    p = _sub_parser("sessions", "List the agent's sessions (session/list), newest pages followed.")
    p.add_argument("action", nargs="?", choices=("list",), help="list (the default)")
    p.add_argument("--all", action="store_true", help="sessions of every directory, not only --cwd")
    p.add_argument("-o", "--output", choices=("text", "jsonl"), default="text")
    args = p.parse_args(argv)
    _setup_logging(args.verbose)
    from ._commands import list_sessions  # noqa: PLC0415

    return list_sessions(args)


def _doctor(argv: list[str]) -> int:
    args = _sub_parser(
        "doctor", "Check that an agent launches and initializes; show what it offers."
    ).parse_args(argv)
    _setup_logging(args.verbose)
    from ._commands import doctor  # noqa: PLC0415

    return doctor(args)


def _tui(argv: list[str]) -> int:
    p = _sub_parser("tui", "The interactive terminal client.")
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
        help="serve the TUI in a web browser (textual-serve); each page runs its own agent",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="with --serve: the address to listen on (default 127.0.0.1, this machine only)",
    )
    p.add_argument("--port", type=int, default=8000, help="with --serve: the port (default 8000)")
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
    args = p.parse_args(argv)
    if args.path and not args.cwd:
        args.cwd = args.path
    _setup_logging(args.verbose)
    try:
        from ..tui import run_tui, serve_tui  # noqa: PLC0415 - Textual loads only for the TUI
    except ImportError as exc:
        print(
            f"acphost: the TUI needs Textual: pip install 'acphost[tui]' ({exc})", file=sys.stderr
        )
        return EXIT_USAGE
    if args.serve:
        return serve_tui(args, argv)
    return run_tui(args)


def _validate(argv: list[str]) -> int:
    p = _Parser(
        prog="acphost validate",
        description="Check a JSONL trace against the ACP schema and ordering rules.",
    )
    p.add_argument("trace", nargs="+", help="trace files (from --trace)")
    p.add_argument("--no-schema", action="store_true", help="check only the ordering rules")
    args = p.parse_args(argv)
    from ._trace import validate  # noqa: PLC0415

    return validate(args.trace, schema=not args.no_schema)


def _replay(argv: list[str]) -> int:
    from ..agents.replay import main  # noqa: PLC0415

    code: int = main(argv, prog="acphost replay")
    return code


def _history(argv: list[str]) -> int:
    from ._history import history_main  # noqa: PLC0415

    return history_main(argv)


def _usage(argv: list[str]) -> int:
    from ._history import usage_main  # noqa: PLC0415

    return usage_main(argv)


def _trust(argv: list[str]) -> int:
    from ._trust import trust_main  # noqa: PLC0415

    return trust_main(argv)


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
    takes_value = {
        option: action.nargs != 0
        for action in parser._actions
        for option in action.option_strings
    }
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            return None
        if word.startswith("--"):
            name = word.partition("=")[0]
            known = [o for o in takes_value if o == name] or [
                o for o in takes_value if o.startswith(name)  # argparse's abbreviations
            ]
            if "=" not in word and len(known) == 1 and takes_value[known[0]]:
                i += 1
        elif word.startswith("-") and len(word) > 1:
            for j, letter in enumerate(word[1:], start=2):
                if takes_value.get("-" + letter):
                    i += j == len(word)  # the value is the next word unless attached
                    break
        else:
            return i if word in SUBCOMMANDS else None
        i += 1
    return None


def run_cli(argv: list[str]) -> int:
    """Parse ``argv`` and run; return the exit code."""
    if argv and argv[0] in SUBCOMMANDS:
        return SUBCOMMANDS[argv[0]](argv[1:])
    parser = build_parser()
    at = subcommand_at(argv, parser)
    if at is not None:
        # Global options before the word go to the subcommand: `acphost -a demo doctor`.
        return SUBCOMMANDS[argv[at]](argv[:at] + argv[at + 1 :])
    args = parser.parse_args(argv)
    _setup_logging(args.verbose)
    from ._run import run_prompt  # noqa: PLC0415 - asyncio loads only when a prompt runs

    return run_prompt(args)
