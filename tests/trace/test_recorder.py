"""The trace writer: a safely opened file, exact frames, nothing an agent sends breaks it."""

from __future__ import annotations

import asyncio
import io
import os
import sys
import textwrap

import orjson
import pytest

from acphost import AcpClient
from acphost.config import AgentSpec
from acphost.host import open_output
from acphost.trace import (
    REDACTED,
    OutputFileError,
    Redactor,
    TraceWriter,
    validate_file,
)

ROOT = os.geteuid() == 0


def _lines(path) -> list[dict]:
    return [orjson.loads(x) for x in path.read_bytes().splitlines()]


# -- opening ---------------------------------------------------------------------------


def test_a_symlink_at_the_path_is_refused_and_its_target_untouched(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    (tmp_path / "t.jsonl").symlink_to(victim)
    with pytest.raises(OutputFileError, match="symbolic link"):
        TraceWriter(tmp_path / "t.jsonl")
    assert victim.read_text() == "precious"


def test_a_hard_link_to_another_file_is_refused(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious")
    os.link(victim, tmp_path / "t.jsonl")
    with pytest.raises(OutputFileError, match="hard links"):
        TraceWriter(tmp_path / "t.jsonl")
    assert victim.read_text() == "precious"


def test_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "t.jsonl")
    with pytest.raises(OutputFileError, match=r"FIFO|regular file"):
        TraceWriter(tmp_path / "t.jsonl")


@pytest.mark.parametrize(
    ("make", "needle"),
    [
        (lambda p: p.mkdir(), "directory"),
        (lambda p: None, "directory does not exist"),
    ],
    ids=["directory", "missing-parent"],
)
def test_unusable_paths_fail_with_the_reason(tmp_path, make, needle):
    path = tmp_path / "t.jsonl"
    make(path)
    target = path if needle != "directory does not exist" else tmp_path / "no" / "t.jsonl"
    with pytest.raises(OutputFileError, match=needle) as info:
        TraceWriter(target)
    assert str(target) in str(info.value) and isinstance(info.value, OSError)


@pytest.mark.skipif(ROOT, reason="root writes through any permission")
def test_an_unwritable_directory_fails(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(OutputFileError, match="permission denied"):
        TraceWriter(locked / "t.jsonl")


def test_the_file_is_owner_only_and_emptied(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text("old\n")
    path.chmod(0o644)
    w = TraceWriter(path)
    w.close()
    assert path.read_bytes() == b"" and oct(path.stat().st_mode & 0o777) == "0o600"
    with open_output(path, append=True, binary=True) as out:
        out.write(b"x")
    assert path.read_bytes() == b"x"


def test_replacing_or_truncating_the_file_cannot_redirect_or_hole_the_trace(tmp_path):
    path = tmp_path / "t.jsonl"
    victim = tmp_path / "victim"
    victim.write_text("precious")
    w = TraceWriter(path)
    w("send", b'{"jsonrpc":"2.0","id":1,"method":"a"}')
    moved = tmp_path / "moved.jsonl"
    path.rename(moved)
    path.symlink_to(victim)  # what an agent might do mid-run
    w("receive", b'{"jsonrpc":"2.0","id":1,"result":{}}')
    os.truncate(moved, 0)
    w("send", b'{"jsonrpc":"2.0","id":2,"method":"b"}')
    w.close()
    assert victim.read_text() == "precious"
    data = moved.read_bytes()
    assert b"\0" not in data and [x["id"] for x in _lines(moved)] == [2]


# -- recording ---------------------------------------------------------------------------


def test_a_frame_without_secrets_is_kept_byte_for_byte(tmp_path):
    path = tmp_path / "t.jsonl"
    w = TraceWriter(path)
    frame = b'{"jsonrpc":"2.0","id":7,"result":{"n":1.0,"big":123456789012345678901234567890}}'
    w("receive", frame + b"\n")
    w.close()
    line = path.read_bytes()
    assert line.startswith(b'{"direction":"incoming","timestamp":"')
    assert line.endswith(b"," + frame[1:] + b"\n")


@pytest.mark.parametrize(
    ("line", "key"),
    [
        (b"[" * 5000 + b"]" * 5000, "unparsed"),
        (b"[" * 600 + b'{"apiKey":"k"}' + b"]" * 600, "frame"),  # past orjson's writer depth
        (b'{"jsonrpc":"2.0","method":"m","params":{"t":"\\ud800"}}', "unparsed"),
        (b'{"jsonrpc":"2.0","method":"m","params":{"t":"\xff\xfe"}}', "unparsed"),
        (b'{"jsonrpc":"2.0","id":1,"result":{"n":1e999}}', "unparsed"),
        (b'{"jsonrpc":"2.0","method":"m","params":{"t":"' + b"x" * 5_000_000 + b'"}}', "params"),
        (b"[1,2]", "frame"),
        (b"{}", None),
        (b'{"direction":"sideways","jsonrpc":"2.0","method":"m"}', "method"),
    ],
    ids=[
        "deep",
        "deep-with-secret",
        "lone-surrogate",
        "invalid-utf8",
        "1e999",
        "huge",
        "array",
        "empty",
        "own-keys",
    ],
)
def test_any_frame_becomes_one_valid_json_line(tmp_path, line, key):
    path = tmp_path / "t.jsonl"
    w = TraceWriter(path)
    w("receive", line)
    w("send", b'{"jsonrpc":"2.0","id":1,"method":"after"}')
    w.close()
    first, second = _lines(path)
    assert first["direction"] == "incoming" and (key is None or key in first)
    assert second["method"] == "after"
    assert b'apiKey":"k' not in path.read_bytes()


def test_a_write_failure_stops_recording_with_one_message(caplog):
    class Full(io.StringIO):
        def write(self, s):
            raise OSError(28, "No space left on device")

    w = TraceWriter(Full())
    with caplog.at_level("ERROR", logger="acphost.trace"):
        w("send", b'{"jsonrpc":"2.0","id":1,"method":"a"}')
        w("send", b'{"jsonrpc":"2.0","id":2,"method":"b"}')
    assert w.closed and isinstance(w.error, OSError)
    assert len(caplog.records) == 1 and "No space left" in caplog.records[0].getMessage()


# -- a hostile agent, a real process --------------------------------------------------------

HOSTILE = textwrap.dedent(
    r"""
    import json, os, sys
    out = sys.stdout.buffer
    def send(obj):
        out.write(json.dumps(obj).encode() + b"\n"); out.flush()
    def update(text):
        send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1",
              "update": {"sessionUpdate": "agent_message_chunk",
                         "content": {"type": "text", "text": text}}}})
    secret = os.environ["MY_SERVICE_SECRET"]
    for raw in sys.stdin.buffer:
        msg = json.loads(raw)
        method, rid = msg.get("method"), msg.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
        elif method == "session/new":
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "s1"}})
        elif method == "session/prompt":
            update("your secret is " + secret + " and ghp_" + "a1B2c3D4e5" * 4)
            update("escaped: " + secret)  # json.dumps keeps ASCII; below, \u-escaped by hand
            out.write(b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"'
                      + "".join("\\u%04x" % ord(c) for c in secret).encode() + b'"}}}}\n')
            out.write(b"[" * 100000 + b"]" * 100000 + b"\n")
            out.write(b'{"jsonrpc":"2.0","method":"session/update","params":{"t":"\\ud800"}}\n')
            out.write(b'{"jsonrpc":"2.0","method":"x","params":{"t":"\xff"}}\n')
            out.write(b'{"jsonrpc":"2.0","method":"x","params":{"n":1e999}}\n')
            out.write(b"not json at all, token=" + secret.encode() + b"\n")
            out.flush()
            send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
    """
)


def test_a_hostile_agent_cannot_leak_secrets_into_the_trace_or_break_it(tmp_path):
    script = tmp_path / "hostile.py"
    script.write_text(HOSTILE)
    secret = "zq-configured-canary-71"
    spec = AgentSpec("hostile", sys.executable, (str(script),), env={"MY_SERVICE_SECRET": secret})
    path = tmp_path / "t.jsonl"
    writer = TraceWriter(path, redactor=Redactor.from_config(agent=spec, host_env=None))

    async def main() -> str:
        async with AcpClient.start(spec.argv, env=dict(spec.env), trace=writer) as client:
            session = await client.new_session(str(tmp_path))
            result = await session.prompt("go")
            return result.stop_reason

    assert asyncio.run(main()) == "end_turn"  # the connection went on
    data = path.read_bytes()
    assert secret.encode() not in data and b"ghp_a1B2" not in data
    records = _lines(path)  # every line is JSON
    assert sum("unparsed" in r for r in records) == 5
    texts = [
        r["params"]["update"]["content"]["text"]
        for r in records
        if r.get("method") == "session/update"
        and "update" in r.get("params", {})
        and "content" in r["params"]["update"]
    ]
    assert texts[:3] == [
        f"your secret is {REDACTED} and {REDACTED}",
        f"escaped: {REDACTED}",
        REDACTED,
    ]
    unreadable = [v for v in validate_file(str(path), schema=False) if v.rule == "unreadable"]
    assert len(unreadable) == 5
