"""The host's MCP server against the official MCP TypeScript SDK's client, on both transports.

The SDK (``@modelcontextprotocol/sdk``) is what the Node agents
(``claude-agent-acp``, ``codex-acp``'s Node side) speak MCP with: it comes
with the interop suite's pinned agents. Its client negotiates, lists the
tools, checks ``structuredContent`` against each tool's ``outputSchema``,
and closes as an agent does. Skipped, with the reason, when node or the
pinned install is unavailable.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from acphost.host._mcpserve import HostTools
from tests.interop import install

pytestmark = pytest.mark.interop

CLIENT = """
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const server = JSON.parse(process.argv[2]);
const transport = server.type === "http"
  ? new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: Object.fromEntries(server.headers.map((h) => [h.name, h.value])) },
    })
  : new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: Object.fromEntries(server.env.map((e) => [e.name, e.value])),
      stderr: "inherit",
    });
const client = new Client({ name: "sdk-client", version: "1" });
await client.connect(transport);
const out = { server: client.getServerVersion(), tools: (await client.listTools()).tools };
out.read = await client.callTool({ name: "read_text_file", arguments: { path: "a.txt" } });
out.run = await client.callTool({ name: "run_command", arguments: { command: "make" } });
out.bad = await client.callTool({ name: "run_command", arguments: { command: 3 } });
await client.close();
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def sdk_root() -> Path:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    try:
        root = install.ensure()
    except install.Unavailable as exc:
        pytest.skip(f"interop packages unavailable: {exc}")
    modules = root / "node_modules"
    if not (modules / "@modelcontextprotocol" / "sdk" / "package.json").exists():
        pytest.skip("the pinned agents no longer bring @modelcontextprotocol/sdk")
    return modules


async def fake_host(method: str, params: dict[str, Any]) -> Any:
    answers: dict[str, Any] = {
        "fs/read_text_file": {"content": "file text"},
        "terminal/create": {"terminalId": "t"},
        "terminal/wait_for_exit": {"exitCode": 2},
        "terminal/output": {"output": "built\n", "exitStatus": {"exitCode": 2}},
    }
    return answers.get(method, {})


@pytest.mark.parametrize("http", [False, True], ids=["stdio", "http"])
async def test_the_official_sdk_client_uses_the_tools(
    sdk_root: Path, tmp_path: Path, http: bool
) -> None:
    (tmp_path / "node_modules").symlink_to(sdk_root)
    script = tmp_path / "client.mjs"
    script.write_text(CLIENT)
    async with HostTools(fake_host, "sess-1", cwd=str(tmp_path), http=http) as tools:
        [server] = tools.servers(protocol=2)
        process = await asyncio.create_subprocess_exec(
            "node",
            str(script),
            json.dumps(server),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=tmp_path,
        )
        stdout, stderr = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 0, stderr.decode()
    out = json.loads(stdout)
    assert out["server"]["name"] == "acphost"
    assert [t["name"] for t in out["tools"]] == ["read_text_file", "write_text_file", "run_command"]
    assert out["read"]["content"] == [{"type": "text", "text": "file text"}]
    # The SDK checked this against run_command's outputSchema.
    assert out["run"]["structuredContent"] == {
        "output": "built\n",
        "exitStatus": {"exitCode": 2, "signal": None},
        "truncated": False,
        "timedOut": False,
    }
    assert out["bad"]["isError"] is True
