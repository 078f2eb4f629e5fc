"""``acphost status`` and ``acphost cancel``: the named sessions of this workspace.

Each asks the name's host over its socket (never starting one): ``status``
shows idle or running, the queue (the runs' redacted labels, made safe for
the terminal), the agent's pid and how long it stays warm; ``cancel`` cancels
the running turn (its run exits 130; the queue goes on).

What each says is what is known, and nothing more. The name's lock says
whether a host is alive (the host holds it for its whole life and the kernel
releases it when the host dies; see :mod:`acphost.launch`): a session is
*stopped* only when its lock is free. A host that is alive but gives no
answer (it does not listen yet or any more, refuses the request, closes the
connection, says nothing for :data:`_ANSWER_TIMEOUT` seconds, or its token
file is gone) is *unreachable*, with the reason and what to do; ``status``
and ``cancel`` then exit 1, and ``cancel`` never claims that no turn runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import fcntl
import json
import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..launch import EXIT_ERROR, EXIT_OK, UsageProblem, fail
from ._named import send_request
from ._parser import usage_error

if TYPE_CHECKING:
    from ..launch import NamedPlace

__all__ = ["cancel_main", "status_main"]

#: Seconds a host has to answer once connected.
_ANSWER_TIMEOUT = 30.0
#: Seconds to wait for a live host that does not listen (it is starting, or
#: stopping: it stops listening before its agent has closed, then lets go of the lock).
_LISTEN_WAIT = 10.0
_POLL = 0.02


@dataclass(frozen=True, slots=True)
class _Reach:
    """What asking a name's host gave.

    Attributes:
        answer: the host's answer, of the kind asked for; None otherwise.
        problem: why a live host gave no such answer, and what to do; None
            when it answered, or when no host is alive (the session is stopped).

    """

    answer: dict[str, Any] | None = None
    problem: str | None = None


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


def _host_alive(place: NamedPlace) -> bool:
    """Whether a host holds the name's lock (raises OSError when the lock cannot be read).

    A shared lock is tried, never kept: it is refused while a host holds its
    exclusive one. The file is not created when missing (no host ever ran).
    """
    try:
        fd = os.open(place.lock, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # and with it the shared lock, if it was taken
    return False


def _alive_but(place: NamedPlace, what: str) -> str:
    """The account of a live host that gave no answer: what happened, and what to do."""
    return (
        f"its host is alive but {what}; it stops by itself after its keep-alive, "
        f"or end the process that holds {place.lock} (its log: {place.log})"
    )


async def _connect(
    place: NamedPlace,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | _Reach:
    """A connection to the name's live host, or what is known instead (stopped, or why not)."""
    from ..launch import WIRE_LIMIT  # noqa: PLC0415
    from ._named_client import peer_is_ours  # noqa: PLC0415

    loop = asyncio.get_running_loop()
    deadline = loop.time() + _LISTEN_WAIT
    while True:
        try:
            reader, writer = await asyncio.open_unix_connection(place.socket, limit=WIRE_LIMIT)
            if peer_is_ours(writer.get_extra_info("socket"), place.socket):
                return reader, writer
            writer.close()  # never told the token: another user's socket in a shared folder
            return _Reach(problem=f"{place.socket} is not this user's; it is not spoken to")
        except (FileNotFoundError, ConnectionRefusedError):
            pass  # no host listens: a dead host's socket, or a live one not listening
        except OSError as exc:
            return _Reach(problem=f"cannot connect to {place.socket}: {exc.strerror or exc}")
        try:
            alive = _host_alive(place)
        except OSError as exc:
            return _Reach(problem=f"cannot read its lock {place.lock}: {exc.strerror or exc}")
        if not alive:
            return _Reach()
        if loop.time() > deadline:
            return _Reach(
                problem=_alive_but(
                    place,
                    f"has not listened on its socket for {_LISTEN_WAIT:g} s "
                    "(it is starting or stopping: try again)",
                )
            )
        # The host listens as soon as it has started, and lets go of the lock as it exits.
        await asyncio.sleep(_POLL)


async def _ask(place: NamedPlace, request: dict[str, Any], expect: str) -> _Reach:
    """One request to a name's live host (never starting one): its answer, or why none."""
    from ..launch import receive_message as receive  # noqa: PLC0415

    connected = await _connect(place)
    if isinstance(connected, _Reach):
        return connected
    reader, writer = connected
    try:
        token = place.read_token()
        if token is None:  # the host writes it before it listens: someone removed or damaged it
            return _Reach(
                problem=_alive_but(
                    place,
                    f"its token file {place.token_file} is missing or damaged, "
                    "so it serves no run (nor status, nor cancel)",
                )
            )
        send_request(writer, {**request, "token": token})
        answer = await asyncio.wait_for(receive(reader), _ANSWER_TIMEOUT)
    except asyncio.TimeoutError:
        return _Reach(problem=_alive_but(place, f"did not answer within {_ANSWER_TIMEOUT:g} s"))
    except OSError as exc:
        answer, failure = None, f"the connection failed: {exc.strerror or exc}"
    else:
        failure = "closed the connection without an answer"
    finally:
        writer.close()
    if answer is None:
        with contextlib.suppress(OSError):
            if not _host_alive(place):
                return _Reach()  # it died as it was asked: it is stopped now
        return _Reach(problem=_alive_but(place, failure))
    kind = answer.get("t")
    if kind in ("refused", "denied"):
        why = answer.get("message")
        return _Reach(problem=_alive_but(place, f"refused the request: {why}"))
    if kind != expect:
        return _Reach(problem=_alive_but(place, f"gave an unexpected answer ({kind!r})"))
    return _Reach(answer)


