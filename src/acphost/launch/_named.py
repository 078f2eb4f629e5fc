"""Named sessions: where a name's host lives, the lock that makes it one, the wire to it.

A named session (``acphost -s NAME``) is the session of one (agent, real
workspace path, name). Its *host* is a detached process that owns the agent
(opened by :func:`~acphost.launch.open_run`) and serves the runs that send it
prompts, one turn at a time, in order. Everything about a name lives in one
private folder (``0700``) under acphost's state folder:

- ``lock``: the host holds an exclusive ``flock`` on it for its whole life.
  The kernel releases it when the host dies, however it dies, so whoever
  takes it next knows that no host is alive: a stale socket is recognised by
  the lock, never by guessing from a pid. A run that takes the lock starts a
  host and hands it the locked file (the same open file, inherited): there
  is no moment when the lock is free and a host is starting.
- ``sock``: the host's Unix socket (``0600``; never a network port).
- ``name.json`` (who the folder is for: name, agent, workspace),
  ``session.json`` (the agent's session id, to continue the session after the
  host stopped) and ``queue.json`` (the tickets of the prompts waiting, so
  that a host taking over serves them in their order): data acphost wrote,
  read back as untrusted data.
- ``host.log``: the host's stderr (its log lines).
- ``failed.json``: why the host could not start the agent (what its runs
  print, and their exit code), for a run whose connection closed before it
  was told: it says so once instead of starting host after host.
- ``token``: a random secret the host makes before it listens (``0600``).
  Every request carries it and the host refuses any request without it:
  whoever can connect to the socket is not enough (a process confined by
  acphost's sandbox may still ``connect()`` to a Unix socket's path, but it
  cannot read acphost's state folder, where this file is, even when the
  socket itself is in the temporary folder).

The wire between a run and the host is JSON, one object a line, both ways
(:data:`WIRE_VERSION`; see :mod:`acphost.launch._named_host`).
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import json
import os
import re
import stat
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from .._namedwire import (
    DROPPED_FILE,
    MAX_KEEP_ALIVE,
    WIRE_VERSION,
    duration_seconds,
    named_root,
    short_socket_folder,
)
from ._setup import UsageProblem

__all__ = [
    "WIRE_LIMIT",
    "WIRE_VERSION",
    "NamedPlace",
    "NamedUnavailable",
    "check_session_name",
    "connect_named",
    "named_places",
    "parse_duration",
    "place_of",
    "read_json",
    "receive_message",
    "send_message",
    "try_lock",
    "write_json",
]

#: The longest line either side reads (a large diff in one update fits).
WIRE_LIMIT = 64 * 1024 * 1024
# AF_UNIX socket paths are limited to 108 bytes on Linux (sun_path), 104 on macOS.
_SUN_PATH_MAX = 100
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


class NamedUnavailable(Exception):
    """No host could be reached or started for a name (the message says why).

    Attributes:
        report: the host's own account when it could not start the agent
            (``code``, ``text``: what a run prints), else None.

    """

    def __init__(self, message: str, report: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.report = report


def check_session_name(name: str) -> str:
    """A session name as given, or :class:`~acphost.launch.UsageProblem`.

    Letters, digits, ``.``, ``_`` and ``-``, at most 64, starting with a
    letter or digit: a name is typed in scripts and shown in ``status``.
    """
    if not _NAME.fullmatch(name):
        raise UsageProblem(
            f"--session {name!r}: a name is 1 to 64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


def parse_duration(text: str, flag: str = "--keep-alive") -> float:
    """Seconds from ``30s``, ``5m``, ``1h``, ``250ms`` or a bare number of seconds.

    Raises:
        UsageProblem: anything else (negative, empty, an unknown unit).

    """
    seconds = duration_seconds(text)
    if seconds is None:
        raise UsageProblem(f"{flag} {text!r}: not a duration; use one such as 30s, 5m, 1h or 0")
    if seconds > MAX_KEEP_ALIVE:
        raise UsageProblem(f"{flag} {text!r}: at most a week (168h)")
    return seconds


@dataclass(frozen=True, slots=True)
class NamedPlace:
    """The private folder of one named session and the paths in it.

    Attributes:
        name: the session's name.
        agent: the agent's name in the history (``-a`` name or command line).
        cwd: the real workspace path.
        folder: the folder (``0700``), made by :func:`place_of`.
        socket: the host's socket path (in the folder, or when that path is
            too long for a socket, in this user's private folder
            ``/tmp/acphost-named-UID``, whatever ``TMPDIR`` is).
        command: a digest of the agent's whole command (``--agent-command``,
            whose ``agent`` is redacted: two commands that differ only in a
            secret are two sessions), or None.

    """

    name: str
    agent: str
    cwd: str
    folder: str
    socket: str
    command: str | None = None

    @property
    def lock(self) -> str:
        """The lock file the host holds for its life."""
        return os.path.join(self.folder, "lock")

    @property
    def session_file(self) -> str:
        """Where the host keeps the agent's session id between hosts."""
        return os.path.join(self.folder, "session.json")

    @property
    def queue_file(self) -> str:
        """The tickets of the prompts waiting, for the next host if this one dies."""
        return os.path.join(self.folder, "queue.json")

    @property
    def log(self) -> str:
        """The host's stderr."""
        return os.path.join(self.folder, "host.log")

    @property
    def failure_file(self) -> str:
        """Why the last host could not start its agent (removed by the next host)."""
        return os.path.join(self.folder, "failed.json")

    @property
    def dropped_file(self) -> str:
        """The tickets of the runs the host dropped lately (they stopped reading)."""
        return os.path.join(self.folder, DROPPED_FILE)

    def read_failure(self) -> dict[str, Any] | None:
        """Why the last host could not start the agent (``code``, ``text``), or None."""
        return read_json(self.failure_file)

    @property
    def token_file(self) -> str:
        """The live host's secret, which every request must carry."""
        return os.path.join(self.folder, "token")

    def read_token(self) -> str | None:
        """The live host's secret, or None when there is none."""
        data = read_json(self.token_file)
        token = data.get("token") if data is not None else None
        return token if isinstance(token, str) else None


