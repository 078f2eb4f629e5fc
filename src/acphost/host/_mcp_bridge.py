"""The stdio MCP server an agent starts for acphost's tools: a relay to the running host.

An agent takes stdio MCP servers as a command to spawn (ACP
``McpServerStdio``). acphost lists this file, run by its own Python
(``python -I -S <this file>``: isolated, no site, so it starts in a few
milliseconds and no ``PYTHON*`` variable or folder of the agent's changes
what it imports). It connects to the session's private Unix socket named by
``ACPHOST_MCP_SOCKET``, proves itself with ``ACPHOST_MCP_TOKEN`` (one line;
the host answers ``ok``; a connection closed unanswered, which a host
making room among connections that have not shown their token may do, is
tried again a few times), then copies bytes both ways: MCP's JSON lines from
its stdin to the host and the host's back to its stdout. It parses nothing:
the host bounds and checks every message.

It ends when its stdin closes (exit 0, after the host has answered what was
sent) or when the host goes away (exit 1 and one line on stderr), and says
in one line why it could not start.

Standard library only, and nothing of acphost: it is run by path, not imported.
"""

from __future__ import annotations

import os
import select
import socket
import sys
import time

SOCKET_VARIABLE = "ACPHOST_MCP_SOCKET"
TOKEN_VARIABLE = "ACPHOST_MCP_TOKEN"
#: The host's answers to a good token and to a wrong one.
ACCEPTED = b"ok\n"
REFUSED = b"refused\n"
_CHUNK = 1 << 16
_PREFIX = "acphost MCP bridge: "
_HOST_GONE = "the acphost session closed (the host ended this session)"
#: Connections tried before giving up on a host that closes them unanswered.
_ATTEMPTS = 4
_RETRY_DELAY = 0.05


class _Unanswered(Exception):
    """The host closed the connection without answering the token."""


class BridgeError(Exception):
    """The bridge cannot go on; the message is the one line it prints."""


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _connect(path: str, token: str) -> tuple[socket.socket, bytes]:
    """Connect and authenticate; return the socket and any bytes already past the answer."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as exc:
        sock.close()
        raise BridgeError(
            f"cannot reach the acphost session at {path} ({exc.strerror or exc}); "
            "it has probably ended"
        ) from None
    try:
        sock.sendall(token.encode("utf-8", "surrogateescape") + b"\n")
        answer = b""
        while b"\n" not in answer and len(answer) < 64:
            piece = sock.recv(64)
            if not piece:
                break
            answer += piece
    except OSError:
        answer = b""  # reset: closed before reading the token
    head, newline, rest = answer.partition(b"\n")
    if not answer:
        sock.close()
        raise _Unanswered
    if head + newline != ACCEPTED:
        sock.close()
        raise BridgeError(f"the acphost session refused this bridge (wrong {TOKEN_VARIABLE})")
    return sock, rest


def _connect_retrying(path: str, token: str) -> tuple[socket.socket, bytes]:
    """:func:`_connect`, tried again when the host closes the connection unanswered.

    A host flooded with connections that never show a token closes some to
    make room, rarely one whose token it has not read yet: the next try gets in.
    """
    for attempt in range(_ATTEMPTS):
        try:
            return _connect(path, token)
        except _Unanswered:
            if attempt + 1 < _ATTEMPTS:
                time.sleep(_RETRY_DELAY * 2**attempt)
    raise BridgeError(
        "the acphost session closed the connection unanswered (it is closing, "
        "or serving too many connections)"
    )


def relay(stdin: int, stdout: int, sock: socket.socket, pending: bytes = b"") -> None:
    """Copy bytes stdin -> socket and socket -> stdout until the host closes.

    Raises:
        BridgeError: the host closed while the agent's side was still open.

    """
    if pending:
        _write_all(stdout, pending)
    watched = [stdin, sock.fileno()]
    while True:
        readable, _, _ = select.select(watched, [], [])
        if stdin in readable:
            data = os.read(stdin, _CHUNK)
            if data:
                try:
                    sock.sendall(data)
                except OSError:
                    raise BridgeError(_HOST_GONE) from None
            else:
                # The agent is done: let the host answer what it sent, then end.
                sock.shutdown(socket.SHUT_WR)
                watched.remove(stdin)
        if sock.fileno() in readable:
            try:
                data = sock.recv(_CHUNK)
            except OSError:
                raise BridgeError(_HOST_GONE) from None
            if not data:
                if stdin in watched:
                    raise BridgeError(_HOST_GONE)
                return
            _write_all(stdout, data)


def main() -> int:
    """Run the bridge; return the exit status."""
    path = os.environ.get(SOCKET_VARIABLE)
    token = os.environ.get(TOKEN_VARIABLE)
    try:
        if not path or not token:
            raise BridgeError(
                f"{SOCKET_VARIABLE} and {TOKEN_VARIABLE} must be set: acphost lists this "
                "server for its agent, it is not run by hand"
            )
        sock, rest = _connect_retrying(path, token)
        with sock:
            relay(sys.stdin.fileno(), sys.stdout.fileno(), sock, rest)
    except BridgeError as exc:
        sys.stderr.write(_PREFIX + str(exc) + "\n")
        return 1
    except BrokenPipeError:
        return 0  # the agent stopped reading our stdout: it is done with us
    except OSError as exc:
        sys.stderr.write(f"{_PREFIX}the connection failed ({exc})\n")
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
