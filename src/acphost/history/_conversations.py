"""Conversations: the sessions that go on from each other, read as one.

A conversation is what a user goes on with: a ``--continue``/``--resume``
chain, a named session (``acphost -s NAME``), a TUI tab. Each session row
says which conversation it belongs to (``sessions.conversation``: the history
id of the conversation's first session; migration 9), so a conversation is
the sessions sharing that column, in the order they started. A session
recorded before conversations existed, and every imported session, is a
conversation of its own.

:class:`ConversationReads` is the read side (``HistoryStore`` inherits it);
which conversation a new recording joins is decided by
:meth:`ConversationReads.find_conversation` (see ``HistoryRecorder.join``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._errors import HistoryIdError
from ._model import FORMAT, FORMAT_VERSION, MAX_AMOUNT, SessionRecord, fit_amount
from ._reads import GREP_CLAUSE, StoreReads, filters_sql, sum_sql

__all__ = ["ConversationReads", "ConversationRecord", "ConversationSummary"]


@dataclass(frozen=True, slots=True)
class ConversationRecord:
    """A whole conversation: its sessions, oldest first, each with its turns.

    Attributes:
        id: the conversation's id (the history id of its first session).
        sessions: its sessions in the order they started (at least one).
        name: the named session (``acphost -s NAME``) it is, if any.

    """

    id: str
    sessions: tuple[SessionRecord, ...]
    name: str | None = None

    @property
    def latest(self) -> SessionRecord:
        """Its newest session (the one a ``--continue`` goes on with)."""
        return self.sessions[-1]

    @property
    def title(self) -> str | None:
        """The newest title an agent gave one of its sessions, if any."""
        return next((s.title for s in reversed(self.sessions) if s.title), None)

    @property
    def turns(self) -> int:
        """How many turns its sessions hold together."""
        return sum(len(s.turns) for s in self.sessions)

    def to_json(self) -> dict[str, Any]:
        """The portable record: one session as ``{"session"}``, several as ``{"sessions"}``.

        A one-session conversation exports exactly as a session did; the
        ``conversation`` member follows ``sessions`` (an import reads the
        sessions and skips it; each imported session is a conversation of its own).
        """
        if len(self.sessions) == 1:
            return self.sessions[0].to_json()
        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "sessions": [s.to_json()["session"] for s in self.sessions],
            "conversation": self.id,
        }


@dataclass(frozen=True, slots=True)
class ConversationSummary:
    """One row of ``acphost history list``: a conversation, summed over its sessions.

    Attributes:
        id: the conversation's id (the history id of its first session).
        title: the newest title an agent gave one of its sessions, if any.
        agent: the agent's name (of its newest session).
        cwd: the working directory (of its newest session).
        turns: how many turns its sessions hold together.
        sessions: how many sessions it has.
        started_at: when its first session was opened.
        updated_at: its last activity: the latest start or end of a session or turn.
        first_prompt: the first turn's prompt text.
        total_tokens: all tokens of its turns, when reported.
        cost: what its runs cost, summed per currency (``{currency: amount}``;
            empty when none was reported).
        incomplete: how many turns were cut short.
        origin: ``recorded`` or ``imported`` (of its newest session).
        name: the named session it is, if any.
        latest_session: the history id of its newest session.
        agent_session_id: the agent's session id of its newest session (what a
            ``session/load`` or ``session/resume`` goes on with).

    """

    id: str
    title: str | None
    agent: str
    cwd: str
    turns: int
    sessions: int
    started_at: str
    updated_at: str
    first_prompt: str
    total_tokens: int | None
    cost: dict[str, float]
    incomplete: int
    origin: str
    name: str | None
    latest_session: str
    agent_session_id: str | None

    def to_json(self) -> dict[str, Any]:
        """The row as ``history list -o json`` gives it.

        ``usage`` is ``{"total_tokens", "cost"}`` (``cost``: ``{currency: amount}``
        or null); the fields a session's row had before conversations keep
        their names beside it (``started_at``, ``total_tokens``, ``cost``...).
        """
        cost = dict(self.cost) or None
        return {
            "id": self.id,
            "title": self.title,
            "agent": self.agent,
            "cwd": self.cwd,
            "turns": self.turns,
            "updated": self.updated_at,
            "usage": {"total_tokens": self.total_tokens, "cost": cost},
            "sessions": self.sessions,
            "started_at": self.started_at,
            "total_tokens": self.total_tokens,
            "cost": cost,
            "first_prompt": self.first_prompt,
            "incomplete": self.incomplete,
            "origin": self.origin,
            "name": self.name,
            "latest_session": self.latest_session,
            "agent_session_id": self.agent_session_id,
        }


#: A session's last activity, in SQL: the latest of its start, its end and its
#: turns' starts and ends (times are stored in one form, so they sort as text).
_ACTIVE = (
    "max(s.started_at, coalesce(s.ended_at, ''), coalesce((SELECT "
    "max(max(t.started_at, coalesce(t.ended_at, ''))) FROM turns t WHERE t.session_id = s.id), ''))"
)


class ConversationReads(StoreReads):
    """The conversation queries of :class:`~acphost.history.HistoryStore`."""

    def conversation_of(self, session_id: str) -> str:
        """The id of the conversation a session belongs to.

        Raises:
            HistoryIdError: no session has this id.
            HistoryError: the store cannot be read.

        """
        with self._guard() as conn:
            row = conn.execute(
                "SELECT coalesce(conversation, id) FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
        if row is None:
            raise HistoryIdError(f"no session {session_id} in the history")
        return str(row[0])

    def resolve_conversation(self, prefix: str) -> str:
        """The conversation an id names: a conversation id, or any of its sessions' ids.

        Resolved as :meth:`resolve_id` resolves a session (a whole id, an agent
        session id, a prefix as git abbreviates); a conversation whose first
        session is gone is still named by its id (or a prefix of it).

        Returns:
            The conversation's id.

        Raises:
            HistoryIdError: nothing matches, or several do (``candidates`` lists them).
            HistoryError: the store cannot be read.

        """
        try:
            return self.conversation_of(self.resolve_id(prefix))
        except HistoryIdError as exc:
            if exc.candidates:
                raise
            wanted = prefix.strip().lower()
            if not wanted or any(c not in "0123456789abcdef" for c in wanted):
                raise
            with self._guard() as conn:
                rows = conn.execute(
                    "SELECT DISTINCT conversation FROM sessions WHERE substr(conversation, 1, ?) "
                    "= ? LIMIT 11",
                    (len(wanted), wanted),
                ).fetchall()
            if len(rows) == 1:
                return str(rows[0][0])
            if not rows:
                raise
            ids = [str(r[0]) for r in rows]
            raise HistoryIdError(
                f"{prefix!r} is ambiguous: several conversations match ({', '.join(ids[:10])}); "
                "give more characters",
                ids,
            ) from None

    def get_conversation(self, conversation_id: str) -> ConversationRecord:
        """The whole conversation: each of its sessions, oldest first, with their turns.

        Args:
            conversation_id: its id (see :meth:`resolve_conversation`).

        Raises:
            HistoryIdError: no session belongs to it.
            HistoryError: the store cannot be read.

        """
        with self._guard() as conn:
            rows = conn.execute(
                "SELECT id, name FROM sessions WHERE conversation = ? ORDER BY started_at, id",
                (conversation_id,),
            ).fetchall()
        if not rows:
            raise HistoryIdError(f"no conversation {conversation_id} in the history")
        name = next((str(r[1]) for r in reversed(rows) if r[1] is not None), None)
        return ConversationRecord(conversation_id, tuple(self.get(r[0]) for r in rows), name)

    def find_conversation(
        self,
        *,
        join: str | None,
        agent: str,
        cwd: str,
        name: str | None,
        agent_session_id: str | None = None,
    ) -> str | None:
        """The conversation a new session joins, or None: it starts one of its own.

        Args:
            join: a session's history id, or a conversation's id, the new
                session goes on from (``--continue``, ``--resume``, a TUI tab).
            agent: the agent's name in the history.
            cwd: the session's working directory.
            agent_session_id: the agent's id of the session: without
                ``join``, a session of this agent this machine recorded under
                that id (one reopened with ``session/load`` or
                ``session/resume``, from the TUI's list, say) gives its
                conversation.
            name: the named session it runs as: without ``join``, it joins the
                newest conversation of that name of this agent in this
                directory that this machine recorded (never an imported one).

        Raises:
            HistoryError: the store cannot be read.

        """
        with self._guard() as conn:
            if join is not None:
                row = conn.execute(
                    "SELECT coalesce(conversation, id) FROM sessions WHERE id = ? "
                    "UNION ALL SELECT conversation FROM sessions WHERE conversation = ? LIMIT 1",
                    (join, join),
                ).fetchone()
                if row is not None:
                    return str(row[0])
            if agent_session_id is not None:
                row = conn.execute(
                    "SELECT conversation FROM sessions WHERE agent = ? AND agent_session_id = ? "
                    "AND origin = 'recorded' ORDER BY started_at DESC LIMIT 1",
                    (agent, agent_session_id),
                ).fetchone()
                if row is not None and row[0] is not None:
                    return str(row[0])
            if name is not None:
                row = conn.execute(
                    "SELECT conversation FROM sessions WHERE agent = ? AND cwd = ? AND name = ? "
                    "AND origin = 'recorded' ORDER BY started_at DESC LIMIT 1",
                    (agent, cwd, name),
                ).fetchone()
                if row is not None:
                    return str(row[0])
        return None

    def named_conversation(self, agent: str, cwd: str, name: str) -> ConversationSummary | None:
        """The newest conversation of a named session of this agent in this directory.

        What ``acphost -s NAME`` goes on with once its agent has stopped: the
        summary's ``agent_session_id`` is the session to load or resume.

        Raises:
            HistoryError: the store cannot be read.

        """
        found = self.find_conversation(join=None, agent=agent, cwd=cwd, name=name)
        return None if found is None else self._summaries([found])[0]

    def list_conversations(
        self,
        *,
        agent: str | None = None,
        cwd: str | None = None,
        grep: str | None = None,
        since: str | None = None,
        until: str | None = None,
        limit: int | None = None,
    ) -> list[ConversationSummary]:
        """The conversations, newest first (by last activity), filtered.

        A conversation is listed when one of its sessions passes the filters;
        its row sums all of its sessions.

        Args:
            agent: only this agent's.
            cwd: only those in this directory or below it.
            grep: only those whose titles, prompts or answers contain this
                text (case-insensitive).
            since: only those with a session started at or after this ISO 8601 UTC time.
            until: only those with a session started before this time.
            limit: at most this many.

        Raises:
            HistoryError: the store cannot be read.

        """
        where, params = filters_sql("s", agent=agent, cwd=cwd, since=since, until=until)
        if grep:
            where.append(GREP_CLAUSE)
            params += [grep.casefold()] * 4
        matched = "SELECT s.conversation FROM sessions s" + (
            f" WHERE {' AND '.join(where)}" if where else ""
        )
        sql = (
            f"SELECT s.conversation, max({_ACTIVE}) AS active FROM sessions s "
            f"WHERE s.conversation IN ({matched}) "
            "GROUP BY s.conversation ORDER BY active DESC, s.conversation"
        )
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        with self._guard() as conn:
            ids = [str(row[0]) for row in conn.execute(sql, params)]
        return self._summaries(ids)

    def _summaries(self, ids: Sequence[str]) -> list[ConversationSummary]:
        """The rows of these conversations, in this order."""
        out = []
        with self._guard() as conn:
            for cid in ids:
                counts = conn.execute(
                    f"SELECT count(*), min(s.started_at), max({_ACTIVE}), "
                    "sum((SELECT count(*) FROM turns t WHERE t.session_id = s.id)), "
                    "sum((SELECT count(*) FROM turns t WHERE t.session_id = s.id "
                    "AND NOT t.complete)) FROM sessions s WHERE s.conversation = ?",
                    (cid,),
                ).fetchone()
                latest = conn.execute(
                    "SELECT id, agent, cwd, origin, agent_session_id FROM sessions "
                    "WHERE conversation = ? ORDER BY started_at DESC, id DESC LIMIT 1",
                    (cid,),
                ).fetchone()
                title, name = conn.execute(
                    "SELECT (SELECT title FROM sessions WHERE conversation = ?1 AND title IS NOT "
                    "NULL ORDER BY started_at DESC LIMIT 1), (SELECT name FROM sessions WHERE "
                    "conversation = ?1 AND name IS NOT NULL ORDER BY started_at DESC LIMIT 1)",
                    (cid,),
                ).fetchone()
                first, tokens = conn.execute(
                    "SELECT coalesce((SELECT t.prompt FROM turns t JOIN sessions s ON s.id = "
                    "t.session_id WHERE s.conversation = ?1 ORDER BY s.started_at, s.id, t.seq "
                    f"LIMIT 1), ''), (SELECT {sum_sql('t.total_tokens')} FROM turns t JOIN "
                    "sessions s ON s.id = t.session_id WHERE s.conversation = ?1)",
                    (cid,),
                ).fetchone()
                cost: dict[str, float] = {}
                for currency, amount in conn.execute(
                    "SELECT coalesce(cost_currency, ''), total(cost_amount) FROM sessions "
                    f"WHERE conversation = ? AND cost_amount BETWEEN 0 AND {MAX_AMOUNT!r} "
                    "GROUP BY 1 ORDER BY 1",
                    (cid,),
                ):
                    fitted = fit_amount(amount)
                    if fitted is not None:
                        cost[str(currency)] = fitted
                if latest is None:  # removed between the two reads
                    continue
                out.append(
                    ConversationSummary(
                        id=cid,
                        title=title,
                        agent=latest[1],
                        cwd=latest[2],
                        turns=int(counts[3] or 0),
                        sessions=int(counts[0]),
                        started_at=counts[1],
                        updated_at=counts[2],
                        first_prompt=first,
                        total_tokens=tokens,
                        cost=cost,
                        incomplete=int(counts[4] or 0),
                        origin=latest[3],
                        name=name,
                        latest_session=latest[0],
                        agent_session_id=latest[4],
                    )
                )
        return out
