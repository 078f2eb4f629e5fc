"""Reading the history database: the queries behind list, show, resolve and usage.

:class:`HistoryStore` inherits them; no SQL leaves this package.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ._db import SCHEMA_VERSION, translate
from ._errors import HistoryIdError
from ._model import (
    MAX_AMOUNT,
    PermissionRecord,
    SessionRecord,
    SessionSummary,
    ToolCallRecord,
    TurnRecord,
    Usage,
    fit_amount,
    protocol_record,
    sandbox_record,
)

__all__ = ["StoreInfo", "StoreReads"]

USAGE_COLUMNS = (
    "input_tokens",
    "output_tokens",
    "thought_tokens",
    "cached_read_tokens",
    "cached_write_tokens",
    "total_tokens",
    "context_used",
    "context_size",
    "cost_amount",
    "cost_currency",
)
TURN_COLUMNS = (
    "seq, started_at, prompt, ended_at, prompt_blocks, text, events, stop_reason, host_stop, "
    "error, complete, " + ", ".join(USAGE_COLUMNS) + ", text_joined"
)


@dataclass(frozen=True, slots=True)
class StoreInfo:
    """What ``acphost history info`` shows.

    Attributes:
        path: the database file.
        size: bytes on disk, ``-wal`` and ``-shm`` files included.
        sessions: how many sessions it holds.
        turns: how many turns.
        oldest: the start of the oldest session, if any.
        newest: the start of the newest session, if any.
        version: the schema version.

    """

    path: str
    size: int
    sessions: int
    turns: int
    oldest: str | None
    newest: str | None
    version: int

    def to_json(self) -> dict[str, Any]:
        """The facts as JSON (``exists`` is true: the store was opened)."""
        return {**dataclasses.asdict(self), "exists": True}


def _events_of(
    seq: int,
    raw: str,
    parts: dict[tuple[int, int], list[str]],
    kinds: dict[tuple[int, int], str],
) -> tuple[dict[str, Any], ...]:
    """A turn's events with their text put back from its parts (``turn_text``).

    Parts of events the JSON does not list are those of a turn cut short
    (its events are written at its end): they are shown as text events after
    the others, so that what was written while the turn ran is not lost.
    """
    events: list[dict[str, Any]] = list(json.loads(raw))
    for index, event in enumerate(events):
        if event.get("kind") in ("text", "thought") and "text" not in event:
            events[index] = {**event, "text": "".join(parts.get((seq, index), ()))}
    for (turn, index), texts in parts.items():
        if turn == seq and index >= len(events):
            events.append({"kind": kinds[(turn, index)], "text": "".join(texts)})
    return tuple(events)


#: What separates two text events in a turn's text. Each event was redacted on
#: its own, so joined edge to edge the end of one and the start of the next
#: could form a secret neither holds (``token is Super`` + ``SecretValue``)
#: and show it in clear; they are separate messages (a thought, a tool call
#: or an image came between), and a paragraph break is what parts them.
RUN_BREAK = "\n\n"


def _turn_text(text: str, events: Sequence[dict[str, Any]], joined: bool) -> str:
    """A turn's text: its own column, or (stored once) its text events, a paragraph apart."""
    if not joined:
        return text
    return RUN_BREAK.join(e["text"] for e in events if e.get("kind") == "text" and e.get("text"))


def _usage_of(row: Sequence[Any]) -> Usage:
    # A store written before costs were bounded may hold any float: what is
    # past the bound reads as unknown, as it would be written now.
    return Usage(
        input=row[0],
        output=row[1],
        thought=row[2],
        cached_read=row[3],
        cached_write=row[4],
        total=row[5],
        context_used=row[6],
        context_size=row[7],
        cost_amount=fit_amount(row[8]),
        cost_currency=row[9],
    )


