"""The run's side of a named session: send one prompt, write what the host sends, exit.

The name's host renders the run's turn with the command line's own renderers,
for the run's output mode and terminal (:func:`terminal_facts`), and sends it
as text for the run's stdout and stderr. The run writes it, turns Ctrl-C
into a cancel, and exits with the code the host gives. This module imports
only the standard library's cheapest modules: a warm run
(:func:`warm_run`, before the command line is even parsed) shows its turn's
first output a few milliseconds after its own start.

**Shortcuts.** A run that resolved its agent, settings and options the long
way (:mod:`acphost.cli._named`) and was accepted by the name's host leaves a
shortcut (:func:`remember`): for exactly its command line (all but the
prompt), working directory and the environment that resolution reads, the
host's socket, its token file and the request it sent, with the state of the
settings files it read. A later run with the same command line but another
prompt uses it when every one of those is unchanged; anything else (another
flag, a changed settings file, no live host, a prompt that mentions files or
looks like an option) takes the long way, which the shortcut only skips.
Shortcuts live in acphost's private state folder, are read as data (their own
key checked whole) and name only acphost's own socket and token.
"""

from __future__ import annotations

import _socket
import os
import sys

from .._namedwire import (
    DROPPED_FILE,
    MAX_KEEP_ALIVE,
    WIRE_VERSION,
    duration_seconds,
    shortcut_folder,
)

# The C module under `signal` (whose enums load `enum`: ~2 ms of a warm run).
_signal: Any = __import__("_signal")

# Not `from typing import TYPE_CHECKING`: typing costs a warm run ~2 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = [
    "ANSWER_TIMEOUT",
    "SUBCOMMAND_WORDS",
    "HostGone",
    "NotOurs",
    "connect",
    "converse",
    "peer_is_ours",
    "remember",
    "taken_ticket",
    "terminal_facts",
    "warm_run",
]

