"""The subcommands: ``agents``, ``sessions``, ``doctor``.

What they print about an agent (names, versions, session titles, stderr)
is cleaned at the output edge: sanitised on a terminal, exact in a pipe;
secrets are redacted everywhere, by the redactor of the agent's
configuration (:func:`run_redactor`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, TypeVar

from ..config import (
    SettingsError,
    all_agents,
    command_found,
    describe_protocol,
    project_dir,
    protocol_options,
    settings_for,
)
from ..errors import AcpError, AgentExited, CapabilityNotSupported
from ..launch import EXIT_ERROR, EXIT_OK, UsageProblem, fail, resolve
from ._edge import Edge, is_styled_terminal, is_terminal
from ._failure import agent_text
from ._parser import usage_error
from ._setup import resolve_run

if TYPE_CHECKING:
    from ..config import AgentSpec, Settings
    from ..launch import Run
    from ..redact import Redactor

__all__ = [
    "doctor",
    "list_agents",
    "list_sessions",
    "newest_first",
    "run_redactor",
    "shown_argv",
    "supports",
    "tsv_cell",
]


def run_redactor(spec: AgentSpec, settings: Settings) -> Redactor:
    """The redactor of one agent's configuration: its env, secret arguments, MCP servers."""
    from ..redact import Redactor  # noqa: PLC0415

    return Redactor.from_config(agent=spec, settings=settings)


def shown_argv(spec: AgentSpec, redactor: Redactor) -> str:
    """The agent's command line for display, secrets redacted.

    Values of secret-looking flags (``--api-key VALUE``, ``--token=VALUE``),
    ``NAME=value`` pairs with credential-like names, known token formats and
    the configured secrets become ``[REDACTED]``.
    """
    return " ".join(redactor.redact_argv(spec.argv))


def list_agents(args: argparse.Namespace) -> int:
    """Print every agent with its source, command and whether it is installed.

    With ``-a NAME`` (or ``--agent-command``), only that agent, as a run
    with the same flags would start it (``-a acp:ID@VERSION`` shows the
    pinned command): nothing is started.
    """
    cwd = project_dir(args.cwd or os.curdir)
    chosen: dict[str, AgentSpec] | None = None
    try:
        if args.agent is not None or args.agent_command is not None:
            _, settings, spec = resolve(args)
            chosen = {spec.name: spec}
        else:
            settings = settings_for(args.settings, cwd)
    except UsageProblem as exc:
        return usage_error(str(exc), "acphost agents")
    except SettingsError as exc:
        return usage_error(str(exc), "acphost agents")
    field = Edge(is_terminal(sys.stdout)).field
    default = next(iter(settings.agents), "demo")
    rows = []
    for name, spec in (chosen if chosen is not None else all_agents(settings)).items():
        found = "yes" if command_found(spec) else "no"
        mark = "*" if name == default else " "
        shown = shown_argv(spec, run_redactor(spec, settings))
        rows.append((f"{mark} {field(name)}", field(spec.source), found, field(shown)))
    header = ("  NAME", "SOURCE", "FOUND", "COMMAND")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]
    for r in [header, *rows]:
        print(f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}")
    where = field(str(settings.path)) if settings.path else None
    print(
        "\n* default agent; settings:",
        where or "none (run with --settings or create ~/.config/acphost/settings.json)",
    )
    return EXIT_OK


def tsv_cell(value: str) -> str:
    r"""A value for one tab-separated cell: backslash, tab, newline and CR escaped (``\t``...)."""
    return (
        value.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    )


_SESSION_COLUMNS = ("SESSION ID", "UPDATED", "TITLE", "CWD")


def _print_sessions(rows: list[tuple[str, str, str, str]], redact: Callable[[str], str]) -> None:
    rows = [(a, b, redact(c), redact(d)) for a, b, c, d in rows]
    if is_styled_terminal(sys.stdout):
        from rich.console import Console  # noqa: PLC0415 - rich loads only for a TTY
        from rich.table import Table  # noqa: PLC0415
        from rich.text import Text  # noqa: PLC0415

        field = Edge(terminal=True).field
        table = Table(box=None, header_style="bold", pad_edge=False)
        for column in _SESSION_COLUMNS:
            table.add_column(column, overflow="fold")
        for row in rows:
            table.add_row(*(Text(field(cell)) for cell in row))
        Console(markup=False, emoji=False, highlight=False).print(table)
        return
    # A pipe gets the exact cells; a terminal that cannot be styled, the same rows sanitised.
    field = Edge(is_terminal(sys.stdout)).field
    print("\t".join(_SESSION_COLUMNS))
    for row in rows:
        print("\t".join(field(tsv_cell(cell)) for cell in row))


