"""Tool calls as the host keeps them: merged from their updates, with the terminals agents run.

One rule set of :mod:`._state`, kept apart by reason to change: a
``tool_call_update`` merges only the fields it carries; its ``_meta`` is
merged key by key, except the keys of a terminal the agent runs itself,
which are kept typed in :attr:`ToolCallState.terminals`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import schema as s
from ..host import DEFAULT_OUTPUT_BYTE_LIMIT, OutputBuffer
from ._v2_updates import APPEND

__all__ = [
    "MAX_TERMINALS_PER_CALL",
    "AgentTerminal",
    "TerminalReport",
    "ToolCallState",
    "terminal_report",
]


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
#: Content items a tool call keeps when they are appended one by one.
MAX_CONTENT_ITEMS = 1_024


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
            extra = update.extra
            if extra and extra.get(APPEND) is True:
                # One item appended (ACP v2 tool_call_content_chunk): the
                # newest are kept, the oldest dropped past the bound.
                self.content.extend(update.content)
                if len(self.content) > MAX_CONTENT_ITEMS:
                    del self.content[: len(self.content) - MAX_CONTENT_ITEMS]
            else:
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
