"""A turn's record holds what happened in that turn, and no secret its pieces form together.

Through a real agent process (``hostile_agent.py``) over real pipes: what it
tells between turns or for another session goes into no turn; a secret it
splits across two messages is not joined back in clear; a secret's name and
value far apart are stored as the whole text's redaction has them, however
the text was cut into parts.
"""

from __future__ import annotations

import json
import sys

import pytest

from acphost import AcpClient
from acphost import schema as s
from acphost.client import HostConfig, UpdatesReceived
from acphost.history import HistoryRecorder, HistoryStore, _textrun
from acphost.history._textrun import TextRun, lookahead
from acphost.host import AllowAll
from acphost.redact import Redactor
from acphost.redact._patterns import _GAP, _LONG

from ..support.waiting import eventually
from .conftest import HERE, run_cli
from .hostile_agent import far_text  # the text the agent streams

AGENT = HERE / "hostile_agent.py"
HOSTILE = [sys.executable, str(AGENT)]
TOKEN = "SuperSecretValue0123456789abcdef"
GH = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def sessions(path):
    """Every recorded session, by its agent session id."""
    with HistoryStore.open(str(path)) as store:
        return {x.agent_session_id: store.get(x.id) for x in store.list_sessions()}


def said(events, text):
    """Whether an update with ``text`` in it was told on the event stream."""
    return any(
        text in getattr(getattr(u, "content", None), "text", "")
        for e in events
        if type(e) is UpdatesReceived
        for u in e.updates
    )


async def test_what_the_agent_tells_after_its_turn_goes_into_no_turn(store_path, workspace):
    recorder = HistoryRecorder.open(str(store_path))
    seen: list[object] = []
    async with AcpClient.start(HOSTILE, host=HostConfig(permissions=AllowAll())) as client:
        client.events.subscribe(seen.append)
        session = await client.new_session(str(workspace))
        recording = recorder.open_session("hostile", HOSTILE, str(workspace), session)
        await session.prompt("late")
        # The update and the answered question after the turn, all told before the next.
        await eventually(lambda: said(seen, "AFTER-ANSWER"), what="the after-turn updates")
        await session.prompt("plain")
        recording.close()
    recorder.close()
    (record,) = sessions(store_path).values()
    assert [t.text for t in record.turns] == ["turn text", "plain turn"]
    assert [t.permissions for t in record.turns] == [(), ()]
    assert all(t.tool_calls == () for t in record.turns)


async def test_another_sessions_updates_and_answers_go_into_none_of_its_turns(
    store_path, workspace
):
    recorder = HistoryRecorder.open(str(store_path))
    async with AcpClient.start(HOSTILE, host=HostConfig(permissions=AllowAll())) as client:
        one = await client.new_session(str(workspace))
        two = await client.new_session(str(workspace))
        recordings = [
            recorder.open_session("hostile", HOSTILE, str(workspace), x) for x in (one, two)
        ]
        await one.prompt("cross")  # tells s2 things while s1's turn runs
        await two.prompt("plain")
        for recording in recordings:
            recording.close()
    recorder.close()
    got = sessions(store_path)
    assert [t.text for t in got["s1"].turns] == ["own text of s1"]
    assert [t.text for t in got["s2"].turns] == ["plain turn"]
    assert [t.permissions for x in ("s1", "s2") for t in got[x].turns] == [(), ()]


