"""Agent text in report.md and report.html stays text: a real batch whose agent echoes an attack."""

from __future__ import annotations

import json
import re

from markdown_it import MarkdownIt

from acphost.safetext import HTML_CSP

from .conftest import acphost

ATTACK = (
    "</pre><script>alert(1)</script>\n"
    "```\n# Injected heading\n"
    "[click](javascript:alert(1)) ![i](https://evil.example/p.png)\n"
    "<img src=x onerror=alert(1)> <https://evil.example> www.evil.example"
)


def _tags(rendered: str) -> list[str]:
    return [m.lower() for m in re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)", rendered)]


def _hrefs(rendered: str) -> list[str]:
    return re.findall(r'href="([^"]*)"', rendered)


def test_reports_keep_the_agents_text_inert(plain_ws, tmp_path):
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"id": "attack", "prompt": "echo " + ATTACK}) + "\n")
    out = tmp_path / "out"
    r = acphost(
        ["batch", "--prompts", str(prompts), "--workspace", str(plain_ws), "--out", str(out),
         "--no-history"],
        cwd=tmp_path,
        env={"ACPHOST_DEMO_STEP": "0"},
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    result = json.loads(next(out.glob("runs/*/result.json")).read_text())
    assert result["final_text"] == ATTACK  # the agent did send it, exactly

    md = (out / "report.md").read_text()
    viewer = MarkdownIt("commonmark", {"linkify": True}).enable(
        ["table", "strikethrough", "linkify"]
    )
    rendered = viewer.render(md)
    assert "script" not in _tags(rendered) and "img" not in _tags(rendered)
    assert _tags(rendered).count("h1") == 1  # ours; the agent's "# Injected heading" is code
    assert all(h.startswith("runs/") for h in _hrefs(rendered)), _hrefs(rendered)

    page = (out / "report.html").read_text()
    assert f'<meta http-equiv="Content-Security-Policy" content="{HTML_CSP}">' in page
    assert "script" not in _tags(page) and "img" not in _tags(page)
    assert all(h.startswith("runs/") for h in _hrefs(page)), _hrefs(page)
    assert "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page


#: An agent whose every prompt fails with a megabyte-long error message.
LOUD_AGENT = r"""
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    rid, method = msg.get("id"), msg.get("method")
    if method == "initialize":
        result = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}
    elif method == "session/new":
        result = {"sessionId": "s1"}
    elif method == "session/prompt":
        error = {"code": -32603, "message": "boom " + "x" * 1_000_000 + " END"}
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "error": error}) + "\n")
        sys.stdout.flush()
        continue
    else:
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n")
    sys.stdout.flush()
"""


def test_an_agents_huge_error_is_kept_bounded_in_every_report(plain_ws, tmp_path):
    agent = tmp_path / "loud_agent.py"
    agent.write_text(LOUD_AGENT)
    out = tmp_path / "out"
    r = acphost(
        ["batch", "--agent-command", f"python3 {agent}", "--prompt", "hi",
         "--workspace", str(plain_ws), "--out", str(out), "--no-history"],
        cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode != 0
    [run] = json.loads((out / "report.json").read_text())["runs"]
    message = run["error"]["message"]
    assert run["status"] == "error" and "boom xxx" in message
    assert "END" not in message and "more characters)" in message
    assert len(message) < 3000
    for name in ("report.md", "report.html"):
        assert (out / name).stat().st_size < 100_000, name
    assert len(r.stderr) < 10_000
