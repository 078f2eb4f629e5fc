"""Usage an agent reports that no store can hold is recorded as unknown; nothing crashes.

A script agent over real pipes, through the real ``acphost`` command, reports
token counts past SQLite's INTEGER (2**63 and up), negative ones, fractions,
a context window of 2**70 and a cost of 1e308, and one frame with NaN; the
history, the ledger (whose sums would overflow) and an export/import round
trip all go on.
"""

from __future__ import annotations

import json
import sys
import textwrap

from acphost.history import HistoryStore

from .conftest import run_cli

AGENT = textwrap.dedent(
    r"""
    import json, sys
    def send(obj):
        sys.stdout.write(json.dumps(obj) + "\n"); sys.stdout.flush()
    for raw in sys.stdin:
        msg = json.loads(raw)
        method, rid = msg.get("method"), msg.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
        elif method == "session/new":
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "u1"}})
        elif method == "session/prompt":
            sid = msg["params"]["sessionId"]
            def update(u):
                send({"jsonrpc": "2.0", "method": "session/update",
                      "params": {"sessionId": sid, "update": u}})
            update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "ok"}})
            update({"sessionUpdate": "usage_update", "used": 2**70, "size": -1,
                    "cost": {"amount": 1e308, "currency": "USD"}})
            sys.stdout.write('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"'
                             + sid + '","update":{"sessionUpdate":"usage_update","used":NaN,"size":1}}}\n')
            send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn", "usage": {
                "inputTokens": 2**63, "outputTokens": -5, "thoughtTokens": 1.5,
                "cachedReadTokens": 2**64, "totalTokens": 2**62 + 1}}})
    """
)


def test_absurd_usage_is_unknown_and_the_ledger_still_sums(store_path, tmp_path):
    agent = tmp_path / "usage_agent.py"
    agent.write_text(AGENT)
    command = f"{sys.executable} {agent}"
    for prompt in ("one", "two"):  # two turns of 2**62 tokens: their sum passes 2**63
        r = run_cli("--agent-command", command, "-o", "simple", prompt, cwd=tmp_path)
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr

    r = run_cli("usage", "-o", "json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    total = json.loads(r.stdout)["total"]
    assert total["turns"] == 2
    assert total["tokens"] == {"total": 2 * (2**62 + 1)}  # exact past 2**63; the rest unknown
    assert "cost" not in total or not total["cost"]
    r = run_cli("history", "list", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.count("\n") == 3, r.stderr

    with HistoryStore.open(str(store_path)) as store:
        (first, _) = store.list_sessions()
        record = store.get(first.id)
    usage = record.turns[0].usage
    assert (usage.input, usage.output, usage.thought, usage.cached_read) == (None,) * 4
    assert usage.total == 2**62 + 1
    assert record.usage.context_used is None and record.usage.context_size is None

    # The export goes back in, into another store, with a decision that has no time.
    data = json.loads(run_cli("history", "export", first.id, "-f", "json", cwd=tmp_path).stdout)
    data["session"]["turns"][0]["permissions"] = [
        {"tool_call_id": "t1", "title": "Run ls", "decision": "allow"},  # no "at"
        {"tool_call_id": "t2", "title": "Run rm", "decision": "reject", "at": None},
    ]
    data["session"]["turns"][0]["usage"].update({"input": 2**64, "output": -1, "thought": 1.5})
    export = tmp_path / "export.json"
    export.write_text(json.dumps(data))
    other = {"ACPHOST_HISTORY": str(tmp_path / "other.sqlite3")}
    r = run_cli("history", "import", str(export), cwd=tmp_path, env=other)
    assert r.returncode == 0, r.stderr
    r = run_cli("history", "show", first.id, cwd=tmp_path, env=other)
    assert r.returncode == 0 and "[permission] Run ls: allow" in r.stdout, r.stderr
    r = run_cli("usage", "-o", "json", cwd=tmp_path, env=other)
    assert r.returncode == 0 and json.loads(r.stdout)["total"]["tokens"] == {"total": 2**62 + 1}