def _run(tmp_path, prompt):
    """``acphost -a hostile PROMPT`` as a user runs it, the token configured; the session."""
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"agent_servers": {"hostile": {
        "command": sys.executable, "args": [str(AGENT)], "env": {"HOSTILE_TOKEN": TOKEN},
    }}}))  # fmt: skip
    r = run_cli(
        "--settings", str(settings), "-a", "hostile", "-o", "simple", prompt,
        env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")}, cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr


def _stored(store_path):
    return b"".join(p.read_bytes() for p in store_path.parent.iterdir())


def test_a_secret_split_across_two_messages_is_not_joined_in_clear(store_path, tmp_path):
    _run(tmp_path, "split")
    (record,) = sessions(store_path).values()
    (turn,) = record.turns
    # Each message as it was sent (redacted on its own), a paragraph apart.
    texts = [e["text"] for e in turn.events if e["kind"] == "text"]
    assert texts == ["token is " + TOKEN[:12], TOKEN[12:] + " and gh " + GH[:14], GH[14:] + " done"]
    assert turn.text == "\n\n".join(texts)
    out = [_stored(store_path).decode("utf-8", "replace")]
    for fmt in ("json", "md", "html"):
        r = run_cli("history", "export", record.id, "--format", fmt)
        assert r.returncode == 0, r.stderr
        out.append(r.stdout)
    out.append(run_cli("history", "show", record.id).stdout)
    for text in out:
        assert TOKEN not in text and GH not in text


def test_a_value_far_from_its_name_is_stored_as_the_whole_text_redacts_it(store_path, tmp_path):
    """Cut into parts between a name and its value, the text is what the whole would be.

    A value 300,000 blanks after its name is no ``name=value`` pair (rules
    read at most ``REACH`` characters): in clear both ways. The configured
    value is found however far it is.
    """
    _run(tmp_path, "far")
    (record,) = sessions(store_path).values()
    (turn,) = record.turns
    text = far_text(TOKEN)
    (event,) = turn.events
    assert event["text"] == Redactor([TOKEN]).redact_text(text)
    assert TOKEN not in event["text"] and TOKEN.encode() not in _stored(store_path)
    with HistoryStore.open(str(store_path)) as store:
        parts = store._conn.execute("SELECT count(*) FROM turn_text").fetchone()[0]
    assert parts > 3  # written in parts while the turn ran


def test_chunks_outside_a_turn_are_not_kept_for_the_next(store_path):
    """The recording alone, told a block before any turn: the first turn starts clean."""
    from .test_recording_cost import FakeSession, Result, chunk

    recorder = HistoryRecorder.open(str(store_path))
    session = FakeSession()
    recording = recorder.open_session("fake", ["fake"], "/tmp", session)
    session.block([chunk("before "), s.ToolCallStart(tool_call_id="t0", title="early")])
    session.start("go")
    session.receive(chunk("during"))
    session.end(Result())
    recording.close()
    recorder.close()
    (record,) = sessions(store_path).values()
    (turn,) = record.turns
    assert turn.text == "during" and turn.tool_calls == ()


def _in_parts(redactor, text, part, step):
    """``text`` streamed ``step`` characters at a time into a run cut every ``part``.

    With the lookahead the recorder keeps; returns the parts written while it
    streamed (how many) and the whole stored text.
    """
    run = TextRun("text", 0, [])
    keep = lookahead(redactor.secrets)
    written = []
    saved = _textrun.PART
    _textrun.PART = part
    try:
        for i in range(0, len(text), step):
            run.pieces.append(text[i : i + step])
            run.gather()
            cut = run.cut(redactor.redact_text, keep)
            if cut is not None:
                written.append(cut)
    finally:
        _textrun.PART = saved
    return len(written), "".join(written) + redactor.redact_text(run.take())


# Secrets whose rules wait the longest they may before they know (at their
# bounds), each preceded by filler lines so that some cut falls inside them.
AT_THE_BOUND = [
    "password" + " " * _GAP + "=" + " " * _GAP + "hunter2hunter2",
    "Authorization: Bearer" + "\n" * _GAP + "abcdefgh12345678",
    "use Bearer" + "\n" * _GAP + "abcdefgh12345678",
    "run --api-token" + "\t" * _GAP + "flagvalue0123",
    'token="' + " Q" * (_LONG // 2) + '"',
    "see https://" + "u" * _LONG + ":" + "p" * _LONG + "@example.com/",
    "Basic" + "\n" * _GAP + "dXNlcjpwYXNzd29yZA==",
    "eyJ" + "h" * _LONG + ".eyJ" + "p" * 20_000 + ".sig12345",
    "password=" + " " * 30_000 + TOKEN,  # a configured value: found at any distance
    # Past the bounds: no pair, in the parts as in the whole (were a leak when cut).
    "password=" + " " * 20_000 + "hunter2hunter2",
    'token="' + "Q" * 20_000 + 'SECRETTAILxyz"',
    # A value that reads as a number for 20,000 characters, and then does not.
    "password=" + "1" * 20_000 + "abcSECRET",
    # An AWS secret key is one only near AWS context, before or after it: near
    # within the bound, and not at all past it (the context was looked for in
    # the whole text, so a part after a cut lost it).
    "aws" + " " * _GAP + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEK3Y",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEK3Y" + "\n" * _GAP + "AKIAIOSFODNN7EXAMPL3",
    "AKIAIOSFODNN7EXAMPL3" + " " * 20_000 + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEK3Y",
]


@pytest.mark.parametrize("secret", AT_THE_BOUND, ids=range(len(AT_THE_BOUND)))
def test_a_cut_in_a_secret_at_its_rules_bound_changes_nothing(secret):
    redactor = Redactor([TOKEN])
    line = "filler words of a long answer\n"
    for lines in range(0, 400, 37):  # the secret at many places around the first cuts
        text = line * lines + secret + "\n" + line * 1500
        written, stored = _in_parts(redactor, text, 4096, 1000)
        assert written and stored == redactor.redact_text(text)
