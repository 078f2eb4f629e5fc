"""The ``acphost`` command line's arguments: the prompt run's parser, the subcommands' base.

Parsing stays free of asyncio, the schema and rich, so ``acphost --help``
costs little more than starting Python; the types of the budget flags load
their parsers only when the flag is given.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, NoReturn

from .._version import __version__
from ..launch import EXIT_USAGE

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..config import ProtocolChoice

__all__ = [
    "Parser",
    "add_global_flags",
    "add_protocol_flags",
    "build_parser",
    "first_word",
    "setup_logging",
    "sub_parser",
    "usage_error",
]

_EPILOG = """\
subcommands:
  agents            list the agents you can pick with -a (settings, presets, demo);
                    -a NAME: only the command that one would run
  sessions [list]   list the agent's sessions (session/list)
  doctor            check that an agent starts, time initialize, show capabilities
  tui [PATH]        the interactive terminal client
  validate TRACE    check a recorded trace against the schema and ordering rules
  replay TRACE      act as the agent of a recorded trace (use it as an agent command)
  history [ACTION]  the local history: list, show, export, import, delete, prune, info
  usage             tokens and cost of the recorded sessions by agent, day or directory
  trust [PATH]      trust a project's .acphost/settings.json (--list, --revoke PATH)
  batch             prompts x agents x repeats in parallel, isolated workspaces, a report
  status [-s NAME]  the named sessions of this workspace: running, queue, agent, warmth
  cancel [-s NAME]  cancel a named session's running turn (its run exits 130)

examples:
  acphost "show me around"                    # the built-in demo agent
  acphost -a claude --write "fix the tests"   # a registry preset, writes allowed
  acphost -a acp:gemini@0.61.0 "hello"        # a registry agent by id, at that version
  echo "summarise @README.md" | acphost -o simple
  acphost -o jsonl "hello" > frames.jsonl     # every frame, both directions
  acphost --continue "and now the tests"      # go on with the last session here
  acphost --max-cost 0.50 "tidy @src/app.py"  # cancel the turn past 0.50
  acphost -s review "look at the diff"        # a named session: warm agent, a queue

exit codes: 0 turn completed, 1 agent/protocol error, 2 usage/configuration
error, 3 a budget (--max-tokens, --max-cost) was crossed and the turn
cancelled, 4 a named session was busy (--no-queue), 130 interrupted (143
SIGTERM, 129 SIGHUP). Use `acphost -- WORD` to send a subcommand's name as
the prompt.

Every prompt run is recorded in the local history (see `acphost history`);
--no-history or ACPHOST_NO_HISTORY=1 turns that off."""


def usage_error(message: str, prog: str = "acphost") -> int:
    """Print a usage error as every command spells it; return the exit code (2).

    One line on stderr, ``PROG: MESSAGE; see 'PROG --help'``: argparse's
    errors (through :class:`Parser`) and the checks made after parsing (an
    empty prompt, flags that exclude each other, a bad date) look the same.
    The message may quote what the user typed, or a file's name: sanitised.

    Args:
        message: what is wrong (one line; newlines are shown escaped).
        prog: the command whose ``--help`` explains it (``acphost history show``).

    Returns:
        :data:`~acphost.launch.EXIT_USAGE`.

    """
    import sys  # noqa: PLC0415

    from ..safetext import sanitize_line  # noqa: PLC0415 - not for --help

    print(f"{prog}: {sanitize_line(message)}; see '{prog} --help'", file=sys.stderr)
    return EXIT_USAGE


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line and a pointer to ``--help``.

    Every parser of the command line is one (subparsers inherit the class),
    so no usage error prints argparse's usage block.
    """

    def error(self, message: str) -> NoReturn:
        """Print ``PROG: MESSAGE; see 'PROG --help'`` on stderr and exit 2."""
        raise SystemExit(usage_error(message, self.prog))


def setup_logging(verbose: int) -> None:
    """Log ``acphost.*`` to stderr: warnings, ``-v`` info, ``-vv`` debug and the agent's stderr."""
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


