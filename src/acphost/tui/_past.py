"""A past session from the local history, shown read-only like a live transcript.

:func:`show_record` renders a :class:`~acphost.history.SessionRecord` with the
live transcript's widgets, as far as the record allows: each prompt (with
its file chips), the agent's messages and thoughts, tool cards (title, kind,
status, locations, diffs: no terminal output is kept), subagents (their card
and answer), plans, permission
decisions, how each turn ended (the host's reason too: a budget, a cancel)
and what it used. :class:`PastSessionScreen` shows it read-only and offers
to resume it when the agent can.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import Key
from textual.widget import AwaitMount, Widget
from textual.widgets import Static
from textual.worker import Worker

from .. import schema as s
from .. import view as v
from ..client import SessionState, ToolCallState
from ..history import SessionRecord, ToolCallRecord, TurnRecord, local_time, usage_text
from ._blocks import UserBubble
from ._history import cost_text
from ._modal import OnceModal
from ._model import home_relative
from ._notes import Notice, stop_note
from ._plan import plan_text
from ._safe import agent_line, agent_markdown, agent_text
from ._subagents import SubagentCard
from ._terminals import TerminalBuffers
from ._toolcard import ToolCard
from ._transcript import StreamingMarkdown, ThoughtBlock, Transcript

__all__ = ["RESUME", "PastSessionScreen", "record_heading", "show_record", "show_record_gradually"]

#: Turns rendered first when a past session opens (then twice as many per step).
TURNS_PER_BATCH = 8

#: What :class:`PastSessionScreen` answers when the user asks to resume.
RESUME = "resume"


def _prompt_blocks(turn: TurnRecord) -> list[s.ContentBlock]:
    blocks: list[s.ContentBlock] = []
    for raw in turn.prompt_blocks:
        try:
            blocks.append(s.decode_content_block(raw))
        except s.SchemaError:
            continue  # imported from an older or foreign record: the text below stands in
    return blocks or [s.TextContentBlock(text=turn.prompt)]


def _call_state(call: ToolCallRecord) -> ToolCallState:
    """A tool call as the record keeps it, for a :class:`ToolCard`."""
    content: list[s.ToolCallContent] = [
        s.DiffToolCallContent(
            path=str(d.get("path", "")),
            old_text=d.get("old_text"),
            new_text=str(d.get("new_text") or ""),
        )
        for d in call.diffs
    ]
    locations = [
        s.ToolCallLocation(path=str(loc.get("path", "")), line=_line(loc.get("line")))
        for loc in call.locations
    ]
    return ToolCallState(
        tool_call_id=call.tool_call_id,
        title=call.title,
        name=call.name,
        kind=call.kind,
        status=None if call.status == "cancelled" else call.status,
        content=content,
        locations=locations,
        cancelled=call.status == "cancelled",
    )


def _line(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _plan(entries: Sequence[Any]) -> list[s.PlanEntry]:
    plan = []
    for e in entries:
        try:
            plan.append(s.PlanEntry.from_wire(e))
        except s.SchemaError:
            continue  # a record from elsewhere: an entry it cannot show
    return plan


def _notice(text: str, level: str = "") -> Notice:
    return Notice(agent_text(text), classes=f"-{level}" if level else "")


def _turn_widgets(turn: TurnRecord, cwd: str, terminals: TerminalBuffers) -> list[Widget]:
    """The widgets of one recorded turn, in the order the live transcript showed them."""
    out: list[Widget] = [UserBubble(_prompt_blocks(turn), cwd)]
    calls = {c.tool_call_id: c for c in turn.tool_calls}
    shown: set[str] = set()

    def card(call: ToolCallRecord) -> None:
        shown.add(call.tool_call_id)
        out.append(ToolCard(_call_state(call), cwd, terminals))

    for event in turn.events:
        kind = event.get("kind")
        text = event.get("text")
        if kind == "text" and text:
            out.append(StreamingMarkdown(agent_markdown(str(text))))
        elif kind == "thought" and text:
            out.append(ThoughtBlock(agent_markdown(str(text))))
        elif kind == "media" and text:
            # A recorded turn keeps the placeholder line of an image or resource.
            out.append(Static(agent_line(str(text), "dim"), classes="media"))
        elif kind == "plan":
            out.append(Static(plan_text(_plan(event.get("entries") or ())), classes="plan"))
        elif kind == "tool" and event.get("id") in calls and event["id"] not in shown:
            card(calls[event["id"]])
        elif kind == "subagent" and isinstance(event.get("id"), str):
            # What the record keeps of a subagent: its card and its answer.
            child = v.stored_subagent(event)
            answer = StreamingMarkdown(agent_markdown(child.text or "(no answer recorded)"))
            out.append(SubagentCard(child, answer, running=False, live=False))
    if not turn.events and turn.text:
        out.append(StreamingMarkdown(agent_markdown(turn.text)))
    for call in turn.tool_calls:  # calls only a permission request announced
        if call.tool_call_id not in shown:
            card(call)
    for p in turn.permissions:
        kind_note = f" ({p.option_kind})" if p.option_kind else ""
        what = p.title or p.tool_call_id or "(unknown tool call)"
        level = "" if p.decision == "allow" else "warning"
        out.append(_notice(f"permission: {what}: {p.decision}{kind_note}", level))
    if turn.error:
        out.append(_notice(f"✗ {turn.error}", "error"))
    if not turn.complete:
        out.append(_notice("✗ incomplete: the host ended before the turn did", "error"))
    elif turn.host_stop and turn.host_stop.startswith("budget"):
        out.append(_notice(f"⊘ turn stopped by the {turn.host_stop}", "warning"))
    elif turn.stop_reason:
        note, level = stop_note(turn.stop_reason)
        if note and turn.host_stop:
            note += f" ({turn.host_stop})"
        if note:
            out.append(_notice(note, level))
    used = usage_text(turn.usage)
    if used:
        out.append(_notice(f"used: {used}"))
    return out


def show_record(transcript: Transcript, record: SessionRecord) -> None:
    """Render a recorded session's turns into a transcript at once, oldest first."""
    terminals = TerminalBuffers()
    widgets = [w for turn in record.turns for w in _turn_widgets(turn, transcript.cwd, terminals)]
    _mounted(transcript, widgets)


