"""The store on its own: creation, modes, migrations, ids, filters, delete, prune, size."""

from __future__ import annotations

import os
import sqlite3
import stat
from datetime import datetime, timedelta, timezone

import pytest

from acphost.history import (
    HistoryError,
    HistoryIdError,
    HistoryStore,
    SessionRecord,
    TurnRecord,
    Usage,
    default_path,
    history_enabled,
)
from acphost.history._db import SCHEMA_VERSION, migrate


def ago(days: float) -> str:
    return (datetime.now(timezone.utc) - timedelta(days=days)).isoformat(timespec="milliseconds")


def session(sid: str, *, agent="demo", cwd="/work/p", days=0.0, turns=(), title=None, asid=None):
    return SessionRecord(
        id=sid,
        agent=agent,
        command=("demo",),
        cwd=cwd,
        started_at=ago(days),
        agent_session_id=asid,
        title=title,
        turns=tuple(
            TurnRecord(seq=i + 1, started_at=ago(days), prompt=p, text=f"answer to {p}", complete=True)
            for i, p in enumerate(turns)
        ),
    )


def test_default_path_follows_xdg_and_the_override():
    assert default_path({"XDG_DATA_HOME": "/x/data"}) == "/x/data/acphost/history.sqlite3"
    home = os.path.expanduser("~")
    assert default_path({}) == f"{home}/.local/share/acphost/history.sqlite3"
    assert default_path({"ACPHOST_HISTORY": "/tmp/h.db", "XDG_DATA_HOME": "/x"}) == "/tmp/h.db"


@pytest.mark.parametrize(
    ("flag", "env", "enabled"),
    [
        (False, {}, True),
        (True, {}, False),
        (False, {"ACPHOST_NO_HISTORY": "1"}, False),
        (False, {"ACPHOST_NO_HISTORY": "yes"}, False),
        (False, {"ACPHOST_NO_HISTORY": "0"}, True),
        (False, {"ACPHOST_NO_HISTORY": ""}, True),
        (False, {"ACPHOST_NO_HISTORY": "off"}, True),
    ],
)
def test_history_enabled_reads_the_flag_and_the_environment(flag, env, enabled):
    assert history_enabled(flag, env) is enabled


def test_created_on_first_use_owner_only_with_wal_and_shm(tmp_path):
    path = tmp_path / "new" / "dir" / "history.sqlite3"
    old = os.umask(0o022)
    try:
        store = HistoryStore.open(str(path))
        store.add_session(session("a" * 32, turns=("hello",)))
        # While the connection is open, WAL mode keeps the -wal and -shm files.
        for suffix in ("", "-wal", "-shm"):
            mode = stat.S_IMODE(os.stat(f"{path}{suffix}").st_mode)
            assert mode == 0o600, (suffix, oct(mode))
        assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
        assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        store.close()
    finally:
        os.umask(old)


def test_an_older_schema_is_migrated_and_keeps_its_sessions(tmp_path):
    path = str(tmp_path / "h.sqlite3")
    conn = sqlite3.connect(path, isolation_level=None)
    assert migrate(conn, target=1) == 1
    conn.execute(
        "INSERT INTO sessions (id, agent, command, cwd, started_at) VALUES (?, ?, ?, ?, ?)",
        ("b" * 32, "old-agent", '["old"]', "/old", ago(1)),
    )
    conn.execute(
        "INSERT INTO turns (session_id, seq, started_at, prompt, text, complete) "
        "VALUES (?, 1, ?, 'hi', 'hello', 1)",
        ("b" * 32, ago(1)),
    )
    conn.close()
    with HistoryStore.open(path) as store:
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        record = store.get("b" * 32)
        assert record.agent == "old-agent"
        assert record.turns[0].text == "hello"
        assert record.turns[0].usage == Usage()
        # The migrated store takes the newer columns.
        turn = TurnRecord(1, ago(0), "x", complete=True, usage=Usage(input=7, total=9))
        store.add_session(SessionRecord("c" * 32, "demo", (), "/new", ago(0), turns=(turn,)))
        assert store.get("c" * 32).turns[0].usage == Usage(input=7, total=9)
        assert [s.id for s in store.list_sessions()] == ["c" * 32, "b" * 32]


def test_a_store_from_a_newer_acphost_is_refused_with_advice(tmp_path):
    path = str(tmp_path / "h.sqlite3")
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    conn.close()
    with pytest.raises(HistoryError, match=r"newer than this acphost reads.*upgrade acphost"):
        HistoryStore.open(path)


