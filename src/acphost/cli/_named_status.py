"""``acphost status`` and ``acphost cancel``: the named sessions of this workspace.

Each asks the name's host over its socket (never starting one): ``status``
shows idle or running, the queue (the runs' redacted labels, made safe for
the terminal), the agent's pid and how long it stays warm; ``cancel`` cancels
the running turn (its run exits 130; the queue goes on).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from ..launch import EXIT_OK, UsageProblem
from ._named import send_request
from ._parser import usage_error

if TYPE_CHECKING:
    from ..launch import NamedPlace

__all__ = ["cancel_main", "status_main"]


def _places(args: argparse.Namespace) -> list[NamedPlace]:
    from ..launch import named_places, resolve  # noqa: PLC0415

    cwd = os.path.realpath(args.cwd or os.getcwd())
    agent = None
    if args.agent or args.agent_command:
        from ._continue import agent_key  # noqa: PLC0415
        from ._outputs import RunOutputs  # noqa: PLC0415

        args.no_history = True
        _, settings, spec = resolve(args)
        agent = agent_key(spec, RunOutputs(args, spec, settings, history_path=None))
    places = named_places(cwd, agent)
    if args.session:
        places = [p for p in places if p.name == args.session]
    return places


async def _ask(place: NamedPlace, request: dict[str, Any]) -> dict[str, Any] | None:
    """One request to a name's host; None when no host is alive."""
    from ..launch import WIRE_LIMIT  # noqa: PLC0415
    from ..launch import receive_message as receive  # noqa: PLC0415

    try:
        reader, writer = await asyncio.open_unix_connection(place.socket, limit=WIRE_LIMIT)
    except (FileNotFoundError, ConnectionRefusedError):
        return None
    try:
        send_request(writer, {**request, "token": place.read_token()})
        return await asyncio.wait_for(receive(reader), 30.0)
    finally:
        writer.close()


def _seconds(value: Any) -> str:
    if not isinstance(value, (int, float)):
        return "?"
    value = float(value)
    if value >= 3600:
        return f"{value / 3600:.1f}h"
    if value >= 60:
        return f"{int(value // 60)}m{int(value % 60):02d}s"
    return f"{value:.1f}s"


def _status_lines(place: NamedPlace, info: dict[str, Any] | None, field: Any) -> list[str]:
    head = f"{field(place.name)} ({field(place.agent)})"
    if info is None or info.get("t") != "status":
        return [f"{head}: stopped (the next run continues it)"]
    state = str(info.get("state"))
    pid = info.get("agent_pid")
    line = f"{head}: {field(state)}, " + (
        f"agent pid {pid}" if isinstance(pid, int) else "the agent is starting"
    )
    if state == "idle":
        line += f", warm for {_seconds(info.get('warm_for'))} more"
    else:
        line += f", keeps warm {_seconds(info.get('keep_alive'))} after the last turn"
    lines = [line]
    if info.get("running") is not None:
        lines.append(f"  running: {field(str(info.get('running')))}")
    queue = info.get("queue")
    for index, label in enumerate(queue if isinstance(queue, list) else (), start=1):
        lines.append(f"  queued {index}: {field(str(label))}")
    return lines


def status_main(args: argparse.Namespace) -> int:
    """``acphost status [-s NAME]``: each named session of this workspace."""
    from ._edge import Edge, is_terminal  # noqa: PLC0415

    try:
        places = _places(args)
    except UsageProblem as exc:
        return usage_error(str(exc), "acphost status")

    async def gather() -> list[dict[str, Any] | None]:
        return list(await asyncio.gather(*(_ask(p, {"op": "status"}) for p in places)))

    infos = asyncio.run(gather()) if places else []
    if args.output == "json":
        rows = []
        for place, info in zip(places, infos, strict=True):
            row = {"name": place.name, "agent": place.agent, "cwd": place.cwd, "state": "stopped"}
            if info is not None and info.get("t") == "status":
                row.update({k: v for k, v in info.items() if k not in ("t", "v")})
            rows.append(row)
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return EXIT_OK
    if not places:
        which = f" named {args.session}" if args.session else ""
        print(f"no named session{which} in this workspace (start one: acphost -s NAME PROMPT)")
        return EXIT_OK
    field = Edge(is_terminal(sys.stdout)).field
    for place, info in zip(places, infos, strict=True):
        print("\n".join(_status_lines(place, info, field)))
    return EXIT_OK


def cancel_main(args: argparse.Namespace) -> int:
    """``acphost cancel [-s NAME]``: cancel the running turn (its run exits 130)."""
    from ._edge import Edge, is_terminal  # noqa: PLC0415

    prog = "acphost cancel"
    try:
        places = _places(args)
    except UsageProblem as exc:
        return usage_error(str(exc), prog)

    async def cancel() -> list[tuple[NamedPlace, dict[str, Any] | None]]:
        if args.session or len(places) <= 1:
            chosen = places
        else:  # no name: the one session of this workspace that runs a turn
            infos = await asyncio.gather(*(_ask(p, {"op": "status"}) for p in places))
            chosen = [
                p for p, i in zip(places, infos, strict=True) if i and i.get("state") == "running"
            ]
            if len(chosen) > 1:
                names = ", ".join(p.name for p in chosen)
                raise UsageProblem(f"several named sessions run a turn ({names}): name one with -s")
        return [(p, await _ask(p, {"op": "cancel_running"})) for p in chosen]

    try:
        done = asyncio.run(cancel())
    except UsageProblem as exc:
        return usage_error(str(exc), prog)
    cancelled = [p.name for p, answer in done if answer and answer.get("running") is True]
    if args.output == "json":
        sys.stdout.write(json.dumps({"cancelled": cancelled}) + "\n")
        return EXIT_OK
    field = Edge(is_terminal(sys.stdout)).field
    if cancelled:
        print(f"cancelled the running turn of {field(', '.join(cancelled))}")
    else:
        print("no turn is running" + (f" in session {field(args.session)}" if args.session else ""))
    return EXIT_OK
