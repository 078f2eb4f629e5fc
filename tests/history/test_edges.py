"""Dates and costs at the edges of their range: bounded, never a traceback or invalid JSON.

Real ``acphost history`` / ``usage`` processes, in time zones on both sides of
UTC, against stores holding what older versions let in (times in the year 1
or 9999, costs near the float maximum), and an upgrade from schema version 3.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from acphost.history import HistoryStore, SessionRecord, TurnRecord, Usage
from acphost.history._db import SCHEMA_VERSION, migrate

from .conftest import run_cli

ZONES = ("Asia/Tokyo", "America/Los_Angeles", "UTC")
LAST = "9999-12-31T23:59:59.000+00:00"
FIRST = "0001-01-01T00:00:00.000+00:00"


def strict_json(text: str):
    def refuse(name):
        raise AssertionError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def add(store: HistoryStore, sid: str, when: str, *, cost: float | None = None, origin="recorded"):
    usage = Usage(total=10, cost_amount=cost, cost_currency="USD" if cost else None)
    turn = TurnRecord(seq=1, started_at=when, prompt="p", ended_at=when, text="t", complete=True,
                      usage=usage)  # fmt: skip
    store.add_session(SessionRecord(id=sid, agent="demo", command=("demo",), cwd="/w",
                                    started_at=when, ended_at=when, agent_session_id="s-" + sid,
                                    origin=origin, usage=usage, turns=(turn,)))  # fmt: skip


@pytest.mark.parametrize("zone", ZONES)
def test_times_at_the_edges_of_the_range_show_and_export(store_path, zone):
    store_path.parent.mkdir(parents=True)
    with HistoryStore.open(str(store_path)) as store:  # as an older acphost let them in
        add(store, "a" * 32, LAST)
        add(store, "b" * 32, FIRST)
    env = {"TZ": zone}
    for args in (
        ("history", "show", "a" * 8),
        ("history", "show", "b" * 8),
        ("history", "export", "a" * 8, "-f", "md"),
        ("history", "export", "b" * 8, "-f", "html"),
        ("history", "info"),
        ("history", "list", "--until", "9999-12-31"),
        ("history", "list", "--since", "0001-01-01", "--until", "9999-12-31T23:59:59-01:00"),
        ("history", "list", "--since", "0001-01-01T00:00:00+01:00"),
        ("usage", "--by", "day", "--until", "9999-12-31"),
        ("history", "prune", "--older-than", "99999999999w", "--dry-run"),
        ("history", "prune", "--older-than", "1000000d"),
    ):
        proc = run_cli(*args, env=env)
        assert proc.returncode == 0, (args, proc.stderr)
        assert "Traceback" not in proc.stderr, (args, proc.stderr)
    listed = run_cli("history", "list", "--until", "9999-12-31", "-o", "json", env=env)
    assert [s["id"][0] for s in strict_json(listed.stdout)] == ["a", "b"]
    since = run_cli("history", "list", "--since", "9999-12-31", "-o", "json", env=env)
    assert [s["id"][0] for s in strict_json(since.stdout)] in (["a"], [])  # the zone decides


def test_costs_near_the_float_maximum_never_sum_to_infinity(store_path, tmp_path):
    sessions = []
    for n, sid in enumerate(("c" * 32, "d" * 32)):
        usage = {"total": 5, "cost_amount": 1.7e308, "cost_currency": "USD"}
        sessions.append({
            "id": sid, "agent": "demo", "command": [], "cwd": "/w",
            "started_at": f"2026-01-0{n + 1}T00:00:00+00:00", "usage": usage,
            "turns": [{"seq": 1, "started_at": f"2026-01-0{n + 1}T00:00:00+00:00", "prompt": "p",
                       "complete": True, "usage": usage}],
        })  # fmt: skip
    path = tmp_path / "costly.json"
    path.write_text(json.dumps({"format": "acphost-history", "version": 1, "sessions": sessions}))
    assert run_cli("history", "import", str(path)).returncode == 0
    # And what an older acphost stored unbounded, written straight into the file.
    with HistoryStore.open(str(store_path)) as store:
        add(store, "e" * 32, "2026-01-03T00:00:00.000+00:00")
    conn = sqlite3.connect(store_path)
    conn.execute("UPDATE turns SET cost_amount = 1.7e308, cost_currency = 'USD'")
    conn.execute("UPDATE sessions SET cost_amount = 1.7e308, cost_currency = 'USD'")
    conn.commit()
    conn.close()
    for by in ("agent", "day", "cwd"):
        proc = run_cli("usage", "--by", by, "-o", "json")
        assert proc.returncode == 0, proc.stderr
        data = strict_json(proc.stdout)
        assert data["total"]["turns"] == 3 and data["total"]["cost"] == {}
    listed = strict_json(run_cli("history", "list", "-o", "json").stdout)
    assert [s["cost"] for s in listed] == [None, None, None]
    shown = run_cli("history", "export", "e" * 8, "-f", "json")
    assert strict_json(shown.stdout)["session"]["usage"]["cost_amount"] is None


def test_an_upgrade_from_version_3_brings_imported_future_times_back(store_path):
    store_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(store_path, isolation_level=None)
    assert migrate(conn, target=3) == 3
    # The version 3 store, written as v3 wrote it (its columns, the text inline).
    for sid, when in (("f" * 32, LAST), ("1" * 32, "2026-01-01T00:00:00.000+00:00")):
        conn.execute(
            "INSERT INTO sessions (id, agent, command, cwd, agent_session_id, started_at, "
            "ended_at, origin) VALUES (?, 'demo', '[\"demo\"]', '/w', ?, ?, ?, 'imported')",
            (sid, "s-" + sid, when, when),
        )
        conn.execute(
            "INSERT INTO turns (session_id, seq, started_at, ended_at, prompt, text, events, "
            "complete, total_tokens) VALUES (?, 1, ?, ?, 'p', 't', "
            "'[{\"kind\":\"text\",\"text\":\"t\"}]', 1, 10)",
            (sid, when, when),
        )
    conn.close()
    info = run_cli("history", "info", "-o", "json")  # opens, so migrates
    assert info.returncode == 0, info.stderr
    assert strict_json(info.stdout)["version"] == SCHEMA_VERSION == 9
    with HistoryStore.open(str(store_path)) as store:
        healed = store.get("f" * 32)
        assert healed.started_at < LAST and healed.started_at.startswith("20")
        assert healed.turns[0].started_at == healed.started_at
        # The text written inline before version 5 reads as it was.
        assert healed.turns[0].text == "t" and healed.turns[0].events == (
            {"kind": "text", "text": "t"},
        )
        assert store.get("1" * 32).started_at == "2026-01-01T00:00:00.000+00:00"  # untouched
    pruned = run_cli("history", "prune", "--older-than", "0s")
    assert pruned.returncode == 0 and "deleted 2 session" in pruned.stdout, pruned.stderr


def test_imported_sessions_say_so_in_the_listing(store_path, tmp_path):
    from .test_cli import export_file, run_on_pty

    assert run_cli("history", "import", str(export_file(tmp_path, "9" * 32))).returncode == 0
    (row,) = strict_json(run_cli("history", "list", "-o", "json").stdout)
    assert row["origin"] == "imported"
    listing = run_on_pty("history")
    assert "demo (imported)" in listing, listing
