"""Sessions of the demo agent: in memory, and as JSON files when asked to persist.

With ``ACPHOST_DEMO_STATE_DIR`` set, every session is also written to
``<dir>/<sessionId>.json`` after each change, so a second agent process can
list, load and resume it. Session ids are uuid4-shaped; with
``ACPHOST_DEMO_SEED`` set they are derived from the seed and are reproducible.
"""

from __future__ import annotations

import os
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
        "created",
        "cwd",
        "history",
        "id",
        "mode",
        "model",
        "open",
        "title",
        "tokens",
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
        self.tokens = 0
        self.always: dict[str, bool] = {}  # permission kind -> allowed, per "always" answers
        self.open = True
        self.turn: Any = None

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
        session.history = list(data.get("history", []))
        session.open = False
        return session

    def info(self) -> Json:
        """Return this session as a ``SessionInfo``."""
        return {
            "sessionId": self.id,
            "cwd": self.cwd,
            "title": self.title,
            "updatedAt": self.updated,
        }


class Store:
    """Every session this process knows, plus those in the state directory."""

    def __init__(self, state_dir: str | None, seed: str | None) -> None:
        self.lock = threading.RLock()
        self._dir = state_dir
        self._seed = seed
        self._counter = 0
        self._sessions: dict[str, Session] = {}

    def create(self, cwd: str) -> Session:
        """Create, remember and persist a new open session."""
        with self.lock:
            while True:
                self._counter += 1
                session_id = new_uuid(self._seed, self._counter)
                if self.get(session_id) is None:
                    break
            session = Session(session_id, cwd, time.time())
            self._sessions[session_id] = session
            self.save(session)
            return session

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

    def all(self) -> list[Session]:
        """Return every known session, oldest first."""
        with self.lock:
            if self._dir is not None and os.path.isdir(self._dir):
                for name in sorted(os.listdir(self._dir)):
                    if name.endswith(".json") and name[:-5] not in self._sessions:
                        self.get(name[:-5])
            return sorted(self._sessions.values(), key=lambda s: (s.created, s.id))

    def delete(self, session_id: str) -> bool:
        """Forget a session and its file; return whether it existed."""
        with self.lock:
            found = self.get(session_id) is not None
            self._sessions.pop(session_id, None)
            if self._dir is not None:
                path = self._path(session_id)
                if os.path.exists(path):
                    os.remove(path)
            return found

    def save(self, session: Session) -> None:
        """Persist ``session`` if a state directory is configured (atomic replace)."""
        if self._dir is None:
            return
        with self.lock:
            os.makedirs(self._dir, exist_ok=True)
            path = self._path(session.id)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "w", encoding="utf-8") as handle:
                handle.write(dumps(session.to_json()))
            os.replace(tmp, path)

    def _path(self, session_id: str) -> str:
        assert self._dir is not None
        # Ids come from the client: keep them from escaping the state directory.
        safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in session_id)
        return os.path.join(self._dir, f"{safe}.json")

    def _read(self, path: str) -> Session | None:
        try:
            with open(path, encoding="utf-8") as handle:
                data = loads(handle.read())
            return Session.from_json(data) if isinstance(data, dict) else None
        except (OSError, DecodeError, KeyError, TypeError, ValueError):
            return None
