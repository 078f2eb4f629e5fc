"""The session store: functions over the history database, no SQL outside this package.

Open it with :meth:`HistoryStore.open` (the path defaults to
:func:`~acphost.history.default_path`). Every method runs one short
transaction and raises :class:`~acphost.history.HistoryError` with a message
that says what to do when the store cannot be used.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

from ._config import default_path
from ._conversations import ConversationReads
from ._db import connect, transaction
from ._errors import HistoryError, HistoryIdError, SessionRemovedError
from ._model import SessionRecord, TurnRecord, Usage, fit_amount, fit_count, protocol_record
from ._reads import RUN_BREAK, TURN_COLUMNS

__all__ = ["DEFAULT_TIMEOUT", "HistoryStore"]

#: Seconds a write waits for another process's transaction before giving up.
DEFAULT_TIMEOUT = 5.0

#: KiB of pages a recording's connection caches (see :meth:`HistoryStore.for_recording`).
RECORDING_CACHE_KIB = 256

_TURN_PLACEHOLDERS = ", ".join("?" * (TURN_COLUMNS.count(",") + 1))
# The columns a begun turn's row is updated with: all but ``seq``.
_TURN_SETS = TURN_COLUMNS.split(", ", 1)[1]


def _add_part(
    conn: sqlite3.Connection, session_id: str, seq: int, event: int, *, kind: str, text: str
) -> None:
    """Append one part to the text of a turn's event (after the parts it has)."""
    conn.execute(
        "INSERT INTO turn_text (session_id, seq, event, part, kind, text) VALUES (?, ?, ?, "
        "(SELECT coalesce(max(part) + 1, 0) FROM turn_text WHERE session_id = ? AND seq = ? "
        "AND event = ?), ?, ?)",
        (session_id, seq, event, session_id, seq, event, kind, text),
    )


def _usage_values(usage: Usage) -> tuple[Any, ...]:
    return (
        fit_count(usage.input),
        fit_count(usage.output),
        fit_count(usage.thought),
        fit_count(usage.cached_read),
        fit_count(usage.cached_write),
        fit_count(usage.total),
        fit_count(usage.context_used),
        fit_count(usage.context_size),
        fit_amount(usage.cost_amount),
        usage.cost_currency if isinstance(usage.cost_currency, str) else None,
    )


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _require(conn: sqlite3.Connection, session_id: str) -> None:
    """Raise :class:`SessionRemovedError` unless the session is (still) in the store.

    A run records into its session for as long as it runs; ``history delete``
    or ``prune`` in another process may remove it meanwhile. Without this
    check the turn's insert fails its foreign key, which says nothing useful.
    """
    if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
        raise SessionRemovedError(session_id)


def _fold(text: str | None) -> str:
    return (text or "").casefold()