def _summary(row: Sequence[Any]) -> SessionSummary:
    return SessionSummary(
        id=row[0],
        agent=row[1],
        cwd=row[2],
        title=row[3],
        started_at=row[4],
        ended_at=row[5],
        agent_session_id=row[6],
        turns=row[7],
        first_prompt=row[8],
        total_tokens=row[9],
        cost_amount=fit_amount(row[10]),  # bounded, as _usage_of
        cost_currency=row[11],
        incomplete=row[12],
        origin=row[13],
    )


class StoreReads:
    """The read side of :class:`~acphost.history.HistoryStore`."""

    _conn: sqlite3.Connection
    path: str

    @contextlib.contextmanager
    def _guard(self) -> Iterator[sqlite3.Connection]:
        try:
            yield self._conn
        except (sqlite3.Error, OSError) as exc:
            raise translate(exc, self.path) from exc

    def resolve_id(self, prefix: str) -> str:
        """The full id of the session a prefix names, like git's abbreviated ids.

        A whole history id names its session first; an agent session id this
        machine recorded comes next, then prefixes of history ids, and an
        imported session's agent session id last (an import may claim any id).

        Args:
            prefix: the start of a history id (any case), or an agent session id.

        Returns:
            The full history id.

        Raises:
            HistoryIdError: nothing matches, or several do (``candidates`` lists them).
            HistoryError: the store cannot be read.

        """
        wanted = prefix.strip().lower()
        given = prefix.strip()
        hexadecimal = bool(wanted) and all(c in "0123456789abcdef" for c in wanted)
        with self._guard() as conn:
            # In this order, so that an imported session (whose ids are whatever
            # its file said) never takes a name that reaches the user's own:
            # a whole history id, an agent session id this machine recorded, a
            # prefix of history ids, and only then an imported agent session id.
            rows = conn.execute(
                "SELECT id, origin FROM sessions WHERE id = ?", (wanted,)
            ).fetchall()
            if not rows:
                rows = conn.execute(
                    "SELECT id, origin FROM sessions WHERE agent_session_id = ? "
                    "AND origin = 'recorded' ORDER BY started_at DESC LIMIT 1",
                    (given,),
                ).fetchall()
            if not rows and hexadecimal:
                rows = conn.execute(
                    "SELECT id, origin FROM sessions WHERE substr(id, 1, ?) = ? "
                    "ORDER BY started_at DESC",
                    (len(wanted), wanted),
                ).fetchall()
            if not rows:
                rows = conn.execute(
                    "SELECT id, origin FROM sessions WHERE agent_session_id = ? "
                    "ORDER BY started_at DESC LIMIT 1",
                    (given,),
                ).fetchall()
        ids = [str(r[0]) for r in rows]
        if not ids:
            raise HistoryIdError(f"no session in the history matches {prefix!r}")
        if len(ids) > 1:
            # Whole ids: an imported one may share any number of first characters.
            shown = ", ".join(
                str(r[0]) + (" (imported)" if r[1] == "imported" else "") for r in rows[:10]
            )
            more = f" and {len(ids) - 10} more" if len(ids) > 10 else ""
            raise HistoryIdError(
                f"{prefix!r} is ambiguous: {len(ids)} sessions match ({shown}{more}); "
                "give more characters",
                ids,
            )
        return ids[0]

    def get(self, session_id: str) -> SessionRecord:
        """The whole session: its fields, turns, tool calls and decisions.

        Raises:
            HistoryIdError: no session has this id.
            HistoryError: the store cannot be read.

        """
        with self._guard() as conn:
            row = conn.execute(
                "SELECT id, agent, command, cwd, started_at, agent_session_id, title, ended_at, "
                "origin, context_used, context_size, cost_amount, cost_currency, system_prompt, "
                "sandbox, protocol FROM sessions WHERE id = ?",
                (session_id,),
            ).fetchone()
            if row is None:
                raise HistoryIdError(f"no session {session_id} in the history")
            calls: dict[int, list[ToolCallRecord]] = {}
            for c in conn.execute(
                "SELECT seq, tool_call_id, title, kind, name, status, locations, diffs "
                "FROM tool_calls WHERE session_id = ? ORDER BY seq, position",
                (session_id,),
            ):
                calls.setdefault(c[0], []).append(
                    ToolCallRecord(
                        c[1],
                        c[2],
                        c[3],
                        c[4],
                        c[5],
                        tuple(json.loads(c[6])),
                        tuple(json.loads(c[7])),
                    )
                )
            decisions: dict[int, list[PermissionRecord]] = {}
            for p in conn.execute(
                "SELECT seq, tool_call_id, title, decision, option_kind, option_id, at "
                "FROM permissions WHERE session_id = ? ORDER BY seq, position",
                (session_id,),
            ):
                decisions.setdefault(p[0], []).append(PermissionRecord(*p[1:]))
            parts: dict[tuple[int, int], list[str]] = {}
            kinds: dict[tuple[int, int], str] = {}
            for x in conn.execute(
                "SELECT seq, event, kind, text FROM turn_text WHERE session_id = ? "
                "ORDER BY seq, event, part",
                (session_id,),
            ):
                parts.setdefault((x[0], x[1]), []).append(x[3])
                kinds[(x[0], x[1])] = x[2]
            turns = [
                TurnRecord(
                    seq=t[0],
                    started_at=t[1],
                    prompt=t[2],
                    ended_at=t[3],
                    prompt_blocks=tuple(json.loads(t[4])),
                    text=_turn_text(t[5], events, bool(t[21])),
                    events=events,
                    stop_reason=t[7],
                    host_stop=t[8],
                    error=t[9],
                    complete=bool(t[10]),
                    tool_calls=tuple(calls.get(t[0], ())),
                    permissions=tuple(decisions.get(t[0], ())),
                    usage=_usage_of(t[11:21]),
                )
                for t in conn.execute(
                    f"SELECT {TURN_COLUMNS} FROM turns WHERE session_id = ? ORDER BY seq",
                    (session_id,),
                )
                for events in (_events_of(t[0], t[6], parts, kinds),)
            ]
        return SessionRecord(
            id=row[0],
            agent=row[1],
            command=tuple(json.loads(row[2])),
            cwd=row[3],
            started_at=row[4],
            agent_session_id=row[5],
            title=row[6],
            ended_at=row[7],
            origin=row[8],
            usage=_usage_of((None,) * 6 + tuple(row[9:13])),
            turns=tuple(turns),
            system_prompt=row[13],
            sandbox=_sandbox_of(row[14]),
            protocol=protocol_record(row[15]),
        )

    def list_sessions(
        self,
        *,
        agent: str | None = None,
        cwd: str | None = None,
        grep: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int | None = None,
    ) -> list[SessionSummary]:
        """The sessions, newest first, filtered.

        Args:
            agent: only this agent's.
            cwd: only those in this directory or below it.
            grep: only those whose title, prompts or answers contain this text
                (case-insensitive).
            since: only those started at or after this ISO 8601 UTC time.
            until: only those started before this time.
            limit: at most this many.

        Raises:
            HistoryError: the store cannot be read.

        """
        where, params = filters_sql("s", agent=agent, cwd=cwd, since=since, until=until)
        if grep:
            where.append(GREP_CLAUSE)
            params += [grep.casefold()] * 4
        sql = (
            "SELECT s.id, s.agent, s.cwd, s.title, s.started_at, s.ended_at, s.agent_session_id, "
            "(SELECT count(*) FROM turns t WHERE t.session_id = s.id), "
            "coalesce((SELECT prompt FROM turns t WHERE t.session_id = s.id "
            "ORDER BY seq LIMIT 1), ''), "
            f"(SELECT {sum_sql('total_tokens')} FROM turns t WHERE t.session_id = s.id), "
            "s.cost_amount, s.cost_currency, "
            "(SELECT count(*) FROM turns t WHERE t.session_id = s.id AND NOT t.complete), "
            "s.origin "
            f"FROM sessions s {'WHERE ' + ' AND '.join(where) if where else ''} "
            "ORDER BY s.started_at DESC, s.id"
        )
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        with self._guard() as conn:
            return [_summary(row) for row in conn.execute(sql, params)]

    def latest_session(self, agent: str, cwd: str) -> SessionSummary | None:
        """The newest session this machine recorded of this agent in exactly this directory.

        This is what ``--continue`` resumes: it has an agent session id. An
        imported session is never taken: its agent, directory, dates and agent
        session id are whatever the file said (``--resume ID`` names one explicitly).

        Raises:
            HistoryError: the store cannot be read.

        """
        with self._guard() as conn:
            row = conn.execute(
                "SELECT id FROM sessions WHERE agent = ? AND cwd = ? AND "
                "agent_session_id IS NOT NULL AND origin = 'recorded' "
                "ORDER BY started_at DESC LIMIT 1",
                (agent, cwd),
            ).fetchone()
        if row is None:
            return None
        found = [s for s in self.list_sessions(agent=agent, cwd=cwd) if s.id == row[0]]
        return found[0] if found else None

    def reported_cost(self, agent: str, agent_session_id: str) -> tuple[float, str] | None:
        """The cumulative cost the agent last reported for its session, as recorded.

        What a run on that agent session recorded last (newest first); it
        is where a later run's turn starts counting its cost (see
        :meth:`acphost.client.Session.set_recorded_cost`).

        Returns:
            ``(amount, currency)``, or None when no run recorded one.

        Raises:
            HistoryError: the store cannot be read.

        """
        with self._guard() as conn:
            row = conn.execute(
                "SELECT reported_cost_amount, reported_cost_currency FROM sessions "
                "WHERE agent = ? AND agent_session_id = ? AND reported_cost_amount IS NOT NULL "
                "AND reported_cost_currency IS NOT NULL ORDER BY started_at DESC LIMIT 1",
                (agent, agent_session_id),
            ).fetchone()
        amount = None if row is None else fit_amount(row[0])
        return None if amount is None else (amount, str(row[1]))

    def size(self) -> int:
        """Bytes the store takes on disk (database, ``-wal`` and ``-shm`` files)."""
        total = 0
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                total += os.stat(self.path + suffix).st_size
        return total

    def info(self) -> StoreInfo:
        """The store's path, size, counts and date range.

        Raises:
            HistoryError: the store cannot be read.

        """
        with self._guard() as conn:
            sessions, oldest, newest = conn.execute(
                "SELECT count(*), min(started_at), max(started_at) FROM sessions"
            ).fetchone()
            turns = conn.execute("SELECT count(*) FROM turns").fetchone()[0]
        return StoreInfo(self.path, self.size(), sessions, turns, oldest, newest, SCHEMA_VERSION)

    def usage_rows(
        self,
        by: str | None,
        *,
        agent: str | None = None,
        cwd: str | None = None,
        since: str | None = None,
        until: str | None = None,
    ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
        """The usage ledger grouped by ``agent``, ``day`` (local), ``cwd``, or not at all.

        Args:
            by: the grouping; ``None`` for one row of totals (key ``total``).
            agent: only this agent's sessions.
            cwd: only sessions in this directory or below.
            since: only turns started at or after this time.
            until: only turns started before this time.

        Returns:
            The counts, rows of (key, sessions, turns, input, output, thought,
            cached read, cached write, total tokens), sorted by key; and the
            costs, rows of (key, currency, amount).

        Raises:
            HistoryError: the store cannot be read.
            ValueError: ``by`` is not a grouping.

        """
        keys = {
            "agent": "s.agent",
            "cwd": "s.cwd",
            "day": "date(t.started_at, 'localtime')",
            None: "'total'",
        }
        key = keys.get(by)
        if key is None:
            raise ValueError(f"cannot group usage by {by!r}: use agent, day or cwd")
        where, params = filters_sql("s", agent=agent, cwd=cwd, since=None, until=None)
        if since is not None:
            where.append("t.started_at >= ?")
            params.append(since)
        if until is not None:
            where.append("t.started_at < ?")
            params.append(until)
        source = "FROM turns t JOIN sessions s ON s.id = t.session_id"
        condition = f"WHERE {' AND '.join(where)}" if where else ""
        counts = (
            f"SELECT {key} AS k, count(DISTINCT s.id), count(*), "
            + ", ".join(_split_sum(f"t.{kind}_tokens") for kind in _KINDS)
            + f" {source} {condition} GROUP BY k ORDER BY k"
        )
        costs = (
            f"SELECT {key} AS k, t.cost_currency, sum(t.cost_amount) {source} "
            f"{condition} {'AND' if where else 'WHERE'} t.cost_currency IS NOT NULL "
            # Each cost within the store's bound (an older store may hold
            # larger), so that no sum is infinite.
            f"AND t.cost_amount BETWEEN 0 AND {MAX_AMOUNT!r} GROUP BY k, t.cost_currency ORDER BY k"
        )
        with self._guard() as conn:
            return (
                [(*row[:3], *_joined(row[3:])) for row in conn.execute(counts, params)],
                [tuple(row) for row in conn.execute(costs, params)],
            )


#: SQL true when session ``s`` holds a text (four times as a parameter, case-folded):
#: in its title, a prompt, or an answer (inline or in parts). ``fold`` is the
#: store's case-folding function (see ``HistoryStore.__init__``).
GREP_CLAUSE = (
    "(instr(fold(s.title), ?) OR EXISTS (SELECT 1 FROM turns g WHERE "
    "g.session_id = s.id AND (instr(fold(g.prompt), ?) OR instr(fold(g.text), ?) "
    "OR EXISTS (SELECT 1 FROM turn_text x WHERE x.session_id = g.session_id AND "
    "x.seq = g.seq AND x.kind = 'text' AND instr(fold(x.text), ?)))))"
)

_KINDS = ("input", "output", "thought", "cached_read", "cached_write", "total")


def sum_sql(column: str) -> str:
    """SQL summing token counts without SQLite's ``integer overflow`` error (a listing's total).

    ``sum()`` of INTEGERs fails past 2**63; ``total()`` sums as a float and a
    CAST back saturates at the largest INTEGER. NULL when no row has a count.
    """
    return f"(CASE WHEN count({column}) THEN CAST(total({column}) AS INTEGER) END)"


def _split_sum(column: str) -> str:
    """Two exact SQL sums of a count column, its high and low 32 bits (see :func:`_joined`).

    Each stays far below 2**63 (under 2**31 rows), so the ledger sums any
    counts the store holds exactly, where ``sum()`` would fail past 2**63.
    """
    return f"sum({column} >> 32), sum({column} & 4294967295)"


def _joined(halves: Sequence[Any]) -> list[int | None]:
    """The sums of :func:`_split_sum` pairs, joined as Python integers (None: no count)."""
    return [
        None if high is None else (high << 32) + low
        for high, low in zip(halves[::2], halves[1::2], strict=True)
    ]


def filters_sql(
    alias: str,
    *,
    agent: str | None,
    cwd: str | None,
    since: str | None,
    until: str | None,
) -> tuple[list[str], list[Any]]:
    where: list[str] = []
    params: list[Any] = []
    if agent is not None:
        where.append(f"{alias}.agent = ?")
        params.append(agent)
    if cwd is not None:
        root = cwd.rstrip("/") or "/"
        under = root if root.endswith("/") else root + "/"
        where.append(f"({alias}.cwd = ? OR substr({alias}.cwd, 1, ?) = ?)")
        params += [root, len(under), under]
    if since is not None:
        where.append(f"{alias}.started_at >= ?")
        params.append(since)
    if until is not None:
        where.append(f"{alias}.started_at < ?")
        params.append(until)
    return where, params


def _sandbox_of(text: Any) -> dict[str, Any] | None:
    # The column is data on disk: anything but the JSON of a sandbox is "not said".
    if not isinstance(text, str):
        return None
    try:
        return sandbox_record(json.loads(text))
    except ValueError:
        return None
