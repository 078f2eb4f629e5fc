"""The recording of one session: an observer of its events, a few writes per turn.

It observes the client's event stream inline in the connection's reader: a
block of updates costs one call, and a chunk of the text being streamed one
``append`` in a loop; every :data:`~._textrun.GATHER` characters it joins
them, and a long text is redacted and written in parts while the turn runs
(:mod:`._textrun`), so a turn costs the memory of a part, not of its text.
The rest of the turn is assembled, redacted and written in one transaction
when the turn ends (:class:`~acphost.client.TurnEnded`); the text is stored once.
The subagents announced during a turn are events of it (:mod:`._children`).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .. import schema as s
from ..client import PermissionDecided, TurnEnded, TurnStarted, UpdatesReceived
from ..content import PromptInput, to_blocks
from ..safetext import CUT
from ..view import media_line, media_of
from ._children import CHILD_TEXT_LIMIT, MAX_CHILDREN, PENDING_LIMIT, Child
from ._model import PermissionRecord, SessionRecord, ToolCallRecord, TurnRecord, Usage, now
from ._scrub import scrub_event, scrub_session, scrub_text, scrub_title_and_usage, scrub_turn
from ._textrun import GATHER, TextRun, lookahead

if TYPE_CHECKING:
    from ..client import Event, EventStream, Session, SessionState, ToolCallState, TurnResult
    from ..host import PermissionOutcome, PermissionRequest
    from ..redact import Redactor
    from ._store import HistoryStore

__all__ = ["Recorder", "SessionRecording"]

logger = logging.getLogger("acphost.history")

_MESSAGE = s.AgentMessageChunk
_THOUGHT = s.AgentThoughtChunk
_TEXT = s.TextContentBlock
#: Characters of message and thought text one turn keeps; what an agent streams
#: beyond that is counted, not kept (memory stays bounded whatever it sends).
TURN_TEXT_LIMIT = 8 * 1024 * 1024


class Recorder(Protocol):
    """What a recording needs of the recorder that made it (:class:`HistoryRecorder`)."""

    redactor: Redactor

    @property
    def enabled(self) -> bool:
        """False once the store proved unusable: nothing more is written."""
        ...

    def write(self, action: Callable[[HistoryStore], object]) -> bool:
        """Run one short write against the store; False when it could not."""
        ...


# The PromptResponse ``usage`` fields (schema.unstable.json, ``Usage``) by kind.
_TOKEN_FIELDS = (
    ("input", "inputTokens", "input_tokens"),
    ("output", "outputTokens", "output_tokens"),
    ("thought", "thoughtTokens", "thought_tokens"),
    ("cached_read", "cachedReadTokens", "cached_read_tokens"),
    ("cached_write", "cachedWriteTokens", "cached_write_tokens"),
    ("total", "totalTokens", "total_tokens"),
)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _turn_tokens(raw: Any) -> Usage:
    """Token counts from a ``PromptResponse.usage`` (a wire dict or a typed object)."""
    if raw is None:
        return Usage()
    if isinstance(raw, dict):
        t = {kind: _count(raw.get(wire)) for kind, wire, _ in _TOKEN_FIELDS}
    else:
        t = {kind: _count(getattr(raw, attr, None)) for kind, _, attr in _TOKEN_FIELDS}
    return Usage(
        input=t["input"],
        output=t["output"],
        thought=t["thought"],
        cached_read=t["cached_read"],
        cached_write=t["cached_write"],
        total=t["total"],
    )


def _chunk_text(update: s.SessionUpdate) -> str:
    """A message or thought chunk's text: its text block's, else ``""`` (an image...)."""
    block = getattr(update, "content", None)
    return block.text if type(block) is _TEXT else ""


def _tool_name(meta: dict[str, Any] | None) -> str | None:
    """The agent's own name for a tool, when its ``_meta`` carries one (one level deep)."""
    if not meta:
        return None
    for scope in (meta, *(v for v in meta.values() if isinstance(v, dict))):
        for key in ("toolName", "tool_name"):
            name = scope.get(key)
            if isinstance(name, str) and name:
                return name
    return None


def _prompt_text(blocks: list[s.ContentBlock]) -> str:
    parts = []
    for block in blocks:
        text = getattr(block, "text", None)
        if isinstance(text, str):
            parts.append(text)
        else:
            uri = getattr(block, "uri", None) or getattr(
                getattr(block, "resource", None), "uri", ""
            )
            parts.append(f"@{uri}" if uri else f"[{getattr(block, 'type', 'block')}]")
    return " ".join(p for p in parts if p)