async def _sessions(
    args: argparse.Namespace, cwd: str, spec: AgentSpec, redact: Callable[[str], str]
) -> int:
    from ..launch import RunOptions, open_run  # noqa: PLC0415

    options = RunOptions(
        spec,
        cwd,
        session=None,
        client={"init_timeout": args.init_timeout},
        **protocol_options(spec),
    )
    async with open_run(options) as run:
        found = [info async for info in run.client.iter_sessions(cwd=None if args.all else cwd)]
    ordered = newest_first(found, key=lambda info: info.updated_at)
    shown = ordered[: args.limit] if args.limit else ordered
    if args.output == "jsonl":
        for info in shown:
            print(redact(json.dumps(info.to_wire())))
    elif shown:
        rows = [(i.session_id, i.updated_at or "-", i.title or "", i.cwd) for i in shown]
        _print_sessions(rows, redact)
    else:
        print("(no sessions)", file=sys.stderr)
    more = len(ordered) - len(shown)
    if more:
        # On stderr: stdout stays rows (or JSON lines) a script can read.
        sys.stdout.flush()
        print(f"{more} more (older); --limit 0 shows all {len(ordered)}", file=sys.stderr)
    return EXIT_OK


T = TypeVar("T")


def newest_first(items: list[T], *, key: Callable[[T], str | None]) -> list[T]:
    """Items newest first by the ISO 8601 time ``key`` gives (``SessionInfo.updatedAt``).

    The agent lists its sessions in its own order (the demo agent and most
    adapters: oldest first). Items whose time is missing or not ISO 8601 come
    last; items of the same time (or without one) keep the reverse of the
    agent's order, its last first.

    Args:
        items: the items, in the agent's order.
        key: the time of an item, or None.

    Returns:
        A new list.

    """

    def moment(item: tuple[int, T]) -> tuple[bool, datetime, int]:
        text = key(item[1])
        when = None
        if isinstance(text, str):
            try:
                when = datetime.fromisoformat(text.replace("Z", "+00:00"))
            except ValueError:
                when = None
        if when is not None and when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)  # ISO 8601 without an offset: taken as UTC
        return (when is not None, when or _NEVER, item[0])

    return [item for _, item in sorted(enumerate(items), key=moment, reverse=True)]


_NEVER = datetime.min.replace(tzinfo=timezone.utc)


def list_sessions(args: argparse.Namespace) -> int:
    """Print the agent's sessions, newest first: all pages read, ``--limit`` shown."""
    if args.limit < 0:
        return usage_error(
            f"--limit {args.limit}: give a number of sessions, or 0 for all", "acphost sessions"
        )
    try:
        cwd, settings, spec = resolve_run(args)
        redact = run_redactor(spec, settings).redact_text
        return asyncio.run(_sessions(args, cwd, spec, redact))
    except UsageProblem as exc:
        return usage_error(str(exc), "acphost sessions")
    except CapabilityNotSupported:
        fail("this agent does not support listing sessions (sessionCapabilities.list)")
        return EXIT_ERROR
    except AcpError as exc:  # its stderr tail may quote the configured secrets
        fail(agent_text(str(exc), run_redactor(spec, settings).redact_text))
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130


def _indented(text: str, indent: str) -> str:
    return text.replace("\n", "\n" + indent)


async def _doctor(args: argparse.Namespace) -> int:
    from ..client import auth_method_id  # noqa: PLC0415
    from ..launch import RunOptions, open_run  # noqa: PLC0415

    cwd, settings, spec = resolve_run(args)
    redactor = run_redactor(spec, settings)
    redact = redactor.redact_text
    # What the agent says about itself may hold a configured secret too.
    edge = Edge(is_terminal(sys.stdout), redact=redact)
    pad = " " * 14
    if getattr(args, "permission_policy", None):
        _doctor_rules(args.permission_policy, edge)
    print(f"agent:        {edge.field(spec.name)} ({edge.field(spec.source)})")
    print(f"command:      {edge.field(shown_argv(spec, redactor))}")
    print(f"found:        {'yes' if command_found(spec) else 'no'}")
    started = time.perf_counter()
    try:
        options = RunOptions(
            spec,
            cwd,
            session=None,
            client={"init_timeout": args.init_timeout},
            **protocol_options(spec),
        )
        async with open_run(options) as run:
            client = run.client
            elapsed = time.perf_counter() - started
            _doctor_sandbox(run, edge, pad)
            info = client.agent_info
            asked = describe_protocol(client.protocol_version, run.options.protocol)
            print(f"initialize:   ok in {elapsed * 1000:.0f} ms, {asked}")
            if info is not None:
                title = f" ({edge.field(info.title)})" if info.title else ""
                print(f"agent info:   {edge.field(info.name)} {edge.field(info.version)}{title}")
            caps: Any = client.agent_capabilities.to_wire()
            for label, value in supports(caps, client.protocol_version):
                print(f"{label + ':':<14}{edge.field(value)}")
            shown = edge.text(json.dumps(caps, indent=2, ensure_ascii=False))
            print("capabilities: " + _indented(shown, pad))
            methods = ", ".join(edge.field(auth_method_id(m)) for m in client.auth_methods)
            print(f"auth methods: {methods or 'none'}")
            tail = client.stderr_tail(10)
    except AgentExited as exc:
        print(f"initialize:   FAILED: {edge.text(agent_text(exc.message, redact))}")
        if exc.stderr_tail:
            tail = edge.text(agent_text(exc.stderr_tail, redact))
            print("stderr tail:\n  " + _indented(tail, "  "))
        return EXIT_ERROR
    except AcpError as exc:
        print(f"initialize:   FAILED: {edge.text(agent_text(str(exc), redact))}")
        return EXIT_ERROR
    shown_tail = _indented(edge.text(redact(tail)), pad) if tail else "(empty)"
    print("stderr tail:  " + shown_tail)
    return EXIT_OK


