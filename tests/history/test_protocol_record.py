"""The history keeps the ACP protocol version each session was spoken in, and says it back."""

from __future__ import annotations

import json
import sqlite3

from acphost.history import HistoryStore, protocol_record
from acphost.history._db import SCHEMA_VERSION, migrate
from tests.support.in_process import run_main

from .conftest import only_record


def test_a_run_on_protocol_1_records_1_and_show_and_every_export_say_it(tmp_path, env, store_path):
    r = run_main(["--protocol", "1", "--no-sandbox", "echo hi"], cwd=tmp_path, env=env)
    assert r.code == 0, r.stderr
    record = only_record(store_path)
    assert record.protocol == 1
    key = record.id[:8]
    show = run_main(["history", "show", key], cwd=tmp_path, env=env)
    assert "\nprotocol: ACP version 1\n" in show.stdout, show.stdout

    def export(fmt: str) -> str:
        out = run_main(["history", "export", key, "-f", fmt], cwd=tmp_path, env=env)
        assert out.code == 0, out.stderr
        return out.stdout

    assert json.loads(export("json"))["session"]["protocol"] == 1
    assert json.loads(export("jsonl").splitlines()[0])["protocol"] == 1
    assert "- **Protocol** ACP version 1\n" in export("md")
    assert "<dt>Protocol</dt><dd>ACP version 1</dd>" in export("html")


def test_an_exported_session_keeps_its_protocol_through_an_import(tmp_path, env, store_path):
    run_main(["--no-sandbox", "echo hi"], cwd=tmp_path, env=env)
    record = only_record(store_path)
    exported = run_main(["history", "export", record.id[:8], "-f", "json"], cwd=tmp_path, env=env)
    data = json.loads(exported.stdout)
    data["session"]["id"] = "a" * 32
    path = tmp_path / "one.json"
    path.write_text(json.dumps(data))
    assert run_main(["history", "import", str(path)], cwd=tmp_path, env=env).code == 0
    with HistoryStore.open(str(store_path)) as store:
        assert store.get("a" * 32).protocol == 1
    # A file says what it likes: only a version number is kept.
    data["session"].update(id="b" * 32, protocol="2; DROP TABLE")
    path.write_text(json.dumps(data))
    assert run_main(["history", "import", str(path)], cwd=tmp_path, env=env).code == 0
    with HistoryStore.open(str(store_path)) as store:
        assert store.get("b" * 32).protocol is None


def test_a_store_of_the_previous_version_is_migrated_and_its_sessions_say_nothing(store_path):
    store_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(store_path, isolation_level=None)
    assert migrate(conn, target=7) == 7
    conn.execute(
        "INSERT INTO sessions (id, agent, command, cwd, agent_session_id, started_at, origin, "
        "sandbox) VALUES (?, 'demo', '[\"demo\"]', '/w', 's', '2026-11-01T00:00:00.000+00:00', "
        "'recorded', NULL)",
        ("c" * 32,),
    )
    conn.close()
    with HistoryStore.open(str(store_path)) as store:
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 9
        old = store.get("c" * 32)
        assert old.protocol is None
        assert "protocol:" not in run_show(store, old)


def run_show(store, record) -> str:
    from acphost.history import transcript_text

    return transcript_text(record)


def test_a_tampered_protocol_column_is_not_trusted(tmp_path, env, store_path):
    run_main(["--no-sandbox", "echo hi"], cwd=tmp_path, env=env)
    for tampered in ("two", 0, 70000, 1.5):
        with HistoryStore.open(str(store_path)) as store:
            store._conn.execute("UPDATE sessions SET protocol = ?", (tampered,))
            store._conn.commit()
        assert only_record(store_path).protocol is None, tampered
    assert [protocol_record(v) for v in (1, 2, True, "1", None, -1)] == [
        1,
        2,
        None,
        None,
        None,
        None,
    ]
