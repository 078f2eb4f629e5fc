"""The replay agent: help, a one-line summary, details on request, and untrusted traces."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from acphost.agents.replay._replay import MAX_LINE_BYTES
from acphost.rpc._core import DEFAULT_MAX_LINE_BYTES
from tests.fixtures.traces.scenarios import HERE

REPLAY = [sys.executable, "-m", "acphost", "replay"]
PERMISSION = HERE / "permission.jsonl"


def _client_frames(path, *, change=None) -> bytes:
    """The client's side of a recorded trace, as a client would send it."""
    out = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if record.pop("direction") != "outgoing":
            continue
        record.pop("timestamp")
        if change is not None:
            record = change(record)
        out.append(json.dumps(record).encode())
    return b"\n".join(out) + b"\n"


def _reject(frame):
    if frame.get("result", {}).get("outcome"):
        return {**frame, "result": {"outcome": {"outcome": "selected", "optionId": "reject-once"}}}
    return frame


def _replay(args, stdin: bytes):
    return subprocess.run([*REPLAY, *args], input=stdin, capture_output=True, timeout=60)


def test_help_works_and_documents_the_options():
    r = subprocess.run([*REPLAY, "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("usage: acphost replay")
    for needle in ("-v", "--report FILE", "Exit status"):
        assert needle in r.stdout
    r = subprocess.run(REPLAY, capture_output=True, text=True)
    assert r.returncode == 2 and "required: trace" in r.stderr and "Traceback" not in r.stderr


def test_a_matching_client_gets_one_line_saying_so():
    r = _replay([str(PERMISSION)], _client_frames(PERMISSION))
    assert r.returncode == 0, r.stderr
    (line,) = r.stderr.decode().splitlines()
    assert "the client matched the recording" in line and "12 frames" in line


def test_differences_are_one_line_by_default_details_with_v_and_report(tmp_path):
    frames = _client_frames(PERMISSION, change=_reject)
    r = _replay([str(PERMISSION)], frames)
    assert r.returncode == 1
    (line,) = r.stderr.decode().splitlines()
    assert "1 difference from the recording, the first at line 9" in line and "-v" in line
    r = _replay(["-v", str(PERMISSION)], frames)
    lines = r.stderr.decode().splitlines()
    assert len(lines) == 2 and lines[1].startswith(f"replay: {PERMISSION}:9: ")
    assert "reject-once" in lines[1]
    report = tmp_path / "report.json"
    r = _replay([str(PERMISSION), "--report", str(report)], frames)
    data = json.loads(report.read_text())
    assert data["frames"] == 12 and [d["line"] for d in data["differences"]] == [9]
    assert len(r.stderr.decode().splitlines()) == 1


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (
            b'{"direction":"incoming","jsonrpc":"2.0","method":"x","params":{"t":"\xff"}}',
            "not JSON",
        ),
        (b'{"direction":"incoming","jsonrpc":"2.0","id":1,"result":{"n":NaN}}', "NaN is not JSON"),
        (b'{"direction":"incoming","jsonrpc":"2.0","id":1,"result":{"n":1e999}}', "out of range"),
        (b'{"direction":"incoming","frame":[1]}', "not a JSON object"),
        (b"{not json", "not JSON"),
    ],
    ids=["deep", "invalid-utf8", "nan", "1e999", "frame-not-object", "garbage"],
)
def test_an_unusable_trace_line_is_named_without_a_traceback(tmp_path, line, needle):
    trace = tmp_path / "t.jsonl"
    trace.write_bytes(PERMISSION.read_bytes() + line + b"\n")
    r = _replay([str(trace)], b"")
    err = r.stderr.decode()
    assert r.returncode == 2 and "Traceback" not in err
    assert f"cannot replay {trace}: line 13 " in err and needle in err


@pytest.mark.parametrize(
    ("kind", "needle"),
    [
        ("fifo", "is a FIFO (named pipe), not a regular file"),
        ("device", "is a character device, not a regular file"),
        ("directory", "is a directory, not a regular file"),
        ("missing", "does not exist"),
    ],
)
def test_a_trace_that_is_no_file_is_refused_at_once(tmp_path, kind, needle):
    """A FIFO with no writer would block the replay forever, /dev/zero never ends."""
    path = {"device": "/dev/zero", "directory": str(tmp_path)}.get(kind, str(tmp_path / "t"))
    if kind == "fifo":
        os.mkfifo(path)
    r = _replay([path], b"")
    err = r.stderr.decode()
    assert r.returncode == 2 and "Traceback" not in err
    assert err == f"replay: the trace {path} {needle}" + (
        "; name a file\n" if kind != "missing" else "\n"
    )


def test_hostile_client_frames_get_parse_errors_and_the_replay_goes_on():
    frames = _client_frames(PERMISSION)
    junk = b"[" * 100_000 + b"]" * 100_000 + b"\n" + b'{"x":"\xff"}\n' + b"{bad\n"
    r = _replay([str(PERMISSION)], junk + frames)
    replies = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["error"]["code"] for x in replies[:3]] == [-32700] * 3
    assert replies[-1]["result"] == {"stopReason": "end_turn"}


def test_client_json_that_is_no_object_gets_invalid_request_and_the_replay_goes_on():
    """``5``, ``[1]``, ``"x"`` or ``null`` from the client once crashed the replay."""
    junk = b'5\n[1]\n"x"\nnull\n[]\n'
    r = _replay([str(PERMISSION)], junk + _client_frames(PERMISSION))
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    replies = [json.loads(x) for x in r.stdout.splitlines()]
    assert [(x["id"], x["error"]["code"]) for x in replies[:5]] == [(None, -32600)] * 5
    assert replies[-1]["result"] == {"stopReason": "end_turn"}


def test_reports_are_sanitised(tmp_path):
    def evil(frame):
        if frame.get("method") == "session/new":
            return {**frame, "method": "session/\x1b]0;pwned\x07new\u202e"}
        return frame

    r = _replay([str(PERMISSION), "-v"], _client_frames(PERMISSION, change=evil))
    err = r.stderr.decode()
    assert r.returncode == 1 and "\x1b" not in err and "\u202e" not in err and "\\x1b" in err


def test_the_line_cap_is_the_live_readers():
    assert MAX_LINE_BYTES == DEFAULT_MAX_LINE_BYTES