def _seconds(value: Any) -> str:
    if not isinstance(value, (int, float)):
        return "?"
    value = float(value)
    if value >= 3600:
        return f"{value / 3600:.1f}h"
    if value >= 60:
        return f"{int(value // 60)}m{int(value % 60):02d}s"
    return f"{value:.1f}s"


def _status_lines(place: NamedPlace, reach: _Reach, field: Any) -> list[str]:
    head = f"{field(place.name)} ({field(place.agent)})"
    if reach.problem is not None:
        return [f"{head}: unreachable: {field(reach.problem)}"]
    info = reach.answer
    if info is None:
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


def _status_row(place: NamedPlace, reach: _Reach) -> dict[str, Any]:
    row: dict[str, Any] = {"name": place.name, "agent": place.agent, "cwd": place.cwd}
    if reach.problem is not None:
        row.update(state="unreachable", problem=reach.problem)
    elif reach.answer is None:
        row["state"] = "stopped"
    else:
        row.update({k: v for k, v in reach.answer.items() if k not in ("t", "v")})
    return row


def status_main(args: argparse.Namespace) -> int:
    """``acphost status [-s NAME]``: each named session of this workspace.

    Returns:
        0, or 1 when a live host could not be asked (its row says why).

    """
    from ._edge import Edge, is_terminal  # noqa: PLC0415

    try:
        places = _places(args)
    except UsageProblem as exc:
        return usage_error(str(exc), "acphost status")

    async def gather() -> list[_Reach]:
        return list(await asyncio.gather(*(_ask(p, {"op": "status"}, "status") for p in places)))

    reaches = asyncio.run(gather()) if places else []
    code = EXIT_ERROR if any(r.problem is not None for r in reaches) else EXIT_OK
    if args.output == "json":
        rows = [_status_row(p, r) for p, r in zip(places, reaches, strict=True)]
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return code
    if not places:
        which = f" named {args.session}" if args.session else ""
        print(f"no named session{which} in this workspace (start one: acphost -s NAME PROMPT)")
        return EXIT_OK
    field = Edge(is_terminal(sys.stdout)).field
    for place, reach in zip(places, reaches, strict=True):
        print("\n".join(_status_lines(place, reach, field)))
    return code


def cancel_main(args: argparse.Namespace) -> int:
    """``acphost cancel [-s NAME]``: cancel the running turn (its run exits 130).

    Returns:
        0; 1 when a live host could not be asked (so whether its turn was
        cancelled is not known: each is named on stderr, with why); 2 for a
        usage problem.

    """
    from ._edge import Edge, is_terminal  # noqa: PLC0415

    prog = "acphost cancel"
    try:
        places = _places(args)
    except UsageProblem as exc:
        return usage_error(str(exc), prog)

    async def cancel() -> tuple[list[tuple[NamedPlace, _Reach]], list[str]]:
        if args.session or len(places) <= 1:
            chosen = places
        else:  # no name: the one session of this workspace that runs a turn
            reaches = await asyncio.gather(*(_ask(p, {"op": "status"}, "status") for p in places))
            unknown = [(p, r) for p, r in zip(places, reaches, strict=True) if r.problem]
            if unknown:  # it may run a turn too: which one to cancel is not known
                return [], [
                    f"session {p.name}: cannot tell whether it runs a turn: {r.problem}"
                    for p, r in unknown
                ] + ["nothing was cancelled: name the session to cancel with -s"]
            chosen = [
                p
                for p, r in zip(places, reaches, strict=True)
                if r.answer and r.answer.get("state") == "running"
            ]
            if len(chosen) > 1:
                names = ", ".join(p.name for p in chosen)
                raise UsageProblem(f"several named sessions run a turn ({names}): name one with -s")
        done = [(p, await _ask(p, {"op": "cancel_running"}, "cancelled")) for p in chosen]
        failed = [f"session {p.name}: cannot cancel: {r.problem}" for p, r in done if r.problem]
        return [d for d in done if not d[1].problem], failed

    try:
        done, failed = asyncio.run(cancel())
    except UsageProblem as exc:
        return usage_error(str(exc), prog)
    cancelled = [p.name for p, r in done if r.answer and r.answer.get("running") is True]
    for line in failed:
        fail(line)
    code = EXIT_ERROR if failed else EXIT_OK
    if args.output == "json":
        # "problems" only when there are some (then the exit code is 1).
        out: dict[str, Any] = {"cancelled": cancelled, **({"problems": failed} if failed else {})}
        sys.stdout.write(json.dumps(out) + "\n")
        return code
    field = Edge(is_terminal(sys.stdout)).field
    if cancelled:
        print(f"cancelled the running turn of {field(', '.join(cancelled))}")
    elif not failed:
        print("no turn is running" + (f" in session {field(args.session)}" if args.session else ""))
    return code
