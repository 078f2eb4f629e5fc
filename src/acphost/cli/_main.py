"""Argument parsing and dispatch for the ``acphost`` command."""

from __future__ import annotations

import argparse
import os
import sys

from .._version import __version__

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

SUBCOMMANDS: dict[str, str] = {}


def build_parser() -> argparse.ArgumentParser:
    """The parser of a prompt run: ``acphost [options] [--] [prompt]``."""
    p = argparse.ArgumentParser(
        prog="acphost",
        description="Run one prompt against an ACP agent and stream the answer.",
        epilog="With no prompt, the prompt is read from stdin. "
        "Use `acphost -- WORD` to send a word that names a subcommand as the prompt.",
    )
    p.add_argument("prompt", nargs="*", help="the prompt (default: read stdin)")
    p.add_argument("-a", "--agent", default="demo", help="the agent to run (default: demo)")
    p.add_argument(
        "-o",
        "--output",
        choices=("text", "simple", "jsonl", "json"),
        default="text",
        help="text (default), simple (assistant text only), jsonl/json (every frame)",
    )
    p.add_argument(
        "--cwd", default=None, help="the session's workspace (default: current directory)"
    )
    p.add_argument(
        "--write", action="store_true", help="let the agent write files inside the workspace"
    )
    p.add_argument(
        "--yolo", action="store_true", help="reads anywhere and writes (writes stay confined)"
    )
    p.add_argument("--version", action="version", version=f"acphost {__version__}")
    return p


def run_cli(argv: list[str]) -> int:
    """Parse ``argv`` and run; return the exit code."""
    if argv and argv[0] in SUBCOMMANDS:
        return EXIT_USAGE
    parser = build_parser()
    args = parser.parse_args(argv)
    prompt = " ".join(args.prompt)
    if not prompt:
        if sys.stdin is None or sys.stdin.isatty():
            parser.error("no prompt given: pass it as an argument or pipe it on stdin")
        prompt = sys.stdin.read()
        if not prompt.strip():
            parser.error("the prompt read from stdin is empty")
    if args.agent != "demo":
        print(f"acphost: unknown agent {args.agent!r}; available: demo", file=sys.stderr)
        return EXIT_USAGE
    cwd = os.path.abspath(args.cwd or os.getcwd())
    if not os.path.isdir(cwd):
        print(f"acphost: --cwd {cwd} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    from ._run import run_prompt  # noqa: PLC0415 - asyncio loads only when a prompt runs

    return run_prompt(
        prompt, cwd=cwd, output=args.output, write=args.write or args.yolo, yolo=args.yolo
    )
