"""The recorder's fast paths store exactly what the plain ones would.

A long text is redacted in parts, cut only where no secret crosses the cut;
permission answers come typed from the event stream; a block of updates
appends to the text run it is in. Each is checked against the general way
on the same input.
"""

from __future__ import annotations

import pytest

from acphost import AcpClient
from acphost import schema as s
from acphost.client import (
    EventStream,
    PermissionDecided,
    SessionState,
    TurnEnded,
    TurnStarted,
    UpdatesReceived,
)
from acphost.history import HistoryRecorder, HistoryStore, TurnRecord, _textrun
from acphost.history._scrub import scrub_turn
from acphost.history._textrun import TextRun, lookahead
from acphost.host import PermissionOutcome, PermissionRequest
from acphost.redact import Redactor

from .conftest import DEMO, record
from .test_recorder import only_session

SECRET = "sk-" + "a1b2c3d4" * 4


class FakeSession:
    """What a recording uses of a Session: its id, state, version and its client's event stream."""

    protocol_version = 1

    def __init__(self, sid="s-1"):
        self.id = sid
        self.state = SessionState()
        self._events = EventStream()

    def receive(self, update):
        """One update, told as a block of one."""
        self.block([update])

    def block(self, updates):
        for update in updates:
            self.state.apply(update)
        self._events.emit(UpdatesReceived(self, list(updates)))

    def start(self, prompt="go"):
        self._prompt = [s.TextContentBlock(text=prompt)]
        self._events.emit(TurnStarted(self, None, self._prompt))

    def end(self, result, host_stop=None):
        self._events.emit(TurnEnded(self, None, self._prompt, result, host_stop))


class Result:
    stop_reason = "end_turn"
    text = ""  # a keep_history=False client keeps no message text
    tool_calls = ()
    usage = None


def chunk(text):
    return s.AgentMessageChunk(content=s.TextContentBlock(text=text))


def thought(text):
    return s.AgentThoughtChunk(content=s.TextContentBlock(text=text))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "plain words, nothing secret",
        f"my key is {SECRET} and again {SECRET}",
        "password=hunter2 token: abcdefghijklmnop1234 Bearer eyJabc.def.ghi",
        "the configured value topsecretvalue42 at the start and end topsecretvalue42",
        "\nlines\nand\r\ncontrols \x1b[31m " + SECRET + "\n",
    ],
)
def test_a_shared_text_is_redacted_as_the_whole_turn_would_be(text):
    redactor = Redactor(["topsecretvalue42"], value_patterns=[r"hunter\d"])
    turn = TurnRecord(
        seq=1,
        started_at="2026-11-24T09:00:00.000+00:00",
        prompt=f"echo {SECRET}",
        text=text,
        events=(
            {"kind": "thought", "text": f"thinking of {SECRET}"},
            {"kind": "text", "text": text},
            {"kind": "tool", "id": "t1"},
            {"kind": "plan", "entries": [{"content": "topsecretvalue42", "status": "pending"}]},
        ),
    )
    whole = scrub_turn(redactor, turn)
    # The text as the recorder writes it: in parts, each cut where no secret crosses.
    for cut_every in (7, 16, 33):
        parts = in_parts(redactor, text, cut_every)
        assert parts == whole.events[1]["text"]
        assert SECRET not in parts and "topsecretvalue42" not in parts


def in_parts(redactor, text, part):
    """``text`` streamed one character at a time into a run cut every ``part`` characters.

    With the least lookahead the mechanism needs (twice the longest configured
    spelling; the recorder keeps at least ``LOOKAHEAD``), so that short texts
    are cut too.
    """
    keep = 2 * max(map(len, redactor.secrets), default=4)
    run = TextRun("text", 0, [])
    written = []
    saved = _textrun.PART
    _textrun.PART = part
    try:
        for char in text:
            run.pieces.append(char)
            run.gather()
            cut = run.cut(redactor.redact_text, keep)
            if cut is not None:
                written.append(cut)
    finally:
        _textrun.PART = saved
    return "".join(written) + redactor.redact_text(run.take())


def events_of(path):
    (turn,) = only_session(path).turns
    return turn


