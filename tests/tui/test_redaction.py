"""One redactor per app: the protocol log and its copies, the history, crash reports.

It is built from the configuration (``Redactor.from_config``): the agent's
env values and the settings' MCP server secrets are redacted wherever they
show up, even when the agent repeats them.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from acphost.config import AgentSpec, Settings
from acphost.history import HistoryStore
from acphost.tui import AcpApp
from acphost.tui._dialogs import CrashScreen

from .conftest import SIZE, demo_spec, ready, send, wait_for

AGENT_SECRET = "agent-secret-value-4821"
MCP_SECRET = "mcp-secret-value-9917"


async def test_configured_secrets_never_reach_the_log_or_the_history(
    tmp_path, workspace, history_store
):
    base = demo_spec(tmp_path)
    spec = replace(base, env={**base.env, "SERVICE_SECRET": AGENT_SECRET})
    server = {
        "name": "tools",
        "command": "/bin/true",
        "args": [],
        "env": [{"name": "TOOLS_CREDENTIAL", "value": MCP_SECRET}],
    }
    settings = Settings(path=None, agents={}, mcp_servers=[server])
    app = AcpApp(spec, str(workspace), settings=settings)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, f"echo keys {AGENT_SECRET} and {MCP_SECRET}")
        assert AGENT_SECRET in app.active_view.session.state.last_agent_text()  # it was sent
        logged = "\n".join(r.copy_text() for r in app.protocol.records)
        assert "session/new" in logged and "[REDACTED]" in logged
        assert AGENT_SECRET not in logged and MCP_SECRET not in logged
    with HistoryStore.open(str(history_store)) as store:
        [summary] = store.list_sessions()
        record = store.get(summary.id)
    stored = json.dumps(record.to_json())
    assert "echo keys" in stored
    assert AGENT_SECRET not in stored and MCP_SECRET not in stored


async def test_a_crash_report_shows_the_stderr_tail_redacted(tmp_path, workspace):
    script = tmp_path / "crash.json"
    script.write_text(
        json.dumps(
            {"prompts": {"boom": [{"stderr": f"fatal: bad key {AGENT_SECRET}\n"}, {"exit": 3}]}}
        )
    )
    spec = AgentSpec(
        name="scripted",
        command=sys.executable,
        args=(str(Path(__file__).parent / "scripted_agent.py"),),
        env={"SCRIPTED_AGENT_SCRIPT": str(script), "SERVICE_SECRET": AGENT_SECRET},
        source="tests",
    )
    app = AcpApp(spec, str(workspace))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "boom", wait=False)
        await wait_for(pilot, lambda: isinstance(app.screen, CrashScreen))
        tail = app.screen.stderr_tail
        assert "fatal: bad key" in tail
        assert AGENT_SECRET not in tail
