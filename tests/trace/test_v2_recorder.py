"""The trace recorder redacts what ACP v2 encodes: base64 terminal output."""

from __future__ import annotations

import asyncio
import base64
import sys
import textwrap

import orjson

from acphost import AcpClient
from acphost.config import AgentSpec
from acphost.trace import REDACTED, Redactor, TraceWriter

SECRET = "zq-configured-canary-71"
TOKEN = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"

# An agent that prints secrets through v2 terminal updates (over real pipes).
AGENT = textwrap.dedent(
    """
    import base64, json, os, sys

    secret = os.environ["MY_SERVICE_SECRET"]
    out = sys.stdout.buffer

    def send(frame):
        out.write(json.dumps(frame).encode() + b"\\n")
        out.flush()

    def b64(data):
        return base64.b64encode(data).decode()

    def update(sid, update):
        send({"jsonrpc": "2.0", "method": "session/update",
              "params": {"sessionId": sid, "update": update}})

    for line in sys.stdin.buffer:
        msg = json.loads(line)
        method, rid = msg.get("method"), msg.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1}})
        elif method == "session/new":
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "s"}})
        elif method == "session/prompt":
            printed = ("API_KEY=" + secret + "\\n").encode() + b"\\xff\\xfe binary\\n"
            update("s", {"sessionUpdate": "terminal_update", "terminalId": "t1",
                         "command": "env", "output": {"data": b64(printed)},
                         "exitStatus": {"exitCode": 0, "signal": None}})
            update("s", {"sessionUpdate": "terminal_output_chunk", "terminalId": "t1",
                         "data": b64(("token " + sys.argv[1] + "\\n").encode())})
            update("s", {"sessionUpdate": "terminal_output_chunk", "terminalId": "t1",
                         "data": b64(b"hi\\n")})
            update("s", {"sessionUpdate": "terminal_output_chunk", "terminalId": "t1",
                         "data": "not base64: " + secret})
            # The secret split across a terminal's chunks, another terminal's between.
            half = len(secret) // 2
            for tid, text in (("t2", "split: " + secret[:half]), ("t3", "other"),
                              ("t2", secret[half:] + " end")):
                update("s", {"sessionUpdate": "terminal_output_chunk", "terminalId": tid,
                             "data": b64(text.encode())})
            send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
    """
)


def test_secrets_in_base64_terminal_output_are_redacted_in_the_trace(tmp_path):
    script = tmp_path / "agent.py"
    script.write_text(AGENT)
    spec = AgentSpec(
        "printer", sys.executable, (str(script), TOKEN), env={"MY_SERVICE_SECRET": SECRET}
    )
    path = tmp_path / "t.jsonl"
    writer = TraceWriter(path, redactor=Redactor.from_config(agent=spec, host_env=None))

    async def main() -> None:
        async with AcpClient.start(spec.argv, env=dict(spec.env), trace=writer) as client:
            session = await client.new_session(str(tmp_path))
            await session.prompt("go")

    asyncio.run(main())
    raw = path.read_bytes()
    updates = [
        r["params"]["update"]
        for r in map(orjson.loads, raw.splitlines())
        if r.get("method") == "session/update"
    ]
    snapshot, token, plain, not_base64, *split = updates
    printed = base64.b64decode(snapshot["output"]["data"])
    # The secret is gone from the bytes; the bytes that are no UTF-8 are kept.
    assert printed == f"API_KEY={REDACTED}\n".encode() + b"\xff\xfe binary\n"
    assert snapshot["exitStatus"] == {"exitCode": 0, "signal": None}
    assert base64.b64decode(token["data"]) == f"token {REDACTED}\n".encode()
    assert plain["data"] == base64.b64encode(b"hi\n").decode()  # nothing to redact
    assert not_base64["data"] == f"not base64: {REDACTED}"
    assert SECRET.encode() not in raw and TOKEN.encode() not in raw
    texts = [(u["terminalId"], base64.b64decode(u["data"]).decode()) for u in split]
    assert texts == [("t2", f"split: {REDACTED}"), ("t3", "other"), ("t2", " end")]


def test_a_secret_split_across_terminal_chunks_leaves_no_piece(tmp_path):
    """The carry joins a v2 terminal's output chunks as it joins message chunks."""
    path = tmp_path / "t.jsonl"
    writer = TraceWriter(path, redactor=Redactor([SECRET]))
    pieces = [b"\xffkey: zq-conf", b"igured-cana", b"ry-71 \xfe"]
    for piece in pieces:
        frame = {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {
                "sessionId": "s",
                "update": {
                    "sessionUpdate": "terminal_output_chunk",
                    "terminalId": "t",
                    "data": base64.b64encode(piece).decode(),
                },
            },
        }
        writer("receive", orjson.dumps(frame))
    writer.close()
    data = [
        base64.b64decode(orjson.loads(line)["params"]["update"]["data"])
        for line in path.read_bytes().splitlines()
    ]
    # The bytes that are no UTF-8 pass unchanged; the value is gone from every chunk.
    assert b"".join(data) == b"\xffkey: " + REDACTED.encode() + b" \xfe"
    assert data[0] == b"\xffkey: " + REDACTED.encode()
    for piece in (b"zq-conf", b"igured-cana", b"ry-71"):
        assert not any(piece in d for d in data)


def test_an_escaped_terminal_kind_does_not_slip_past_the_redaction(tmp_path):
    """``terminal\\u005fupdate`` is the same kind: its output is redacted too."""
    path = tmp_path / "t.jsonl"
    writer = TraceWriter(path, redactor=Redactor([SECRET]))
    data = base64.b64encode(f"API_KEY={SECRET}\n".encode()).decode()
    line = (
        b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":'
        b'{"sessionUpdate":"terminal\\u005fupdate","terminalId":"t","output":{"data":"'
        + data.encode()
        + b'"}}}}'
    )
    writer("receive", line)
    writer.close()
    (record,) = map(orjson.loads, path.read_bytes().splitlines())
    written = base64.b64decode(record["params"]["update"]["output"]["data"])
    assert written == f"API_KEY={REDACTED}\n".encode()
