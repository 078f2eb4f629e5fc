"""``acphost trust``: approve a project's settings file, list or revoke approvals."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..config import (
    SettingsError,
    project_settings_path,
    read_settings,
    revoke,
    trust,
    trust_store_path,
    trusted_files,
)
from ..launch import EXIT_OK, EXIT_USAGE
from ..safetext import sanitize_line

__all__ = ["trust_main"]

_DESCRIPTION = """\
Trust a project's settings file. A checkout's .acphost/settings.json names the
commands acphost runs, so acphost uses it only once you have read it and
trusted it, and again only after you trust each change (like direnv's allow).
--settings PATH and $ACPHOST_SETTINGS need no trust: you named the file."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
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
    x.add_argument("--revoke", metavar="PATH", help="stop trusting this settings file")
    return p


def _target(path: str | None) -> Path:
    if path is None:
        return project_settings_path(os.getcwd())
    p = Path(os.path.expanduser(path))
    if p.is_dir():
        return p / "settings.json" if p.name == ".acphost" else project_settings_path(p)
    return p


def _err(message: str) -> int:
    print(f"acphost: {sanitize_line(message)}", file=sys.stderr)
    return EXIT_USAGE


def _trust(path: Path) -> int:
    try:
        data, settings = read_settings(path)
        recorded = trust(path, data)
    except SettingsError as exc:
        return _err(str(exc))
    print(f"trusted {sanitize_line(recorded)}")
    for name, spec in settings.agents.items():
        print(f"  agent {sanitize_line(name)}: {sanitize_line(' '.join(spec.argv))}")
    for name, extra in settings.partial.items():
        print(f"  agent {sanitize_line(name)}: the preset, adjusted ({len(extra['env'])} env)")
    for server in settings.mcp_servers:
        target = server.get("url") or " ".join([server["command"], *server["args"]])
        print(f"  mcp server {sanitize_line(server['name'])}: {sanitize_line(target)}")
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
    return EXIT_OK


def trust_main(argv: list[str]) -> int:
    """Run ``acphost trust [PATH | --list | --revoke PATH]``; return the exit code."""
    args = _parser().parse_args(argv)
    if args.list:
        return _list()
    if args.revoke is not None:
        try:
            found = revoke(args.revoke)
        except SettingsError as exc:
            return _err(str(exc))
        shown = sanitize_line(args.revoke)
        print(f"revoked {shown}" if found else f"{shown} was not trusted", file=sys.stderr)
        return EXIT_OK
    return _trust(_target(args.path))