async def show_record_gradually(
    transcript: Transcript, record: SessionRecord, first: int = TURNS_PER_BATCH
) -> None:
    """Render a recorded session in steps, the app answering keys in between.

    The first ``first`` turns show at once; each later step takes twice as
    many turns as the one before, since every mount lays out the whole
    transcript again (so a long session costs a few layouts, not one per step).
    """
    terminals = TerminalBuffers()
    turns = record.turns
    start, batch = 0, first
    while start < len(turns):
        part = turns[start : start + batch]
        widgets = [w for turn in part for w in _turn_widgets(turn, transcript.cwd, terminals)]
        await _mounted(transcript, widgets)
        start, batch = start + batch, batch * 2


def _mounted(transcript: Transcript, widgets: list[Widget]) -> AwaitMount:
    # One mount for many widgets: one layout, not one per widget. Thoughts
    # show finished, collapsed under their first words.
    mounting = transcript.mount_all(widgets)
    for widget in widgets:
        if isinstance(widget, ThoughtBlock):
            widget.finish()
    transcript.end_turn()
    return mounting


def record_heading(record: SessionRecord) -> Text:
    """``title · agent · ~/dir · 2025-01-01 12:00 · 3 turns · 0.05 USD`` (inert)."""
    title = record.title or next((t.prompt for t in record.turns if t.prompt), "") or record.id
    cost = cost_text(record.usage.cost_amount, record.usage.cost_currency)
    parts = [
        record.agent,
        home_relative(record.cwd),
        local_time(record.started_at),
        f"{len(record.turns)} turn{'s' if len(record.turns) != 1 else ''}",
    ]
    if cost:
        parts.append(cost)
    heading = Text("📜 ", style="bold", no_wrap=True, overflow="ellipsis")
    heading.append_text(agent_line(" ".join(title.split())[:60], "bold"))
    heading.append_text(agent_line(" · " + " · ".join(parts), "dim"))
    return heading


class PastSessionScreen(OnceModal[str | None]):
    """A recorded session, read-only; ``r`` resumes it in a new tab when the agent can.

    Args:
        record: the session.
        resume: what ``r`` does (``resume in a new tab (session/load)``...), or
            ``""`` when it cannot be resumed.
        why_not: why it cannot be, when ``resume`` is ``""``.

    Answers :data:`RESUME` or ``None``.
    """

    DEFAULT_CSS = """
    PastSessionScreen { align: center middle; }
    PastSessionScreen > Vertical {
        width: 100%; height: 100%; border: thick $secondary; background: $surface;
    }
    PastSessionScreen .past-heading { padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    PastSessionScreen .past-mark { padding: 0 1; color: $warning; text-style: bold; }
    PastSessionScreen .past-hint { padding: 0 1; color: $text-muted; }
    PastSessionScreen Transcript .plan { padding: 0 1; border-left: thick $accent; }
    """

    BINDINGS = [  # noqa: RUF012 - Textual's idiom
        Binding("pageup", "page(-1)", show=False),
        Binding("pagedown", "page(1)", show=False),
    ]

    def __init__(self, record: SessionRecord, *, resume: str, why_not: str = "") -> None:
        super().__init__()
        self.record = record
        self.resume = resume
        self.why_not = why_not
        self.transcript = Transcript(SessionState(), record.cwd, TerminalBuffers())
        #: The worker rendering the record (done once every turn is shown).
        self.rendering: Worker[None] | None = None

    def compose(self) -> ComposeResult:
        """Heading, the read-only mark, the transcript, the keys."""
        with Vertical():
            yield Static(record_heading(self.record), classes="past-heading")
            mark = Text("read-only: recorded in the local history; nothing here is sent")
            yield Static(mark, classes="past-mark")
            yield self.transcript
            if self.resume:
                hint = f"r {self.resume} · ↑↓ PgUp PgDn scroll · Esc back"
            else:
                hint = f"cannot resume: {self.why_not} · ↑↓ PgUp PgDn scroll · Esc back"
            yield Static(agent_line(hint), classes="past-hint")

    def on_mount(self) -> None:
        """Render the record (a few turns at a time); the transcript takes the scrolling keys."""
        self.rendering = self.run_worker(
            show_record_gradually(self.transcript, self.record), exit_on_error=False
        )
        self.transcript.focus()

    def action_page(self, step: int) -> None:
        """Scroll the transcript by a page."""
        if step > 0:
            self.transcript.scroll_page_down()
        else:
            self.transcript.scroll_page_up()

    def on_key(self, event: Key) -> None:
        """``r`` resumes (when possible); Esc goes back."""
        if event.key == "escape":
            event.stop()
            self.answer(None)
        elif event.character == "r" and self.resume:
            event.stop()
            self.answer(RESUME)
