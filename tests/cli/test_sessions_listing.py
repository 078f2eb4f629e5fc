"""``acphost sessions``: the agent's own sessions, newest first, ``--limit N`` of them.

The real command against the demo agent, whose sessions are files in its state
folder: seeded here with times that the agent's own order (by creation, oldest
first) does not follow, so "newest first" is by when each was last updated.
"""

from __future__ import annotations

import json

from tests.cli.runner import run

#: (session id, created, updated): the agent lists them by ``created``.
SEEDED = [
    ("s-alpha", 1.0, "2026-11-20T10:00:00Z"),
    ("s-bravo", 2.0, "2026-11-27T09:00:00+00:00"),  # created second, updated last
    ("s-charlie", 3.0, "2026-11-21T10:00:00Z"),
    ("s-delta", 4.0, "2026-11-26T12:00:00+02:00"),  # 10:00 UTC
    ("s-echo", 5.0, "2026-11-22T10:00:00Z"),
]
NEWEST_FIRST = ["s-bravo", "s-delta", "s-echo", "s-charlie", "s-alpha"]


def seed(tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    for sid, created, updated in SEEDED:
        data = {
            "sessionId": sid,
            "cwd": str(tmp_path),
            "created": created,
            "updatedAt": updated,
            "title": f"title of {sid}",
            "history": [],
        }
        (state / f"{sid}.json").write_text(json.dumps(data))
    return {"ACPHOST_DEMO_STATE_DIR": str(state)}


def listed(stdout: str) -> list[str]:
    header, *rows = stdout.splitlines()
    assert header.split("\t")[0] == "SESSION ID"
    return [row.split("\t")[0] for row in rows]


def test_sessions_are_listed_newest_first_and_limit_says_how_many_more(tmp_path):
    env = seed(tmp_path)
    r = run(["sessions", "--limit", "2"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert listed(r.stdout) == NEWEST_FIRST[:2]
    assert r.stderr.strip().splitlines()[-1] == "3 more (older); --limit 0 shows all 5"
    # The same order and limit as JSON lines; stdout stays one object a line.
    r = run(["sessions", "-o", "jsonl", "-n", "2"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert [json.loads(line)["sessionId"] for line in r.stdout.splitlines()] == NEWEST_FIRST[:2]
    assert "3 more (older)" in r.stderr
    # Without --limit: 20, so all five and no line about more; 0: all.
    for args in ([], ["--limit", "0"]):
        r = run(["sessions", *args], cwd=tmp_path, env=env)
        assert r.returncode == 0, r.stderr
        assert listed(r.stdout) == NEWEST_FIRST
        assert "more" not in r.stderr


def test_a_negative_limit_is_a_usage_error(tmp_path):
    r = run(["sessions", "--limit", "-1"], cwd=tmp_path, env=seed(tmp_path))
    assert r.returncode == 2
    assert "--limit -1: give a number of sessions, or 0 for all" in r.stderr


def test_sessions_without_a_time_come_last_in_reverse_agent_order():
    from acphost.cli._commands import newest_first

    items = [("a", None), ("b", "2026-01-01T00:00:00Z"), ("c", "not a time"), ("d", None)]
    ordered = newest_first(items, key=lambda item: item[1])
    assert [name for name, _ in ordered] == ["b", "d", "c", "a"]
