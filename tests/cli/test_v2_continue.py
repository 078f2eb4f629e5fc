"""``--continue`` and ``--resume`` of a session spoken in ACP v2.

Real ``acphost`` runs against the demo agent (a real subprocess; its sessions
kept in the test's state folder). A reopened session asks for the version its
recording says it agreed on, unless ``--protocol`` says otherwise: v2 has no
``session/load``, and a v2 session reopened in v1 would lose the tools offered
as the MCP server.
"""

from __future__ import annotations

import json

from tests.cli.runner import run
from tests.cli.test_cli import check_jsonl


def _first(tmp_path, *flags: str) -> None:
    r = run(["--protocol", "2", *flags, "echo first"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("first")


def _initialize_and_reopen(frames: list[dict]) -> tuple[list[int], list[str]]:
    versions = [f["params"]["protocolVersion"] for f in frames if f.get("method") == "initialize"]
    opened = [
        f["method"]
        for f in frames
        if f.get("method") in ("session/new", "session/load", "session/resume")
    ]
    return versions, opened


def test_continue_reopens_a_v2_session_in_v2_unless_the_flag_says_otherwise(tmp_path):
    _first(tmp_path)
    r = run(["--continue", "-o", "jsonl", "-v", "echo second"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    frames = check_jsonl(r.stdout)
    assert _initialize_and_reopen(frames) == ([2], ["session/resume"])
    assert "acphost: acphost.cli: protocol 2 (asked: 2)" in r.stderr.splitlines()
    assert any(f.get("result", {}).get("messageId") for f in frames)  # the v2 prompt answer
    # The flag wins: the same session reopened in v1 (the demo keeps it across versions).
    r = run(["--continue", "--protocol", "1", "-o", "jsonl", "echo third"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    versions, opened = _initialize_and_reopen(check_jsonl(r.stdout))
    assert versions == [1] and opened in (["session/resume"], ["session/load"])


def test_resume_by_history_id_and_by_saved_file_keeps_v2(tmp_path):
    saved = tmp_path / "saved.json"
    _first(tmp_path, "--save-session", str(saved))
    data = json.loads(saved.read_text())
    assert data["protocol"] == 2
    for target in (str(saved), data["historyId"], data["historyId"][:8]):
        r = run(["--resume", target, "-o", "jsonl", "echo again"], cwd=tmp_path)
        assert r.returncode == 0, (target, r.stderr)
        assert _initialize_and_reopen(check_jsonl(r.stdout)) == ([2], ["session/resume"])


def test_a_saved_file_whose_protocol_is_not_a_version_says_nothing(tmp_path):
    saved = tmp_path / "saved.json"
    _first(tmp_path, "--save-session", str(saved), "--no-history")
    data = json.loads(saved.read_text())
    for junk in ("2", 7.5, None, [2], 0):
        saved.write_text(json.dumps({**data, "protocol": junk}))
        r = run(["--resume", str(saved), "--no-history", "-o", "jsonl", "echo x"], cwd=tmp_path)
        # Nothing recorded: the default (1), which the demo reopens too.
        assert r.returncode == 0, (junk, r.stderr)
        assert _initialize_and_reopen(check_jsonl(r.stdout))[0] == [1]


def test_replay_context_starts_a_new_session_as_asked(tmp_path):
    _first(tmp_path)
    r = run(["--continue", "--replay-context", "-o", "jsonl", "echo new"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert _initialize_and_reopen(check_jsonl(r.stdout)) == ([1], ["session/new"])
