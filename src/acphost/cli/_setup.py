"""The session's setup on the command line: the agent and its protocol, ``--config``, listings."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from typing import TYPE_CHECKING

from ..errors import CapabilityNotSupported
from ..launch import UsageProblem, resolve
from . import _listing

if TYPE_CHECKING:
    from .. import schema as s
    from ..client import AcpClient, Session
    from ..config import AgentSpec, ProtocolChoice, Settings

__all__ = ["COMMANDS_TIMEOUT", "config_items", "listings", "resolve_run"]

#: Seconds ``--list-commands`` waits for the agent's commands unless ``--commands-timeout`` says.
COMMANDS_TIMEOUT = 3.0


def resolve_run(args: argparse.Namespace) -> tuple[str, Settings, AgentSpec]:
    """The workspace, settings and agent of a command (:func:`~acphost.launch.resolve`).

    ``--protocol`` and ``--mcp-tools`` (else the agent's settings entry,
    else the settings' top level) are settled on the agent, so each run
    opened for it asks for them (:func:`~acphost.config.protocol_options`).

    Raises:
        UsageProblem: a bad ``--cwd``, settings file or agent name.

    """
    from ..config import with_protocol_choice  # noqa: PLC0415

    cwd, settings, spec = resolve(args)
    chosen = with_protocol_choice(
        spec,
        settings,
        protocol=getattr(args, "protocol", None),
        mcp_tools=getattr(args, "mcp_tools", None),
    )
    return cwd, settings, chosen


def config_items(items: list[str]) -> list[tuple[str, str]]:
    """``--config KEY=VALUE`` items as ``(key, value)`` pairs, in order.

    Raises:
        UsageProblem: an item that is not ``KEY=VALUE``.

    """
    pairs = []
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise UsageProblem(f"--config {item!r}: expected KEY=VALUE")
        pairs.append((key, raw))
    return pairs


async def listings(
    client: AcpClient,
    session: Session,
    args: argparse.Namespace,
    clean: _listing.Clean,
    asked: ProtocolChoice | None = None,
) -> str | None:
    """The sections ``--list-caps``, ``--list-modes``, ``--list-commands`` ask for.

    With ``--unstable``, ``--list-caps`` adds the agent's ``auth/status``
    when it offers it (``agentCapabilities.auth.status``).

    Args:
        client: the connected client.
        session: the open session.
        args: the listing flags and ``--commands-timeout``.
        clean: how agent text is cleaned for the output.
        asked: the protocol the run asked for, shown beside the one agreed on.

    Returns:
        The text to print (sections separated by a blank line), or None.

    """
    sections: list[list[str]] = []
    if args.list_caps:
        sections.append(_listing.caps_section(client, clean, asked))
        if args.unstable:
            with contextlib.suppress(CapabilityNotSupported):  # not offered: nothing to show
                status = await client.unstable.auth_status()
                sections.append(_listing.auth_status_section(status, clean))
    if args.list_modes:
        sections.append(_listing.modes_section(session.state, clean))
    if args.list_commands:
        wait = COMMANDS_TIMEOUT if args.commands_timeout is None else args.commands_timeout
        await _wait_commands(session, wait)
        sections.append(_listing.commands_section(session.state, clean, wait))
    return "\n\n".join("\n".join(lines) for lines in sections) if sections else None


async def _wait_commands(session: Session, timeout: float) -> None:
    from .. import schema as s  # noqa: PLC0415

    if session.state.available_commands:
        return
    arrived = asyncio.Event()

    def listener(_: Session, update: s.SessionUpdate) -> None:
        if isinstance(update, s.AvailableCommandsUpdate):
            arrived.set()

    remove = session.add_listener(listener)
    try:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(arrived.wait(), timeout)
    finally:
        remove()