#: Environment variables the long way reads to resolve the agent and its options.
_RESOLVE_ENV = frozenset(
    ("HOME", "PATH", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME")
)
#: Environment variables that change how a terminal is written (rich and acphost read them).
_TERMINAL_ENV = (
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "FORCE_COLOR",
    "TTY_COMPATIBLE",
    "TTY_INTERACTIVE",
    "COLUMNS",
    "LINES",
)
_EXIT_ERROR = 1
_EXIT_USAGE = 2
_EXIT_BUSY = 4
_EXIT_INTERRUPTED = 130
#: The command line's subcommands (``acphost.cli._main.SUBCOMMANDS``; a test
#: keeps the two the same): a last word that names one is not a prompt.
SUBCOMMAND_WORDS = frozenset(
    (
        "tui",
        "validate",
        "replay",
        "agents",
        "sessions",
        "doctor",
        "history",
        "usage",
        "trust",
        "batch",
        "status",
        "cancel",
    )
)


class _JsonRules:
    """The decoding rules the accelerator's scanner reads (``json.loads``'s defaults)."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int

    @staticmethod
    def parse_constant(name: str) -> object:
        raise ValueError(f"{name} is not JSON")  # NaN, Infinity: never sent


# CPython's JSON accelerator, without the json package (and its imports) around it.
_quote: Any = None
_scan: Any = None
try:
    import _json

    _quote = _json.encode_basestring_ascii
    _scan = _json.make_scanner(_JsonRules)  # type: ignore[arg-type]
except (ImportError, AttributeError, TypeError):  # pragma: no cover - json's own, then
    pass


def _loads(text: str) -> Any:
    """``json.loads(text)``, by the accelerator when there is one.

    Raises:
        ValueError: not one JSON value.

    """
    if _scan is None:  # pragma: no cover
        import json  # noqa: PLC0415

        return json.loads(text)
    try:
        value, end = _scan(text, 0)
    except StopIteration:
        raise ValueError("not JSON") from None
    if text[end:].strip():
        raise ValueError("more than one JSON value")
    return value


def _dumps(value: Any) -> str:
    """``json.dumps(value)`` (compact) for the plain values a request holds.

    Raises:
        ValueError: a value JSON cannot hold (NaN, infinity, another type).

    """
    if _quote is None:  # pragma: no cover
        import json  # noqa: PLC0415

        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return str(_quote(value))
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        if value - value != 0.0:  # NaN or an infinity
            raise ValueError("NaN and infinity are not JSON")
        return float.__repr__(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_dumps(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_dumps(str(k))}:{_dumps(v)}" for k, v in value.items()) + "}"
    raise ValueError(f"{type(value).__name__} is not JSON")


#: Seconds a host has to answer a request (it does at once, even while its agent starts).
ANSWER_TIMEOUT = 15.0
#: The largest shortcut or token file read.
_FILE_MAX = 1 << 16
#: The ticket a run's first host gave, when that host stopped before the turn
#: began: the long way, taking over, asks the next host for the same place.
taken_ticket: int | None = None


class HostGone(Exception):
    """The host stopped (or died) before this run's turn ended.

    Attributes:
        started: whether the turn had begun (its end is then unknown).
        ticket: the place the host gave the prompt in its queue, if any.

    """

    def __init__(self, started: bool, ticket: int | None) -> None:
        super().__init__("the session host stopped")
        self.started = started
        self.ticket = ticket


class _Stale(Exception):
    """The host refused what a shortcut sent: the long way runs the command line."""


class _Leave(Exception):
    """A signal: leave at once with this exit code (closing the connection cancels)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def terminal_facts() -> dict[str, Any]:
    """What the host must know to render for this run: terminals, size, their variables."""
    out, err = os.isatty(1), os.isatty(2)
    columns = lines = None
    for fd in (1, 2):
        try:
            columns, lines = os.get_terminal_size(fd)
            break
        except OSError:
            continue
    env = {k: os.environ[k] for k in _TERMINAL_ENV if k in os.environ}
    return {"out": out, "err": err, "columns": columns, "lines": lines, "env": env}


def _say(text: str) -> None:
    """Write ``text`` to stderr whole; a stderr that is gone is not an error of ours."""
    data = text.encode("utf-8", "surrogateescape")
    try:
        while data:
            data = data[os.write(2, data) :]
    except OSError:
        pass


def _write_out(data: bytes) -> None:
    while data:
        data = data[os.write(1, data) :]


class _Conversation:
    """One prompt's conversation with the host, from the request to the exit code."""

    def __init__(
        self, sock: _socket.socket, name: str, on_queued: Callable[[], None] | None
    ) -> None:
        self.sock = sock
        self.name = name
        self.on_queued = on_queued
        self.stale_ok = False
        #: Whether a denied request may be made again (the host changed meanwhile).
        self.on_denied: Callable[[], bool] | None = None
        self.started = False
        self.ticket: int | None = None
        self.interrupted = 0
        #: The run is leaving: a signal from now on changes nothing (it would
        #: otherwise interrupt the leaving itself).
        self.over = False

    def _leave(self, code: int) -> None:
        self.over = True
        raise _Leave(code)

    def on_sigint(self, signum: int, frame: object) -> None:
        """Ctrl-C: a running turn is cancelled (the host says so); else leave the queue."""
        if self.over:
            return
        self.interrupted += 1
        if self.started and self.interrupted == 1:
            try:
                self.sock.sendall(_line({"op": "cancel"}))
            except OSError:
                self._leave(_EXIT_INTERRUPTED)
            return
        self._leave(_EXIT_INTERRUPTED)

    def on_stop(self, signum: int, frame: object) -> None:
        """SIGTERM, SIGHUP: leave at once (the host cancels the turn or the prompt)."""
        if not self.over:
            self._leave(128 + signum)

    def handle(self, message: dict[str, Any]) -> int | None:
        """One message from the host; the exit code once the run is over."""
        kind = message.get("t")
        data = message.get("d")
        if kind == "o" and isinstance(data, str):
            try:
                _write_out(data.encode("utf-8", "surrogateescape"))
            except BrokenPipeError:  # the reader went away (`| head`): leave quietly
                return _EXIT_ERROR
            except OSError as exc:  # a full disk
                _say(f"acphost: cannot write the output: {exc.strerror or exc}\n")
                return _EXIT_ERROR
        elif kind == "e" and isinstance(data, str):
            _say(data)
        elif kind == "start":
            self.started = True
        elif kind == "exit":
            return _code(message.get("code"))
        elif kind == "queued":
            self.sock.settimeout(None)  # accepted: the turn may wait as long as the queue
            ticket = message.get("ticket")
            self.ticket = ticket if isinstance(ticket, int) else None
            ahead = message.get("ahead")
            if isinstance(ahead, int) and ahead > 0 and os.isatty(2):
                _say(f"acphost: session {self.name}: queued, {ahead} before this prompt\n")
            if self.on_queued is not None:
                self.on_queued()
        elif kind == "gone":
            raise HostGone(self.started, self.ticket)
        elif kind == "error":
            text = message.get("text")
            if isinstance(text, str) and text:
                _say(text if text.endswith("\n") else text + "\n")
            return _code(message.get("code"))
        elif kind == "denied":
            if self.on_denied is not None and self.on_denied():
                raise HostGone(False, None)  # another host since the token was read: again
            _say(
                f"acphost: session {self.name} cannot be used: {_one_line(message.get('message'))}"
                f"; it stops by itself after its keep-alive (acphost status -s {self.name})\n"
            )
            return _EXIT_ERROR
        elif kind == "refused":
            if self.stale_ok:  # a shortcut's run: the long way says it precisely
                raise _Stale
            _say(f"acphost: {_one_line(message.get('message'))}; see 'acphost --help'\n")
            return _EXIT_USAGE
        elif kind == "busy":
            _say(
                f"acphost: session {self.name} is busy (a turn is running or waiting); "
                "leave out --no-queue to wait for it\n"
            )
            return _EXIT_BUSY
        elif kind == "full":
            _say(
                f"acphost: session {self.name} has {_code(message.get('waiting'))} prompts "
                "waiting, its most; try again once some have run\n"
            )
            return _EXIT_BUSY
        return None


class NotOurs(OSError):
    """What listens at a named session's socket is not this user's."""


def peer_is_ours(sock: Any, path: str) -> bool:
    """Whether the process at the other end of ``sock`` (connected to ``path``) is this user's.

    The kernel's word for it where it gives one (``SO_PEERCRED``); and, on
    every system, the socket and its folder are this user's, the folder
    private (``0700``): a socket in a shared folder (``/tmp``) that another
    user made in our place is never spoken to (it would get the prompt and
    the host's token, and write to our terminal).
    """
    uid = os.getuid()
    option = getattr(_socket, "SO_PEERCRED", None)
    if option is not None:
        cred = sock.getsockopt(_socket.SOL_SOCKET, option, 12)  # struct ucred: pid, uid, gid
        if int.from_bytes(cred[4:8], sys.byteorder) != uid:
            return False
    try:
        folder = os.lstat(os.path.dirname(path) or ".")
        socket_file = os.lstat(path)
    except OSError:
        return False
    return (
        folder.st_uid == uid
        and not folder.st_mode & 0o077
        and (folder.st_mode & 0o170000) == 0o040000
        and socket_file.st_uid == uid
    )


def connect(path: str) -> _socket.socket:
    """A stream socket connected to this user's Unix socket at ``path``.

    Raises:
        NotOurs: another user's process listens there (see :func:`peer_is_ours`).
        OSError: nothing listens there (no host alive), or the path is bad.

    """
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect(path)
        if not peer_is_ours(sock, path):
            raise NotOurs(f"{path} is not this user's (another user's process, or a shared folder)")
    except BaseException:
        sock.close()
        raise
    return sock


def converse(
    sock: _socket.socket,
    request: dict[str, Any],
    name: str,
    on_queued: Callable[[], None] | None = None,
    *,
    log: str | None = None,
    shortcut: bool = False,
    on_denied: Callable[[], bool] | None = None,
) -> int:
    """Send the prompt request on a connected socket; write the turn; the exit code.

    Ctrl-C while the prompt waits takes it out of the queue (130); during
    the turn it asks the host to cancel it (the run exits with the turn's
    code, 130); a second Ctrl-C, SIGTERM or SIGHUP leave at once (the host
    cancels what this run asked for when its connection closes).

    Args:
        sock: connected to the name's host.
        request: the ``prompt`` request (the token included).
        name: the session's name, for what the run says itself.
        on_queued: called when the host accepted the prompt.
        log: the host's log, named when it does not answer.
        shortcut: the request is a shortcut's: a refusal raises ``_Stale``.
        on_denied: says whether a denied request may be made again (the host
            changed since its token was read): :class:`HostGone` is raised then.

    A host answers a request at once (``queued``, or why not), even while its
    agent starts: one that has not within :data:`ANSWER_TIMEOUT` seconds is
    stuck (stopped, or frozen), and the run says so (exit 1) instead of
    waiting for ever.

    Raises:
        HostGone: the host stopped before the turn ended.

    """
    talk = _Conversation(sock, name, on_queued)
    talk.stale_ok = shortcut
    talk.on_denied = on_denied
    try:
        # They stay (inert once the run leaves): the run ends with its code.
        _signal.signal(_signal.SIGINT, talk.on_sigint)
        _signal.signal(_signal.SIGTERM, talk.on_stop)
        _signal.signal(_signal.SIGHUP, talk.on_stop)
        sock.settimeout(ANSWER_TIMEOUT)
        sock.sendall(_line(request))
        pending = bytearray()
        start = 0  # where the next line begins in pending
        while True:
            try:
                data = sock.recv(1 << 16)
            except TimeoutError:
                where = f" (see {log})" if log else ""
                _say(
                    f"acphost: the host of session {name} does not answer{where}; "
                    "it may be stopped (SIGSTOP) or stuck: `acphost status` says more\n"
                )
                return _EXIT_ERROR
            except OSError:
                data = b""
            if not data:
                raise HostGone(talk.started, talk.ticket)
            pending += data
            while (end := pending.find(b"\n", start)) >= 0:
                line, start = bytes(pending[start:end]), end + 1
                try:
                    # The host's text may carry the output's undecodable bytes
                    # as lone surrogates (see launch.send_message).
                    message = _loads(line.decode("utf-8", "surrogatepass"))
                except ValueError:
                    raise HostGone(talk.started, talk.ticket) from None
                if isinstance(message, dict):
                    code = talk.handle(message)
                    if code is not None:
                        talk.over = True
                        return code
            del pending[:start]
            start = 0
    except _Leave as leave:
        return leave.code
    finally:
        talk.over = True
        sock.close()


def _line(message: dict[str, Any]) -> bytes:
    return _dumps({"v": WIRE_VERSION, **message}).encode() + b"\n"


def _code(value: object) -> int:
    return value if isinstance(value, int) and 0 <= value < 256 else _EXIT_ERROR


def _one_line(value: object) -> str:
    text = str(value)
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


# -- shortcuts ------------------------------------------------------------------------


def _key(cwd: str, template: list[str]) -> str:
    """The digest of what a shortcut is for: never the command line itself.

    The command line and the environment may carry secrets (an
    ``--agent-command`` with a token): a shortcut keeps only this digest.
    """
    env = sorted(
        [k, v] for k, v in os.environ.items() if k.startswith("ACPHOST_") or k in _RESOLVE_ENV
    )
    return _sha256(_dumps([cwd, template, env]).encode("utf-8", "surrogateescape"))


def _sha256(data: bytes) -> str:
    # The accelerator module alone (hashlib would load OpenSSL: ~2 ms).
    for name in ("_sha2", "_sha256"):  # CPython 3.12+, 3.11
        try:
            return str(__import__(name).sha256(data).hexdigest())
        except ImportError:
            continue
    import hashlib  # noqa: PLC0415

    return hashlib.sha256(data).hexdigest()


def _shortcut_path(key: str) -> str:
    return os.path.join(shortcut_folder(), f"{key[:40]}.json")


def _signature(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size, st.st_ino]


def _read_json(path: str) -> Any:
    """A small JSON file acphost wrote, owned by this user; None otherwise."""
    try:
        # Not blocking: a FIFO put in its place must not hold the run.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if (st.st_mode & 0o170000) != 0o100000 or st.st_uid != os.getuid():
            return None
        raw = os.read(fd, _FILE_MAX + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        return _loads(raw.decode()) if len(raw) <= _FILE_MAX else None
    except (ValueError, UnicodeDecodeError):
        return None


#: The options a run may change between runs of one session (its own, not the
#: session's): taken out of the command line a shortcut is kept for.
_OUTPUTS = frozenset(("text", "simple", "jsonl", "json"))


def run_flags(words: list[str]) -> tuple[list[str], dict[str, Any]] | None:
    """The words less ``--keep-alive``, ``-o``/``--output`` and ``--no-queue``, and their values.

    The values are as the command line parses them (``keep_alive`` seconds
    or None, ``output``, ``queue``); None when one is malformed (the long
    way says why). Words after ``--`` are kept as they are.
    """
    kept: list[str] = []
    found: dict[str, Any] = {"keep_alive": None, "output": "text", "queue": True}
    at = 0
    while at < len(words):
        word = words[at]
        at += 1
        if word == "--":
            kept.extend(words[at - 1 :])
            break
        if word == "--no-queue":
            found["queue"] = False
            continue
        flag, equals, value = word.partition("=")
        if _spelled_otherwise(flag):
            return None  # the command line reads it (an abbreviation, a cluster): the long way
        if flag not in ("--keep-alive", "--output") and not word.startswith("-o"):
            kept.append(word)
            continue
        if flag == "-o" or not word.startswith("--"):  # -o VALUE, -oVALUE
            flag, equals, value = "--output", "", word[2:]
            if value:
                equals = "="
        if not equals:
            if at >= len(words):
                return None
            value, at = words[at], at + 1
        if flag == "--output":
            if value not in _OUTPUTS:
                return None
            found["output"] = value
        else:
            seconds = duration_seconds(value)
            if seconds is None or seconds > MAX_KEEP_ALIVE:
                return None
            found["keep_alive"] = seconds
    return kept, found


def _is_name(name: str) -> bool:
    """A session name as ``check_session_name`` allows (a shortcut's is data)."""
    return (
        0 < len(name) <= 64
        and name.isascii()
        and name[0].isalnum()
        and all(c.isalnum() or c in "._-" for c in name)
    )


def _spelled_otherwise(flag: str) -> bool:
    """Whether ``flag`` may be a run flag in a spelling :func:`run_flags` does not read.

    argparse takes ``--out`` for ``--output`` and ``-vo X`` for ``-v -o X``;
    the last of two spellings wins. Such a command line is never a shortcut's.
    """
    if flag.startswith("--"):
        name = flag[2:]
        return len(name) > 0 and any(
            full != name and full.startswith(name) for full in ("output", "keep-alive", "no-queue")
        )
    return len(flag) > 2 and flag[0] == "-" and flag[1] != "o" and "o" in flag[2:]


def _split(argv: list[str]) -> tuple[list[str], str, dict[str, Any]] | None:
    """The command line less its prompt and its run's own options; the prompt; those options.

    Only a last word that cannot be anything but the prompt: not blank, UTF-8,
    no ``@`` (mentions attach files: the long way resolves them), and after
    ``--`` or else neither an option's look (``-x``) nor a subcommand's name.
    """
    if len(argv) < 3:
        return None
    *words, prompt = argv
    if not prompt.strip() or "@" in prompt:
        return None  # no prompt (the long way says so), or mentions to attach
    try:
        prompt.encode()
    except UnicodeEncodeError:
        return None  # bytes that are not UTF-8: the long way says so
    if words[-1] != "--" and (prompt[0] == "-" or prompt in SUBCOMMAND_WORDS):
        return None  # an option, or a subcommand (``acphost -s NAME status``)
    if not any(a in ("-s", "--session") or a.startswith(("-s", "--session=")) for a in words):
        return None
    flags = run_flags(words)
    if flags is None:
        return None
    template, found = flags
    return template, prompt, found


def warm_run(argv: list[str]) -> int | None:
    """Run ``acphost ARGV`` through its shortcut, if it has a live one; else None.

    None means the long way must run the command line (nothing was sent, or
    the host stopped before the prompt's turn began: :data:`taken_ticket`
    then holds its place in the queue).
    """
    global taken_ticket  # noqa: PLW0603 - the one hand-over to the long way
    split = _split(argv)
    if split is None:
        return None
    template, prompt, found = split
    try:
        cwd = os.getcwd()
    except OSError:
        return None
    key = _key(cwd, template)
    path = _shortcut_path(key)
    data = _read_json(path)
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    files, request = data.get("files"), data.get("request")
    sock_path, name = data.get("socket"), data.get("name")
    folders = data.get("folders")
    if not (isinstance(files, list) and isinstance(request, dict) and isinstance(folders, list)):
        return None
    for entry in folders:  # a folder named through a link: still the same real one
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)):
            return None
        if os.path.realpath(entry[0]) != entry[1] or not os.path.isdir(entry[0]):
            return None
    if not (isinstance(sock_path, str) and isinstance(name, str) and _is_name(name)):
        return None
    for entry in files:
        if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)):
            return None
        if _signature(entry[0]) != entry[1]:
            return None
    token_file = data.get("token")
    if not isinstance(token_file, str):
        return None
    token = _read_json(token_file)
    if not isinstance(token, dict) or not isinstance(token.get("token"), str):
        return None
    try:
        sock = connect(sock_path)
    except OSError:
        return None  # no live host: the long way starts one
    full = {
        **request,
        **found,
        "prompt": [{"type": "text", "text": prompt}],
        "text": prompt,
        "ticket": None,
        "token": token["token"],
        "tty": terminal_facts(),
    }
    try:
        log = os.path.join(os.path.dirname(token_file), "host.log")

        def another_host() -> bool:  # the token changed: the long way reads it again
            now = _read_json(token_file)
            return not isinstance(now, dict) or now.get("token") != token["token"]

        return converse(sock, full, name, log=log, shortcut=True, on_denied=another_host)
    except _Stale:
        return None
    except HostGone as gone:
        if gone.started:
            _say(stopped_mid_turn(os.path.dirname(token_file), gone.ticket))
            return _EXIT_ERROR
        taken_ticket = gone.ticket
        return None


