"""The app's local history: recording its sessions, and the rows Ctrl+O lists.

No Textual here. :class:`AppHistory` is the app's one door to the history
store (:mod:`acphost.history`): it records every session the app opens
(unless recording is off), writes on the app's loop in short transactions,
and reads the list and past sessions in a worker thread with a connection of
its own, so a large store never stalls the screen. A store that cannot be
used costs one warning (the recorder's) and the app goes on; a read that
fails is reported where it was asked for, in the list.

:class:`HistoryRow` is one line of the list: this workspace's conversations
(:func:`conversation_rows`), the agent's ``session/list`` (:func:`agent_rows`),
and the rest of the store (:func:`local_rows`).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from ..history import (
    HistoryRecorder,
    HistoryStore,
    SessionRecording,
    SessionSummary,
    default_path,
    local_time,
)
from ._model import home_relative, words_match

if TYPE_CHECKING:
    from .. import schema as s
    from ..client import Session
    from ..config import AgentSpec
    from ..history import SessionRecord
    from ..redact import Redactor

__all__ = [
    "LIST_LIMIT",
    "WRITE_TIMEOUT",
    "AppHistory",
    "HistoryRow",
    "HistorySection",
    "agent_rows",
    "conversation_rows",
    "cost_text",
    "local_rows",
    "row_matches",
    "workspace_conversations",
]

#: Seconds a history write waits for another writer before recording stops
#: (short: the app's loop waits with it).
WRITE_TIMEOUT = 1.0

#: The most recorded sessions the list reads.
LIST_LIMIT = 500

T = TypeVar("T")


def cost_text(amount: float | None, currency: str | None) -> str:
    """``0.05 USD``, ``0.0002 USD`` below a cent (``""`` when no cost was reported)."""
    if amount is None:
        return ""
    number = f"{amount:.2f}" if amount >= 0.01 or amount == 0 else f"{amount:.4f}"
    return f"{number} {currency or ''}".rstrip()


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One line of the sessions list.

    Attributes:
        source: ``"agent"`` (from ``session/list``) or ``"local"`` (the store).
        value: the agent's session id, or the history id.
        title: the title, else the first prompt (the agent's text: raw).
        when: the local date and time it was last updated (agent) or started (local).
        cwd: its directory, home-relative.
        turns: how many turns it has (local sessions only).
        cost: its cost (``0.05 USD``), when reported.
        agent: the agent that ran it (local sessions only).
        open: it is open in a tab.

    """

    source: str
    value: str
    title: str
    when: str
    cwd: str
    turns: int | None = None
    cost: str = ""
    agent: str = ""
    open: bool = False

    def haystack(self) -> str:
        """What a filter searches: every column, lower-cased."""
        turns = f"{self.turns} turns" if self.turns is not None else ""
        parts = (self.title, self.when, self.cwd, turns, self.cost, self.agent, self.value)
        return " ".join(parts).lower() + (" open" if self.open else "")


@dataclass(frozen=True, slots=True)
class HistorySection:
    """One section of the sessions list.

    Attributes:
        title: its heading.
        rows: its rows, in order (``None``: this source cannot be listed).
        note: why it is empty (shown instead of rows).

    """

    title: str
    rows: Sequence[HistoryRow] | None
    note: str = ""


def row_matches(row: HistoryRow, query: str) -> bool:
    """Whether a row matches a filter: each word must occur, ``-word`` must not."""
    return words_match(row.haystack(), query)


def local_rows(
    summaries: Iterable[SessionSummary],
    agent: str,
    *,
    open_ids: Iterable[str] = (),
    mine_first: bool = True,
) -> list[HistoryRow]:
    """The recorded sessions with at least one turn: ``agent``'s first, newest first.

    Args:
        summaries: the store's rows, newest first.
        agent: the agent the app runs (its sessions come first).
        open_ids: the agent session ids open in tabs.
        mine_first: ``False``: newest first, whichever agent ran them.

    """
    opened = set(open_ids)
    rows = [
        HistoryRow(
            source="local",
            value=x.id,
            title=x.title or " ".join(x.first_prompt.split()) or "(no prompt)",
            when=local_time(x.started_at),
            cwd=home_relative(x.cwd),
            turns=x.turns,
            cost=cost_text(x.cost_amount, x.cost_currency),
            agent=x.agent,
            open=x.agent_session_id is not None and x.agent_session_id in opened,
        )
        for x in summaries
        if x.turns
    ]
    if not mine_first:
        return rows
    # sorted() is stable: newest first within each group.
    return sorted(rows, key=lambda r: r.agent != agent)


def conversation_rows(
    summaries: Iterable[SessionSummary], *, open_ids: Iterable[str] = ()
) -> list[HistoryRow]:
    """The workspace's conversations with at least one turn, newest first, each titled.

    The title is the agent's, else the first prompt; every agent's are
    listed (another agent's cannot be resumed here, but can be read).

    Args:
        summaries: the store's rows for this workspace, newest first.
        open_ids: the agent session ids open in tabs.

    """
    return local_rows(summaries, "", open_ids=open_ids, mine_first=False)