@pytest.mark.parametrize("as_block", [False, True])
def test_the_listener_keeps_runs_of_text_and_thought_as_before(store_path, as_block):
    """One update at a time or all in one block (one call), the same events."""
    recorder = HistoryRecorder.open(str(store_path))
    session = FakeSession()
    recording = recorder.open_session("fake", ["fake"], "/tmp", session)
    session.start("go")
    plan = s.PlanUpdate(entries=[s.PlanEntry(content="a", priority="low", status="pending")])
    plan2 = s.PlanUpdate(entries=[s.PlanEntry(content="b", priority="low", status="completed")])
    usage = s.UsageUpdate(used=1, size=10)
    start = s.ToolCallStart(tool_call_id="t1", title="Read", kind="read", status="pending")
    progress = s.ToolCallProgress(tool_call_id="t1", status="completed")
    updates = [
        thought("a"), thought(""), thought("b"),
        chunk("one "), chunk(""), usage, chunk("two "),
        plan, chunk("three "), plan2, chunk("four "),  # a plan replaced in place ends no run
        start, progress, chunk("five"), thought("c"), chunk("six"),
    ]  # fmt: skip
    if as_block:
        session.block(updates)
    else:
        for update in updates:
            session.receive(update)
    session.end(Result())
    recording.close()
    recorder.close()
    turn = events_of(store_path)
    assert [dict(e) for e in turn.events] == [
        {"kind": "thought", "text": "ab"},
        {"kind": "text", "text": "one two "},
        {"kind": "plan", "entries": [{"content": "b", "status": "completed", "priority": "low"}]},
        {"kind": "text", "text": "three four "},
        {"kind": "tool", "id": "t1"},
        {"kind": "text", "text": "five"},
        {"kind": "thought", "text": "c"},
        {"kind": "text", "text": "six"},
    ]
    # The turn's text: its text events a paragraph apart (each was redacted on its own).
    assert turn.text == "one two \n\nthree four \n\nfive\n\nsix"


def decided(session_id, call_id, option, kind, *, asked=True):
    request = PermissionRequest(session_id, call_id, title="Run it")
    outcome = PermissionOutcome(option, kind, "allow" if option else "cancelled")
    return PermissionDecided(session_id, request, outcome, asked)


def test_permission_answers_are_recorded_typed_from_the_event_stream(store_path):
    """The agent's own questions, as the broker decided them; not another session's,
    not an operation the host mediated (asked=False)."""
    recorder = HistoryRecorder.open(str(store_path))
    session = FakeSession()
    recording = recorder.open_session("fake", ["fake"], "/tmp", session)
    session.start("go")
    session.receive(s.ToolCallStart(tool_call_id="t1", title="Run it", kind="execute"))
    events = session._events
    events.emit(decided("s-1", "t1", "ok", "allow_once"))
    events.emit(decided("s-1", "t1", "no", "reject_always"))
    events.emit(decided("s-1", "t1", None, None))
    events.emit(decided("s-2", "t9", "ok", "allow_once"))  # another session's
    events.emit(decided("s-1", None, None, "edit", asked=False))  # a mediated write
    session.end(Result())
    recording.close()
    recorder.close()
    turn = events_of(store_path)
    assert [(p.tool_call_id, p.title, p.decision, p.option_kind, p.option_id)
            for p in turn.permissions] == [
        ("t1", "Run it", "allow", "allow_once", "ok"),
        ("t1", "Run it", "reject", "reject_always", "no"),
        ("t1", "Run it", "cancelled", None, None),
    ]  # fmt: skip


async def test_a_streamed_secret_is_redacted_in_the_text_and_its_event(store_path, workspace):
    """keep_history=False (the command line): the text stored twice, redacted once, through real pipes."""
    await record(
        store_path, [f"echo my key is {SECRET}"], cwd=workspace,
        client_options={"keep_history": False},
    )
    raw = b"".join(p.read_bytes() for p in store_path.parent.iterdir())
    assert SECRET.encode() not in raw
    turn = only_session(store_path).turns[0]
    assert turn.text == "my key is [REDACTED]"
    assert [e["text"] for e in turn.events if e["kind"] == "text"] == [turn.text]


# -- a turn's cost on a continued session: real demo agent processes ------------------------


async def _continue(store_path, sid, cwd, prompts, *, agent="demo"):
    """A second run on the agent session ``sid``: a new agent process, ``session/resume``."""
    recorder = HistoryRecorder.open(str(store_path))
    starts = []
    async with AcpClient.start(list(DEMO)) as client:
        session = await client.resume_session(sid, str(cwd))
        recording = recorder.open_session(agent, DEMO, str(cwd), session)
        for prompt in prompts:
            await session.prompt(prompt)  # recorded from the client's events
            starts.append(session.cost_start)
        recording.close()
    recorder.close()
    return starts


def _runs(store_path):
    with HistoryStore.open(str(store_path)) as store:
        summaries = sorted(store.list_sessions(), key=lambda x: x.started_at)
        return [store.get(x.id) for x in summaries]


