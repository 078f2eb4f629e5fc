"""``acphost trust``: approve a project's settings file, list or revoke approvals."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ..config import (
    Settings,
    SettingsError,
    project_dir,
    project_settings_path,
    read_project_settings,
    read_settings,
    revoke,
    trust,
    trust_store_path,
    trusted_files,
)
from ..launch import EXIT_OK
from ..safetext import sanitize_line
from ._parser import Parser, add_global_flags, setup_logging, usage_error

__all__ = ["describe_settings", "trust_main"]

_DESCRIPTION = """\
Trust a project's settings file. A checkout's .acphost/settings.json names the
commands acphost runs, so acphost uses it only once you have read it and
trusted it, and again only after you trust each change (like direnv's allow).
--settings PATH and $ACPHOST_SETTINGS need no trust: you named the file."""


def _parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="acphost trust",
        description=_DESCRIPTION,
        epilog=f"trusted files are recorded (path and SHA-256) in {trust_store_path()}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    x = p.add_mutually_exclusive_group()
    x.add_argument(
        "path",
        nargs="?",
        help="the settings file, or a project directory (default: ./.acphost/settings.json)",
    )
    x.add_argument(
        "--list", action="store_true", help="list trusted files and whether they changed"
    )
    x.add_argument(
        "--revoke",
        metavar="PATH",
        nargs="?",
        const="",
        help="stop trusting this settings file (the same forms as PATH; none: this project's)",
    )
    add_global_flags(p, unused=True)
    return p


def _target(path: str | None, cwd: str | None = None) -> Path:
    """The settings file meant by a path trust or --revoke was given (both take the same forms).

    A project directory, its ``.acphost`` directory or the file itself; none:
    the project at ``--cwd``, else the current directory.
    """
    if path is None:
        return project_settings_path(os.path.abspath(os.path.expanduser(cwd or os.getcwd())))
    p = Path(os.path.expanduser(path))
    if p.is_dir():
        return p / "settings.json" if p.name == ".acphost" else project_settings_path(p)
    return p


def _err(message: str) -> int:
    return usage_error(message, "acphost trust")


def _pairs(items: Any) -> list[tuple[str, str]]:
    """An env or headers map, or its wire form ``[{name, value}]``, as sorted pairs."""
    if isinstance(items, dict):
        return sorted((str(k), str(v)) for k, v in items.items())
    return sorted((str(i.get("name", "")), str(i.get("value", ""))) for i in items or ())


def describe_settings(settings: Settings) -> list[str]:
    """What trusting a settings file lets it do, one indented line each, secrets redacted.

    Each agent's command line, the environment variables it sets and the
    arguments it adds to a preset; each MCP server's command or URL, its
    environment and headers. Values the redactor counts as secrets (the way
    ``--trace`` would hide them) show as ``[REDACTED]``; the rest are shown
    so the user sees exactly what would run (``LD_PRELOAD=/tmp/x.so``).

    Args:
        settings: the parsed file.

    Returns:
        Lines for a terminal (sanitised).

    """
    from ..redact import Redactor  # noqa: PLC0415 - only acphost trust needs it

    adjusted = [
        SimpleNamespace(env=extra["env"], args=extra["args"]) for extra in settings.partial.values()
    ]
    redactor = Redactor.from_config(
        agents=[*settings.agents.values(), *adjusted], settings=settings, host_env=None
    )

    def line(text: str) -> str:
        return sanitize_line(redactor.redact_text(text))

    def env(items: Any, label: str = "env", sep: str = "=") -> list[str]:
        return [f"    {label} {line(k)}{sep}{line(v)}" for k, v in _pairs(items)]

    out = []
    for name, spec in settings.agents.items():
        out.append(f"  agent {line(name)}: {line(' '.join(redactor.redact_argv(spec.argv)))}")
        out += env(spec.env)
    for name, extra in settings.partial.items():
        out.append(f"  agent {line(name)}: the preset, adjusted")
        if extra["args"]:
            added = " ".join(redactor.redact_argv(list(extra["args"])))
            out.append(f"    adds arguments: {line(added)}")
        out += env(extra["env"])
    for server in settings.mcp_servers:
        target = server.get("url") or " ".join(
            redactor.redact_argv([server["command"], *server["args"]])
        )
        out.append(f"  mcp server {line(server['name'])}: {line(target)}")
        out += env(server.get("env"))
        out += env(server.get("headers"), "header", ": ")
    return out


def _trust(path: Path) -> int:
    try:
        if path.name == "settings.json" and path.parent.name == ".acphost":
            # Read as a run reads it: the project resolved once, the file never via a link.
            path, data, settings = read_project_settings(project_dir(path.parent.parent))
        else:
            data, settings = read_settings(path)
        recorded = trust(path, data)
    except SettingsError as exc:
        return _err(str(exc))
    print(f"trusted {sanitize_line(recorded)}, which may run:")
    for text in describe_settings(settings) or ["  (no agent and no MCP server)"]:
        print(text)
    return EXIT_OK


def _list() -> int:
    try:
        entries = trusted_files()
    except SettingsError as exc:
        return _err(str(exc))
    if not entries:
        print("(no trusted project settings)", file=sys.stderr)
    for e in entries:
        print(f"{e.state:<8} {e.trusted_at:<26} {sanitize_line(e.path)}")
        if e.state != "ok":
            continue  # its content now is not what was trusted: nothing of it applies
        try:
            _, settings = read_settings(Path(e.path))
        except SettingsError as exc:
            print(f"  (cannot show it: {sanitize_line(str(exc))})")
            continue
        for text in describe_settings(settings):
            print(text)
    return EXIT_OK


def trust_main(argv: list[str]) -> int:
    """Run ``acphost trust [PATH | --list | --revoke PATH]``; return the exit code."""
    args = _parser().parse_args(argv)
    setup_logging(args.verbose)
    if args.list:
        return _list()
    if args.revoke is not None:
        try:
            target = _target(args.revoke or None, args.cwd)
            found = revoke(target)
        except SettingsError as exc:
            return _err(str(exc))
        shown = sanitize_line(os.path.abspath(target))
        print(f"revoked {shown}" if found else f"{shown} was not trusted", file=sys.stderr)
        return EXIT_OK
    return _trust(_target(args.path, args.cwd))
