"""The store under real processes: concurrent writers, kill -9 in the middle of writes."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from acphost.history import HistoryStore

from .conftest import WRITER

pytestmark = pytest.mark.timeout(180)


def writer(store, cwd, *args):
    return subprocess.Popen(
        [sys.executable, str(WRITER), str(store), str(cwd), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "ACPHOST_DEMO_STEP": "0"},
        start_new_session=True,
    )


def consistent(path):
    conn = sqlite3.connect(str(path))
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        return conn
    except BaseException:
        conn.close()
        raise


def test_ten_writer_processes_at_once_lose_nothing(tmp_path, workspace):
    store = tmp_path / "fresh" / "history.sqlite3"  # all ten create it at once
    procs = [writer(store, workspace, "--sessions", "2", "echo hi", "tool", "diff") for _ in range(10)]
    ids = []
    for proc in procs:
        out, err = proc.communicate(timeout=150)
        assert proc.returncode == 0, err
        assert err == ""  # not one warning: nobody gave up on the store
        ids += out.split()
    assert len(set(ids)) == 20
    consistent(store).close()
    with HistoryStore.open(str(store)) as opened:
        sessions = opened.list_sessions(limit=None)
        assert sorted(s.id for s in sessions) == sorted(ids)
        for summary in sessions:
            record = opened.get(summary.id)
            assert [t.prompt for t in record.turns] == ["echo hi", "tool", "diff"]
            assert all(t.complete for t in record.turns)
            assert [len(t.tool_calls) for t in record.turns] == [0, 1, 1]
            assert record.ended_at is not None


def complete_turns(path):
    """How many complete turns the store holds (0 before it exists); a reader never blocks the writer."""
    if not path.exists():
        return 0
    conn = sqlite3.connect(str(path), timeout=10)
    try:
        return conn.execute("SELECT count(*) FROM turns WHERE complete").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0
    finally:
        conn.close()


def wait_for_turns(path, count, proc, deadline=60.0):
    """Poll the store until it holds ``count`` complete turns."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        assert proc.poll() is None, proc.stderr.read()
        if complete_turns(path) >= count:
            return
        time.sleep(0.02)
    raise AssertionError(f"the writer did not record {count} turns in {deadline} s")


def kill(proc):
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stdout.close()
    proc.stderr.close()


# A turn's text as the store holds it: its own column, or (schema 5, stored once) its
# text events' parts in order.
TEXT = (
    "CASE WHEN t.text_joined THEN coalesce((SELECT group_concat(x.text, '') FROM (SELECT text "
    "FROM turn_text x WHERE x.session_id = t.session_id AND x.seq = t.seq AND x.kind = 'text' "
    "ORDER BY x.event, x.part) x), '') ELSE t.text END"
)


@pytest.mark.parametrize("rounds", [(3, 4, 5)])
def test_kill_9_while_recording_leaves_a_consistent_store(tmp_path, workspace, rounds):
    store = tmp_path / "history.sqlite3"
    for more in rounds:  # each writer records ``more`` turns of its own before it is killed
        before = complete_turns(store)
        proc = writer(store, workspace, "--forever", "tool", "flood 300")
        wait_for_turns(store, before + more, proc)
        kill(proc)
        conn = consistent(store)
        try:
            for prompt, complete, calls, text in conn.execute(
                "SELECT prompt, complete, (SELECT count(*) FROM tool_calls c WHERE "
                f"c.session_id = t.session_id AND c.seq = t.seq), {TEXT} FROM turns t"
            ):
                if not complete:  # begun, never finished: no half of it is visible
                    assert (calls, text) == (0, "")
                elif prompt == "tool":
                    assert calls == 1 and text == "The search found 2 matches."
                else:
                    assert text.count("\n") == 300
        finally:
            conn.close()
    with HistoryStore.open(str(store)) as opened:
        sessions = opened.list_sessions()
        assert len(sessions) == len(rounds)
        assert all(s.ended_at is None for s in sessions)  # killed, never closed


def test_kill_9_inside_write_transactions_leaves_whole_turns(tmp_path, workspace):
    store = tmp_path / "history.sqlite3"
    for more in (20, 40):
        before = complete_turns(store)
        proc = writer(store, workspace, "--direct")
        wait_for_turns(store, before + more, proc)
        kill(proc)
        conn = consistent(store)
        try:
            rows = conn.execute(
                "SELECT complete, (SELECT count(*) FROM tool_calls c WHERE "
                f"c.session_id = t.session_id AND c.seq = t.seq), length({TEXT}) FROM turns t"
            ).fetchall()
        finally:
            conn.close()
        assert {row for row in rows if row[0]} == {(1, 50, 5000)}
        assert {row for row in rows if not row[0]} <= {(0, 0, 0)}
    # The store is still good for writing after the kills.
    proc = writer(store, workspace, "echo after")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and err == ""
    with HistoryStore.open(str(store)) as opened:
        assert opened.get(out.strip()).turns[0].text == "after"
