"""What a run writes and shows: one redactor for all of it, output files opened safely.

Real ``acphost`` runs; the leaky agent repeats its configured secret in a
message, a permission request, its stderr and its crash.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.cli.runner import run

HERE = Path(__file__).parent
SECRET = "correct-horse-battery-staple"  # no known token format: only the configuration says
ARG_SECRET = "k-9f8e7d6c5b4a"


def settings_file(tmp_path: Path) -> Path:
    path = tmp_path / "settings.json"
    leaky = {
        "command": sys.executable,
        "args": [str(HERE / "leaky_agent.py"), "--api-key", ARG_SECRET],
        "env": {"LEAKY_VALUE": SECRET},
    }
    path.write_text(json.dumps({"agent_servers": {"leaky": leaky}}))
    return path


def test_configured_secrets_never_reach_the_trace_audit_log_history_or_reports(tmp_path):
    settings = settings_file(tmp_path)
    trace, audit = tmp_path / "trace.jsonl", tmp_path / "audit.jsonl"
    r = run(
        ["--settings", str(settings), "-vv", "--approve-all", "--trace", str(trace),
         "--audit-log", str(audit), "-o", "simple", "go"],
        cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 1, r.stderr
    assert "exited with code 3" in r.stderr and "fatal: could not use token" in r.stderr
    assert SECRET not in r.stderr and ARG_SECRET not in r.stderr
    assert r.stdout == f"using {SECRET} now\n"  # the answer itself is the agent's text
    trace_text = trace.read_text()
    assert "[REDACTED]" in trace_text and SECRET not in trace_text
    entries = [json.loads(line) for line in audit.read_text().splitlines()]
    assert entries and entries[0]["decision"] == "allow"
    assert "[REDACTED]" in entries[0]["title"] and SECRET not in audit.read_text()
    store = Path(os.environ["XDG_DATA_HOME"]) / "acphost"
    stored = b"".join(p.read_bytes() for p in store.iterdir())
    assert b"correct-horse" not in stored and ARG_SECRET.encode() not in stored


def test_doctor_agents_and_sessions_show_no_configured_secret(tmp_path):
    settings = settings_file(tmp_path)
    r = run(["--settings", str(settings), "agents"], cwd=tmp_path)
    assert r.returncode == 0 and "--api-key [REDACTED]" in r.stdout
    assert ARG_SECRET not in r.stdout
    r = run(["--settings", str(settings), "-a", "leaky", "doctor"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert ARG_SECRET not in r.stdout + r.stderr
    assert "leaky-[REDACTED]" in r.stdout and SECRET not in r.stdout  # its name quotes it
    for output in ("text", "jsonl"):
        r = run(["--settings", str(settings), "-a", "leaky", "sessions", "-o", output],
                cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        assert "about [REDACTED]" in r.stdout and SECRET not in r.stdout + r.stderr


def test_what_the_host_says_about_a_session_shows_no_configured_secret(tmp_path):
    """Notices, compactions, the stop reason (stderr), and the title and currency
    the history keeps, all quote the secret; none of them may show it."""
    settings = settings_file(tmp_path)
    r = run(["--settings", str(settings), "-a", "leaky", "-o", "text", "talk"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "notice [REDACTED]" in r.stderr and "stop-[REDACTED]" in r.stderr
    assert SECRET not in r.stdout + r.stderr
    r = run(["history", "list"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert SECRET not in r.stdout
    store = Path(os.environ["XDG_DATA_HOME"]) / "acphost"
    stored = b"".join(p.read_bytes() for p in store.iterdir())
    assert SECRET.encode() not in stored


@pytest.mark.parametrize("flag", ["--trace", "--audit-log"])
def test_an_unsafe_output_file_is_a_usage_error_before_the_agent_starts(tmp_path, flag):
    marker = tmp_path / "agent-started"
    command = f"{sys.executable} -c \"open({str(marker)!r}, 'w')\""
    target = tmp_path / "elsewhere.jsonl"
    target.write_text("precious\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(target)
    r = run(["--agent-command", command, flag, str(link), "hi"], cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith(f"acphost: {flag} {link}: ") and "symbolic link" in r.stderr
    assert len(r.stderr.splitlines()) == 1
    assert not marker.exists()
    assert target.read_text() == "precious\n"


def test_the_agent_cannot_write_the_runs_own_files(tmp_path):
    trace = tmp_path / "t.jsonl"
    history = tmp_path / "hist" / "h.sqlite3"
    env = {"ACPHOST_HISTORY": str(history)}
    args = ["--write", "--approve-all", "-o", "simple"]
    r = run([*args, "--trace", str(trace), f"write {trace} overwritten"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"Not writing {trace}"), r.stdout
    assert all(json.loads(line)["direction"] for line in trace.read_text().splitlines())
    r = run([*args, f"write {history} gone"], cwd=tmp_path, env=env)
    assert r.stdout.startswith(f"Not writing {history}"), r.stdout
    assert history.read_bytes()[:15] == b"SQLite format 3"
    # Beside the store, the workspace stays writable.
    r = run([*args, f"write {tmp_path}/hist/notes.txt ok"], cwd=tmp_path, env=env)
    assert r.stdout.startswith("Wrote 2 characters"), r.stdout
    assert (tmp_path / "hist" / "notes.txt").read_text() == "ok"


def test_a_program_that_is_not_an_acp_agent_exits_1_with_what_it_wrote(tmp_path):
    r = run(["--agent-command", "yes definitely-not-json", "hi"], cwd=tmp_path)
    assert r.returncode == 1
    assert "does not look like an ACP agent" in r.stderr
    assert '"definitely-not-json"' in r.stderr


def test_replay_and_tui_help_from_the_top_level_command(tmp_path):
    for args in (["replay", "--help"], ["-v", "replay", "--help"]):
        r = run(args, cwd=tmp_path)
        assert r.returncode == 0 and r.stdout.startswith("usage: acphost replay"), r.stderr
    r = run(["tui", "--help"], cwd=tmp_path)
    assert r.returncode == 0
    assert "with several, the start screen asks which" in " ".join(r.stdout.split())
    r = run(["--help"], cwd=tmp_path)
    text = " ".join(r.stdout.split())
    assert "3 a budget (--max-tokens, --max-cost) was crossed" in text
    assert "--no-history" in text and "--unstable" in text
