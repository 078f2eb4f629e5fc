"""The subcommands: ``agents``, ``sessions``, ``doctor``."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time

from .._errors import AcpError, AgentExited, CapabilityNotSupported
from ..client import AcpClient, auth_method_id
from ..config import all_agents, command_found, find_settings, load_settings
from ..config._settings import SettingsError
from ..launch import EXIT_ERROR, EXIT_OK, EXIT_USAGE, UsageProblem, fail, resolve

__all__ = ["doctor", "list_agents", "list_sessions"]


def list_agents(args: argparse.Namespace) -> int:
    """Print every agent with its source, command and whether it is installed."""
    import os  # noqa: PLC0415

    cwd = os.path.abspath(args.cwd) if args.cwd else os.getcwd()
    path, explicit = find_settings(args.settings, cwd)
    try:
        settings = load_settings(path, explicit=explicit)
    except SettingsError as exc:
        fail(str(exc))
        return EXIT_USAGE
    default = next(iter(settings.agents), "demo")
    rows = []
    for name, spec in all_agents(settings).items():
        found = "yes" if command_found(spec) else "no"
        mark = "*" if name == default else " "
        rows.append((f"{mark} {name}", spec.source, found, " ".join(spec.argv)))
    header = ("  NAME", "SOURCE", "FOUND", "COMMAND")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]
    print(f"{header[0]:<{widths[0]}}  {header[1]:<{widths[1]}}  {header[2]:<{widths[2]}}  COMMAND")
    for r in rows:
        print(f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}")
    print(
        "\n* default agent; settings:",
        settings.path or "none (run with --settings or create ~/.config/acphost/settings.json)",
    )
    return EXIT_OK


async def _sessions(args: argparse.Namespace) -> int:
    cwd, _settings, spec = resolve(args)
    async with AcpClient.start(
        spec.argv, env=dict(spec.env), cwd=cwd, init_timeout=args.init_timeout
    ) as client:
        count = 0
        async for info in client.iter_sessions(cwd=None if args.all else cwd):
            count += 1
            if args.output == "jsonl":
                print(json.dumps(info.to_wire()))
            else:
                title = info.title or ""
                print(f"{info.session_id}  {info.updated_at or '-':<25}  {title}  ({info.cwd})")
        if args.output == "text" and count == 0:
            print("(no sessions)", file=sys.stderr)
    return EXIT_OK


def list_sessions(args: argparse.Namespace) -> int:
    """Print the agent's sessions (all pages)."""
    try:
        return asyncio.run(_sessions(args))
    except UsageProblem as exc:
        fail(str(exc))
        return EXIT_USAGE
    except CapabilityNotSupported:
        fail("this agent does not support listing sessions (sessionCapabilities.list)")
        return EXIT_ERROR
    except AcpError as exc:
        fail(str(exc))
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130


async def _doctor(args: argparse.Namespace) -> int:
    cwd, _settings, spec = resolve(args)
    print(f"agent:        {spec.name} ({spec.source})")
    print(f"command:      {' '.join(spec.argv)}")
    print(f"found:        {'yes' if command_found(spec) else 'no'}")
    started = time.perf_counter()
    try:
        async with AcpClient.start(
            spec.argv, env=dict(spec.env), cwd=cwd, init_timeout=args.init_timeout
        ) as client:
            elapsed = time.perf_counter() - started
            info = client.agent_info
            print(
                f"initialize:   ok in {elapsed * 1000:.0f} ms, "
                f"protocol version {client.protocol_version}"
            )
            if info is not None:
                print(
                    f"agent info:   {info.name} {info.version}"
                    + (f" ({info.title})" if info.title else "")
                )
            print(
                "capabilities: "
                + json.dumps(client.agent_capabilities.to_wire(), indent=2).replace(
                    "\n", "\n              "
                )
            )
            methods = ", ".join(f"{auth_method_id(m)}" for m in client.auth_methods) or "none"
            print(f"auth methods: {methods}")
            tail = client.stderr_tail(10)
    except AgentExited as exc:
        print(f"initialize:   FAILED: {exc.message}")
        if exc.stderr_tail:
            print("stderr tail:\n  " + exc.stderr_tail.replace("\n", "\n  "))
        return EXIT_ERROR
    except AcpError as exc:
        print(f"initialize:   FAILED: {exc}")
        return EXIT_ERROR
    print("stderr tail:  " + (tail.replace("\n", "\n              ") if tail else "(empty)"))
    return EXIT_OK


def doctor(args: argparse.Namespace) -> int:
    """Launch the agent, time ``initialize``, print what it offers."""
    try:
        return asyncio.run(_doctor(args))
    except UsageProblem as exc:
        fail(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
