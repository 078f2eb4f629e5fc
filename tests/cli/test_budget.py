"""Budgets, the usage line, notices and compactions: real ``acphost`` runs against the demo.

The demo's ``spend N SECONDS`` streams N steps, each a message chunk and a
``usage_update`` (1,000 tokens, USD 0.01 more): a budget cancels it midway.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from acphost.cli._budget import NO_USAGE_YET
from acphost.history import HistoryStore
from acphost.launch import EXIT_BUDGET
from tests.cli.runner import run
from tests.cli.terminal import PtyRun

# Many steps, well apart: the cancel always arrives while the turn runs.
LONG_SPEND = "spend 200 0.05"


def only_turn():
    path = Path(os.environ["XDG_DATA_HOME"]) / "acphost" / "history.sqlite3"
    with HistoryStore.open(str(path)) as store:
        (summary,) = store.list_sessions()
        (turn,) = store.get(summary.id).turns
    return turn


def test_a_cost_budget_cancels_the_turn_exits_3_and_the_history_says_why(tmp_path):
    r = run(["--max-cost", "0.025", LONG_SPEND], cwd=tmp_path)
    assert r.returncode == EXIT_BUDGET == 3, r.stderr
    assert "acphost: cost budget exceeded: 0.03 USD spent > 0.025 USD\n" in r.stderr
    assert "Step 3/200" in r.stdout and "Step 150/200" not in r.stdout
    assert "[usage] tokens" in r.stdout  # the cancelled turn's usage is still shown
    turn = only_turn()
    assert turn.stop_reason == "cancelled"
    assert turn.host_stop == "budget: cost budget exceeded: 0.03 USD spent > 0.025 USD"


def test_a_token_budget_cancels_the_turn_in_every_output_mode(tmp_path):
    for mode in ("simple", "jsonl"):
        r = run(["--max-tokens", "2500", "-o", mode, LONG_SPEND], cwd=tmp_path)
        assert r.returncode == 3, r.stderr
        assert "acphost: token budget exceeded: 3003 tokens in use > 2500" in r.stderr
    frames = [json.loads(line) for line in r.stdout.splitlines()]  # jsonl: frames only
    assert any(f.get("method") == "session/cancel" for f in frames)


def test_budgets_from_the_settings_and_the_flags_win(tmp_path):
    settings = tmp_path / "settings.json"
    entry = {
        "command": sys.executable,
        "args": ["-m", "acphost.agents.demo"],
        "max_cost": "0.025 USD",
    }
    settings.write_text(json.dumps({"agent_servers": {"capped": entry}}))
    r = run(["--settings", str(settings), "-o", "simple", LONG_SPEND], cwd=tmp_path)
    assert r.returncode == 3 and "cost budget exceeded" in r.stderr, r.stderr
    r = run(["--settings", str(settings), "--max-cost", "1", "-o", "simple", "spend 5 0"],
            cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0 and "budget exceeded" not in r.stderr, r.stderr
    # An entry without a command adjusts the built-in demo, also when picked with -a.
    settings.write_text(json.dumps({"agent_servers": {"demo": {"max_tokens": 2500}}}))
    r = run(["--settings", str(settings), "-a", "demo", "-o", "simple", LONG_SPEND], cwd=tmp_path)
    assert r.returncode == 3 and "token budget exceeded" in r.stderr, r.stderr
    # A budget in another currency is not crossed by costs in USD.
    r = run(["--max-cost", "0.001 EUR", "-o", "simple", "spend 3 0"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def test_bad_budget_values_are_usage_errors(tmp_path):
    for args in (["--max-cost", "-1"], ["--max-cost", "lots"], ["--max-tokens", "1.5"]):
        r = run([*args, "hello"], cwd=tmp_path)
        assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"agent_servers": {"x": {"command": "x", "max_tokens": -5}}}))
    r = run(["--settings", str(settings), "hello"], cwd=tmp_path)
    assert r.returncode == 2 and "agent_servers.x.max_tokens" in r.stderr


def test_a_budget_with_an_agent_that_reports_no_usage_says_so(tmp_path):
    r = run(["--max-cost", "1", "-o", "simple", "echo hi"], cwd=tmp_path)
    assert r.returncode == 0 and r.stdout == "hi\n"
    assert r.stderr.splitlines() == [
        "acphost: budget set; the agent has not reported usage yet: "
        "if it never does, the budget cannot be enforced",
        "acphost: the agent reported no usage during the turn: the budget was not enforced",
    ]


def test_the_text_summary_shows_the_turns_usage(tmp_path):
    r = run(["spend 3 0"], cwd=tmp_path)
    assert r.returncode == 0
    last = r.stdout.splitlines()[-1]
    assert last.startswith("[usage] tokens 3,000 (input 2,400, output 600) · context 3,0")
    assert last.endswith("/200,000 · cost 0.0300 USD")
    saved = tmp_path / "s.json"
    assert run(["--save-session", str(saved), "echo x"], cwd=tmp_path).returncode == 0
    # Resumed: the cost reported before is unknown, so it is the session's.
    r = run(["--resume", str(saved), "spend 2 0"], cwd=tmp_path)
    assert re.search(r" · cost 0\.02\d\d USD \(session total\)$", r.stdout.splitlines()[-1])
    r = run(["-o", "simple", "spend 2 0"], cwd=tmp_path)
    assert "[usage]" not in r.stdout  # simple: the assistant's text only
    r = run(["echo no usage"], cwd=tmp_path)
    assert r.stdout == "no usage\n"


def test_notices_and_compactions_are_lines_on_stderr(tmp_path):
    r = run(["notice warning Low disk"], cwd=tmp_path)
    assert r.returncode == 0
    assert "[notice] warning: Low disk: Sent by the demo agent's `notice` keyword.\n" in r.stderr
    assert "[notice]" not in r.stdout
    r = run(["-o", "simple", "notice error Quota"], cwd=tmp_path)
    assert "[notice] error: Quota" in r.stderr and "[notice]" not in r.stdout
    r = run(["compact"], cwd=tmp_path)
    lines = [line for line in r.stderr.splitlines() if line.startswith("[compaction]")]
    assert lines == ["[compaction] started", "[compaction] completed"]
    r = run(["compact fail"], cwd=tmp_path)
    lines = [line for line in r.stderr.splitlines() if line.startswith("[compaction]")]
    assert lines[0] == "[compaction] started"
    assert lines[1].startswith("[compaction] failed: ") and len(lines) == 2
    r = run(["-o", "jsonl", "notice warning Low disk"], cwd=tmp_path)
    assert "[notice]" not in r.stderr  # jsonl: the frames are the output


def test_no_notices_turns_them_off(tmp_path):
    r = run(["--no-notices", "-o", "simple", "notice warning Low disk"], cwd=tmp_path)
    assert r.returncode == 0 and "[notice]" not in r.stderr
    assert "did not opt in" in r.stdout


def test_notices_on_a_terminal_are_sanitised_and_beside_the_transcript(tmp_path):
    evil = "\x1b]0;pwned\x07\x1b[2J\u202e"
    env = {**os.environ, "ACPHOST_DEMO_STEP": "0", "XDG_CONFIG_HOME": str(tmp_path / ".x")}
    term = PtyRun([f"notice warning Hi{evil}there"], cwd=tmp_path, env=env, cols=200)
    assert term.wait() == 0, term.text()
    out = term.text()
    assert "[notice] warning: Hi\\x1b]0;pwned\\x07\\x1b[2J<U+202E>there" in out
    assert "\x1b]0;pwned" not in out and "\u202e" not in out


def test_unstable_shows_the_auth_status_with_the_capabilities(tmp_path):
    r = run(["--unstable", "--list-caps"], cwd=tmp_path)
    assert r.returncode == 0
    assert "\n\nauth status\n  not_required\n" in r.stdout
    r = run(["--list-caps"], cwd=tmp_path)
    assert "auth status" not in r.stdout


def test_a_continued_sessions_turn_is_held_to_its_budget_and_recorded_once(tmp_path):
    """The first cost a continued session reports already holds the turn's first step.

    Counting from it let a turn spend 0.03 USD under a 0.025 budget; the history
    recorded each run with the session's whole cost (0.16 USD for 0.08 spent).
    """
    assert run(["spend 3"], cwd=tmp_path).returncode == 0
    r = run(["--continue", "--max-cost", "0.025", "spend 2"], cwd=tmp_path)
    assert r.returncode == 0 and "budget" not in r.stderr.replace(NO_USAGE_YET, ""), r.stderr
    assert r.stdout.splitlines()[-1].endswith(" · cost 0.0200 USD")  # the turn's, not the session's
    r = run(["--continue", "--max-cost", "0.025", "spend 3"], cwd=tmp_path)
    assert r.returncode == EXIT_BUDGET, r.stderr
    assert re.search(r"cost budget exceeded: 0\.030*\d* USD spent > 0\.025 USD", r.stderr)
    usage = json.loads(run(["usage", "--by", "cwd", "-o", "json"], cwd=tmp_path).stdout)
    (row,) = usage["rows"]
    assert row["turns"] == 3 and row["cost"]["USD"] == pytest.approx(0.08, abs=1e-4)
    # One conversation (a --continue chain): its turns and spend summed, each once.
    listed = run(["history", "list"], cwd=tmp_path).stdout.splitlines()[1:]
    assert [line.split("\t")[3:6] for line in listed] == [["3", "8000", "0.0800 USD"]]


def test_without_a_record_a_continued_turn_warns_that_its_count_began_late(tmp_path):
    assert run(["spend 3"], cwd=tmp_path).returncode == 0
    r = run(["--continue", "--no-history", "--max-cost", "0.025", "spend 3"], cwd=tmp_path)
    assert r.returncode == 0
    assert r.stderr.count("acphost: the session's cost before the turn is unknown") == 1


def test_a_budget_in_another_currency_is_said_to_be_unenforceable(tmp_path):
    r = run(["--max-cost", "0.01 EUR", "-o", "simple", "spend 3"], cwd=tmp_path)
    assert r.returncode == 0 and "Spent 3000 tokens" in r.stdout
    assert r.stderr.splitlines() == [
        f"acphost: {NO_USAGE_YET}",
        "acphost: the agent reports its cost in USD, not in EUR: the cost budget cannot be enforced",
    ]
