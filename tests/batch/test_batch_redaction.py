"""A batch redacts with the command line's redactor: agent env, MCP settings, host credentials.

A real ``acphost batch`` with settings naming a script agent that repeats
every configured value it can see (split across chunks, whole, and written
into a workspace file): none may reach a trace, a patch, an outcome or a report.
"""

from __future__ import annotations

import json
import sys
import textwrap

from .conftest import acphost

AGENT_SECRET = "zq-agent-env-canary-5151"
MCP_SECRET = "zq-mcp-env-canary-6262"
HOST_SECRET = "zq-host-cred-canary-7373"
PIECES = ["zq-agent-env", "canary-5151", "zq-mcp-env-canary", "zq-host-cred-canary"]

AGENT = textwrap.dedent(
    r"""
    import json, os, sys
    def send(obj):
        sys.stdout.write(json.dumps(obj) + "\n"); sys.stdout.flush()
    def say(text):
        send({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1",
              "update": {"sessionUpdate": "agent_message_chunk",
                         "content": {"type": "text", "text": text}}}})
    mcp = []
    for raw in sys.stdin:
        msg = json.loads(raw)
        method, rid = msg.get("method"), msg.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": 1, "agentCapabilities": {}}})
        elif method == "session/new":
            for server in msg["params"].get("mcpServers", []):
                mcp += [item["value"] for item in server.get("env", [])]
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "s1"}})
        elif method == "session/prompt":
            env = os.environ["SPLIT_AGENT_TOKEN"]
            host = os.environ["ZQ_SERVICE_API_KEY"]
            say("agent " + env[:12]); say(env[12:] + "; mcp " + " ".join(mcp) + "; host " + host)
            with open("leak.txt", "w") as f:
                f.write(" ".join([env, *mcp, host]) + "\n")
            send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
    """
)


def test_batch_outputs_hide_every_configured_value(plain_ws, tmp_path):
    agent = tmp_path / "echo_agent.py"
    agent.write_text(AGENT)
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({
        "agent_servers": {"echo": {"command": sys.executable, "args": [str(agent)],
                                   "env": {"SPLIT_AGENT_TOKEN": AGENT_SECRET}}},
        "mcp_servers": {"tools": {"command": "mcp-tools", "env": {"MCP_TOKEN": MCP_SECRET}}},
    }))  # fmt: skip
    out = tmp_path / "out"
    r = acphost(
        ["batch", "--settings", str(settings), "-a", "echo", "-p", "go",
         "--workspace", str(plain_ws), "--out", str(out), "--no-history"],
        cwd=tmp_path,
        env={"ZQ_SERVICE_API_KEY": HOST_SECRET},
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    (run_dir,) = (out / "runs").iterdir()
    result = json.loads((run_dir / "result.json").read_text())
    assert result["final_text"] == "agent [REDACTED]; mcp [REDACTED]; host [REDACTED]"
    assert [f["path"] for f in result["changed_files"]] == ["leak.txt"]
    files = [p for p in out.rglob("*") if p.is_file()]
    assert {p.name for p in files} >= {"trace.jsonl", "result.json", "batch.json",
                                       "report.json", "report.md", "report.html"}  # fmt: skip
    assert any(p.suffix in (".patch", ".diff") for p in files), [p.name for p in files]
    for path in files:
        data = path.read_text(errors="replace")
        for piece in [AGENT_SECRET, MCP_SECRET, HOST_SECRET, *PIECES]:
            assert piece not in data, (path.name, piece)
    patch = next(p for p in files if p.suffix in (".patch", ".diff")).read_text()
    assert "+[REDACTED] [REDACTED] [REDACTED]" in patch
