"""Sessions of the demo agent: in memory, and as JSON files in the user's state directory.

By default every session is also written to ``<state dir>/<sessionId>.json``
after each change (see :func:`default_state_dir`), so another agent process can
list, load and resume it. Session ids are uuid4-shaped; with
``ACPHOST_DEMO_SEED`` set they are derived from the seed and are reproducible.
"""

from __future__ import annotations

import os
import sys
import threading
import time

from ._codec import DecodeError, dumps, loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Json = dict[str, Any]

MODES = (
    ("ask", "Ask", "Answer questions; never edit files."),
    ("code", "Code", "Write and edit code."),
    ("architect", "Architect", "Plan changes before making them."),
)
MODELS = (("demo-fast", "Demo Fast"), ("demo-smart", "Demo Smart"))


def _fnv64(text: str) -> int:
    # FNV-1a: a stable hash (str.__hash__ is salted per process).
    value = 0xCBF29CE484222325
    for byte in text.encode():
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def new_uuid(seed: str | None, counter: int) -> str:
    """Return a uuid4-shaped id: random, or derived from ``seed`` and ``counter``."""
    if seed is None:
        raw = int.from_bytes(os.urandom(16), "big")
    else:
        raw = (_fnv64(f"{seed}/{counter}/a") << 64) | _fnv64(f"{seed}/{counter}/b")
    raw = (raw & ~(0xF000 << 64)) | (0x4000 << 64)  # version 4
    raw = (raw & ~(0xC000 << 48)) | (0x8000 << 48)  # RFC 4122 variant
    text = f"{raw:032x}"
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def iso_now() -> str:
    """Return the current UTC time as an ISO 8601 string (``SessionInfo.updatedAt``)."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Session:
    """One conversation: its settings, its history and whether it is open."""

    __slots__ = (
        "always",
        "archived",
        "cost_micros",
        "created",
        "cwd",
        "history",
        "host",
        "id",
        "mode",
        "model",
        "open",
        "system_prompt",
        "title",
        "tokens",
        "tools",
        "turn",
        "updated",
        "verbose",
    )

    def __init__(self, session_id: str, cwd: str, created: float) -> None:
        self.id = session_id
        self.cwd = cwd
        self.created = created
        self.updated = iso_now()
        self.title: str | None = None
        self.mode = "ask"
        self.model = "demo-fast"
        self.verbose = False
        self.history: list[Json] = []
        self.tokens = 0  # tokens in the context window (usage_update.used)
        self.cost_micros = 0  # cumulative cost in millionths of a USD
        self.archived = False
        self.always: dict[str, bool] = {}  # permission kind -> allowed, per "always" answers
        self.open = True
        self.turn: Any = None
        # The client's systemPrompt (mode, text), kept in memory only: a
        # client sends it again on load and resume (schema, SystemPrompt).
        self.system_prompt: tuple[str, str] | None = None
        # The client's `acphost` MCP server (its checked mcpServers entry) and the
        # live connection to it, in memory only: sent again on every reopening.
        self.tools: Json | None = None
        self.host: Any = None

    def to_json(self) -> Json:
        """Return the persisted form."""
        return {
            "sessionId": self.id,
            "cwd": self.cwd,
            "created": self.created,
            "updatedAt": self.updated,
            "title": self.title,
            "mode": self.mode,
            "model": self.model,
            "verbose": self.verbose,
            "tokens": self.tokens,
            "costMicros": self.cost_micros,
            "archived": self.archived,
            "history": self.history,
        }

    @classmethod
    def from_json(cls, data: Json) -> Session:
        """Rebuild a session from :meth:`to_json` output (it starts closed)."""
        session = cls(str(data["sessionId"]), str(data["cwd"]), float(data.get("created", 0)))
        session.updated = str(data.get("updatedAt") or session.updated)
        session.title = data.get("title")
        session.mode = str(data.get("mode", "ask"))
        session.model = str(data.get("model", "demo-fast"))
        session.verbose = bool(data.get("verbose", False))
        session.tokens = int(data.get("tokens", 0))
        session.cost_micros = int(data.get("costMicros", 0))
        session.archived = bool(data.get("archived", False))
        session.history = [e for e in data.get("history", []) if isinstance(e, dict)]
        session.open = False
        return session

    def info(self) -> Json:
        """Return this session as a ``SessionInfo``.

        ``archived`` is on every entry, as schema.unstable.json asks of agents
        that advertise ``sessionCapabilities.archive``.
        """
        return {
            "sessionId": self.id,
            "cwd": self.cwd,
            "title": self.title,
            "updatedAt": self.updated,
            "archived": self.archived,
        }


class Store:
    """Every session this process knows, plus those in the state directory.

    The store never stops the agent: a directory it cannot create or write turns
    persistence off (one line on stderr, sessions stay in memory), and a file it
    cannot read is skipped (one line on stderr per file). Writes are atomic (a
    private temporary file, then ``os.replace``), so agents running side by side
    never see half a session; the last writer of a session wins.
    """

    def __init__(self, state_dir: str | None, seed: str | None, max_files: int = 200) -> None:
        self.lock = threading.RLock()
        self._dir = state_dir
        self._writable = state_dir is not None
        self._seed = seed
        self._max_files = max_files
        self._counter = 0
        self._sessions: dict[str, Session] = {}
        self._warned: set[str] = set()

    @property
    def directory(self) -> str | None:
        """The state directory, or ``None`` when sessions live in memory only."""
        return self._dir

    def create(self, cwd: str) -> Session:
        """Create, remember and persist a new open session."""
        with self.lock:
            session = Session(self.new_id(), cwd, time.time())
            self._sessions[session.id] = session
            self.save(session)
            self._prune()
            return session

    def add(self, session: Session) -> None:
        """Remember a session built elsewhere (a fork) and persist it."""
        with self.lock:
            self._sessions[session.id] = session
            self.save(session)

    def new_id(self) -> str:
        """Return an id no known session has."""
        with self.lock:
            while True:
                self._counter += 1
                session_id = new_uuid(self._seed, self._counter)
                if self.get(session_id) is None:
                    return session_id

    def get(self, session_id: str) -> Session | None:
        """Return the session with this id, reading it from disk if needed."""
        with self.lock:
            session = self._sessions.get(session_id)
            if session is None and self._dir is not None:
                session = self._read(self._path(session_id))
                if session is not None and session.id == session_id:
                    self._sessions[session_id] = session
                else:
                    session = None
            return session

    def refresh(self, session: Session) -> Session:
        """Re-read an idle session from disk: another agent process may have changed it."""
        with self.lock:
            if self._dir is None or session.open or session.turn is not None:
                return session
            fresh = self._read(self._path(session.id), quiet=True)
            if fresh is None or fresh.id != session.id:
                return session
            fresh.always = session.always
            self._sessions[session.id] = fresh
            return fresh

    def held(self) -> list[Session]:
        """Return the sessions this process holds (no disk access)."""
        with self.lock:
            return list(self._sessions.values())

    def in_memory(self, session_id: str) -> bool:
        """Return whether this process holds the session (``session/status``)."""
        with self.lock:
            return session_id in self._sessions

    def all(self) -> list[Session]:
        """Return every known session, oldest first."""
        with self.lock:
            for name in self._names():
                if name[:-5] not in self._sessions:
                    self.get(name[:-5])
            return sorted(self._sessions.values(), key=lambda s: (s.created, s.id))

    def delete(self, session_id: str) -> bool:
        """Forget a session and its file; return whether it existed."""
        with self.lock:
            found = self.get(session_id) is not None
            self._sessions.pop(session_id, None)
            if self._dir is not None:
                try:
                    os.remove(self._path(session_id))
                except FileNotFoundError:
                    pass
                except OSError as exc:
                    self._warn(f"cannot delete the session file: {exc}")
            return found

    def save(self, session: Session) -> None:
        """Persist ``session`` if a state directory is configured (atomic replace)."""
        if self._dir is None or not self._writable:
            return
        with self.lock:
            path = self._path(session.id)
            # A name private to this process and thread: concurrent agents never
            # write the same temporary file.
            tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
            try:
                os.makedirs(self._dir, mode=0o700, exist_ok=True)
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with open(fd, "w", encoding="utf-8") as handle:
                    handle.write(dumps(session.to_json()))
                os.replace(tmp, path)
            except OSError as exc:
                _remove(tmp)
                self._broken(f"cannot write {exc.filename or path}: {exc.strerror or exc}")

    def _names(self) -> list[str]:
        if self._dir is None:
            return []
        try:
            return sorted(n for n in os.listdir(self._dir) if n.endswith(".json"))
        except FileNotFoundError:
            return []
        except OSError as exc:
            self._broken(f"cannot list it: {exc.strerror or exc}")
            self._dir = None  # nothing there can be read either
            return []

    def _prune(self) -> None:
        # Keep the directory bounded: drop the least recently written session
        # files beyond ``max_files`` (never one this process holds).
        names = self._names()
        if self._dir is None or not self._writable or len(names) <= self._max_files:
            return
        aged: list[tuple[float, str]] = []
        for name in names:
            try:
                aged.append((os.stat(os.path.join(self._dir, name)).st_mtime, name))
            except OSError:
                continue
        aged.sort()
        for _, name in aged[: len(aged) - self._max_files]:
            if name[:-5] not in self._sessions:
                _remove(os.path.join(self._dir, name))

    def _path(self, session_id: str) -> str:
        assert self._dir is not None
        # Ids come from the client: keep them from escaping the state directory.
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in session_id)
        return os.path.join(self._dir, f"{safe}.json")

    def _read(self, path: str, *, quiet: bool = False) -> Session | None:
        try:
            with open(path, encoding="utf-8") as handle:
                data = loads(handle.read())
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            return Session.from_json(data)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except (OSError, DecodeError, KeyError, TypeError, ValueError, AttributeError) as exc:
            if not quiet:
                self._warn(f"ignoring the unreadable session file {path} ({exc})")
            return None

    def _broken(self, reason: str) -> None:
        # The store as a whole is unusable: say so once, go on in memory.
        if self._writable:
            self._warn(
                f"the session store {self._dir} is not usable ({reason}); "
                "keeping sessions in memory only"
            )
        self._writable = False

    def _warn(self, message: str) -> None:
        # Once per message: a broken file is reported the first time it is met.
        if message in self._warned:
            return
        self._warned.add(message)
        sys.stderr.write(f"acphost-demo: {message}\n")
        sys.stderr.flush()


def _remove(path: str) -> None:
    """Remove a file if possible; the store carries on either way."""
    try:
        os.remove(path)
    except OSError:
        return


def default_state_dir(env: dict[str, str], argv: list[str]) -> str | None:
    """Return where sessions persist, or ``None`` to keep them in memory only.

    ``--memory`` or ``ACPHOST_DEMO_MEMORY=1`` keep them in memory;
    ``--state-dir DIR`` or ``ACPHOST_DEMO_STATE_DIR`` name the directory. A
    seeded run (``ACPHOST_DEMO_SEED``) stays in memory unless a directory is
    named, so that reproducible runs never depend on what earlier runs left.
    Otherwise: ``$XDG_STATE_HOME/acphost/demo``, or ``~/.local/state/acphost/demo``
    (the XDG Base Directory specification ignores a relative ``XDG_STATE_HOME``).
    """
    if "--memory" in argv or env.get("ACPHOST_DEMO_MEMORY", "").strip().lower() not in (
        "",
        "0",
        "false",
        "no",
    ):
        return None
    if "--state-dir" in argv:
        index = argv.index("--state-dir")
        if index + 1 < len(argv):
            return argv[index + 1]
    if env.get("ACPHOST_DEMO_STATE_DIR"):
        return env["ACPHOST_DEMO_STATE_DIR"]
    if env.get("ACPHOST_DEMO_SEED"):
        return None
    base = env.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".local", "state")
    return os.path.join(base, "acphost", "demo")