def first_word(argv: list[str], *parsers: argparse.ArgumentParser) -> int | None:
    """The index of the first word that is neither an option nor an option's value, or None.

    ``-a demo list`` gives 2: the parsers say which options take a value
    (``-a`` does, ``-v`` does not), so the value is skipped; argparse's
    abbreviations (``--sett``) count. After ``--`` there is no such word.

    Args:
        argv: the arguments.
        parsers: the parsers whose options may come before the word.

    Returns:
        The index in ``argv``, or None.

    """
    takes_value = {
        option: action.nargs != 0
        for parser in parsers
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
                o
                for o in takes_value
                if o.startswith(name)  # argparse's abbreviations
            ]
            if "=" not in word and len(known) == 1 and takes_value[known[0]]:
                i += 1
        elif word.startswith("-") and len(word) > 1:
            for j, letter in enumerate(word[1:], start=2):
                if takes_value.get("-" + letter):
                    i += j == len(word)  # the value is the next word unless attached
                    break
        else:
            return i
        i += 1
    return None


_AGENT_HELP = (
    "the agent: a settings entry, a preset, acp:ID[@VERSION] (a registry agent) or demo "
    "(default: the first in settings, else demo)"
)


def add_global_flags(
    p: argparse.ArgumentParser,
    agent_help: str = _AGENT_HELP,
    *,
    skip: tuple[str, ...] = (),
    unused: bool = False,
) -> None:
    """Add the options every command takes: agent, settings, cwd, verbosity, init timeout.

    ``acphost -a demo history list`` hands ``-a demo`` to the subcommand, so
    every subcommand accepts them (a shell alias with global options works
    with each); where one means nothing to it, it is accepted and unused.

    Args:
        p: the parser.
        agent_help: the help of ``-a``.
        skip: destinations the parser defines itself, with its own meaning
            (``history list -a NAME`` filters by agent).
        unused: the command starts no agent: only ``-v`` means something to
            it, the others are accepted but left out of its ``--help``.

    """

    def shown(text: str) -> str:
        return argparse.SUPPRESS if unused else text

    if "agent" not in skip:
        p.add_argument("-a", "--agent", metavar="NAME", help=shown(agent_help))
    p.add_argument(
        "--agent-command",
        metavar='"CMD ARGS..."',
        help=shown("run this agent command instead (split like a shell would, never run by one)"),
    )
    p.add_argument(
        "--settings", metavar="PATH", help=shown("settings.json to use (also $ACPHOST_SETTINGS)")
    )
    if "cwd" not in skip:
        p.add_argument(
            "--cwd",
            metavar="DIR",
            help=shown("the session's workspace (default: the current directory)"),
        )
    if "verbose" not in skip:
        p.add_argument(
            "-v",
            "--verbose",
            action="count",
            default=0,
            help="log to stderr" if unused else "log to stderr (-vv: also the agent's stderr)",
        )
    p.add_argument(
        "--init-timeout",
        type=float,
        default=60.0,
        metavar="SEC",
        help=shown("seconds to wait for initialize and session setup (default 60)"),
    )
    sandbox = p.add_mutually_exclusive_group()
    sandbox.add_argument(
        "--sandbox",
        dest="sandbox",
        action="store_const",
        const=True,
        default=None,
        help=shown(
            "insist on the OS sandbox around the agent (on by default where the system "
            "has one): refuse to run without it"
        ),
    )
    sandbox.add_argument(
        "--no-sandbox",
        dest="sandbox",
        action="store_const",
        const=False,
        help=shown("run the agent unconfined: no OS sandbox (docs/SANDBOX.md)"),
    )
    add_protocol_flags(p, shown)