class HistoryStore(ConversationReads):
    """The history database of one user; see the module docstring.

    Use :meth:`open`; close it with :meth:`close` (or ``with``).

    Attributes:
        path: the database file.

    """

    def __init__(self, conn: sqlite3.Connection, path: str) -> None:
        self._conn = conn
        self.path = path
        conn.create_function("fold", 1, _fold, deterministic=True)

    @classmethod
    def open(
        cls,
        path: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        warn: Callable[[str], None] | None = None,
    ) -> HistoryStore:
        """Open the store, creating and migrating it as needed.

        The file is never opened through a symbolic link, and one that others
        can read is made owner-only (see :func:`acphost.history._db.connect`).

        Args:
            path: the database file (default: :func:`default_path`).
            timeout: seconds a write waits for another writer.
            warn: how to say that the file's permissions were fixed
                (default: one line on stderr).

        Returns:
            The open store.

        Raises:
            HistoryError: it cannot be created, opened or migrated (damaged,
                locked, not writable, newer than this acphost, a symbolic link).

        """
        path = default_path() if path is None else os.path.abspath(path)
        return cls(connect(path, timeout=timeout, warn=warn), path)

    def for_recording(self) -> HistoryStore:
        """Make the store's page cache small: a recorder writes and never reads back.

        SQLite keeps up to 2 MiB of pages by default; the text of a long turn
        written in parts would fill it, and a run's memory would grow by it.

        Returns:
            The store itself.

        """
        with self._guard() as conn:
            conn.execute(f"PRAGMA cache_size = -{RECORDING_CACHE_KIB}")
        return self

    def close(self) -> None:
        """Close the connection. Idempotent."""
        self._conn.close()

    def __enter__(self) -> HistoryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._guard() as conn, transaction(conn):
            yield conn

    # -- writing ---------------------------------------------------------------------------

    def add_session(
        self, record: SessionRecord, *, conversation: str | None = None, name: str | None = None
    ) -> bool:
        """Add a session and its turns in one transaction.

        Args:
            record: the session (already redacted).
            conversation: the conversation it belongs to (default: one of its
                own, whose id is the session's; see :meth:`find_conversation`).
            name: the named session it ran as, if any.

        Returns:
            False when a session with this id is already there (nothing changes).

        Raises:
            HistoryError: the store cannot be written.

        """
        with self.adding_session(record, conversation=conversation, name=name) as add:
            if add is None:
                return False
            for turn in record.turns:
                add(turn)
        return True

    @contextlib.contextmanager
    def adding_session(
        self, record: SessionRecord, *, conversation: str | None = None, name: str | None = None
    ) -> Iterator[Callable[[TurnRecord], None] | None]:
        """Add a session, then its turns one at a time, in one transaction.

        An import reads a file a turn at a time: its turns are never all in
        memory. The session's own ``turns`` are not written here.

        Args:
            record: the session (already redacted).
            conversation: the conversation it belongs to (default: its own).
            name: the named session it ran as, if any.

        Yields:
            A function that adds one turn (in order), or None when a session
            with this id is already there (nothing is written).

        Raises:
            HistoryError: the store cannot be written (the session is not added).

        """
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (record.id,)).fetchone():
                yield None
                return
            conn.execute(
                "INSERT INTO sessions (id, agent, command, cwd, agent_session_id, title, "
                "started_at, ended_at, origin, context_used, context_size, cost_amount, "
                "cost_currency, system_prompt, sandbox, protocol, conversation, name) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    record.id,
                    record.agent,
                    _dump(list(record.command)),
                    record.cwd,
                    record.agent_session_id,
                    record.title,
                    record.started_at,
                    record.ended_at,
                    record.origin,
                    *_usage_values(record.usage)[6:],
                    record.system_prompt,
                    None if record.sandbox is None else _dump(record.sandbox),
                    protocol_record(record.protocol),
                    conversation or record.id,
                    name,
                ),
            )
            yield lambda turn: self._insert_turn(conn, record.id, turn)

    def begin_turn(self, session_id: str, turn: TurnRecord) -> None:
        """Record that a turn started (``complete`` false until :meth:`save_turn`).

        A host that dies during the turn leaves it in the store marked incomplete.

        Raises:
            SessionRemovedError: the session is no longer in the store.
            HistoryError: the store cannot be written.

        """
        with self._write() as conn:
            _require(conn, session_id)
            self._insert_turn(conn, session_id, turn)

    def save_turn(
        self,
        session_id: str,
        turn: TurnRecord,
        *,
        title: str | None = None,
        session_usage: Usage | None = None,
        reported_cost: tuple[float, str] | None = None,
        text_joined: bool = False,
    ) -> None:
        """Write a whole turn, replacing its started row, in one transaction.

        The text parts :meth:`add_text` wrote for the turn are kept: each text
        event's ``text`` is appended to them.

        Args:
            session_id: the history id of the session.
            turn: the finished turn (already redacted).
            text_joined: the turn's text is its text events joined (whose
                first parts may be in the store already); ``turn.text`` is
                not stored then.
            title: the session's title now, if known.
            session_usage: the session's context window now, and what this
                run of it cost (its turns' sum).
            reported_cost: the agent's last cumulative cost of its session
                (amount, currency), the start of a later run's count.

        Raises:
            SessionRemovedError: the session is no longer in the store.
            HistoryError: the store cannot be written.

        """
        with self._write() as conn:
            _require(conn, session_id)
            self._write_turn(conn, session_id, turn, replace=True, joined=text_joined)
            self._update_session(
                conn, session_id, title, session_usage, None, reported=reported_cost
            )

    def add_text(self, session_id: str, seq: int, event: int, kind: str, text: str) -> None:
        """Append a part to the text of a begun turn's message or thought event.

        A long turn's text is written in parts while it streams; :meth:`save_turn`
        appends each text event's last part (its ``text``) after them.

        Args:
            session_id: the history id of the session.
            seq: the turn (begun with :meth:`begin_turn`).
            event: the index of the text event in the turn's ``events``.
            kind: ``text`` or ``thought``.
            text: the part (already redacted).

        Raises:
            SessionRemovedError: the session is no longer in the store.
            HistoryError: the store cannot be written.

        """
        with self._write() as conn:
            _require(conn, session_id)
            _add_part(conn, session_id, seq, event, kind=kind, text=text)

    def update_subagent(
        self, session_id: str, seq: int, index: int, fields: dict[str, Any], text: str
    ) -> bool:
        """Update a subagent's event of a written turn: its fields now, more of its text.

        A child may go on after its turn was written (see
        ``acphost.history._children``): its event is updated when it goes
        idle, and when the recording ends.

        Args:
            session_id: the history id of the session.
            seq: the turn the child belongs to.
            index: the child's event in the turn's events.
            fields: the event's new fields but ``text`` (already redacted);
                its ``id`` must be the stored event's.
            text: text to append to the event's (already redacted; a
                paragraph apart from what it has, each part redacted on its own).

        Returns:
            False when the turn has no such event (nothing changes).

        Raises:
            SessionRemovedError: the session is no longer in the store.
            HistoryError: the store cannot be written.

        """
        with self._write() as conn:
            _require(conn, session_id)
            row = conn.execute(
                "SELECT events FROM turns WHERE session_id = ? AND seq = ?", (session_id, seq)
            ).fetchone()
            events = json.loads(row[0]) if row is not None else []
            old = events[index] if 0 <= index < len(events) else None
            if (
                not isinstance(old, dict)
                or old.get("kind") != "subagent"
                or old.get("id") != fields.get("id")
            ):
                return False
            before = old.get("text") if isinstance(old.get("text"), str) else ""
            joined = before + RUN_BREAK + text if before and text else before or text
            events[index] = {**fields, "text": joined}
            conn.execute(
                "UPDATE turns SET events = ? WHERE session_id = ? AND seq = ?",
                (_dump(events), session_id, seq),
            )
        return True

    def end_session(
        self,
        session_id: str,
        *,
        ended_at: str,
        title: str | None = None,
        session_usage: Usage | None = None,
        reported_cost: tuple[float, str] | None = None,
    ) -> None:
        """Record the end of a session (and its last title, usage and reported cost).

        Raises:
            SessionRemovedError: the session is no longer in the store.
            HistoryError: the store cannot be written.

        """
        with self._write() as conn:
            _require(conn, session_id)
            self._update_session(
                conn, session_id, title, session_usage, ended_at, reported=reported_cost
            )

    @staticmethod
    def _update_session(
        conn: sqlite3.Connection,
        session_id: str,
        title: str | None,
        usage: Usage | None,
        ended_at: str | None,
        *,
        reported: tuple[float, str] | None,
    ) -> None:
        u = usage or Usage()
        amount, currency = reported if reported is not None else (None, None)
        amount = fit_amount(amount)
        currency = currency if amount is not None and isinstance(currency, str) else None
        conn.execute(
            "UPDATE sessions SET title = coalesce(?, title), ended_at = coalesce(?, ended_at), "
            "context_used = coalesce(?, context_used), context_size = coalesce(?, context_size), "
            "cost_amount = coalesce(?, cost_amount), cost_currency = coalesce(?, cost_currency), "
            "reported_cost_amount = coalesce(?, reported_cost_amount), "
            "reported_cost_currency = coalesce(?, reported_cost_currency) "
            "WHERE id = ?",
            (title, ended_at, *_usage_values(u)[6:], amount, currency, session_id),
        )

    @classmethod
    def _insert_turn(cls, conn: sqlite3.Connection, session_id: str, turn: TurnRecord) -> None:
        texts = "".join(e.get("text", "") for e in turn.events if e.get("kind") == "text")
        cls._write_turn(conn, session_id, turn, replace=False, joined=texts == turn.text)

    @staticmethod
    def _write_turn(
        conn: sqlite3.Connection, session_id: str, turn: TurnRecord, *, replace: bool, joined: bool
    ) -> None:
        """Write a turn's row, its text parts, tool calls and decisions.

        Text and thought events keep their text in ``turn_text``, not in the
        events' JSON; with ``joined`` the turn's own text is not stored either
        (the reader joins its text events). ``replace`` updates the begun
        turn's row in place: deleting it would delete the parts written so far.
        """
        events = []
        parts = []
        for index, event in enumerate(turn.events):
            kind = event.get("kind")
            if kind in ("text", "thought") and isinstance(event.get("text"), str):
                events.append({k: v for k, v in event.items() if k != "text"})
                if event["text"]:
                    parts.append((index, kind, event["text"]))
            else:
                events.append(event)
        values = (
            turn.started_at,
            turn.prompt,
            turn.ended_at,
            _dump(list(turn.prompt_blocks)),
            "" if joined else turn.text,
            _dump(events),
            turn.stop_reason,
            turn.host_stop,
            turn.error,
            int(turn.complete),
            *_usage_values(turn.usage),
            int(joined),
        )
        updated = replace and (
            conn.execute(
                f"UPDATE turns SET ({_TURN_SETS}) = ({_TURN_PLACEHOLDERS[3:]}) "
                "WHERE session_id = ? AND seq = ?",
                (*values, session_id, turn.seq),
            ).rowcount
            > 0
        )
        if updated:
            for table in ("tool_calls", "permissions"):
                conn.execute(
                    f"DELETE FROM {table} WHERE session_id = ? AND seq = ?", (session_id, turn.seq)
                )
        else:
            conn.execute(
                f"INSERT INTO turns (session_id, {TURN_COLUMNS}) VALUES (?, {_TURN_PLACEHOLDERS})",
                (session_id, turn.seq, *values),
            )
        for index, kind, text in parts:
            _add_part(conn, session_id, turn.seq, index, kind=kind, text=text)
        conn.executemany(
            "INSERT INTO tool_calls (session_id, seq, position, tool_call_id, title, kind, name, "
            "status, locations, diffs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    session_id,
                    turn.seq,
                    i,
                    c.tool_call_id,
                    c.title,
                    c.kind,
                    c.name,
                    c.status,
                    _dump(list(c.locations)),
                    _dump(list(c.diffs)),
                )
                for i, c in enumerate(turn.tool_calls)
            ],
        )
        conn.executemany(
            "INSERT INTO permissions (session_id, seq, position, tool_call_id, title, decision, "
            "option_kind, option_id, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    session_id,
                    turn.seq,
                    i,
                    p.tool_call_id,
                    p.title,
                    p.decision,
                    p.option_kind,
                    p.option_id,
                    p.at,
                )
                for i, p in enumerate(turn.permissions)
            ],
        )

    def delete_session(self, session_id: str) -> None:
        """Delete a session and everything it holds.

        Raises:
            HistoryIdError: no session has this id.
            HistoryError: the store cannot be written.

        """
        with self._write() as conn:
            if conn.execute("DELETE FROM sessions WHERE id = ?", (session_id,)).rowcount == 0:
                raise HistoryIdError(f"no session {session_id} in the history")

    def delete_conversation(self, conversation_id: str) -> int:
        """Delete a conversation: every session of it and everything they hold.

        Returns:
            How many sessions were deleted.

        Raises:
            HistoryIdError: no session belongs to it.
            HistoryError: the store cannot be written.

        """
        with self._write() as conn:
            count = conn.execute(
                "DELETE FROM sessions WHERE conversation = ?", (conversation_id,)
            ).rowcount
        if count == 0:
            raise HistoryIdError(f"no conversation {conversation_id} in the history")
        return int(count)

    def prune(self, before: str) -> int:
        """Delete the sessions started before a time, then give the space back.

        When another process is using the store, the file cannot shrink now;
        the deleted sessions are gone all the same and their space is reused.

        Args:
            before: an ISO 8601 UTC time in the store's form.

        Returns:
            How many sessions were deleted.

        Raises:
            HistoryError: the store cannot be written (nothing was deleted).

        """
        with self._write() as conn:
            count = conn.execute("DELETE FROM sessions WHERE started_at < ?", (before,)).rowcount
        if count:
            # The deletion is committed; a busy store shrinks at the next prune.
            with contextlib.suppress(HistoryError):
                self.compact()
        return int(count)

    def compact(self) -> None:
        """Give freed pages back to the file system (``VACUUM``, WAL truncated).

        Raises:
            HistoryError: the store is busy or cannot be written.

        """
        with self._guard() as conn:
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
