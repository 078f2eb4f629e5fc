"""``acphost batch``: prompts x agents x repeats in parallel, each run in its own workspace.

``acphost batch report OUT`` renders the reports of an output directory again.
This module only parses; :mod:`acphost.cli._batch_run` does the rest.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ._parser import Parser, add_protocol_flags, first_word

__all__ = ["batch_main", "build_batch_parser"]


def build_batch_parser() -> argparse.ArgumentParser:
    """The parser of ``acphost batch``."""
    p = Parser(
        prog="acphost batch",
        description="Run prompts x agents x repeats in parallel, each run in its own copy of "
        "the workspace, and write a report (OUT/report.json, .md, .html). "
        "`acphost batch report OUT` renders the reports again.",
        epilog="exit codes: 0 every run ok, 1 some run not ok, 2 usage error, 130 interrupted "
        "(rerun with the same --out to resume).",
    )
    n: Any = None
    p.add_argument("--spec", metavar="FILE", help="a TOML file with these options (flags win)")
    g = p.add_argument_group("what to run")
    g.add_argument("-a", "--agent", metavar="NAME", action="append", help="an agent (repeatable)")
    g.add_argument(
        "--agent-command", metavar="CMD", action="append", help='an agent command line, "cmd args"'
    )
    g.add_argument("-p", "--prompt", metavar="TEXT", action="append", help="a prompt (repeatable)")
    g.add_argument(
        "--prompts", metavar="FILE", help='prompts, one per line, or JSONL {"id", "prompt"}'
    )
    g.add_argument("--repeat", type=int, metavar="N", help="runs per agent and prompt (default 1)")
    g.add_argument("--settings", metavar="PATH", help="settings.json for agent names")
    x = g.add_mutually_exclusive_group()
    x.add_argument(
        "--sandbox",
        dest="sandbox",
        action="store_const",
        const=True,
        default=None,
        help="insist on the OS sandbox around each run's agent (on by default where the "
        "system has one): refuse to run without it",
    )
    x.add_argument(
        "--no-sandbox",
        dest="sandbox",
        action="store_const",
        const=False,
        help="run the agents unconfined: no OS sandbox (docs/SANDBOX.md)",
    )
    add_protocol_flags(g)
    g = p.add_argument_group("where and how")
    g.add_argument(
        "--workspace",
        "--cwd",
        metavar="DIR",
        help="where runs start, copied for each (default: the current directory)",
    )
    g.add_argument("--out", metavar="DIR", help="results (default ./acphost-batch)")
    g.add_argument("-j", "--jobs", type=int, metavar="K", help="runs at once (default: CPUs)")
    g.add_argument("--timeout", type=float, metavar="S", help="seconds per run")
    g.add_argument("--init-timeout", type=float, metavar="S", help="seconds to start (default 60)")
    g.add_argument("--max-tokens", type=int, metavar="N", help="token budget per run")
    g.add_argument("--max-cost", type=float, metavar="AMOUNT", help="cost budget per run")
    g.add_argument("--currency", metavar="CODE", help="count only costs in this currency")
    g.add_argument(
        "--system-prompt",
        metavar="TEXT|@FILE",
        help="every session's system prompt (@FILE reads a UTF-8 file); a run whose agent "
        "does not advertise sessionCapabilities.systemPrompt fails",
    )
    g.add_argument(
        "--system-prompt-mode",
        choices=("append", "override"),
        help="append to the agent's instructions (default) or override them",
    )
    g.add_argument(
        "--no-subagents",
        dest="subagents",
        action="store_false",
        default=n,
        help="do not advertise subagents (the agents then run no child sessions a run lists)",
    )
    g.add_argument("--keep-workspaces", action="store_true", default=n, help="keep OUT/workspaces")
    g.add_argument(
        "--retry-failed", action="store_true", default=n, help="rerun runs that were not ok"
    )
    g.add_argument("--no-history", action="store_true", default=n, help="do not record runs")
    g.add_argument("--executor", choices=("local", "ray"), help="local (default) or ray")
    g.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="the Ray cluster (HOST:PORT, ray://...; implies --executor ray)",
    )
    g.add_argument(
        "--ray-cpus",
        type=float,
        metavar="N",
        help="CPUs Ray reserves per run (default: none; --jobs bounds the runs in flight)",
    )
    g.add_argument(
        "--ray-env",
        metavar="NAME",
        action="append",
        help="pass this environment variable to the agents on Ray (repeatable)",
    )
    g = p.add_argument_group("files, terminals, permissions (per run)")
    g.add_argument("--write", action="store_true", default=n, help="allow writes in the workspace")
    g.add_argument("--yolo", action="store_true", default=n, help="reads anywhere, writes allowed")
    x = g.add_mutually_exclusive_group()
    for flag, const, text in (
        ("--approve-all", "all", "allow every request"),
        ("--approve-reads", "reads", "allow read-only operations only"),
        ("--deny-all", "deny", "reject every request"),
    ):
        x.add_argument(flag, dest="approve", action="store_const", const=const, help=text)
    x.add_argument("--permission-policy", metavar="FILE", help="a JSON rules file")
    g.add_argument("--ask", action="store_true", help=argparse.SUPPRESS)
    g.add_argument("--no-terminal", action="store_true", default=n, help="no terminals")
    g.add_argument("--no-fs", action="store_true", default=n, help="no file reads or writes")
    g.add_argument("--audit-log", metavar="FILE", help="append every decision (JSONL)")
    p.add_argument("-v", "--verbose", action="count", default=0, help="log to stderr")
    return p


def batch_main(argv: list[str], setup_logging: Callable[[int], None] | None = None) -> int:
    """``acphost batch ...``: run a batch (or ``report OUT``); return the exit code.

    Parsing loads nothing else (``--help`` stays quick); the batch machinery
    is imported once the flags are known.

    Args:
        argv: the arguments after ``batch``.
        setup_logging: the command line's logging set-up, given ``-v``'s count.

    """
    parser = build_batch_parser()
    # `acphost -v batch report OUT` hands `-v report OUT` here: options may
    # come before the word.
    at = first_word(argv, parser)
    if at is not None and argv[at] == "report":
        from ._batch_run import report_main  # noqa: PLC0415

        return report_main(argv[:at] + argv[at + 1 :])
    args = parser.parse_args(argv)
    if setup_logging is not None:
        setup_logging(args.verbose)
    from ._batch_run import run_batch_command  # noqa: PLC0415

    return run_batch_command(args)
