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

A session can also have a parent and children (a fork, and the child
sessions of subagents), and a system prompt: kept here so that the faces can
show them once the protocol carries them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from .. import schema as s
from ..content import block_text
from ..host import DEFAULT_OUTPUT_BYTE_LIMIT, OutputBuffer

__all__ = [
    "AgentTerminal",
    "Compaction",
    "Message",
    "SessionState",
    "TerminalReport",
    "ToolCallState",
    "terminal_report",
]

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


#: The ``_meta`` keys of a terminal the agent runs itself (the convention of
#: Zed's adapters, which codex-acp follows): announced with ``terminal_info
#: {terminal_id, cwd}``, then ``terminal_output_delta {terminal_id, data}``
#: (appended) and ``terminal_exit {terminal_id, exit_code, signal}``. ACP's own
#: terminals are created by the client (``terminal/create``); these never are,
#: so their output exists only in these keys.
_TERMINAL_KEYS = ("terminal_info", "terminal_output_delta", "terminal_exit")

#: The most terminals one tool call may announce: ``_meta`` is the agent's,
#: of any shape and size, and each terminal keeps up to the output limit.
MAX_TERMINALS_PER_CALL = 8


class AgentTerminal:
    """A terminal the agent ran itself and reports only in its tool call's ``_meta``.

    Its output is kept as the host keeps its own terminals' output: the tail,
    within :data:`~acphost.host.DEFAULT_OUTPUT_BYTE_LIMIT` bytes, cut at a
    character, with :attr:`truncated` set once older output was dropped.

    Attributes:
        terminal_id: the agent's id for it (its ``terminal_info``).
        cwd: the directory it ran in, as the agent says (``None``: not sent).
        exit_code: its exit code, once it ended (``None``: none, or a signal).
        signal: the signal that ended it, when one did.
        exited: the agent reported its exit; later output is ignored.
        written: how many output bytes were appended in all (kept or not):
            a mark for :meth:`since`.

    """

    __slots__ = (
        "_output",
        "cwd",
        "exit_code",
        "exited",
        "signal",
        "terminal_id",
        "written",
    )

    def __init__(self, terminal_id: str, cwd: str | None = None) -> None:
        self.terminal_id = terminal_id
        self.cwd = cwd
        self.exit_code: int | None = None
        self.signal: str | None = None
        self.exited = False
        self.written = 0
        self._output = OutputBuffer(DEFAULT_OUTPUT_BYTE_LIMIT)

    @property
    def output(self) -> str:
        """The output kept (the tail, when :attr:`truncated`)."""
        return self._output.text(final=self.exited)

    @property
    def truncated(self) -> bool:
        """Older output was dropped to stay within the limit."""
        return self._output.truncated

    @property
    def exit_text(self) -> str | None:
        """``exit code N`` or ``killed by SIG``, once it ended; else None."""
        if not self.exited:
            return None
        if self.exit_code is not None:
            return f"exit code {self.exit_code}"
        return f"killed by {self.signal}" if self.signal else "exited"

    def since(self, mark: int) -> str | None:
        """The output appended after ``written`` was ``mark``; None if some was dropped.

        A face that follows the terminal writes what is new; on None it shows
        :attr:`output` afresh.
        """
        size = self.written - mark
        if size > len(self._output):
            return None
        # Whole chunks were appended and only the front is cut: the last
        # ``size`` bytes start on a character.
        return self._output.tail(size).decode("utf-8", errors="replace")

    def append(self, data: str) -> None:
        """Append output (after an exit, nothing is appended)."""
        if self.exited or not data:
            return
        # Encoded as UTF-8 (a lone surrogate, which JSON can carry, becomes
        # "?"): the limit counts bytes, as for the host's own terminals.
        raw = data.encode("utf-8", errors="replace")
        if len(raw) > DEFAULT_OUTPUT_BYTE_LIMIT:
            # Only its tail can be kept: copy no more, starting on a character.
            start = len(raw) - DEFAULT_OUTPUT_BYTE_LIMIT
            while start < len(raw) and raw[start] & 0xC0 == 0x80:
                start += 1
            raw = raw[start:]
            self._output.truncated = True
        self._output.append(raw)
        self.written += len(raw)