def _root() -> str:
    return named_root()


def _private_dir(path: str) -> None:
    """Make ``path`` (0700) if missing; refuse one that is not this user's private folder."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise UsageProblem(
            f"{path} is not a private folder of this user (mode 0700): remove it or fix it"
        )


def place_of(
    agent: str, cwd: str, name: str, *, command: str | None = None, make: bool = True
) -> NamedPlace:
    """The place of the session ``name`` of ``agent`` in the workspace ``cwd``.

    Args:
        agent: the agent's name in the history.
        cwd: the workspace (its real path is taken).
        name: the session's name (checked by :func:`check_session_name`).
        command: a digest of the agent's unredacted command, when ``agent``
            is a redacted command line (never the command itself).
        make: create the folders (``0700``) and write ``name.json``.

    Raises:
        UsageProblem: a bad name; a folder that exists but is not private.

    """
    check_session_name(name)
    real = os.path.realpath(cwd)
    who = [agent, real, name] if command is None else [agent, real, name, command]
    key = hashlib.sha256(json.dumps(who).encode()).hexdigest()[:24]
    root = _root()
    folder = os.path.join(root, key)
    socket = os.path.join(folder, "sock")
    short = None
    if len(socket.encode()) > _SUN_PATH_MAX:
        short = short_socket_folder()
        socket = os.path.join(short, key)
    place = NamedPlace(name, agent, real, folder, socket, command)
    if make:
        os.makedirs(os.path.dirname(root), mode=0o700, exist_ok=True)
        _private_dir(root)
        _private_dir(folder)
        if short is not None:
            _private_dir(short)
        about = {"name": name, "agent": agent, "cwd": real, "command": command}
        write_json(os.path.join(folder, "name.json"), about)
    return place


def named_places(cwd: str | None = None, agent: str | None = None) -> list[NamedPlace]:
    """The named sessions this user has, optionally of one workspace and agent, by name.

    Read from each folder's ``name.json`` (written by acphost; checked as
    data: a folder whose file is missing or malformed is left out).
    """
    root = _root()
    try:
        keys = sorted(os.listdir(root))
    except OSError:
        return []
    real = os.path.realpath(cwd) if cwd is not None else None
    found: list[NamedPlace] = []
    for key in keys:
        data = read_json(os.path.join(root, key, "name.json"))
        if data is None:
            continue
        name, who, where = data.get("name"), data.get("agent"), data.get("cwd")
        if not (isinstance(name, str) and isinstance(who, str) and isinstance(where, str)):
            continue
        command = data.get("command")
        command = command if isinstance(command, str) else None
        if (real is not None and where != real) or (agent is not None and who != agent):
            continue
        try:
            place = place_of(who, where, name, command=command, make=False)
        except UsageProblem:
            continue
        if place.folder == os.path.join(root, key):
            found.append(place)
    return sorted(found, key=lambda p: (p.name, p.agent))


def write_json(path: str, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` whole (a temporary file renamed over it), ``0600``."""
    folder = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def read_json(path: str) -> dict[str, Any] | None:
    """A small JSON object acphost wrote, or None (missing, not a regular file, malformed)."""
    try:
        # Not blocking: a FIFO put in its place must not hold the reader.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return None
        raw = f.read(65537)
    try:
        data = json.loads(raw) if len(raw) <= 65536 else None
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def try_lock(place: NamedPlace) -> int | None:
    """Take the name's lock: the locked file's descriptor, or None while a host holds it."""
    fd = os.open(place.lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    return fd


def send_message(writer: asyncio.StreamWriter, message: dict[str, Any]) -> None:
    """Write one message (a JSON object on one line, with ``v``); a closed peer is ignored."""
    if writer.is_closing():
        return
    line = json.dumps({"v": WIRE_VERSION, **message}, separators=(",", ":"), ensure_ascii=False)
    # Output text carries the bytes it could not decode as lone surrogates
    # (``surrogateescape``): they travel as such, and the run turns them back.
    writer.write(line.encode("utf-8", "surrogatepass") + b"\n")


async def receive_message(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next message, or None when the peer closed (or sent what is not a message).

    A line that is not a JSON object ends the conversation as the peer's
    close does: the wire has no way to resynchronise.
    """
    try:
        line = await reader.readline()
    except (ValueError, OSError):  # longer than WIRE_LIMIT; a reset
        return None
    if not line.endswith(b"\n"):
        return None
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


async def connect_named(
    place: NamedPlace,
    start: Callable[[int], Awaitable[None]],
    *,
    timeout: float,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect to the name's host, starting one when none is alive.

    Two runs racing for one name: both fail to connect, one takes the lock
    and starts the host (``start(locked_fd)``, which hands the locked file to
    the host and returns once its socket listens), the other finds the lock
    held and polls the socket until the host listens. A socket left by a
    dead host refuses connections and its lock is free: the run that takes
    the lock starts a new host, which replaces the socket.

    Args:
        place: the name's place.
        start: starts a host holding the given locked descriptor; it is
            closed here afterwards (the host has its own copy).
        timeout: seconds to wait for another run's host to listen.

    Raises:
        NamedUnavailable: no host listened in time.

    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    started = 0
    while True:
        try:
            return await asyncio.open_unix_connection(place.socket, limit=WIRE_LIMIT)
        except (FileNotFoundError, ConnectionRefusedError):
            pass
        report = place.read_failure() if started else None
        if report is not None:  # the host we started could not start the agent
            raise NamedUnavailable(f"the agent of session {place.name!r} did not start", report)
        fd = try_lock(place)
        if fd is not None:
            started += 1
            if started > 3:  # each host we started stopped before we could connect
                os.close(fd)
                raise NamedUnavailable(
                    f"the host of session {place.name!r} stops as soon as it starts "
                    f"(see {place.log})"
                )
            try:
                await start(fd)
            finally:
                os.close(fd)
            continue
        if loop.time() > deadline:
            raise NamedUnavailable(
                f"the host of session {place.name!r} holds its lock but does not answer "
                f"on its socket after {timeout:g} s (see {place.log})"
            )
        await asyncio.sleep(0.01)  # another run's host is starting: poll its socket
