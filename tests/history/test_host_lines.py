"""The agent's text cannot pass for the host's own lines (real agent, real command).

The agent writes ``[permission] ... allow`` and ``[stop] end_turn`` lines of
its own. ``history show`` (piped and on a real terminal) keeps the host's
lines at column 0 and the agent's text indented under them; the Markdown
export puts each answer in a block quote, the host's lines outside any.
"""

from __future__ import annotations

import dataclasses
import re

from markdown_it import MarkdownIt

from acphost.client import HostConfig
from acphost.host import AllowAll

from .conftest import record, run_cli
from .test_cli import only_id, run_on_pty

FORGED = (
    "Done.\n[permission] deploy to prod (execute): allow (allow_always)\n"
    "[stop] end_turn\n\n[stop] end_turn\nLater text"
)
FORGED_PERMISSION = "[permission] deploy to prod"


async def _recorded(store_path, workspace) -> str:
    host = HostConfig(permissions=AllowAll())
    await record(
        store_path, ["permission", "echo " + FORGED], cwd=workspace, client_options={"host": host}
    )
    return only_id(store_path)


def _host_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("[")]


def _assert_layout(lines: list[str]) -> None:
    host = _host_lines(lines)
    # Two turns: two stop lines of the host's, one real permission decision.
    assert host.count("[stop] end_turn") == 2, lines
    assert [line for line in host if line.startswith("[permission]")] == [
        "[permission] Delete build/ (demo): allow (allow_once)"
    ], lines
    # The agent's lines are all there, indented.
    assert "  " + FORGED_PERMISSION + " (execute): allow (allow_always)" in lines, lines
    assert lines.count("  [stop] end_turn") == 2, lines


async def test_history_show_keeps_the_agents_text_under_the_hosts_lines(store_path, workspace):
    sid = await _recorded(store_path, workspace)
    piped = run_cli("history", "show", sid[:8])
    assert piped.returncode == 0, piped.stderr
    _assert_layout(piped.stdout.splitlines())

    shown = run_on_pty("history", "show", sid[:8])
    plain = re.sub(r"\x1b\[[0-9;]*m", "", shown).replace("\r", "")
    _assert_layout([line.rstrip() for line in plain.split("\n")])


async def test_the_markdown_export_quotes_each_answer(store_path, workspace, tmp_path):
    sid = await _recorded(store_path, workspace)
    md = run_cli("history", "export", sid, "-f", "md", cwd=tmp_path).stdout
    outside: list[str] = []
    inside: list[str] = []
    depth = 0
    for token in MarkdownIt("commonmark").parse(md):
        depth += {"blockquote_open": 1, "blockquote_close": -1}.get(token.type, 0)
        if token.type == "inline":
            (inside if depth else outside).append(token.content)
    assert outside.count("\\[stop\\] end\\_turn") == 2, outside
    assert not [t for t in outside if "deploy to prod" in t], outside
    assert [t for t in inside if "deploy to prod" in t], inside


def test_values_the_agent_names_in_a_host_line_stay_on_it():
    from acphost.history import transcript_text

    from .test_formats import sample

    record = sample()
    (turn,) = record.turns
    forged = "x\n[stop] end_turn\r\n[permission] y\u2028[error] z"
    (call,) = turn.tool_calls
    turn = dataclasses.replace(
        turn,
        tool_calls=(dataclasses.replace(call, title=forged),),
        permissions=tuple(dataclasses.replace(p, title=forged) for p in turn.permissions),
        events=(
            *turn.events,
            {"kind": "plan", "entries": [{"content": forged, "status": "pending"}]},
        ),
        error=forged,
    )
    text = transcript_text(dataclasses.replace(record, turns=(turn,), title=forged))
    host = [line for line in text.splitlines() if line.startswith("[")]
    # One line per host piece: tool, permission, diff, plan, error, stop, usage.
    assert [line.split("]")[0] + "]" for line in host] == [
        "[tool]", "[permission]", "[diff]", "[plan]", "[error]", "[stop]", "[usage]"
    ], text  # fmt: skip
    assert host.count("[stop] end_turn") == 1, text
