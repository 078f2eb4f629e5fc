"""Lines the agent writes that are not JSON-RPC are quoted cut short: no piece of a value in the quote.

The start of such a line is kept for the trace (200 bytes) and for the
"does not look like an ACP agent" report (120 characters), both cut before
anything redacted them: a configured value longer than that, on such a
line, showed its beginning. The cuts are now marked (safetext.CUT) and the
redactor masks the beginning of a value before a mark. Real agents, a real
``acphost``.
"""

from __future__ import annotations

import json
import random
import sys
import textwrap
from pathlib import Path

from acphost.safetext import CUT
from tests.cli.runner import run

SECRET = "".join(random.Random(5).choices("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdef", k=1000))
WINDOW = 16

BANNER_AGENT = textwrap.dedent(
    r"""
    import json, os, sys
    def send(obj):
        sys.stdout.write(json.dumps(obj) + "\n"); sys.stdout.flush()
    sys.stdout.write("banner: key " + os.environ["CUT_AGENT_KEY"] + "\n"); sys.stdout.flush()
    for raw in sys.stdin:
        msg = json.loads(raw)
        method, rid = msg.get("method"), msg.get("id")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": rid,
                  "result": {"protocolVersion": 1, "agentCapabilities": {}}})
        elif method == "session/new":
            send({"jsonrpc": "2.0", "id": rid, "result": {"sessionId": "s1"}})
        elif method == "session/prompt":
            send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
    """
)

NOT_AN_AGENT = textwrap.dedent(
    r"""
    import os, sys
    for _ in range(20):
        sys.stdout.write("using key " + os.environ["CUT_AGENT_KEY"] + "\n")
    sys.stdout.flush()
    sys.stdin.read()
    """
)


def pieces_of(text: str) -> set[str]:
    grams = {SECRET[i : i + WINDOW] for i in range(len(SECRET) - WINDOW + 1)}
    return {text[i : i + WINDOW] for i in range(len(text) - WINDOW + 1)} & grams


def settings(tmp_path: Path, code: str) -> Path:
    agent = tmp_path / "agent.py"
    agent.write_text(code)
    path = tmp_path / "settings.json"
    spec = {"command": sys.executable, "args": [str(agent)], "env": {"CUT_AGENT_KEY": SECRET}}
    path.write_text(json.dumps({"agent_servers": {"cut": spec}}))
    return path


def test_the_trace_quotes_a_banner_line_without_a_piece_of_the_value(tmp_path):
    trace = tmp_path / "trace.jsonl"
    r = run(
        ["--settings", str(settings(tmp_path, BANNER_AGENT)), "--trace", str(trace), "go"],
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    (unparsed,) = [rec["unparsed"] for rec in records if "unparsed" in rec]
    assert unparsed == f"banner: key [REDACTED]{CUT}"
    assert pieces_of(trace.read_text()) == set() and pieces_of(r.stderr) == set()


def test_the_report_on_a_program_that_is_not_an_agent_quotes_no_piece_of_the_value(tmp_path):
    r = run(["--settings", str(settings(tmp_path, NOT_AN_AGENT)), "go"], cwd=tmp_path)
    assert r.returncode == 1 and "does not look like an ACP agent" in r.stderr, r.stderr
    assert f'"using key [REDACTED]{CUT}"' in r.stderr
    assert pieces_of(r.stderr) == set()