def add_protocol_flags(p: argparse._ActionsContainer, shown: Callable[[str], str] = str) -> None:
    """Add ``--protocol 1|2|auto`` and ``--mcp-tools``/``--no-mcp-tools`` (None: not given).

    Every command that starts an agent takes them (``acphost batch`` too, in
    one of its groups); the agent's settings entry, then the settings' top
    level, decide when they are not given
    (:func:`~acphost.config.with_protocol_choice`).
    """
    p.add_argument(
        "--protocol",
        type=_protocol,
        default=None,
        metavar="1|2|auto",
        help=shown(
            "the ACP protocol version to ask the agent for; auto offers 2 and falls back to 1 "
            '(default: "protocol" in settings, else 1)'
        ),
    )
    tools = p.add_mutually_exclusive_group()
    tools.add_argument(
        "--mcp-tools",
        dest="mcp_tools",
        action="store_const",
        const=True,
        default=None,
        help=shown(
            "offer the host's file and terminal tools to the agent as an MCP server, on "
            'protocol 1 too (also "mcp_tools" in settings)'
        ),
    )
    tools.add_argument(
        "--no-mcp-tools",
        dest="mcp_tools",
        action="store_const",
        const=False,
        help=shown('do not offer them (when settings say "mcp_tools": true)'),
    )