def _announced(update: Any) -> str | None:
    """The child a ``subagent_update`` names (None for any other update)."""
    if getattr(update, "session_update", None) != "subagent_update":
        return None
    child_id = update.session_id
    return child_id if isinstance(child_id, str) else None


def _tool_record(call: ToolCallState) -> ToolCallRecord:
    status = "cancelled" if call.cancelled else call.status
    diffs = tuple(
        {"path": c.path, "old_text": c.old_text, "new_text": c.new_text}
        for c in call.content
        if isinstance(c, s.DiffToolCallContent)
    )
    return ToolCallRecord(
        tool_call_id=call.tool_call_id,
        title=call.title,
        kind=call.kind,
        name=_tool_name(call.meta),
        status=status,
        locations=tuple({"path": loc.path, "line": loc.line} for loc in call.locations),
        diffs=diffs,
    )


class SessionRecording:
    """The recording of one session; made by :meth:`HistoryRecorder.open_session`.

    Attributes:
        id: the session's history id.
        agent_session_id: the agent's session id.
        conversation: the id of the conversation it belongs to (its own id
            when it starts one): what the next session of a TUI tab joins.

    """

    def __init__(
        self,
        recorder: Recorder,
        record: SessionRecord,
        session: Session,
        events: EventStream | None = None,
        *,
        conversation: str | None = None,
        name: str | None = None,
    ) -> None:
        self.id = record.id
        self.conversation = conversation or record.id
        self.agent_session_id = session.id
        self._recorder = recorder
        self._session = session
        self._seq = 0
        self._turn_start: str | None = None
        self._turn_prompt: PromptInput = ""
        self._events: list[list[Any]] = []
        # The text run being appended to (its list of pieces, its TextRun) and
        # its chunk class; None once another event follows it.
        self._run: list[str] | None = None
        self._text_run: TextRun | None = None
        self._run_cls: type | None = None
        self._room = TURN_TEXT_LIMIT  # characters the turn may still keep
        # Below this room the listener leaves its hot path: joins, maybe writes a part.
        self._low = max(self._room - GATHER, 0)
        self._dropped = 0  # characters it did not keep
        self._keep = lookahead(recorder.redactor.secrets)
        self._plan_at: int | None = None
        self._tools: dict[str, None] = {}
        self._permissions: list[PermissionRecord] = []
        self._usage_seen = False
        # The subagents announced during its turns, by session id (``_children``),
        # and the characters of their text held, not yet written.
        self._children: dict[str, Child] = {}
        self._pending = 0
        self._closed = False
        # What this run of the session cost: the sum of its turns' own costs
        # (the session's client counts each from the turn's start; see
        # ``acphost.client._budget``), in the currency of the first.
        self._run_cost: tuple[float, str] | None = None
        self._remove: Callable[[], None] | None = None
        if recorder.write(
            lambda store: store.add_session(
                scrub_session(recorder.redactor, record), conversation=conversation, name=name
            )
        ):
            if events is None:
                # The session's client's stream (``AcpClient.events``), which
                # the session emits on.
                events = session._events  # type: ignore[assignment]
            self._remove = events.subscribe(self._observe)  # type: ignore[union-attr]

    # -- the observer (inline in the connection's reader) ----------------------------------

    def _observe(self, event: Event) -> None:
        kind = type(event)
        if kind is UpdatesReceived:
            assert isinstance(event, UpdatesReceived)  # (the test above, for the type checker)
            owner = event.session
            if owner is self._session:
                self._on_updates(event.updates)
            elif self._children and getattr(owner, "root", None) is self._session:
                self._on_child_updates(owner, event.updates)
        elif isinstance(event, TurnStarted):
            if event.session is self._session:
                self._begin(event.prompt)
        elif isinstance(event, TurnEnded):
            if event.session is self._session:
                self._end(event)
        # The agent's own questions (asked), not the operations the host mediated.
        elif (
            isinstance(event, PermissionDecided)
            and event.asked
            and event.session_id == self.agent_session_id
        ):
            self._decided(event.request, event.outcome)

    def _on_updates(self, updates: Sequence[s.SessionUpdate]) -> None:
        """A block of updates: the chunks of the text being streamed handled in a loop.

        A chunk of the current run costs a type test, its text and an
        ``append`` (or, past :data:`TURN_TEXT_LIMIT`, a count): no call. The
        rest, and every :data:`~._textrun.GATHER` characters, take
        :meth:`_on_update`.

        A block of nothing but such chunks (a flood) that the turn has room
        for is taken whole: one comprehension picks their texts, and the
        pieces are joined, if due, once the block is in.

        Updates told while no turn of this session runs (after the prompt's
        answer, a ``session/load`` replay, another session's turn) belong to
        no turn: they are not recorded, never into the next turn.
        """
        if self._turn_start is None:
            if self._children:  # a child of an earlier turn may go idle now
                self._outside(updates)
            logger.debug("history: %d update(s) outside a turn not recorded", len(updates))
            return
        run_cls: Any = self._run_cls
        if run_cls is not None:
            texts = [
                u.content.text  # type: ignore[union-attr]
                for u in updates
                if type(u) is run_cls and type(u.content) is _TEXT  # type: ignore[union-attr]
            ]
            if len(texts) == len(updates):
                room = self._room - sum(map(len, texts))
                if room >= 0:
                    self._room = room
                    self._run.extend(texts)  # type: ignore[union-attr]
                    if room < self._low:
                        self._gather()
                    return
        run, room, low = self._run, self._room, self._low
        dropped = self._dropped
        for update in updates:
            if type(update) is run_cls:
                # The hot path: one more chunk of the text being streamed.
                block = update.content  # type: ignore[union-attr]
                if type(block) is _TEXT:
                    text = block.text
                    size = len(text)
                    if room - size >= low and size:
                        room -= size
                        run.append(text)  # type: ignore[union-attr]
                        continue
                    if room < 0 and dropped:  # past the limit, already marked: counted
                        dropped += size
                        continue
            self._room, self._dropped = room, dropped
            self._on_update(update)
            run_cls, run, room, low = self._run_cls, self._run, self._room, self._low
            dropped = self._dropped
        self._room, self._dropped = room, dropped

    def _on_update(self, update: s.SessionUpdate) -> None:
        cls = type(update)
        if cls is self._run_cls:
            # One more chunk of the text being streamed (the loop's slow path).
            text = _chunk_text(update)
            if text:
                self._room -= len(text)
                if self._room >= self._low:
                    self._run.append(text)  # type: ignore[union-attr]
                elif self._room < 0:
                    if not self._dropped:
                        # The text is cut before it is redacted (at the turn's
                        # end): marked, so that the beginning of a configured
                        # value the cut goes through is masked too.
                        self._run.append(CUT)  # type: ignore[union-attr]
                    self._dropped += len(text)
                else:
                    self._run.append(text)  # type: ignore[union-attr]
                    self._gather()
            else:
                self._media(update)
        elif cls is _MESSAGE or cls is _THOUGHT:
            text = _chunk_text(update)
            if text:
                self._end_run()
                self._room -= len(text)
                pieces = [text] if self._room >= 0 else []
                if self._room < 0:
                    self._dropped += len(text)
                kind = "text" if cls is _MESSAGE else "thought"
                run = TextRun(kind, len(self._events), pieces)
                self._run, self._text_run, self._run_cls = pieces, run, cls
                self._events.append([kind, run])
                if 0 <= self._room < self._low:
                    self._gather()
            else:
                self._media(update)
        elif cls is s.ToolCallStart or cls is s.ToolCallProgress:
            call_id = update.tool_call_id  # type: ignore[union-attr]
            if call_id not in self._tools:
                self._tools[call_id] = None
                self._end_run()
                self._events.append(["tool", call_id])
        elif cls is s.PlanUpdate:
            entries = [
                {"content": e.content, "status": e.status, "priority": e.priority}
                for e in update.entries  # type: ignore[union-attr]
            ]
            if self._plan_at is None:
                self._end_run()
                self._plan_at = len(self._events)
                self._events.append(["plan", entries])
            else:
                self._events[self._plan_at][1] = entries
        elif cls is s.UsageUpdate:
            self._usage_seen = True
        else:
            child_id = _announced(update)
            if child_id is not None:
                self._subagent(self._session.state, child_id)

    # -- subagents (see ``_children``) -----------------------------------------------------

    def _outside(self, updates: Sequence[s.SessionUpdate]) -> None:
        """The session's updates between turns: only its children's changes count."""
        for update in updates:
            child_id = _announced(update)
            if child_id is not None:
                self._subagent(self._session.state, child_id)

    def _subagent(self, parent: SessionState, child_id: str) -> None:
        """A ``subagent_update`` on ``parent`` (applied): a new child, or one that changed."""
        child = self._children.get(child_id)
        if child is None:
            info = parent.subagents.get(child_id)
            if self._turn_start is None or info is None or len(self._children) >= MAX_CHILDREN:
                return  # announced between turns, or past a bound: not recorded
            self._end_run()
            child = Child(self._seq, len(self._events), info)
            self._children[child_id] = child
            self._events.append(["subagent", child])
            return
        child.dirty = True
        if child.saved and not child.info.running:
            self._write_child(child)  # its turn is written: the child's event is updated

    def _on_child_updates(self, owner: Any, updates: Sequence[s.SessionUpdate]) -> None:
        """A block of a child's own updates: its message text kept, its children followed."""
        child = self._children.get(owner.id)
        if child is None:
            return
        texts = [
            u.content.text for u in updates if type(u) is _MESSAGE and type(u.content) is _TEXT
        ]
        if texts:
            self._child_text(child, texts)
        if len(texts) != len(updates):
            child.dirty = True
            for update in updates:
                child_id = _announced(update)
                if child_id is not None:
                    self._subagent(owner.state, child_id)

    def _child_text(self, child: Child, texts: list[str]) -> None:
        size = sum(map(len, texts))
        room = min(CHILD_TEXT_LIMIT - child.kept, PENDING_LIMIT - self._pending)
        child.dirty = True
        if size <= room:
            child.pieces.extend(texts)
        else:
            part = "".join(texts)[: max(room, 0)]
            if not child.dropped:
                # Marked, so that a configured value the cut goes through is
                # masked too when the text is redacted.
                part += CUT
            child.pieces.append(part)
            child.dropped += size - max(room, 0)
            size = len(part)
        child.kept += size
        self._pending += size

    def _child_text_taken(self, child: Child) -> str:
        self._pending -= sum(map(len, child.pieces))
        return child.take_text()

    def _child_event(self, child: Child) -> dict[str, Any]:
        """The child's event as its turn is written: its text once it no longer runs."""
        event = child.fields()
        event["text"] = "" if child.info.running else self._child_text_taken(child)
        child.saved = True
        child.written = bool(event["text"])
        child.dirty = child.info.running
        return event

    def _write_child(self, child: Child) -> None:
        """Update the child's event in its (written) turn: its state now, its text appended."""
        redactor = self._recorder.redactor
        text = self._child_text_taken(child)
        fields = scrub_event(redactor, child.fields())
        text = scrub_text(redactor, text) if text else ""
        seq, index = child.seq, child.index
        child.dirty = False
        if self._recorder.write(
            lambda store: store.update_subagent(self.id, seq, index, fields, text)
        ):
            child.written = child.written or bool(text)

    def _gather(self) -> None:
        """Join the current run's pieces; write a part of it when it has grown long."""
        self._low = max(self._room - GATHER, 0)
        run = self._text_run
        if run is None:
            return
        run.gather()
        if self._turn_start is None or not self._recorder.enabled:
            return  # no begun turn in the store to write parts to: kept joined
        redactor = self._recorder.redactor
        part = run.cut(lambda text: scrub_text(redactor, text), self._keep)
        if part is not None:
            self._write_part(run, part)

    def _end_run(self) -> None:
        """The current text run ends: written whole now when it is long (nothing can follow)."""
        run = self._text_run
        self._run = self._text_run = self._run_cls = None
        if (
            run is not None
            and run.size + GATHER >= self._keep
            and self._turn_start is not None
            and self._recorder.enabled
        ):
            run.gather()
            if run.size >= self._keep:
                self._write_part(run, scrub_text(self._recorder.redactor, run.take()))

    def _write_part(self, run: TextRun, part: str) -> None:
        seq = self._seq
        if self._recorder.write(
            lambda store: store.add_text(self.id, seq, run.index, run.kind, part)
        ):
            run.written += 1

    def _media(self, update: s.SessionUpdate) -> None:
        """An image, audio or resource in a message or thought: its placeholder line."""
        media = media_of(update.content)  # type: ignore[union-attr,arg-type]
        if media is not None:
            self._end_run()
            self._events.append(["media", media_line(media)])

    def _decided(self, request: PermissionRequest, outcome: PermissionOutcome) -> None:
        """A permission question of the agent's, answered (typed, as the broker decided it)."""
        if self._closed or not self._recorder.enabled:
            return
        option_id = outcome.option_id
        kind = outcome.option_kind
        if option_id is None:
            decision = "cancelled"
        else:
            decision = "allow" if (kind or "").startswith("allow") else "reject"
        self.add_permission(request.tool_call_id, decision, kind, option_id)

    def add_permission(
        self,
        tool_call_id: str | None,
        decision: str,
        option_kind: str | None,
        option_id: str | None,
    ) -> None:
        """Record a permission decision of the running turn.

        An answer given while no turn of this session runs belongs to no
        turn: it is not recorded (never into the next turn).

        Args:
            tool_call_id: the tool call it was about.
            decision: ``allow``, ``reject``, ``cancelled`` (or ``error``).
            option_kind: the chosen option's kind.
            option_id: the chosen option's id.

        """
        if self._turn_start is None:
            logger.debug("history: a permission answer outside a turn not recorded")
            return
        call = self._session.state.tool_calls.get(tool_call_id or "")
        self._permissions.append(
            PermissionRecord(
                tool_call_id,
                call.title if call is not None else "",
                decision,
                option_kind,
                option_id,
                now(),
            )
        )

    # -- turns ----------------------------------------------------------------------------

    def _begin(self, prompt: PromptInput) -> None:
        """A prompt was sent (:class:`~acphost.client.TurnStarted`): the turn's row is written.

        A host killed during the turn then leaves it in the history marked
        incomplete (with the text written so far) instead of no trace of it.
        """
        if self._closed or not self._recorder.enabled:
            return
        self._seq += 1
        self._clear_turn()  # nothing told before the turn belongs to it
        self._turn_start = now()
        self._turn_prompt = prompt
        blocks = to_blocks(prompt)
        turn = TurnRecord(
            seq=self._seq,
            started_at=self._turn_start,
            prompt=_prompt_text(blocks),
            prompt_blocks=tuple(b.to_wire() for b in blocks),
        )
        redactor = self._recorder.redactor
        self._recorder.write(lambda store: store.begin_turn(self.id, scrub_turn(redactor, turn)))

    def _end(self, event: TurnEnded) -> None:
        """A turn ended (:class:`~acphost.client.TurnEnded`): the whole turn in one transaction.

        ``host_stop`` is why the host stopped it, if it did (``interrupted``,
        ``budget: ...``: ``Session.cancel(reason=...)``).
        """
        if self._closed or not self._recorder.enabled:
            return
        self._save(event.prompt, event.result, host_stop=event.host_stop, complete=True)

    def _save(
        self,
        prompt: PromptInput,
        result: TurnResult | BaseException | None,
        *,
        host_stop: str | None,
        complete: bool,
    ) -> None:
        if self._turn_start is None:
            self._seq += 1
        state = self._session.state
        blocks = to_blocks(prompt)
        error = None
        stop = None
        calls: dict[str, ToolCallState] = {}
        if isinstance(result, BaseException):
            error = str(result) or type(result).__name__
        elif result is not None:
            stop = result.stop_reason
            calls = {c.tool_call_id: c for c in result.tool_calls}
        # Calls the turn's updates named, then those only a permission request named.
        asked = (p.tool_call_id for p in self._permissions if p.tool_call_id)
        for call_id in (*self._tools, *asked):
            if call_id not in calls and call_id in state.tool_calls:
                calls[call_id] = state.tool_calls[call_id]
        # The text of each run not written yet, redacted on its own (its
        # first parts, if any, are in the store already); the rest of the
        # record is redacted below as a whole.
        redactor = self._recorder.redactor
        texts: dict[int, str] = {}
        events: list[dict[str, Any]] = []
        for index, (kind, value) in enumerate(self._events):
            if kind in ("text", "thought"):
                texts[index] = scrub_text(redactor, value.take())
                events.append({"kind": kind, "text": ""})
            elif kind == "media":
                events.append({"kind": kind, "text": value})
            elif kind == "tool":
                events.append({"kind": kind, "id": value})
            elif kind == "subagent":
                events.append(self._child_event(value))
            else:
                events.append({"kind": kind, "entries": value})
        if self._dropped:
            texts[len(events)] = _not_kept(self._dropped)
            events.append({"kind": "text", "text": ""})
        # The turn's text is its text events joined (a paragraph apart: each
        # was redacted on its own), stored once (see ``HistoryStore.save_turn``):
        # the client's copy (``result.text``, which a keep_history client holds)
        # is the same text, unbounded.
        turn = TurnRecord(
            seq=self._seq,
            started_at=self._turn_start or now(),
            prompt=_prompt_text(blocks),
            ended_at=now(),
            prompt_blocks=tuple(b.to_wire() for b in blocks),
            events=tuple(events),
            stop_reason=stop,
            host_stop=host_stop,
            error=error,
            complete=complete,
            tool_calls=tuple(_tool_record(c) for c in calls.values()),
            permissions=tuple(self._permissions),
            usage=self._turn_usage(result),
        )
        self._turn_start = None
        self._clear_turn()
        title, session_usage = scrub_title_and_usage(redactor, state.title, self._session_usage())
        scrubbed = scrub_turn(redactor, turn)
        scrubbed = dataclasses.replace(
            scrubbed,
            events=tuple(
                {**e, "text": texts[i]} if i in texts else e for i, e in enumerate(scrubbed.events)
            ),
        )
        reported = self._reported_cost()
        self._recorder.write(
            lambda store: store.save_turn(
                self.id,
                scrubbed,
                title=title,
                session_usage=session_usage,
                reported_cost=reported,
                text_joined=True,
            )
        )

    def _clear_turn(self) -> None:
        """Forget the turn's events, text runs, tool calls and permission answers."""
        self._events = []
        self._run = self._text_run = self._run_cls = None
        self._room = TURN_TEXT_LIMIT
        self._low = max(self._room - GATHER, 0)
        self._dropped = 0
        self._plan_at = None
        self._tools = {}
        self._permissions = []
        self._usage_seen = False

    def _turn_usage(self, result: TurnResult | BaseException | None) -> Usage:
        raw = None if result is None or isinstance(result, BaseException) else result.usage
        tokens = _turn_tokens(raw)
        update = self._session.state.usage if self._usage_seen else None
        if update is None:
            return tokens
        amount = currency = None
        # The agent's cost is the session's cumulative one (schema ``UsageUpdate``):
        # the turn's own is what it added since the turn started. Unknown (None)
        # when the cost before the turn is, or is in another currency: never the
        # session's whole cost, which earlier runs have recorded already.
        cost = self._session.turn_cost if update.cost is not None else None
        if cost is not None:
            amount, currency = cost.amount, cost.currency
            run = self._run_cost
            if run is None:
                self._run_cost = (amount, currency)
            elif run[1] == currency:
                self._run_cost = (run[0] + amount, currency)
        return dataclasses.replace(
            tokens,
            context_used=update.used,
            context_size=update.size,
            cost_amount=amount,
            cost_currency=currency,
        )

    def _session_usage(self) -> Usage:
        update = self._session.state.usage
        if update is None:
            return Usage()
        amount, currency = self._run_cost if self._run_cost is not None else (None, None)
        return Usage(
            context_used=update.used,
            context_size=update.size,
            cost_amount=amount,
            cost_currency=currency,
        )

    def _reported_cost(self) -> tuple[float, str] | None:
        """The agent's last cumulative cost of the session: where a later run starts counting."""
        update = self._session.state.usage
        cost = update.cost if update is not None else None
        if cost is None:
            return None
        # The currency is the agent's word, redacted as the session's own cost is.
        _, kept = scrub_title_and_usage(
            self._recorder.redactor, None, Usage(cost_currency=cost.currency)
        )
        return cost.amount, kept.cost_currency or ""

    def close(self) -> None:
        """Stop recording and write the session's end. Idempotent.

        A turn begun and never recorded is saved as incomplete.
        """
        if self._closed:
            return
        if self._turn_start is not None:
            self._save(self._turn_prompt, None, host_stop=None, complete=False)
        # Children still running (or changed since their turn was written):
        # their events are finished as they are now.
        for child in self._children.values():
            if child.saved and child.dirty and self._recorder.enabled:
                self._write_child(child)
        self._closed = True
        if self._remove is not None:
            self._remove()
            self._remove = None
        title, usage = scrub_title_and_usage(
            self._recorder.redactor, self._session.state.title, self._session_usage()
        )
        ended = now()
        reported = self._reported_cost()
        self._recorder.write(
            lambda store: store.end_session(
                self.id, ended_at=ended, title=title, session_usage=usage, reported_cost=reported
            )
        )


def _not_kept(characters: int) -> str:
    return (
        f"\n\n[acphost: {characters:,} more characters of this turn's text were not kept "
        f"in the history (at most {TURN_TEXT_LIMIT:,} are)]\n"
    )
