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
  (schema ``Notice``); hosts see them in the update stream.

A session can also have a parent and children (a fork, and the child
sessions of subagents), and a system prompt: kept here so that the faces can
show them once the protocol carries them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from .. import schema as s

__all__ = ["Compaction", "Message", "SessionState", "ToolCallState"]

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
        return "".join(_block_text(b) for b in self.content)


def _block_text(block: Any) -> str:
    # Message text: a text block's text, a link's or an embedded resource's URI.
    if isinstance(block, s.TextContentBlock):
        return block.text
    if isinstance(block, s.ResourceLinkContentBlock):
        return block.uri
    if isinstance(block, s.EmbeddedResourceContentBlock):
        return block.resource.uri
    return ""


@dataclass(slots=True)
class ToolCallState:
    """The host's view of one tool call, merged from all its updates.

    Attributes:
        cancelled: set by the host when the turn was cancelled while the call
            was still pending or running (the protocol has no such status).
        position: how many messages preceded it when it first appeared: where
            a replayed session (``session/load``) shows it among them.

    """

    tool_call_id: str
    title: str = ""
    name: str | None = None
    kind: str | None = None
    status: str | None = None
    content: list[s.ToolCallContent] = field(default_factory=list)
    locations: list[s.ToolCallLocation] = field(default_factory=list)
    raw_input: Any = None
    raw_output: Any = None
    meta: dict[str, Any] | None = None
    cancelled: bool = False
    announced: bool = True
    position: int = 0

    @property
    def shown_name(self) -> str | None:
        """The tool's name when it adds to the title and the kind, else None.

        ``Bash`` beside "Run the tests" tells which tool runs them; ``Edit``
        beside the kind ``edit``, or ``Read`` in "Read hello.py", does not.
        Every face shows this, not :attr:`name`.
        """
        name = self.name
        if not name:
            return None
        folded = name.casefold()
        if folded == (self.kind or "").casefold() or folded in self.title.casefold():
            return None
        return name

    @property
    def done(self) -> bool:
        """True once the call completed or failed (or the turn cancelled it)."""
        return self.status in ("completed", "failed") or self.cancelled

    def merge(self, update: s.ToolCallStart | s.ToolCallProgress | s.ToolCallUpdate) -> None:
        """Apply the fields an update carries; absent (``None``) fields are kept."""
        if update.title is not None:
            self.title = update.title
        if update.name is not None:
            self.name = update.name
        if update.kind is not None:
            self.kind = update.kind
        if update.status is not None:
            self.status = update.status
        if update.content is not None:
            self.content = list(update.content)
        if update.locations is not None:
            self.locations = list(update.locations)
        if update.raw_input is not None:
            self.raw_input = update.raw_input
        if update.raw_output is not None:
            self.raw_output = update.raw_output
        if update.meta is not None:
            self.meta = update.meta


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
        return "".join(_block_text(b) for b in self.summary)

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
        if update.title is not None:
            self.title = update.title
        if update.updated_at is not None:
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


def _rule_for(cls: type) -> _Rule:
    """The rule of a class not in the table: that of its nearest listed base."""
    for base in cls.__mro__:
        rule = _RULES.get(base)
        if rule is not None:
            return rule
    return SessionState._apply_nothing