@dataclass(frozen=True, slots=True)
class TerminalReport:
    """What one tool call update's ``_meta`` says of the terminals the agent runs.

    Attributes:
        announced: the id of ``terminal_info`` (None: none, or not a string).
        cwd: its ``cwd``, when a string.
        output_of: the id of ``terminal_output_delta``.
        data: its ``data`` (``""``: none, or not a string).
        exit_of: the id of ``terminal_exit``.
        exit_code: its ``exit_code``, when an integer.
        signal: its ``signal``, when a string or an integer.

    """

    announced: str | None = None
    cwd: str | None = None
    output_of: str | None = None
    data: str = ""
    exit_of: str | None = None
    exit_code: int | None = None
    signal: str | None = None


def terminal_report(meta: Any) -> TerminalReport | None:
    """Read the agent-run terminal keys of a ``_meta``; None when it has none.

    ``_meta`` is the agent's, of any shape: a key of the wrong type counts as
    absent, never as an error (ACP "Extensibility": nothing in ``_meta`` may
    be relied upon).
    """
    if not isinstance(meta, dict) or not any(key in meta for key in _TERMINAL_KEYS):
        return None
    info = meta.get("terminal_info")
    delta = meta.get("terminal_output_delta")
    end = meta.get("terminal_exit")
    code = _field(end, "exit_code")
    signal = _field(end, "signal")
    return TerminalReport(
        announced=_text_field(info, "terminal_id") or None,
        cwd=_text_field(info, "cwd"),
        output_of=_text_field(delta, "terminal_id") or None,
        data=_text_field(delta, "data") or "",
        exit_of=_text_field(end, "terminal_id") or None,
        exit_code=code if type(code) is int else None,
        signal=str(signal) if type(signal) in (str, int) and signal else None,
    )


def _field(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _text_field(value: Any, key: str) -> str | None:
    found = _field(value, key)
    return found if isinstance(found, str) else None


@dataclass(slots=True)
class ToolCallState:
    """The host's view of one tool call, merged from all its updates.

    Attributes:
        cancelled: set by the host when the turn was cancelled while the call
            was still pending or running (the protocol has no such status).
        position: how many messages preceded it when it first appeared: where
            a replayed session (``session/load``) shows it among them.
        meta: its ``_meta``, merged key by key from all its updates (without
            the agent-run terminal keys, kept in :attr:`terminals`).
        terminals: the terminals the agent ran itself for this call, by id,
            in the order it announced them.

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
    terminals: dict[str, AgentTerminal] = field(default_factory=dict)

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
        meta = update.meta
        if isinstance(meta, dict) and meta:
            self._merge_meta(meta)

    def _merge_meta(self, meta: dict[str, Any]) -> None:
        # _meta is the agent's, of any shape: a value of the wrong type is
        # ignored, never an error (ACP "Extensibility": _meta carries what
        # implementations agree on; nothing in it may be relied upon).
        kept = {k: v for k, v in meta.items() if k not in _TERMINAL_KEYS}
        if kept:
            self.meta = {**self.meta, **kept} if self.meta else kept
        report = terminal_report(meta)
        if report is None:
            return
        if report.announced and (
            report.announced in self.terminals or len(self.terminals) < MAX_TERMINALS_PER_CALL
        ):
            terminal = self.terminals.get(report.announced)
            if terminal is None:
                terminal = self.terminals[report.announced] = AgentTerminal(report.announced)
            terminal.cwd = report.cwd or terminal.cwd
        # Output and exit count only for a terminal this call announced: an id
        # of no terminal, or of another call's, changes nothing.
        terminal = self.terminals.get(report.output_of or "")
        if terminal is not None:
            terminal.append(report.data)
        terminal = self.terminals.get(report.exit_of or "")
        if terminal is not None and not terminal.exited:
            terminal.exit_code = report.exit_code
            terminal.signal = report.signal
            terminal.exited = True


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