def stopped_mid_turn(folder: str, ticket: int | None) -> str:
    """What a run says when its connection to the host ended during its turn.

    A host that drops a run (it read its output too slowly: the host holds a
    bounded backlog for it; the turn goes on) keeps its ticket in the name's
    folder before the connection ends; else the host stopped.
    """
    data = _read_json(os.path.join(folder, DROPPED_FILE))
    tickets = data.get("tickets") if isinstance(data, dict) else None
    if ticket is not None and isinstance(tickets, list) and ticket in tickets:
        return (
            "acphost: the session host dropped this run: its output was not read fast "
            "enough (a backlog past the host's bound); the turn goes on in the session\n"
        )
    return (
        "acphost: the session host stopped during this turn (it was killed or crashed); "
        "the turn's end is unknown; the next run continues the session\n"
    )


def _prune(folder: str) -> None:
    """Remove the shortcuts written over a week ago (the long way writes them again).

    Only what this module makes (``*.json``, ``*.tmp``), regular files, this
    user's; found by name in acphost's own folder.
    """
    import time  # noqa: PLC0415 - the long way only

    old = time.time() - MAX_KEEP_ALIVE
    for entry in os.scandir(folder):
        if not entry.name.endswith((".json", ".tmp")):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            ours = (st.st_mode & 0o170000) == 0o100000 and st.st_uid == os.getuid()
            if ours and st.st_mtime < old:
                os.unlink(entry.path)
        except OSError:
            continue