def _doctor_sandbox(run: Run, edge: Edge, pad: str) -> None:
    """Whether the agent runs confined, and how (mechanism, ABI, writable roots, denied paths)."""
    sandbox = run.confinement
    if sandbox is None:
        print(f"sandbox:      none: the agent runs unconfined ({edge.field(run.unconfined or '')})")
        return
    lines = [edge.field(line) for line in sandbox.describe()]
    print("sandbox:      " + f"\n{pad}".join(lines))


def supports(caps: Any, protocol_version: int) -> list[tuple[str, str]]:
    """What an agent supports, read from its ``agentCapabilities`` (wire form), row by row.

    Only what the agent advertises counts; a value of the wrong shape is
    not advertised (the schema's ``x-deserialize-default-on-error``).

    Args:
        caps: the ``agentCapabilities`` object the agent answered with.
        protocol_version: the version ``initialize`` agreed on.

    Returns:
        ``(label, value)`` rows: protocol, sessions, system prompt (``sys prompt``), subagents,
        prompts, MCP, auth.

    """
    from ..client import system_prompt_modes  # noqa: PLC0415 - only for doctor

    def obj(value: Any) -> dict[str, Any]:
        return value if isinstance(value, dict) else {}

    def has(mapping: dict[str, Any], key: str) -> bool:
        return isinstance(mapping.get(key), dict)

    caps = obj(caps)
    session = obj(caps.get("sessionCapabilities"))
    methods = [name for name in ("resume", "list", "fork", "close", "delete") if has(session, name)]
    if caps.get("loadSession") is True:
        methods.insert(0, "load")
    modes = ", ".join(system_prompt_modes({"agentCapabilities": caps})) or "no"
    subagents = has(session, "subagents") or has(caps, "subagents")
    prompts = obj(caps.get("promptCapabilities"))
    kinds = ["text", *(k for k in ("image", "audio") if prompts.get(k) is True)]
    if prompts.get("embeddedContext") is True:
        kinds.append("embedded context")
    mcp = obj(caps.get("mcpCapabilities"))
    transports = ["stdio", *(k for k in ("http", "sse") if mcp.get(k) is True)]
    auth = [k for k in ("logout", "status") if has(obj(caps.get("auth")), k)]
    return [
        ("protocol", f"version {protocol_version}"),
        ("sessions", ", ".join(["new", *methods])),
        ("sys prompt", modes),
        ("subagents", "advertised" if subagents else "not advertised"),
        ("prompts", ", ".join(kinds)),
        ("mcp servers", ", ".join(transports)),
        ("auth", ", ".join(auth) if auth else "login only"),
    ]


def _doctor_rules(path: str, edge: Edge) -> None:
    """Print a rules file's summary, and each rule that lets the agent run any command.

    Raises:
        UsageProblem: the rules file is unreadable or malformed.

    """
    from ..host import PolicyFileError, RulesPolicy  # noqa: PLC0415 - only with a rules file

    try:
        policy = RulesPolicy.from_file(os.path.expanduser(path))
    except PolicyFileError as exc:
        raise UsageProblem(str(exc)) from None
    count = len(policy.rules)
    print(
        f"rules:        {edge.field(path)}: {count} rule{'' if count == 1 else 's'}, "
        f"default {policy.default.value}"
    )
    for caution in policy.cautions():
        print(f"  caution: {edge.field(caution)}")


def doctor(args: argparse.Namespace) -> int:
    """Launch the agent, time ``initialize``, print what it offers."""
    try:
        return asyncio.run(_doctor(args))
    except UsageProblem as exc:
        return usage_error(str(exc), "acphost doctor")
    except KeyboardInterrupt:
        return 130
