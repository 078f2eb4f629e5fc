"""Session state kept for the host: the one place the update rules live.

Like h11's ``_state.py``, this module owns a rule set and nothing else; the
faces (CLI, TUI) read it and never re-derive it:

- message chunks coalesce into messages, split when the role or the
  ``messageId`` changes;
- a ``tool_call`` creates (or replaces) a call; a ``tool_call_update`` merges
  only the fields it carries, and creates the call when the id was never
  announced (real agents send such updates);
- a ``plan`` replaces the previous plan whole (ACP "Agent Plan": "the agent
  MUST send the complete list of entries");
- modes, config options, available commands, usage and the session title
  are replaced by their update;
- a ``compaction_update`` is an upsert keyed by ``compactionId``: the first
  one fixes the compaction's place in the conversation, later ones patch it
  (schema ``CompactionUpdate``: an omitted field is unchanged, ``null``
  clears it, ``summary: []`` clears the summary); a
  ``compaction_summary_chunk`` appends to that compaction's summary;
- a ``notice`` changes nothing: notices are live events, not session history
  (schema ``Notice``); hosts see them in the update stream;
- a tool call's ``_meta`` is merged key by key (a later update's key
  replaces that key; earlier keys stay), except the three keys of a terminal
  the agent runs itself, which are kept typed in the call's
  :attr:`ToolCallState.terminals` instead (see :class:`AgentTerminal`).

- a ``subagent_update`` upserts a child session keyed by its ``sessionId``
  (:class:`SubagentState`, each with its own state); a
  ``session_message`` upserts a message between sessions keyed by
  ``messageId`` and a ``session_message_chunk`` appends to one (the rules
  live in :mod:`._subagent_state`).

A session can also have a parent and children (a fork, and the child
sessions of subagents), and a system prompt.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .. import schema as s
from ..content import block_text
from ..safetext import CUT
from ._subagent_state import (
    BUSY,
    MAX_SESSION_MESSAGES,
    MAX_SUBAGENTS,
    SessionMessageState,
    stable_block,
)
from ._toolcall_state import AgentTerminal, TerminalReport, ToolCallState, terminal_report

if TYPE_CHECKING:
    from ..schema import unstable as u

__all__ = [
    "AgentTerminal",
    "Compaction",
    "Message",
    "SessionState",
    "SubagentState",
    "TerminalReport",
    "ToolCallState",
    "terminal_report",
]

logger = logging.getLogger("acphost.client")

Role = Literal["user", "agent", "thought"]


@dataclass(slots=True)
class Message:
    """A message assembled from streamed chunks.

    Attributes:
        role: ``"user"``, ``"agent"`` or ``"thought"`` (the agent's reasoning).
        message_id: the agent's ``messageId``, when it sends one.
        content: the content blocks in arrival order.

    """

    role: Role
    message_id: str | None
    content: list[s.ContentBlock] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The text of the message: its text blocks joined, links by URI."""
        return "".join(block_text(b) for b in self.content)


@dataclass(slots=True)
class Compaction:
    """The host's view of one context compaction, patched by its updates.

    Attributes:
        compaction_id: the agent's id for it.
        status: ``in_progress``, ``completed``, ``failed`` (or a newer value);
            None when only summary chunks arrived so far.
        summary: the retained summary's content blocks, in arrival order.
        error: why it failed, when the agent says.
        meta: its ``_meta``.
        position: how many messages preceded it when it first appeared: the
            place in the conversation where a face shows it.

    """

    compaction_id: str
    status: str | None = None
    summary: list[s.ContentBlock] = field(default_factory=list)
    error: str | None = None
    meta: dict[str, Any] | None = None
    position: int = 0

    @property
    def summary_text(self) -> str:
        """The summary's text blocks joined."""
        return "".join(block_text(b) for b in self.summary)

    def patch(self, update: s.CompactionUpdate) -> None:
        """Apply an upsert: omitted fields stay, ``null`` (and ``summary: []``) clears."""
        self.status = update.status
        summary = update.summary
        if not isinstance(summary, s.Unset):
            self.summary = list(summary) if summary else []
        error = update.error
        if not isinstance(error, s.Unset):
            self.error = error
        meta = update.meta
        if not isinstance(meta, s.Unset):
            self.meta = meta


@dataclass(slots=True)
class SubagentState:
    """What the parent said of one child session, patched by each ``subagent_update``.

    Attributes:
        session_id: the child's session id.
        title: the parent's display title for the child (None: not set).
        description: the parent's description of the child's role.
        activity: the child's state, ``running``, ``idle``,
            ``requires_action``, ``unknown`` or a newer value; None when
            never reported (or cleared).
        stop_reason: why its last foreground work ended, on ``idle``.
        error: the error message of an ``idle`` state that carried one.
        usage: the ``usage`` object of its last ``idle`` state, as sent.
        can_cancel: the parent allows ``session/cancel`` on the child
            (``capabilities.cancel``).
        cwd: where the agent placed it (None: the parent's).
        additional_directories: its further roots (None: the parent's).
        meta: the last ``_meta`` of its ``subagent_update``.
        position: how many messages of the parent preceded its announcement:
            where a face shows it in the parent's conversation.
        state: the child's own session state, from the updates on its id.
        stated: a state was ever supplied (until then the child counts as
            running: see :attr:`running`).

    """

    session_id: str
    state: SessionState
    title: str | None = None
    description: str | None = None
    activity: str | None = None
    stop_reason: str | None = None
    error: str | None = None
    usage: dict[str, Any] | None = None
    can_cancel: bool = False
    cwd: str | None = None
    additional_directories: list[str] | None = None
    meta: dict[str, Any] | None = None
    position: int = 0
    stated: bool = False

    @property
    def label(self) -> str:
        """How a face names the child, on one line of at most :data:`LABEL_CHARS` characters.

        Its title, else its description (codex-acp sends no title and its
        whole prompt as the description), else its id: the first line, cut
        and marked :data:`~acphost.safetext.CUT` when longer; an id is
        shortened to its end (codex's ``<parent>:subagent:<uuid>``).
        """
        for text in (self.title, self.description):
            line = text.strip().split("\n", 1)[0].strip() if text else ""
            if line:
                return line if len(line) <= LABEL_CHARS else line[:LABEL_CHARS] + CUT
        sid = self.session_id
        return sid if len(sid) <= LABEL_CHARS else CUT + sid[-(LABEL_CHARS // 2) :]

    @property
    def running(self) -> bool:
        """True while the child works in the foreground (running or waiting on the user).

        Also before any state was supplied: the schema calls that activity
        "unset/unconfirmed", and codex-acp announces a child first and says it
        runs in a later update, which may come after the parent's answer.
        """
        return self.activity in BUSY or not self.stated

    def patch(self, update: u.SubagentUpdate) -> None:
        """Apply one ``subagent_update``: omitted fields stay, ``null`` clears."""
        if not isinstance(update.title, s.Unset):
            self.title = update.title
        if not isinstance(update.description, s.Unset):
            self.description = update.description
        if not isinstance(update.capabilities, s.Unset):
            caps = update.capabilities
            self.can_cancel = caps is not None and caps.cancel is not None
        if not isinstance(update.state, s.Unset):
            self._set_activity(update.state)
        if not isinstance(update.cwd, s.Unset):
            self.cwd = update.cwd
        if not isinstance(update.additional_directories, s.Unset):
            dirs = update.additional_directories
            self.additional_directories = list(dirs) if dirs is not None else None
        if not isinstance(update.meta, s.Unset):
            self.meta = update.meta

    def _set_activity(self, state: u.StateUpdate | None) -> None:
        # "A concrete state replaces the entire previous state object": the
        # stop reason, error and usage belong to one idle snapshot.
        self.stop_reason = self.error = self.usage = None
        self.stated = True
        if state is None:
            self.activity = None
            return
        kind = getattr(state, "state", None) or getattr(state, "kind", None)
        self.activity = kind if isinstance(kind, str) and kind else None
        stop = getattr(state, "stop_reason", None)
        self.stop_reason = stop if isinstance(stop, str) else None
        error = getattr(state, "error", None)
        message = getattr(error, "message", None)
        self.error = message if isinstance(message, str) else None
        usage = getattr(state, "usage", None)
        self.usage = usage.to_wire() if usage is not None else None


#: The longest label a face shows for a subagent (see :attr:`SubagentState.label`).
LABEL_CHARS = 60


_CHUNK_ROLES: dict[str, Role] = {
    "user_message_chunk": "user",
    "agent_message_chunk": "agent",
    "agent_thought_chunk": "thought",
}
_CHUNKS = frozenset((s.UserMessageChunk, s.AgentMessageChunk, s.AgentThoughtChunk))


_Rule = Callable[["SessionState", Any], object]


class SessionState:
    """Everything the host knows about one session, updated in wire order.

    Attributes:
        messages: the conversation, chunks coalesced (a tool call or compaction between
            two chunks of one role ends the message before it).
        tool_calls: every tool call by id, merged.
        plan: the current plan entries (replaced whole).
        modes: the mode state, if the agent has modes.
        config_options: the current configuration options.
        available_commands: the slash commands the agent offers.
        usage: the last ``usage_update``.
        title: the session title from ``session_info_update``.
        compactions: the context compactions by id, in the order they appeared.
        keep_history: when False, message content is not kept (streaming
            hosts that render and forget keep memory flat).
        inert: the update classes that change nothing here as it is set up
            (the message chunks when ``keep_history`` is False): the session
            does not call :meth:`apply` for them, once per streamed chunk.
        parent_id: the session this one was forked or spawned from.
        children: the ids of the sessions forked or spawned from this one.
        subagents: the child sessions the agent announced for its subagents,
            by id, in announce order (``subagent_update``).
        session_messages: the messages between this session and others, by
            ``messageId``, in the order they appeared.
        on_subagent: called with ``(child, new)`` after each
            ``subagent_update`` was applied (the client's session tree).
        admit: asked with a new child's id before it is kept; False ignores
            the announcement (the tree refuses ids it cannot route).
        system_prompt: the system prompt the host set for the session, when
            the agent supports setting one.

    """

    def __init__(self, *, keep_history: bool = True) -> None:
        self.messages: list[Message] = []
        # len(messages) when a tool call or a compaction last appeared: a chunk
        # after it starts a new message, so each sits between the text around it.
        self._break_at = -1
        self.tool_calls: dict[str, ToolCallState] = {}
        self.plan: list[s.PlanEntry] = []
        self.modes: s.SessionModeState | None = None
        self.config_options: list[s.SessionConfigOption] = []
        self.available_commands: list[s.AvailableCommand] = []
        self.usage: s.UsageUpdate | None = None
        self.title: str | None = None
        self.updated_at: str | None = None
        self.compactions: dict[str, Compaction] = {}
        self.inert: frozenset[type] = frozenset()
        self.keep_history = keep_history
        self.parent_id: str | None = None
        self.children: list[str] = []
        self.subagents: dict[str, SubagentState] = {}
        self.session_messages: dict[str, SessionMessageState] = {}
        self.on_subagent: Callable[[SubagentState, bool], object] | None = None
        self.admit: Callable[[str], bool] | None = None
        self._ignored_subagents = 0
        self.system_prompt: str | None = None

    @property
    def keep_history(self) -> bool:
        """Whether message content is kept (see the class attributes)."""
        return self._keep_history

    @keep_history.setter
    def keep_history(self, keep: bool) -> None:
        self._keep_history = keep
        self.inert = frozenset() if keep else _CHUNKS

    @property
    def current_mode_id(self) -> str | None:
        """The id of the current mode, or None when the agent has no modes."""
        return self.modes.current_mode_id if self.modes is not None else None

    def apply(self, update: s.SessionUpdate) -> None:
        """Fold one update into the state (the only mutator besides the setters)."""
        cls = type(update)
        rule = _RULES.get(cls)
        if rule is None:
            rule = _RULES[cls] = _rule_for(cls)
        rule(self, update)

    def _apply_chunk(
        self, update: s.UserMessageChunk | s.AgentMessageChunk | s.AgentThoughtChunk
    ) -> None:
        if self.keep_history:
            self._add_chunk(_CHUNK_ROLES[update.session_update], update)

    def _apply_tool_call(self, update: s.ToolCallStart) -> None:
        # A repeated tool_call (some agents send one again) starts the call
        # afresh but keeps its place in the conversation.
        before = self.tool_calls.get(update.tool_call_id)
        position = before.position if before is not None else len(self.messages)
        self._break_at = len(self.messages)
        call = ToolCallState(update.tool_call_id, position=position)
        call.merge(update)
        self.tool_calls[update.tool_call_id] = call

    def _apply_plan(self, update: s.PlanUpdate) -> None:
        self.plan = list(update.entries)

    def _apply_commands(self, update: s.AvailableCommandsUpdate) -> None:
        self.available_commands = list(update.available_commands)

    def _apply_mode(self, update: s.CurrentModeUpdate) -> None:
        self.set_current_mode(update.current_mode_id)

    def _apply_config(self, update: s.ConfigOptionUpdate) -> None:
        self.config_options = list(update.config_options)

    def _apply_info(self, update: s.SessionInfoUpdate) -> None:
        # Schema SessionInfoUpdate: omitted is unchanged, "set to null to clear".
        if not isinstance(update.title, s.Unset):
            self.title = update.title
        if not isinstance(update.updated_at, s.Unset):
            self.updated_at = update.updated_at

    def _apply_usage(self, update: s.UsageUpdate) -> None:
        self.usage = update

    def _apply_compaction(self, update: s.CompactionUpdate) -> None:
        self._compaction(update.compaction_id).patch(update)

    def _apply_summary_chunk(self, update: s.CompactionSummaryChunk) -> None:
        self._compaction(update.compaction_id).summary.append(update.content)

    def _compaction(self, compaction_id: str) -> Compaction:
        found = self.compactions.get(compaction_id)
        if found is None:
            found = Compaction(compaction_id, position=len(self.messages))
            self._break_at = len(self.messages)
            self.compactions[compaction_id] = found
        return found

    def _apply_subagent(self, update: Any) -> None:
        sid = update.session_id
        child = self.subagents.get(sid)
        new = child is None
        if child is None:
            if self.admit is not None and not self.admit(sid):
                return
            if len(self.subagents) >= MAX_SUBAGENTS:
                self._ignored_subagents += 1
                if self._ignored_subagents == 1:
                    logger.warning("ignoring the subagents past the first %d", MAX_SUBAGENTS)
                return
            child = SubagentState(
                sid, SessionState(keep_history=self.keep_history), position=len(self.messages)
            )
            self._break_at = len(self.messages)
            self.subagents[sid] = child
            self.children.append(sid)
        child.patch(update)
        if self.on_subagent is not None:
            self.on_subagent(child, new)

    def _apply_session_message(self, update: Any) -> None:
        message = self._session_message(update.message_id)
        if message is not None:
            message.patch(update, keep_content=self.keep_history)

    def _apply_session_message_chunk(self, update: Any) -> None:
        message = self._session_message(update.message_id)
        if message is not None and self.keep_history:
            block = stable_block(update.content)
            if block is not None:
                message.append(block)

    def _session_message(self, message_id: str) -> SessionMessageState | None:
        found = self.session_messages.get(message_id)
        if found is None:
            if len(self.session_messages) >= MAX_SESSION_MESSAGES:
                return None
            found = SessionMessageState(message_id, position=len(self.messages))
            self._break_at = len(self.messages)
            self.session_messages[message_id] = found
        return found

    def _apply_nothing(self, update: s.SessionUpdate) -> None:
        pass  # a notice, or an unknown variant: in the host's stream, not in the state

    def merge_tool_call(self, update: s.ToolCallProgress | s.ToolCallUpdate) -> ToolCallState:
        """Merge a partial tool-call update, creating the call if it is new."""
        call = self.tool_calls.get(update.tool_call_id)
        if call is None:
            call = ToolCallState(update.tool_call_id, announced=False, position=len(self.messages))
            self._break_at = len(self.messages)
            self.tool_calls[update.tool_call_id] = call
        call.merge(update)
        return call

    def _add_chunk(
        self, role: Role, chunk: s.UserMessageChunk | s.AgentMessageChunk | s.AgentThoughtChunk
    ) -> None:
        msgs = self.messages
        mid = chunk.message_id
        if msgs and self._break_at != len(msgs):
            last = msgs[-1]
            if last.role == role and (mid is None or mid == last.message_id):
                last.content.append(chunk.content)
                return
        msgs.append(Message(role, mid, [chunk.content]))

    def add_user_prompt(self, blocks: list[s.ContentBlock]) -> None:
        """Record the host's own prompt as a user message (agents do not echo it)."""
        if self.keep_history:
            self.messages.append(Message("user", None, list(blocks)))

    def set_current_mode(self, mode_id: str) -> None:
        """Record the current mode (after ``set_mode`` or a ``current_mode_update``)."""
        if self.modes is None:
            self.modes = s.SessionModeState(current_mode_id=mode_id, available_modes=[])
        else:
            self.modes = s.SessionModeState(
                current_mode_id=mode_id,
                available_modes=self.modes.available_modes,
                meta=self.modes.meta,
            )

    def cancel_pending_tool_calls(self) -> list[ToolCallState]:
        """Mark every unfinished tool call cancelled; return them."""
        marked = []
        for call in self.tool_calls.values():
            if not call.done:
                call.cancelled = True
                marked.append(call)
        return marked

    def last_agent_text(self) -> str:
        """The text of the agent's messages after the last user message."""
        parts: list[str] = []
        for msg in reversed(self.messages):
            if msg.role == "user":
                break
            if msg.role == "agent":
                parts.append(msg.text)
        return "".join(reversed(parts))


# The rule for each update class, found by a dict lookup rather than an
# isinstance chain (``apply`` runs for every streamed update).
_RULES: dict[type, _Rule] = {
    s.UserMessageChunk: SessionState._apply_chunk,
    s.AgentMessageChunk: SessionState._apply_chunk,
    s.AgentThoughtChunk: SessionState._apply_chunk,
    s.ToolCallStart: SessionState._apply_tool_call,
    s.ToolCallProgress: SessionState.merge_tool_call,
    s.PlanUpdate: SessionState._apply_plan,
    s.AvailableCommandsUpdate: SessionState._apply_commands,
    s.CurrentModeUpdate: SessionState._apply_mode,
    s.ConfigOptionUpdate: SessionState._apply_config,
    s.SessionInfoUpdate: SessionState._apply_info,
    s.UsageUpdate: SessionState._apply_usage,
    s.CompactionUpdate: SessionState._apply_compaction,
    s.CompactionSummaryChunk: SessionState._apply_summary_chunk,
    s.Notice: SessionState._apply_nothing,
    s.UnknownSessionUpdate: SessionState._apply_nothing,
}


#: The rules of the session tree's updates, by wire kind: their classes live
#: in the unstable schema, which this module does not import.
_TREE_RULES: dict[str, _Rule] = {
    "subagent_update": SessionState._apply_subagent,
    "session_message": SessionState._apply_session_message,
    "session_message_chunk": SessionState._apply_session_message_chunk,
}


def _rule_for(cls: type) -> _Rule:
    """The rule of a class not in the table: its nearest listed base's, or its kind's."""
    for base in cls.__mro__:
        rule = _RULES.get(base)
        if rule is not None:
            return rule
    kind = getattr(cls, "session_update", None)
    return (
        _TREE_RULES.get(kind, SessionState._apply_nothing)
        if isinstance(kind, str)
        else (SessionState._apply_nothing)
    )
