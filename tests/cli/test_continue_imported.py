"""Imported history is not the user's own: ``--continue`` never takes it.

Real ``acphost history import`` and ``acphost --continue`` processes against
the demo agent. An import names any agent, directory, date and agent session
id it likes; only an explicit ``--resume ID`` reaches it, and the replayed
context then says it was imported.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

from acphost.history import HistoryStore
from tests.cli.runner import run
from tests.cli.test_continue import history_path, sent, sessions


def _soon(hours: float) -> str:
    moment = datetime.now(timezone.utc) + timedelta(hours=hours)
    return moment.isoformat(timespec="milliseconds")


def planted(tmp_path, *, agent_session_id: str, hours: float = 12) -> str:
    """An export that claims to be the demo's newest session in ``tmp_path`` (hours from now)."""
    session = {
        "id": "f" * 32, "agent": "demo", "command": ["demo"], "cwd": str(tmp_path),
        "started_at": _soon(hours), "agent_session_id": agent_session_id,
        "turns": [{"seq": 1, "started_at": _soon(hours), "prompt": "planted prompt",
                   "text": "planted answer", "complete": True, "stop_reason": "end_turn"}],
    }  # fmt: skip
    path = tmp_path / "planted.json"
    path.write_text(json.dumps({"format": "acphost-history", "version": 1, "session": session}))
    return str(path)


def test_continue_never_takes_an_imported_session(tmp_path):
    assert run(["echo mine"], cwd=tmp_path).returncode == 0
    (mine,) = sessions()
    # Within the clock skew an import may have, so it is the newest here.
    imported = run(["history", "import", planted(tmp_path, agent_session_id="planted-sid")],
                   cwd=tmp_path)  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    assert sessions()[0].origin == "imported"
    r = run(["--continue", "-o", "jsonl", "echo again"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (resumed,) = sent(r.stdout, "session/resume")
    assert resumed["sessionId"] == mine.agent_session_id
    r = run(["--continue", "--replay-context", "-o", "jsonl", "echo more"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (params,) = sent(r.stdout, "session/prompt")
    assert "planted" not in json.dumps(params)
    assert "> echo again" in params["prompt"][1]["resource"]["text"]  # the newest of mine


def test_continue_with_only_an_imported_session_has_nothing_to_continue(tmp_path):
    path = planted(tmp_path, agent_session_id="planted-sid")
    assert run(["history", "import", path], cwd=tmp_path).returncode == 0
    r = run(["--continue", "--replay-context", "echo go on"], cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "the history has no session of agent 'demo'" in r.stderr


def test_an_agent_session_id_names_the_users_own_record_before_an_imported_one(tmp_path):
    assert run(["echo mine"], cwd=tmp_path).returncode == 0
    (mine,) = sessions()
    path = planted(tmp_path, agent_session_id=mine.agent_session_id)
    assert run(["history", "import", path], cwd=tmp_path).returncode == 0
    r = run(["--resume", mine.agent_session_id, "--replay-context", "-o", "jsonl", "echo x"],
            cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    (params,) = sent(r.stdout, "session/prompt")
    assert params["prompt"][1]["resource"]["uri"] == f"acphost://history/{mine.id}"


def test_resume_names_an_imported_session_and_the_context_says_it_was_imported(tmp_path):
    path = planted(tmp_path, agent_session_id="planted-sid")
    assert run(["history", "import", path], cwd=tmp_path).returncode == 0
    r = run(["--resume", "f" * 12, "--replay-context", "-o", "jsonl", "echo go on"],
            cwd=tmp_path)  # fmt: skip
    assert r.returncode == 0, r.stderr
    (params,) = sent(r.stdout, "session/prompt")
    intro, resource, _prompt = params["prompt"]
    assert "imported into acphost's history" in intro["text"]
    assert "earlier session with you" not in intro["text"]
    assert "planted answer" in resource["resource"]["text"]


def test_an_import_dated_in_the_future_is_refused_in_one_line(tmp_path):
    for stamp, problem in (
        ("9999-12-31T23:59:59+00:00", "in the future"),
        ("9999-12-31T23:59:59-01:00", "outside the years 1 to 9999"),  # no UTC time at all
        (_soon(48), "in the future"),
    ):
        data = json.loads(Path(planted(tmp_path, agent_session_id="x")).read_text())
        data["session"]["started_at"] = stamp
        (tmp_path / "future.json").write_text(json.dumps(data))
        r = run(["history", "import", str(tmp_path / "future.json")], cwd=tmp_path)
        assert r.returncode == 1, r.stderr
        assert "Traceback" not in r.stderr and len(r.stderr.splitlines()) == 1, r.stderr
        assert "session.started_at" in r.stderr and problem in r.stderr, r.stderr
    assert not history_path().exists() or sessions() == []


def test_an_import_without_an_offset_or_before_1970_is_refused(tmp_path):
    for stamp, problem in (
        ("2026-01-01T10:00:00", "no UTC offset"),
        ("0001-01-01T00:00:00+01:00", "outside the years 1 to 9999"),
        ("1969-12-31T23:59:59+00:00", "before 1970"),
    ):
        data = json.loads(Path(planted(tmp_path, agent_session_id="x")).read_text())
        data["session"]["turns"][0]["started_at"] = stamp
        (tmp_path / "odd.json").write_text(json.dumps(data))
        r = run(["history", "import", str(tmp_path / "odd.json")], cwd=tmp_path)
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        assert "turns[0].started_at" in r.stderr and problem in r.stderr, r.stderr


def test_imported_sessions_are_pruned_by_their_bounded_date(tmp_path):
    path = planted(tmp_path, agent_session_id="planted-sid", hours=-24 * 40)
    assert run(["history", "import", path], cwd=tmp_path).returncode == 0
    r = run(["history", "prune", "--older-than", "30d"], cwd=tmp_path)
    assert r.returncode == 0 and "deleted 1 session" in r.stdout, r.stderr
    with HistoryStore.open(str(history_path())) as store:
        assert store.list_sessions() == []


def _import_with_ids(tmp_path, session_id: str, agent_session_id: str) -> None:
    data = json.loads(Path(planted(tmp_path, agent_session_id=agent_session_id)).read_text())
    data["session"]["id"] = session_id
    path = tmp_path / "crafted.json"
    path.write_text(json.dumps(data))
    r = run(["history", "import", str(path)], cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def test_an_import_never_takes_the_name_of_the_users_own_session(tmp_path):
    """An imported id that extends the user's whole id made that id ambiguous, shown
    as two identical 12-character ids; an imported agent session id equal to a prefix of
    the user's id took that prefix."""
    assert run(["echo mine"], cwd=tmp_path).returncode == 0
    (mine,) = sessions()
    _import_with_ids(tmp_path, mine.id + "0", "planted-sid")
    shown = run(["history", "show", mine.id], cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "echo mine" in shown.stdout
    r = run(["history", "show", mine.id[:8]], cwd=tmp_path)
    assert r.returncode != 0
    assert f"{mine.id}0 (imported)" in r.stderr and mine.id in r.stderr, r.stderr
    _import_with_ids(tmp_path, "e" * 32, mine.id[:10])
    shown = run(["history", "show", mine.id[:10]], cwd=tmp_path)
    assert "planted prompt" not in shown.stdout