def _protocol(value: str) -> ProtocolChoice:
    from ..config import parse_protocol  # noqa: PLC0415 - only when the flag is given

    try:
        return parse_protocol(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    """The parser of a prompt run: ``acphost [options] [--] [prompt]``."""
    p = Parser(
        prog="acphost",
        description="Run one prompt against an ACP agent and stream the answer "
        "(stdin is read when no prompt is given).",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "prompt", nargs="*", help="the prompt; @path and @url mentions become resource links"
    )
    add_global_flags(p)
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
        metavar="SEC",
        help="with --list-commands: how long it waits for the agent's commands (default 3)",
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
        "--ask",
        action="store_true",
        help="ask y/N on the terminal when a rule says ask, and fill in the agent's forms there",
    )
    g.add_argument("--no-terminal", action="store_true", help="do not offer terminals")
    g.add_argument("--no-fs", action="store_true", help="do not offer file reads or writes")
    g.add_argument("--audit-log", metavar="FILE", help="append every permission decision (JSONL)")
    g = p.add_argument_group(
        "sessions (reopened with session/resume when the agent offers it, else session/load, "
        "in the protocol version they were spoken in unless --protocol says otherwise)"
    )
    x = g.add_mutually_exclusive_group()
    x.add_argument(
        "-c",
        "--continue",
        dest="continue_",
        action="store_true",
        help="go on with the newest session of this agent in this directory (from the history)",
    )
    x.add_argument(
        "--resume",
        metavar="ID",
        help="go on with a session: a history id (or its first characters), the agent's "
        "session id, or a file written by --save-session",
    )
    g.add_argument(
        "--replay-context",
        action="store_true",
        help="with --continue or --resume: start a new session instead, its first prompt "
        "carrying the earlier transcript (for agents that can neither resume nor load)",
    )
    g.add_argument(
        "--no-history",
        action="store_true",
        help="do not record this run in the local history (also ACPHOST_NO_HISTORY=1)",
    )
    g.add_argument(
        "-s",
        "--session",
        metavar="NAME",
        help="the named session NAME of this agent and workspace: created on first use, its "
        "agent kept warm between runs; a prompt sent while it is busy waits its turn",
    )
    g.add_argument(
        "--keep-alive",
        type=_duration,
        metavar="DURATION",
        help="with --session: keep the agent warm this long after the last turn "
        "(30s, 5m, 1h; 0 stops it at once; default: 5m for a new session, else as it was)",
    )
    g.add_argument(
        "--no-queue",
        action="store_true",
        help="with --session: fail at once (exit 4) when the session is busy",
    )
    g.add_argument(
        "--save-session",
        metavar="PATH",
        help="save the session id (and agent, cwd, history id) to PATH",
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
    g.add_argument(
        "--system-prompt",
        metavar="TEXT|@FILE",
        help="the session's system prompt (@FILE reads it from a UTF-8 file); sent only "
        "to an agent that advertises sessionCapabilities.systemPrompt, else exit 2 "
        "(also system_prompt in the agent's settings entry; the flag wins)",
    )
    g.add_argument(
        "--system-prompt-mode",
        choices=("append", "override"),
        help="append the system prompt to the agent's own (the default) or override them "
        "(needs the agent's systemPrompt.mode.override)",
    )
    g = p.add_argument_group(
        "budgets (also max_tokens, max_cost in the agent's settings entry; flags win)"
    )
    g.add_argument(
        "--max-tokens",
        type=_tokens,
        metavar="N",
        help="cancel the turn once the agent reports more than N tokens in use (exit 3)",
    )
    g.add_argument(
        "--max-cost",
        type=_cost,
        metavar="AMOUNT",
        help="cancel the turn once it has cost more than AMOUNT, e.g. 0.50 or '2 EUR' "
        "(exit 3); agents that report no usage cannot be held to a budget",
    )
    g = p.add_argument_group("protocol")
    g.add_argument(
        "--unstable",
        action="store_true",
        help="enable ACP's unstable parts: session/fork, session/set_title, session/status, "
        "session/archive, auth/status (--list-caps then shows it) and the error stop "
        "reason (off: never advertised or sent)",
    )
    g.add_argument(
        "--no-notices",
        dest="notices",
        action="store_false",
        help="do not accept the agent's notices (shown on stderr as '[notice] severity: text')",
    )
    g.add_argument(
        "--subagent-timeout",
        type=float,
        default=600.0,
        metavar="S",
        help="after the turn's answer, wait at most S seconds for subagents that go on "
        "(default 600; 0: no bound), then stop them",
    )
    g.add_argument(
        "--no-subagents",
        dest="subagents",
        action="store_false",
        help="do not advertise subagents: the agent then runs no child sessions the host can "
        "follow (it may show a subagent as one tool call, or not at all)",
    )
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


def _tokens(value: str) -> int:
    from ._budget import tokens_flag  # noqa: PLC0415 - only when the flag is given

    return tokens_flag(value)


def _duration(value: str) -> float:
    from ..launch import UsageProblem, parse_duration  # noqa: PLC0415 - only when given

    try:
        return parse_duration(value)
    except UsageProblem as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--keep-alive ")) from None


def _cost(value: str) -> tuple[float, str | None]:
    from ._budget import cost_flag  # noqa: PLC0415 - only when the flag is given

    return cost_flag(value)


def sub_parser(
    name: str, description: str, agent_help: str = _AGENT_HELP, *, unused: bool = False
) -> argparse.ArgumentParser:
    """A subcommand's parser with the options every command shares (agent, settings, cwd...).

    ``unused``: the subcommand starts no agent (see :func:`add_global_flags`).
    """
    p = Parser(prog=f"acphost {name}", description=description)
    add_global_flags(p, agent_help, unused=unused)
    return p


def command_line(
    parser: argparse.ArgumentParser, args: argparse.Namespace, leave_out: frozenset[str]
) -> list[str]:
    """The arguments that make ``parser`` give back ``args``, less the options in ``leave_out``.

    Built from the parsed options, never from the words typed: an abbreviated
    option (``--ser`` for ``--serve``) is known by what it set, so leaving
    one out does not depend on how it was spelled. Options are written as
    ``--name=value`` (a value that starts with ``-`` stays a value) and the
    positional arguments follow ``--``.

    Args:
        parser: the parser that made ``args``.
        args: its result, before anything changed it.
        leave_out: destinations to leave out (``{"serve", "host", "port"}``).

    Returns:
        The arguments, options first.

    Raises:
        ValueError: an option of a kind this does not write back (a bug:
            every option of the parsers using it is handled).

    """
    options: list[str] = []
    positionals: list[str] = []
    for action in parser._actions:
        if action.dest in leave_out or action.default == argparse.SUPPRESS:
            continue  # and --help, --version
        value = getattr(args, action.dest, None)
        if not action.option_strings:
            if action.nargs not in (None, "?"):
                raise ValueError(f"cannot write back the positional {action.dest!r}")
            if value is not None:
                positionals.append(str(value))
            continue
        name = action.option_strings[-1]  # the long spelling
        if isinstance(action, argparse._CountAction):
            options += [name] * (value or 0)
        elif action.nargs == 0:  # store_true, store_const (several may share a dest)
            if value != action.default and value == action.const:
                options.append(name)
        elif action.nargs is None and not isinstance(action, argparse._AppendAction):
            if value is not None and value != action.default:
                options.append(f"{name}={value}")
        else:
            raise ValueError(f"cannot write back the option {name!r}")
    return [*options, "--", *positionals] if positionals else options
