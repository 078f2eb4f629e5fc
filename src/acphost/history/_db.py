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
- **Owner-only files, opened as themselves**: the database is created
  ``0600`` in a ``0700`` directory; SQLite gives its ``-wal`` and ``-shm``
  files the database's mode. An existing store that others can read is made
  ``0600`` with a warning; a store (or companion) that is a symbolic link,
  not a regular file, or another user's is refused (:func:`connect`).

Nothing outside this package sees SQL; the store's functions hide it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import stat
import sys
from collections.abc import Callable, Iterator

from ._errors import HistoryError

#: How the store says what it did to a file (fixed its permissions): one line.
Warn = Callable[[str], None]

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "connect", "migrate", "translate", "transaction"]

#: The current time in the store's form (``_model.now``), in SQL.
_NOW = "(strftime('%Y-%m-%dT%H:%M:%f', 'now') || '+00:00')"

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
    # 4: imported times are bounded now (see ``_model.import_time``); one imported
    # earlier with a time in the future is brought back to the time of this
    # migration, so it no longer sorts as the newest and ``prune`` can reach it.
    # One time for every statement: SQLite reads its clock once per statement.
    (
        f"CREATE TEMP TABLE migration_time AS SELECT {_NOW} AS now",
        *(
            f"UPDATE {table} SET {column} = (SELECT now FROM migration_time) "
            f"WHERE {column} > (SELECT now FROM migration_time) AND {owner} IN "
            "(SELECT id FROM sessions WHERE origin = 'imported')"
            for table, column, owner in (
                ("sessions", "started_at", "id"),
                ("sessions", "ended_at", "id"),
                ("turns", "started_at", "session_id"),
                ("turns", "ended_at", "session_id"),
                ("permissions", "at", "session_id"),
            )
        ),
        "DROP TABLE temp.migration_time",
    ),
    # 5: a turn's message and thought text is stored once, in parts written while the
    # turn streams (a long turn is never held whole in memory): ``turn_text`` holds
    # the text of event ``event`` of the turn's ``events`` in order of ``part``, and
    # ``text_joined`` says that the turn's text is its text events joined (its own
    # ``text`` column is then empty). Turns written before keep their text inline.
    (
        """CREATE TABLE turn_text (
            session_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            event INTEGER NOT NULL,
            part INTEGER NOT NULL,
            kind TEXT NOT NULL,
            text TEXT NOT NULL,
            PRIMARY KEY (session_id, seq, event, part),
            FOREIGN KEY (session_id, seq) REFERENCES turns (session_id, seq) ON DELETE CASCADE
        )""",
        "ALTER TABLE turns ADD COLUMN text_joined INTEGER NOT NULL DEFAULT 0",
    ),
    # 6: the system prompt the host gave the session (``session/new``, ``load``,
    # ``resume``), redacted as every recorded text; NULL: none.
    ("ALTER TABLE sessions ADD COLUMN system_prompt TEXT",),
    # 7: the OS sandbox the agent ran in (``{"mechanism", "abi", "write", "deny"}``, or
    # ``{"mechanism": "none", "reason"}`` when it ran unconfined), as JSON; NULL: not said.
    ("ALTER TABLE sessions ADD COLUMN sandbox TEXT",),
    # 8: the ACP protocol version the session's connection agreed on (``initialize``'s
    # ``protocolVersion``: 1 or 2); NULL: not said (recorded before, or imported without it).
    ("ALTER TABLE sessions ADD COLUMN protocol INTEGER",),
    # 9: conversations. ``conversation`` is the id of the conversation a session belongs
    # to: the history id of its first session (a ``--continue``/``--resume`` chain, a
    # named session, a TUI tab); ``name``: the named session (``acphost -s NAME``) it
    # ran as, NULL for none. Every session recorded before is a conversation of its own.
    (
        "ALTER TABLE sessions ADD COLUMN conversation TEXT",
        "ALTER TABLE sessions ADD COLUMN name TEXT",
        "UPDATE sessions SET conversation = id",
        "CREATE INDEX sessions_by_conversation ON sessions (conversation, started_at)",
        "CREATE INDEX sessions_by_name ON sessions (agent, cwd, name) WHERE name IS NOT NULL",
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


def _warn_stderr(message: str) -> None:
    print(f"acphost: warning: {message}", file=sys.stderr, flush=True)


#: Opening a store file never follows a link, never blocks on a FIFO, never leaks.
_OPEN = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC

#: The files SQLite keeps beside the database (its write-ahead log, its shared
#: memory index, a rollback journal): each holds the history's text as well.
_COMPANIONS = ("-wal", "-shm", "-journal")


def _check(path: str, *, create: bool) -> os.stat_result | None:
    """Open one store file without following a link, check it, and close it again.

    Closed before SQLite opens the store: a process that closes any descriptor
    of a file drops every POSIX lock it holds on it, SQLite's included
    (sqlite.org/howtocorrupt.html, section 2.2).

    Returns:
        Its status, or None: ``create`` is false and there is no such file.

    Raises:
        HistoryError: a symbolic link, not a regular file, or another user's.

    """
    try:
        fd = os.open(path, _OPEN | (os.O_CREAT if create else 0), 0o600)
    except FileNotFoundError:
        if create:
            raise
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise HistoryError(
                f"the history store {path} is a symbolic link, which acphost does not follow: "
                "remove it, or point ACPHOST_HISTORY at the real file"
            ) from None
        raise
    try:
        st = os.fstat(fd)
    finally:
        os.close(fd)
    if not stat.S_ISREG(st.st_mode):
        raise HistoryError(
            f"the history store {path} is not a regular file: move it away, or point "
            "ACPHOST_HISTORY elsewhere"
        )
    if st.st_uid != os.geteuid():
        raise HistoryError(
            f"the history store {path} belongs to another user (uid {st.st_uid}): "
            "point ACPHOST_HISTORY at a file of your own"
        )
    return st


def _prepare(path: str) -> os.stat_result:
    """Create the store's directory and file owner-only, and check the files that exist.

    Returns:
        The database file's status, to compare once SQLite has opened it
        (see :func:`_same_file`).

    """
    directory = os.path.dirname(path)
    if directory and not os.path.isdir(directory):
        os.makedirs(directory, mode=0o700, exist_ok=True)
    for suffix in _COMPANIONS:
        _check(path + suffix, create=False)
    st = _check(path, create=True)
    assert st is not None  # created: never None
    return st


def _same_file(path: str, checked: os.stat_result) -> None:
    """Check that the path SQLite opened is still the regular file we checked (no swap)."""
    st = os.lstat(path)
    if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (checked.st_dev, checked.st_ino):
        raise HistoryError(
            f"the history store {path} was replaced while it was opened: check who else "
            "writes to its directory, or point ACPHOST_HISTORY elsewhere"
        )


def _tighten(path: str, warn: Warn) -> None:
    """Make the store's files owner-only where others could read them, saying so once.

    By path, never by a descriptor of our own (see :func:`_check`); each is
    looked at without following links first. SQLite gives a new ``-wal`` or
    ``-shm`` the database's mode, so a loose store has loose companions too.
    """
    fixed: list[tuple[str, int]] = []
    for suffix in ("", *_COMPANIONS):
        try:
            st = os.lstat(path + suffix)
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(st.st_mode):
            raise HistoryError(
                f"the history store {path + suffix} is not a regular file (a symbolic link?): "
                "remove it, or point ACPHOST_HISTORY elsewhere"
            )
        old = stat.S_IMODE(st.st_mode)
        if old & 0o077:
            os.chmod(path + suffix, old & 0o700)
            fixed.append((suffix or "the database", old))
    if fixed:
        files = ", ".join(f"{name} {mode:04o}" for name, mode in fixed)
        warn(
            f"the history store {path} was open to other users ({files}); "
            "it is owner-only (0600) now"
        )


def connect(path: str, *, timeout: float, warn: Warn | None = None) -> sqlite3.Connection:
    """Open (creating it if needed) and migrate the store at ``path``.

    The file is opened as itself: a symbolic link (even a dangling one, which
    SQLite would create its target through) is refused, and so are its
    ``-wal``/``-shm``/``-journal`` companions when they are links. A store
    that others can read is made owner-only, with a warning, once it proved
    to be a store (a file that is not one is left as it was).

    Args:
        path: the database file.
        timeout: seconds a write waits for another process's transaction.
        warn: how to say that a file's permissions were fixed (default:
            one line on stderr).

    Returns:
        A connection in autocommit mode (transactions are explicit), WAL mode,
        foreign keys on, at :data:`SCHEMA_VERSION`.

    Raises:
        HistoryError: the file cannot be created or opened, is a link, not a
            regular file, another user's, not a database, locked, or was
            written by a newer acphost.

    """
    try:
        checked = _prepare(path)
        conn = sqlite3.connect(path, timeout=timeout, isolation_level=None)
    except (OSError, sqlite3.Error, HistoryError) as exc:
        raise translate(exc, path) from exc
    try:
        conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        _same_file(path, checked)
        migrate(conn, path=path)
        _tighten(path, warn if warn is not None else _warn_stderr)
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