def remember(
    argv: list[str],
    files: list[str],
    folders: list[str],
    *,
    sock_path: str,
    token_file: str,
    name: str,
    request: dict[str, Any],
    options_digest: str,
) -> None:
    """Leave the shortcut of this command line (see the module's docstring).

    Nothing is left unless the words a shortcut would read (:func:`run_flags`)
    give what the command line parsed: the run's ``keep_alive``, ``output``
    and ``queue`` in ``request``.

    Args:
        argv: the whole command line (its last word the prompt).
        files: the settings files the run read or looked for.
        folders: the folders the command line names (``--cwd``), absolute:
            a later run is served only while each leads to the same real one.
        sock_path: the host's socket.
        token_file: the host's token file.
        name: the session's name.
        request: the request without its prompt, token, ticket and terminal.
        options_digest: the digest of its ``options``, which the shortcut
            sends instead (the options may carry secrets).

    """
    split = _split(argv)
    if split is None:
        return
    template, _, found = split
    if any(request.get(k) != v for k, v in found.items()):
        return  # a spelling the shortcut does not read (`-vo jsonl`): no shortcut
    request = {k: v for k, v in request.items() if k not in found and k != "options"}
    request["options_digest"] = options_digest
    tmp = None
    try:
        key = _key(os.getcwd(), template)
        folder = shortcut_folder()
        os.makedirs(folder, mode=0o700, exist_ok=True)
        path = _shortcut_path(key)
        data = {
            "key": key,
            "files": [[f, _signature(f)] for f in files],
            "folders": [[f, os.path.realpath(f)] for f in folders],
            "socket": sock_path,
            "token": token_file,
            "name": name,
            "request": request,
        }
        tmp = f"{path}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            data_bytes = _dumps(data).encode()
            while data_bytes:
                data_bytes = data_bytes[os.write(fd, data_bytes) :]
        finally:
            os.close(fd)
        os.replace(tmp, path)
        tmp = None
        _prune(folder)
    except (OSError, ValueError):
        pass  # no shortcut: the next run takes the long way
    finally:
        if tmp is not None:
            try:  # noqa: SIM105 - contextlib is not loaded on this path
                os.unlink(tmp)
            except OSError:
                pass
