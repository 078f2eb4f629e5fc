"""A tiny MCP server with the host's three tools, for the demo agent's tests (a fixture).

It stands in for acphost's own ``acphost`` MCP server: ``read_text_file``,
``write_text_file`` and ``run_command``, jailed to one root directory (a path
outside it is refused with ``isError`` and the reason in the text). Every call
is appended to a log file as one JSON line, so a test sees what the agent asked.

Run as ``python mcp_tools_server.py ROOT LOG`` it speaks MCP over stdio (one
JSON-RPC message per line); :func:`serve_http` serves the same tools over MCP
streamable HTTP (POST, ``application/json`` answers) in a thread.
"""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

TOOLS = [
    {"name": "read_text_file", "inputSchema": {"type": "object"}},
    {"name": "write_text_file", "inputSchema": {"type": "object"}},
    {"name": "run_command", "inputSchema": {"type": "object"}},
]


class Tools:
    """The three tools, jailed to ``root``; each call is logged to ``log``."""

    def __init__(self, root: Path, log: Path) -> None:
        self.root = root.resolve()
        self.log = log

    def _inside(self, path: str) -> Path | None:
        target = Path(path).resolve()
        return target if target == self.root or self.root in target.parents else None

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        with self.log.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"name": name, "arguments": arguments}) + "\n")
        if name == "run_command":
            return self._run(arguments)
        target = self._inside(str(arguments.get("path")))
        if target is None:
            return _error(
                f"{arguments.get('path')} is outside the workspace {self.root}: refused by policy"
            )
        if name == "read_text_file":
            try:
                lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
                start = max(int(arguments.get("line", 1)) - 1, 0)
                end = start + int(arguments["limit"]) if "limit" in arguments else None
                return _ok("".join(lines[start:end]))
            except OSError as exc:
                return _error(f"cannot read {target}: {exc.strerror}")
        target.write_text(str(arguments.get("content")), encoding="utf-8")
        return _ok(f"wrote {target}")

    def _run(self, arguments: dict[str, Any]) -> dict[str, Any]:
        cwd = self._inside(str(arguments.get("cwd") or self.root))
        if cwd is None:
            return _error(
                f"the cwd {arguments.get('cwd')} is outside the workspace: refused by policy"
            )
        done = subprocess.run(
            [str(arguments["command"]), *arguments.get("args", [])],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        output = done.stdout + done.stderr
        structured = {
            "output": output,
            "exitStatus": {"exitCode": done.returncode, "signal": None},
            "truncated": False,
        }
        result = _ok(output)
        result["structuredContent"] = structured
        result["isError"] = done.returncode != 0
        return result

    def handle(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Answer one JSON-RPC message (``None`` for a notification)."""
        if "id" not in message:
            return None
        method = message.get("method")
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "acphost", "version": "0"},
            }
        elif method == "tools/list":
            result = {"tools": TOOLS}
        elif method == "tools/call":
            params = message["params"]
            result = self.call(params["name"], params.get("arguments") or {})
        else:
            return {
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {"code": -32601, "message": "no"},
            }
        return {"jsonrpc": "2.0", "id": message["id"], "result": result}


def _ok(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": False}


def _error(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def serve_http(tools: Tools, token: str) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve ``tools`` over MCP streamable HTTP on 127.0.0.1; return (server, url).

    Requests without ``Authorization: Bearer <token>`` get 401.
    """

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            if self.headers.get("Authorization") != f"Bearer {token}":
                self.send_response(401)
                self.end_headers()
                return
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            answer = tools.handle(json.loads(body))
            if answer is None:
                self.send_response(202)
                self.end_headers()
                return
            data = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if answer.get("result", {}).get("serverInfo"):
                self.send_header("Mcp-Session-Id", "session-1")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/mcp"


def main() -> None:
    tools = Tools(Path(sys.argv[1]), Path(sys.argv[2]))
    if os.environ.get("MCP_TEST_MARK"):
        with tools.log.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({"env": os.environ["MCP_TEST_MARK"]}) + "\n")
    for line in sys.stdin:
        if line.strip():
            message = json.loads(line)
            if os.environ.get("MCP_TEST_PING") and message.get("method") == "tools/call":
                # A server may ask the client too: a ping needs an answer (MCP basic).
                sys.stdout.write(
                    json.dumps({"jsonrpc": "2.0", "id": "srv-1", "method": "ping"}) + "\n"
                )
                sys.stdout.flush()
                pong = json.loads(sys.stdin.readline())
                with tools.log.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps({"pong": pong}) + "\n")
            answer = tools.handle(message)
            if answer is not None:
                sys.stdout.write(json.dumps(answer) + "\n")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
