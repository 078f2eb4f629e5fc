"""The history database: the one module that owns its schema and migrations.

The store is one SQLite file (the standard library's ``sqlite3``):

- **WAL mode** so readers (``acphost history``) never block a run that is
  recording, and writers wait for each other (busy timeout) instead of failing;
  ``synchronous=NORMAL``: a killed process loses nothing it committed, a power
  cut may lose the last transactions but never leaves the file inconsistent
  (SQLite's "WAL mode" documentation).
- **Short write transactions** that start with ``BEGIN IMMEDIATE``: in WAL mode a
  transaction that reads first and then writes cannot wait for another writer
  (it fails with ``SQLITE_BUSY`` at once), one that takes the write lock first can.
- **Numbered migrations**, each applied in its own transaction together with
  the new ``PRAGMA user_version``, so a store is always at exactly one version;
  several processes opening an old store at once migrate it once.
- **Owner-only files**: the database is created ``0600`` in a ``0700``
  directory; SQLite gives its ``-wal`` and ``-shm`` files the database's mode.

Nothing outside this package sees SQL; the store's functions hide it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator

from ._errors import HistoryError

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "connect", "migrate", "translate", "transaction"]

#: Each migration's statements, in order; migration N brings ``user_version`` to N.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    # 1: sessions, their turns, the tool calls and permission decisions of each turn.
    (
        """CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            agent TEXT NOT NULL,
            command TEXT NOT NULL DEFAULT '[]',
            cwd TEXT NOT NULL,
            agent_session_id TEXT,
            title TEXT,
            started_at TEXT NOT NULL,
            ended_at TEXT,
            origin TEXT NOT NULL DEFAULT 'recorded'
        )""",
        "CREATE INDEX sessions_by_start ON sessions (started_at)",
        "CREATE INDEX sessions_by_place ON sessions (agent, cwd, started_at)",
        """CREATE TABLE turns (
            session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            started_at TEXT NOT NULL,
            ended_at TEXT,
            prompt TEXT NOT NULL,
            prompt_blocks TEXT NOT NULL DEFAULT '[]',
            text TEXT NOT NULL DEFAULT '',
            events TEXT NOT NULL DEFAULT '[]',
            stop_reason TEXT,
            host_stop TEXT,
            error TEXT,
            complete INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (session_id, seq)
        )""",
        """CREATE TABLE tool_calls (
            session_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            position INTEGER NOT NULL,
            tool_call_id TEXT NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            kind TEXT,
            name TEXT,
            status TEXT,
            locations TEXT NOT NULL DEFAULT '[]',
            diffs TEXT NOT NULL DEFAULT '[]',
            PRIMARY KEY (session_id, seq, position),
            FOREIGN KEY (session_id, seq) REFERENCES turns (session_id, seq) ON DELETE CASCADE
        )""",
        """CREATE TABLE permissions (
            session_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            position INTEGER NOT NULL,
            tool_call_id TEXT,
            title TEXT NOT NULL DEFAULT '',
            decision TEXT NOT NULL,
            option_kind TEXT,
            option_id TEXT,
            at TEXT NOT NULL,
            PRIMARY KEY (session_id, seq, position),
            FOREIGN KEY (session_id, seq) REFERENCES turns (session_id, seq) ON DELETE CASCADE
        )""",
    ),
    # 2: the usage ledger: tokens by kind, context window and cost, per turn and session.
    (
        "ALTER TABLE turns ADD COLUMN input_tokens INTEGER",
        "ALTER TABLE turns ADD COLUMN output_tokens INTEGER",
        "ALTER TABLE turns ADD COLUMN thought_tokens INTEGER",
        "ALTER TABLE turns ADD COLUMN cached_read_tokens INTEGER",
        "ALTER TABLE turns ADD COLUMN cached_write_tokens INTEGER",
        "ALTER TABLE turns ADD COLUMN total_tokens INTEGER",
        "ALTER TABLE turns ADD COLUMN context_used INTEGER",
        "ALTER TABLE turns ADD COLUMN context_size INTEGER",
        "ALTER TABLE turns ADD COLUMN cost_amount REAL",
        "ALTER TABLE turns ADD COLUMN cost_currency TEXT",
        "ALTER TABLE sessions ADD COLUMN context_used INTEGER",
        "ALTER TABLE sessions ADD COLUMN context_size INTEGER",
        "ALTER TABLE sessions ADD COLUMN cost_amount REAL",
        "ALTER TABLE sessions ADD COLUMN cost_currency TEXT",
        "CREATE INDEX turns_by_start ON turns (started_at)",
    ),
    # 3: the agent's last reported cumulative cost of its session, apart from what the
    # run spent (cost_amount): where a later run on the same agent session starts counting.
    (
        "ALTER TABLE sessions ADD COLUMN reported_cost_amount REAL",
        "ALTER TABLE sessions ADD COLUMN reported_cost_currency TEXT",
        # Every run that records looks its agent session up here before its first turn.
        "CREATE INDEX sessions_by_agent_session ON sessions (agent_session_id)",
    ),
)

#: The version this code reads and writes.
SCHEMA_VERSION = len(MIGRATIONS)


def translate(exc: BaseException, path: str) -> HistoryError:
    """Turn a ``sqlite3`` or OS error into a :class:`HistoryError` that says what to do.

    Args:
        exc: the error raised while using the store.
        path: the store's path, named in the message.

    Returns:
        The error to raise (``from exc``).

    """
    text = str(exc)
    lower = text.lower()
    if isinstance(exc, HistoryError):
        return exc
    if "locked" in lower or "busy" in lower:
        return HistoryError(f"the history store {path} is locked by another process ({text})")
    if isinstance(exc, OSError) or "unable to open" in lower or "readonly" in lower:
        return HistoryError(
            f"cannot open the history store {path} ({text}): check the permissions of the file "
            "and its directory, or point ACPHOST_HISTORY elsewhere"
        )
    # Only SQLite's own verdict on the file says "damaged": a constraint or a
    # misuse is a fault of the write, not of the store, and deleting a healthy
    # store for it would lose the user's history.
    if getattr(exc, "sqlite_errorname", "") in _DAMAGED or (
        isinstance(exc, sqlite3.DatabaseError)
        and ("not a database" in lower or "malformed" in lower)
    ):
        return HistoryError(
            f"the history store {path} is damaged or not a history database ({text}): "
            "move it away (or delete it) and a new one is created"
        )
    return HistoryError(f"the history store {path}: {text}")


#: SQLite's result codes for a file that is not a sound database (sqlite.org/rescode.html).
_DAMAGED = frozenset(
    {"SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_CORRUPT_INDEX", "SQLITE_CORRUPT_SEQUENCE"}
)


def _create_private(path: str) -> None:
    """Create the database file owner-only (and its directory), unless it exists."""
    directory = os.path.dirname(path)
    if directory and not os.path.isdir(directory):
        os.makedirs(directory, mode=0o700, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except FileExistsError:
        return
    os.close(fd)


def connect(path: str, *, timeout: float) -> sqlite3.Connection:
    """Open (creating it if needed) and migrate the store at ``path``.

    Args:
        path: the database file.
        timeout: seconds a write waits for another process's transaction.

    Returns:
        A connection in autocommit mode (transactions are explicit), WAL mode,
        foreign keys on, at :data:`SCHEMA_VERSION`.

    Raises:
        HistoryError: the file cannot be created or opened, is not a database,
            is locked, or was written by a newer acphost.

    """
    try:
        _create_private(path)
        conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
    except (OSError, sqlite3.Error) as exc:
        raise translate(exc, path) from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn, path=path)
    except (OSError, sqlite3.Error, HistoryError) as exc:
        conn.close()
        raise translate(exc, path) from exc
    return conn


def user_version(conn: sqlite3.Connection) -> int:
    """The schema version stored in the file (0: a new, empty file)."""
    row = conn.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(conn: sqlite3.Connection, *, target: int = SCHEMA_VERSION, path: str = "") -> int:
    """Apply the migrations the store lacks, each in its own transaction.

    Args:
        conn: an autocommit connection.
        target: the version to reach (older ones are for tests of migrations).
        path: the store's path, for messages.

    Returns:
        The version the store is at.

    Raises:
        HistoryError: the store is newer than this code.
        sqlite3.Error: a migration failed (it is rolled back).

    """
    version = user_version(conn)
    if version > SCHEMA_VERSION:
        raise HistoryError(
            f"the history store {path} has schema version {version}, newer than this acphost "
            f"reads ({SCHEMA_VERSION}): upgrade acphost, or point ACPHOST_HISTORY elsewhere"
        )
    while version < target:
        with transaction(conn):
            # Another process may have migrated since we looked: look again
            # now that we hold the write lock.
            version = user_version(conn)
            if version >= target:
                break
            for statement in MIGRATIONS[version]:
                conn.execute(statement)
            version += 1
            conn.execute(f"PRAGMA user_version = {version}")
    return version


@contextlib.contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A write transaction: ``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on error."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