async def test_each_run_of_a_continued_session_records_only_what_it_spent(store_path, workspace):
    """The agent's cost is the session's cumulative one: a resumed run recorded it whole."""
    _, first, _ = await record(store_path, ["spend 3"], cwd=workspace)
    sid = first.agent_session_id
    starts = await _continue(store_path, sid, workspace, ["spend 2", "spend 1"])
    # The first turn counts from what the history recorded, the next from the agent's report.
    assert [x.source for x in starts] == ["recorded", "reported"]
    assert starts[0].amount == pytest.approx(0.03, abs=1e-4)
    runs = _runs(store_path)
    costs = [[t.usage.cost_amount for t in run.turns] for run in runs]
    assert costs == [
        [pytest.approx(0.03, abs=1e-4)],
        [pytest.approx(0.02, abs=1e-4), pytest.approx(0.01, abs=1e-4)],
    ]
    # The sessions' costs are their turns' sums, so the ledger adds up to the agent's total.
    assert [run.usage.cost_amount for run in runs] == [
        pytest.approx(0.03, abs=1e-4), pytest.approx(0.03, abs=1e-4)
    ]
    with HistoryStore.open(str(store_path)) as store:
        amount, currency = store.reported_cost("demo", sid)
        assert (round(amount, 4), currency) == (0.06, "USD")
        assert store.reported_cost("other agent", sid) is None


async def test_without_a_recorded_cost_a_turn_records_a_count_from_the_first_report(
    store_path, workspace
):
    """A session the history never saw report a cost: never its whole cost as the turn's."""
    _, first, _ = await record(store_path, ["echo no cost reported"], cwd=workspace)
    starts = await _continue(store_path, first.agent_session_id, workspace, ["spend 3"])
    assert starts[0].source == "unknown"
    runs = _runs(store_path)
    (turn,) = runs[-1].turns
    assert turn.usage.cost_amount == pytest.approx(0.02, abs=1e-4)  # steps 2 and 3 of 3


async def test_a_new_session_ignores_a_record_of_the_same_agent_session_id(store_path, workspace):
    """An agent may hand out an id again: a session opened new has cost nothing yet."""
    recorder = HistoryRecorder.open(str(store_path))
    async with AcpClient.start(list(DEMO)) as client:
        session = await client.new_session(str(workspace))
        session.set_recorded_cost(s.Cost(amount=5.0, currency="USD"))
        recording = recorder.open_session("demo", DEMO, str(workspace), session)
        await session.prompt("spend 1")
        recording.close()
    recorder.close()
    assert session.cost_start.source == "new"
    runs = _runs(store_path)
    assert runs[-1].turns[0].usage.cost_amount == pytest.approx(0.01, abs=1e-4)


# -- a long turn: written in parts while it streams, its text stored once ------------------

CONFIGURED = "Zq9-configured-value-77"


def stream_long_turn(store_path, lines, *, split_at=None):
    """A begun turn of ``lines`` message chunks through a recording; returns the recording."""
    recorder = HistoryRecorder.open(str(store_path), Redactor([CONFIGURED]))
    session = FakeSession()
    recording = recorder.open_session("fake", ["fake"], "/tmp", session)
    session.start("go")
    held = []
    for i, line in enumerate(lines):
        if split_at is not None and i == split_at:
            # The configured value split across two chunks, at a part boundary's
            # neighbourhood (each cut falls after a line, this line has none).
            session.receive(chunk(line[:9]))
            session.receive(chunk(line[9:]))
        else:
            session.receive(chunk(line))
        run = recording._text_run
        held.append(sum(map(len, run.blocks)) + sum(map(len, run.pieces)))
    session.end(Result())
    recording.close()
    recorder.close()
    return held


def test_a_long_turn_holds_a_part_not_its_text_and_stores_it_once(store_path):
    lines = [f"line {i} of a long answer\n" for i in range(60_000)]  # 1.6 M characters
    held = stream_long_turn(store_path, lines)
    whole = "".join(lines)
    # What the recording holds at any time is bounded by a part, not by the turn.
    bound = _textrun.PART + lookahead((CONFIGURED,)) + _textrun.GATHER + len(lines[-1])
    assert max(held) <= bound < len(whole) // 4
    turn = events_of(store_path)
    assert turn.text == whole and [e["text"] for e in turn.events] == [whole]
    raw = b"".join(p.read_bytes() for p in store_path.parent.iterdir())
    needle = b"line 31234 of a long answer\n"
    assert raw.count(needle) == 1  # stored once (the text and its event were two copies)


@pytest.mark.parametrize("where", [0, 1, 2])
def test_a_secret_split_across_chunks_and_parts_is_masked(store_path, where):
    lines = [f"row {i:06d} " * 3 + "\n" for i in range(40_000)]
    # A long line (no line break to cut after) holding the value, near where
    # the first part is cut: a cut that went through it would leave both halves.
    near = (_textrun.PART + lookahead((CONFIGURED,))) // len(lines[0]) - 8 + where * 5
    lines[near] = "x" * 4 + CONFIGURED + " and again " + CONFIGURED + "\n"
    stream_long_turn(store_path, lines, split_at=near)
    raw = b"".join(p.read_bytes() for p in store_path.parent.iterdir())
    assert CONFIGURED[:9].encode() not in raw and CONFIGURED[9:].encode() not in raw
    turn = events_of(store_path)
    expected = Redactor([CONFIGURED]).redact_text("".join(lines))
    assert turn.text == expected
