"""validate, read_trace and the live check: whatever a trace or an agent holds, no traceback."""

from __future__ import annotations

import inspect
import json
import logging
import subprocess
import sys
import textwrap

import pytest

from acphost.cli._trace import LiveCheck
from acphost.redact import Redactor
from acphost.rpc._core import DEFAULT_MAX_LINE_BYTES
from acphost.trace import TraceValidator, read_trace, validate_file

INIT = [
    {
        "direction": "outgoing",
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {}},
    },
    {
        "direction": "incoming",
        "jsonrpc": "2.0",
        "id": 0,
        "result": {"protocolVersion": 1, "agentCapabilities": {}},
    },
]
GOOD = json.dumps(
    {
        "direction": "outgoing",
        "jsonrpc": "2.0",
        "method": "session/cancel",
        "params": {"sessionId": "s"},
    }
).encode()


def _write(path, lines: list[bytes]) -> None:
    path.write_bytes(b"\n".join([*(json.dumps(x).encode() for x in INIT), *lines]) + b"\n")


BAD_LINES = {
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "lone-surrogate": b'{"direction":"incoming","jsonrpc":"2.0","method":"x","params":{"t":"\\ud800"}}',
    "invalid-utf8": b'{"direction":"incoming","jsonrpc":"2.0","method":"x","params":{"t":"\xff"}}',
    "1e999": b'{"direction":"incoming","jsonrpc":"2.0","id":1,"result":{"n":1e999}}',
    "nan": b'{"direction":"incoming","jsonrpc":"2.0","id":1,"result":{"n":NaN}}',
}


@pytest.mark.parametrize("name", sorted(BAD_LINES))
def test_a_bad_line_is_a_numbered_violation_and_the_check_goes_on(tmp_path, name):
    path = tmp_path / "t.jsonl"
    _write(path, [BAD_LINES[name], GOOD])
    found = validate_file(str(path))
    assert [(v.line, v.rule) for v in found] == [(3, "unreadable")], found


def test_the_line_cap_is_the_live_readers(tmp_path):
    assert (
        inspect.signature(read_trace).parameters["max_line_bytes"].default == DEFAULT_MAX_LINE_BYTES
    )
    path = tmp_path / "t.jsonl"
    _write(path, [b'{"direction":"incoming","x":"' + b"y" * 5000 + b'"}', GOOD])
    got = list(read_trace(str(path), max_line_bytes=1000))
    assert got[2][:2] == (3, None) and "1000-byte limit" in got[2][2]
    assert got[3][0] == 4 and got[3][1] == "outgoing"  # the next line is read


def test_frames_nested_within_the_parser_limit_do_not_break_the_schema_check(tmp_path):
    deep = b"[" * 1000 + b'"x"' + b"]" * 1000  # orjson reads up to 1024 levels
    frame = (
        b'{"direction":"incoming","jsonrpc":"2.0","method":"session/update","params":'
        b'{"sessionId":"s","update":{"sessionUpdate":"plan","entries":' + deep + b"}}}"
    )
    path = tmp_path / "t.jsonl"
    _write(path, [frame, GOOD])
    found = validate_file(str(path))
    assert found and all(v.line == 3 for v in found)


@pytest.mark.parametrize(
    "frames",
    [
        [
            {
                "jsonrpc": "2.0",
                "id": 0,
                "result": {
                    "agentCapabilities": {"sessionCapabilities": [], "promptCapabilities": "x"}
                },
            },
            ("outgoing", {"jsonrpc": "2.0", "id": 1, "method": "session/list", "params": {}}),
            (
                "outgoing",
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "session/prompt",
                    "params": {"sessionId": "s", "prompt": 5},
                },
            ),
        ],
        [
            {"jsonrpc": "2.0", "id": 0, "result": []},
            (
                "incoming",
                {"jsonrpc": "2.0", "id": "r", "method": "fs/read_text_file", "params": []},
            ),
        ],
        [
            {"jsonrpc": "2.0", "id": 0, "result": {"agentCapabilities": 7}},
            ("incoming", {"jsonrpc": "2.0", "method": "session/update", "params": {"update": 3}}),
            ("incoming", {"jsonrpc": "2.0", "id": {"a": 1}, "result": {}}),
            ("outgoing", {"jsonrpc": "2.0", "id": "x" * 10_000, "method": "y" * 10_000}),
        ],
    ],
    ids=["caps-of-wrong-types", "result-array", "odd-ids"],
)
@pytest.mark.parametrize("schema", [False, True])
def test_values_of_the_wrong_type_never_raise(frames, schema):
    v = TraceValidator(schema=schema)
    v.feed(
        "outgoing",
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {"protocolVersion": 1, "clientCapabilities": {"fs": "yes"}},
        },
    )
    v.feed("incoming", frames[0])
    for direction, frame in frames[1:]:
        v.feed(direction, frame)
    assert all(len(x.message) < 1000 for x in v.finish())