def agent_rows(infos: Sequence[s.SessionInfo], *, open_ids: Iterable[str] = ()) -> list[HistoryRow]:
    """The agent's ``session/list``, newest first (by ``updatedAt`` when the agent sends it)."""
    opened = set(open_ids)
    ordered = sorted(infos, key=lambda i: i.updated_at or "", reverse=True)
    return [
        HistoryRow(
            source="agent",
            value=i.session_id,
            title=i.title or f"(untitled) {i.session_id}",
            when=local_time(i.updated_at) if i.updated_at else "",
            cwd=home_relative(i.cwd),
            open=i.session_id in opened,
        )
        for i in ordered
    ]


class AppHistory:
    """Records the app's sessions into the history and reads it back.

    Args:
        enabled: record sessions (``--no-history`` and ``ACPHOST_NO_HISTORY``
            turn it off; reading stays possible).
        warn: how to tell the user the store failed (once).
        path: the store (default: :func:`~acphost.history.default_path`, read
            when first used, so ``ACPHOST_HISTORY`` set later still counts).

    """

    def __init__(
        self, *, enabled: bool, warn: Callable[[str], None], path: str | None = None
    ) -> None:
        self.enabled = enabled
        self._path = path
        self._warn = warn
        self._recorder: HistoryRecorder | None = None
        self._recordings: list[SessionRecording] = []

    @property
    def path(self) -> str:
        """The store's file."""
        return self._path if self._path is not None else default_path()

    @property
    def failed(self) -> bool:
        """True once the store proved unusable for writing."""
        return self._recorder is not None and not self._recorder.enabled

    # -- recording -------------------------------------------------------------------

    def start(
        self, spec: AgentSpec, session: Session, redactor: Redactor, protocol: int | None = None
    ) -> SessionRecording | None:
        """Start recording an open session (``None`` when recording is off or broken).

        The store is opened at the first session, with the run's redactor;
        ``protocol`` is the version the connection agreed on.
        """
        if not self.enabled:
            return None
        recorder = self._recorder
        if recorder is None:
            recorder = HistoryRecorder.open(
                self.path, redactor, timeout=WRITE_TIMEOUT, warn=self._warn
            )
            self._recorder = recorder
        recorder.redactor = redactor  # the agent picked on the start screen may differ
        if not recorder.enabled:
            return None
        recording = recorder.open_session(
            spec.name, spec.argv, session.cwd, session, protocol=protocol
        )
        self._recordings.append(recording)
        return recording

    def finish(self, recording: SessionRecording | None) -> None:
        """Write a session's end (its tab closed, or its agent went away)."""
        if recording is None:
            return
        recording.close()
        if recording in self._recordings:
            self._recordings.remove(recording)

    def close(self) -> None:
        """End every recording and close the store. Idempotent."""
        for recording in list(self._recordings):
            self.finish(recording)
        if self._recorder is not None:
            self._recorder.close()

    # -- reading (in a thread, on a connection of its own) ----------------------------

    def _read(self, action: Callable[[HistoryStore], T], empty: T) -> T:
        path = self.path
        if not os.path.exists(path):
            return empty  # nothing recorded yet: reading creates no store
        with HistoryStore.open(path, timeout=WRITE_TIMEOUT) as store:
            return action(store)

    async def summaries(self, limit: int = LIST_LIMIT) -> list[SessionSummary]:
        """The recorded sessions, newest first.

        Raises:
            HistoryError: the store cannot be read.

        """
        return await asyncio.to_thread(
            self._read, lambda store: store.list_sessions(limit=limit), []
        )

    async def by_workspace(
        self, cwd: str, limit: int = LIST_LIMIT
    ) -> tuple[list[SessionSummary], list[SessionSummary]]:
        """The conversations in ``cwd``, and the rest of the store; each newest first.

        Raises:
            HistoryError: the store cannot be read.

        """

        def read(store: HistoryStore) -> tuple[list[SessionSummary], list[SessionSummary]]:
            here = workspace_conversations(store, cwd, limit)
            seen = {x.id for x in here}
            return here, [x for x in store.list_sessions(limit=limit) if x.id not in seen]

        return await asyncio.to_thread(self._read, read, ([], []))

    async def get(self, history_id: str) -> SessionRecord | None:
        """A recorded session, whole (``None``: no store yet).

        Raises:
            HistoryError: the store cannot be read, or has no such session.

        """
        return await asyncio.to_thread(self._read, lambda store: store.get(history_id), None)


def workspace_conversations(store: HistoryStore, cwd: str, limit: int) -> list[SessionSummary]:
    """The conversations recorded in ``cwd`` (or below it), newest activity first.

    A conversation (a ``--continue`` chain, a named session, a tab) is one
    row, shown as its newest session: opening it goes on with that session;
    its turns and cost are the whole conversation's.

    Raises:
        HistoryError: the store cannot be read.

    """
    rows = []
    for conversation in store.list_conversations(cwd=cwd, limit=limit):
        cost = conversation.cost
        (currency, amount), *more = cost.items() if cost else [(None, None)]
        rows.append(
            SessionSummary(
                id=conversation.latest_session,
                agent=conversation.agent,
                cwd=conversation.cwd,
                title=conversation.title,
                started_at=conversation.updated_at,
                ended_at=None,
                agent_session_id=conversation.agent_session_id,
                turns=conversation.turns,
                first_prompt=conversation.first_prompt,
                total_tokens=conversation.total_tokens,
                # One amount per currency: a mixed sum is not one number.
                cost_amount=None if more else amount,
                cost_currency=None if more else currency,
                incomplete=conversation.incomplete,
                origin=conversation.origin,
            )
        )
    return rows
