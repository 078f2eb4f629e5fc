"""A minimal ACP agent that floods the client with session updates (stdlib only).

It answers ``initialize`` and ``session/new``; on ``session/prompt`` it writes
N pre-built ``session/update`` lines in big writes, then the prompt response.
Asked for ACP v2 (``protocolVersion`` 2 with ``info``), it answers 2 and ends
the prompt the v2 way: ``{messageId}`` at once, the updates (chunks carry a
``messageId``), then ``state_update`` idle; a diff update's first sight of a
tool call creates it (v2 has no ``tool_call``: upserts).
Everything is built before the prompt arrives, so the agent costs almost
nothing while the client is being measured.

Usage::

    python bench/flood_agent.py --n 100000 --scenario chunks
    python bench/flood_agent.py --n 10000 --scenario diffs

Scenarios:
    chunks: ``agent_message_chunk`` updates with a short text each.
    diffs:  ``tool_call_update`` updates, each with a ~4 KB diff content.
"""

from __future__ import annotations

import argparse
import json
import sys

SESSION_ID = "flood-1"
LINES_PER_WRITE = 2000


def _dumps(obj: object) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode() + b"\n"


def build_updates(n: int, scenario: str, v2: bool = False) -> list[bytes]:
    """Return the N update lines of a scenario, each ending with a newline."""
    lines: list[bytes] = []
    if scenario == "chunks":
        for i in range(n):
            note = {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": SESSION_ID,
                    "update": {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": f"token {i} "},
                        **({"messageId": "m1"} if v2 else {}),
                    },
                },
            }
            lines.append(_dumps(note))
    elif scenario == "diffs":
        old = "".join(f"line {k}: the quick brown fox jumps over\n" for k in range(48))
        for i in range(n):
            new = old.replace("fox", f"cat{i}", 24)
            note = {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": SESSION_ID,
                    "update": {
                        "sessionUpdate": "tool_call_update",
                        "toolCallId": f"call-{i % 50}",
                        "status": "in_progress",
                        "content": [
                            {
                                "type": "diff",
                                "path": f"/tmp/flood/file{i % 50}.py",
                                "oldText": old,
                                "newText": new,
                            }
                        ],
                    },
                },
            }
            lines.append(_dumps(note))
    else:
        raise SystemExit(f"unknown scenario {scenario!r}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--scenario", default="chunks")
    args = parser.parse_args()
    blocks: list[bytes] = []
    v2 = False
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        msg = json.loads(raw)
        method = msg.get("method")
        if "id" not in msg:
            continue  # notifications (session/cancel) are ignored
        rid = msg["id"]
        if method == "initialize":
            params = msg.get("params") or {}
            v2 = params.get("protocolVersion") == 2 and "info" in params
            lines = build_updates(args.n, args.scenario, v2)
            blocks = [
                b"".join(lines[i : i + LINES_PER_WRITE])
                for i in range(0, len(lines), LINES_PER_WRITE)
            ]
            del lines
            result: object = (
                {"protocolVersion": 2, "info": {"name": "flood", "version": "1"}}
                if v2
                else {
                    "protocolVersion": 1,
                    "agentCapabilities": {},
                    "authMethods": [],
                    "agentInfo": {"name": "flood", "version": "1"},
                }
            )
        elif method == "session/new":
            result = {"sessionId": SESSION_ID}
        elif method == "session/prompt" and v2:
            out.write(_dumps({"jsonrpc": "2.0", "id": rid, "result": {"messageId": "u1"}}))
            for block in blocks:
                out.write(block)
            idle = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
            note = {"sessionId": SESSION_ID, "update": idle}
            out.write(_dumps({"jsonrpc": "2.0", "method": "session/update", "params": note}))
            out.flush()
            continue
        elif method == "session/prompt":
            for block in blocks:
                out.write(block)
            result = {"stopReason": "end_turn"}
        elif "method" not in msg:
            continue  # a response from the client: never expected here
        else:
            out.write(
                _dumps(
                    {
                        "jsonrpc": "2.0",
                        "id": rid,
                        "error": {"code": -32601, "message": f"Method not found: {method}"},
                    }
                )
            )
            out.flush()
            continue
        out.write(_dumps({"jsonrpc": "2.0", "id": rid, "result": result}))
        out.flush()


if __name__ == "__main__":
    main()