def test_cli_validate_sanitises_and_checks_every_file(tmp_path):
    bad = tmp_path / "bad.jsonl"
    _write(
        bad,
        [
            json.dumps(
                {
                    "direction": "outgoing",
                    "jsonrpc": "2.0",
                    "id": 5,
                    "method": "\x1b]0;pwned\x07evil\u202e",
                }
            ).encode()
        ],
    )
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "acphost",
            "validate",
            str(bad),
            str(tmp_path / "missing"),
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "\x1b" not in r.stdout + r.stderr and "\u202e" not in r.stdout
    assert f"{bad}:3: [client] schema" in r.stdout and "\\x1b" in r.stdout
    assert r.stderr.count("cannot read trace") == 2


def test_live_check_never_raises_and_warns_redacted_and_sanitised(caplog):
    aborted = []
    check = LiveCheck(
        strict=False, on_abort=aborted.append, redactor=Redactor(secrets=["s3cret-value"])
    )
    check("send", b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}')
    for line in BAD_LINES.values():
        check("receive", line)
    sid = "\x1b[2Js3cret-value"
    frame = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {
            "sessionId": sid,
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "x"},
            },
        },
    }
    with caplog.at_level(logging.WARNING, logger="acphost.validate"):
        check("receive", json.dumps(frame).encode())
    (record,) = caplog.records
    text = record.getMessage()
    assert "turn-order" in text and "s3cret-value" not in text and "\x1b" not in text
    assert not aborted


HOSTILE = textwrap.dedent(
    r"""
    import json, sys
    def send(obj):
        sys.stdout.write(json.dumps(obj) + "\n"); sys.stdout.flush()
    for raw in sys.stdin:
        msg = json.loads(raw)
        m, rid = msg.get("method"), msg.get("id")
        if m == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
        elif m == "session/new":
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "s1"}})
        elif m == "session/prompt":
            sys.stdout.write("[" * 50000 + "]" * 50000 + "\n")
            sys.stdout.write('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"notice","severity":"info","title":"\\ud800"}}}\n')
            send({"jsonrpc": "2.0", "method": "session/update", "params": {
                "sessionId": "\x1b]0;pwned\x07 ghp_" + "a1B2c3D4e5" * 4,
                "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}}})
            send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1",
                "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "done"}}}})
            send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
    """
)


def test_cli_live_check_against_a_hostile_agent(tmp_path):
    script = tmp_path / "hostile.py"
    script.write_text(HOSTILE)
    settings = tmp_path / "s.json"
    settings.write_text(
        json.dumps({"agent_servers": {"h": {"command": sys.executable, "args": [str(script)]}}})
    )
    r = subprocess.run(
        [sys.executable, "-m", "acphost", "--settings", str(settings), "-o", "simple", "hi"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
             "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_STATE_HOME": str(tmp_path / "state")},
    )
    assert r.returncode == 0 and "done" in r.stdout, r.stderr
    assert "Traceback" not in r.stderr and "\x1b" not in r.stderr
    assert "protocol violation by the agent (turn-order)" in r.stderr
    assert "ghp_a1B2" not in r.stderr


UNHASHABLE = {
    "update-kind-list": {"sessionUpdate": []},
    "update-kind-object": {"sessionUpdate": {"a": 1}},
}


@pytest.mark.parametrize("name", sorted(UNHASHABLE))
def test_a_kind_that_is_no_string_is_a_violation_not_a_traceback(tmp_path, name):
    """``"sessionUpdate": []`` once crashed validate (and switched a live check off)."""
    update = {
        "direction": "incoming",
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": UNHASHABLE[name]},
    }
    block = {
        "direction": "outgoing",
        "jsonrpc": "2.0",
        "id": 1,
        "method": "session/prompt",
        "params": {"sessionId": "s", "prompt": [{"type": [1], "text": "x"}]},
    }
    path = tmp_path / "t.jsonl"
    _write(path, [json.dumps(update).encode(), json.dumps(block).encode(), GOOD])
    for flags in ([], ["--no-schema"]):
        r = subprocess.run(
            [sys.executable, "-m", "acphost", "validate", *flags, str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert "Traceback" not in r.stderr and r.returncode == 1, r.stderr
        assert ("[agent] schema" in r.stdout) == (not flags)


def test_a_kind_that_is_no_string_does_not_switch_the_strict_check_off():
    aborted = []
    check = LiveCheck(strict=True, on_abort=aborted.append)
    check("send", b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}')
    check("receive", b'{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}')
    check(
        "receive",
        b'{"jsonrpc":"2.0","method":"session/update",'
        b'"params":{"sessionId":"s","update":{"sessionUpdate":[]}}}',
    )
    assert len(aborted) == 1 and "schema" in str(aborted[0])
    assert type(check.validator) is TraceValidator  # still checking