def test_a_file_that_is_not_a_database_is_refused_with_advice(tmp_path):
    path = tmp_path / "h.sqlite3"
    path.write_bytes(b"this is not sqlite " * 100)
    with pytest.raises(HistoryError, match=r"damaged or not a history database.*move it away"):
        HistoryStore.open(str(path))
    assert path.read_bytes() == b"this is not sqlite " * 100


def test_ids_abbreviate_like_git(tmp_path):
    with HistoryStore.open(str(tmp_path / "h.sqlite3")) as store:
        store.add_session(session("abc1" + "0" * 28, asid="agent-sid-1"))
        store.add_session(session("abc2" + "0" * 28))
        store.add_session(session("def0" + "0" * 28))
        assert store.resolve_id("d") == "def0" + "0" * 28
        assert store.resolve_id("ABC1") == "abc1" + "0" * 28
        with pytest.raises(HistoryIdError, match="'abc' is ambiguous: 2 sessions match") as info:
            store.resolve_id("abc")
        assert sorted(info.value.candidates) == ["abc1" + "0" * 28, "abc2" + "0" * 28]
        with pytest.raises(HistoryIdError, match="no session in the history matches 'fff'"):
            store.resolve_id("fff")
        assert store.resolve_id("agent-sid-1") == "abc1" + "0" * 28


def test_adding_an_id_twice_changes_nothing(tmp_path):
    with HistoryStore.open(str(tmp_path / "h.sqlite3")) as store:
        assert store.add_session(session("a" * 32, title="first"))
        assert not store.add_session(session("a" * 32, title="second"))
        assert store.get("a" * 32).title == "first"


def test_list_filters_and_order(tmp_path):
    with HistoryStore.open(str(tmp_path / "h.sqlite3")) as store:
        store.add_session(session("1" * 32, agent="claude", cwd="/w/a", days=10, turns=("fix the Bug",)))
        store.add_session(session("2" * 32, agent="demo", cwd="/w/a/sub", days=5, turns=("hello",)))
        store.add_session(session("3" * 32, agent="demo", cwd="/w/ab", days=1, title="Übersicht"))
        ids = lambda **kw: [s.id[0] for s in store.list_sessions(**kw)]  # noqa: E731
        assert ids() == ["3", "2", "1"]
        assert ids(agent="demo") == ["3", "2"]
        assert ids(cwd="/w/a") == ["2", "1"]  # the directory and below, not /w/ab
        assert ids(grep="bug") == ["1"]
        assert ids(grep="ANSWER TO HELLO") == ["2"]
        assert ids(grep="übersicht") == ["3"]
        assert ids(since=ago(6)) == ["3", "2"]
        assert ids(until=ago(2)) == ["2", "1"]
        assert ids(limit=1) == ["3"]
        row = store.list_sessions(agent="claude")[0]
        assert (row.turns, row.first_prompt) == (1, "fix the Bug")


def test_latest_session_is_this_agent_in_this_directory_with_an_agent_id(tmp_path):
    with HistoryStore.open(str(tmp_path / "h.sqlite3")) as store:
        store.add_session(session("1" * 32, cwd="/w", days=3, asid="s-old"))
        store.add_session(session("2" * 32, cwd="/w", days=2, asid="s-new"))
        store.add_session(session("3" * 32, cwd="/w", days=1))  # no agent session id
        store.add_session(session("4" * 32, cwd="/w/sub", days=0, asid="s-sub"))
        store.add_session(session("5" * 32, agent="other", cwd="/w", days=0, asid="s-other"))
        latest = store.latest_session("demo", "/w")
        assert latest is not None
        assert (latest.id, latest.agent_session_id) == ("2" * 32, "s-new")
        assert store.latest_session("demo", "/nowhere") is None


def test_delete_removes_the_session_and_its_turns(tmp_path):
    with HistoryStore.open(str(tmp_path / "h.sqlite3")) as store:
        store.add_session(session("a" * 32, turns=("one", "two")))
        store.delete_session("a" * 32)
        assert store.list_sessions() == []
        assert store._conn.execute("SELECT count(*) FROM turns").fetchone()[0] == 0
        with pytest.raises(HistoryIdError):
            store.delete_session("a" * 32)


def test_prune_deletes_old_sessions_and_the_file_shrinks(tmp_path):
    with HistoryStore.open(str(tmp_path / "h.sqlite3")) as store:
        big = "x" * 200_000
        for i in range(10):
            store.add_session(session(f"{i:x}" * 32, days=60, turns=(big,)))
        store.add_session(session("f" * 32, days=1, turns=("recent",)))
        store.compact()
        before = store.size()
        assert before > 1_000_000
        assert store.info().sessions == 11
        assert store.prune(ago(30)) == 10
        info = store.info()
        assert (info.sessions, info.turns) == (1, 1)
        assert info.size < before / 5
        assert store.prune(ago(30)) == 0
