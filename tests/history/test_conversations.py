"""Conversations: a ``--continue`` chain, a named session, a TUI tab read as one.

Real ``acphost`` processes against the demo agent (which keeps its sessions in
its state folder, so ``--continue`` reloads them), and a store migrated from
version 8.
"""

from __future__ import annotations

import json
import sqlite3

from acphost import AcpClient
from acphost.history import HistoryRecorder, HistoryStore
from acphost.history._db import SCHEMA_VERSION, migrate

from .conftest import DEMO, run_cli


def prompt(env, workspace, *args):
    r = run_cli("-o", "simple", *args, cwd=workspace, env=env)
    assert r.returncode == 0, r.stderr
    return r


def listing(env, workspace, *args):
    r = run_cli("history", "list", "-o", "json", *args, cwd=workspace, env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def session_ids(store_path):
    with HistoryStore.open(str(store_path)) as store:
        return [s.id for s in reversed(store.list_sessions())]  # oldest first


def test_a_chain_of_continue_runs_is_one_conversation(store_path, env, tmp_path):
    env = {**env, "ACPHOST_DEMO_STATE_DIR": str(tmp_path / "demo-state")}
    workspace = tmp_path / "work"
    workspace.mkdir()
    prompt(env, workspace, "echo one")
    prompt(env, workspace, "--continue", "echo two")
    prompt(env, workspace, "--continue", "echo three")
    first, second, third = session_ids(store_path)

    (row,) = listing(env, workspace)
    assert (row["id"], row["turns"], row["sessions"]) == (first, 3, 3)
    assert (row["agent"], row["cwd"], row["first_prompt"]) == ("demo", str(workspace), "echo one")
    assert row["latest_session"] == third and row["updated"] >= row["started_at"]
    assert set(row) >= {"id", "title", "agent", "cwd", "turns", "updated", "usage"}
    assert set(row["usage"]) == {"total_tokens", "cost"}

    plain = run_cli("history", "list", cwd=workspace, env=env)
    _header, only = plain.stdout.splitlines()
    assert only.split("\t")[0] == first and only.split("\t")[3] == "3"

    # Any of its sessions' ids (or a prefix) shows the whole conversation, in order,
    # each session's boundary marked.
    shown = run_cli("history", "show", third[:10], cwd=workspace, env=env)
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    assert text.startswith(f"conversation {first[:12]} · 3 sessions · 3 turns")
    marks = [text.index(f"[session {n}/3] session {sid[:12]}") for n, sid in enumerate(
        (first, second, third), 1)]  # fmt: skip
    prompts = [text.index(f"> echo {word}") for word in ("one", "two", "three")]
    assert marks[0] < prompts[0] < marks[1] < prompts[1] < marks[2] < prompts[2]
    assert run_cli("history", "show", first[:8], cwd=workspace, env=env).stdout == text

    # The exports carry it whole.
    exported = run_cli("history", "export", second, "-f", "json", cwd=workspace, env=env)
    data = json.loads(exported.stdout)
    assert [s["id"] for s in data["sessions"]] == [first, second, third]
    assert data["conversation"] == first
    lines = run_cli("history", "export", first, "-f", "jsonl", cwd=workspace, env=env).stdout
    kinds = [json.loads(line)["type"] for line in lines.splitlines()]
    assert kinds == ["session", "turn"] * 3
    md = run_cli("history", "export", first, "-f", "md", cwd=workspace, env=env).stdout
    assert md.index("## Session 1 of 3") < md.index("## Session 2 of 3") < md.index("echo two")
    html = run_cli("history", "export", first, "-f", "html", cwd=workspace, env=env).stdout
    assert html.count('<article class="session">') == 3

    # A run without --continue starts a second conversation, listed first (newest).
    prompt(env, workspace, "echo four")
    rows = listing(env, workspace)
    assert [(r["turns"], r["sessions"]) for r in rows] == [(1, 1), (3, 3)]
    assert rows[1]["id"] == first
    # --continue goes on with the newest: that second conversation.
    prompt(env, workspace, "--continue", "echo five")
    rows = listing(env, workspace)
    assert [(r["turns"], r["first_prompt"]) for r in rows] == [(2, "echo four"), (3, "echo one")]

    # --resume of a session in the middle joins its conversation too.
    prompt(env, workspace, "--resume", second, "echo six")
    rows = listing(env, workspace)
    assert [(r["id"], r["turns"]) for r in rows] == [(first, 4), (rows[1]["id"], 2)]

    # Deleting any of its sessions' ids deletes the conversation.
    r = run_cli("history", "delete", third[:12], cwd=workspace, env=env)
    assert r.returncode == 0 and f"deleted {first[:12]} (4 sessions)" in r.stdout, r.stderr
    assert [r["turns"] for r in listing(env, workspace)] == [2]


def test_a_version_8_store_keeps_each_old_session_as_a_conversation(store_path, env, tmp_path):
    store_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(store_path, isolation_level=None)
    assert migrate(conn, target=8) == 8
    # Two runs of one agent session (a --continue before conversations existed),
    # and another session: three conversations, as they were three rows.
    for sid, start, agent_sid in (
        ("a" * 32, "2026-11-01T00:00:00.000+00:00", "s1"),
        ("b" * 32, "2026-11-02T00:00:00.000+00:00", "s1"),
        ("c" * 32, "2026-11-03T00:00:00.000+00:00", "s2"),
    ):
        conn.execute(
            "INSERT INTO sessions (id, agent, command, cwd, agent_session_id, started_at, origin) "
            "VALUES (?, 'demo', '[\"demo\"]', '/w', ?, ?, 'recorded')",
            (sid, agent_sid, start),
        )
        conn.execute(
            "INSERT INTO turns (session_id, seq, started_at, ended_at, prompt, text, complete) "
            "VALUES (?, 1, ?, ?, 'p', 't', 1)",
            (sid, start, start),
        )
    conn.close()
    rows = listing(env, tmp_path)
    assert [(r["id"], r["turns"], r["sessions"]) for r in rows] == [
        ("c" * 32, 1, 1),
        ("b" * 32, 1, 1),
        ("a" * 32, 1, 1),
    ]
    with HistoryStore.open(str(store_path)) as store:
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 9
        assert [store.conversation_of(i * 32) for i in "abc"] == ["a" * 32, "b" * 32, "c" * 32]
    shown = run_cli("history", "show", "b" * 8, env=env)
    assert shown.stdout.startswith(f"session {'b' * 12} · demo")  # one session: as before


async def test_a_name_and_a_tab_join_their_conversation(store_path, tmp_path):
    """The hooks other faces use: ``HistoryRecorder.join(name=...)`` and ``conversation=``."""
    cwd = str(tmp_path)
    other = str(tmp_path / "elsewhere")

    async def one_run(*, name=None, cwd=cwd, conversation=None):
        recorder = HistoryRecorder.open(str(store_path))
        recorder.join(name=name)
        async with AcpClient.start(DEMO) as client:
            session = await client.new_session(cwd)
            recording = recorder.open_session("demo", DEMO, cwd, session, conversation=conversation)
            await session.prompt("echo hi")
            recording.close()
        recorder.close()
        return recording

    first = await one_run(name="build")
    again = await one_run(name="build")
    apart = await one_run(name="build", cwd=other)  # a name belongs to its directory
    assert first.conversation == again.conversation == first.id != apart.conversation
    tab = await one_run()
    in_tab = await one_run(conversation=tab.conversation)
    assert in_tab.conversation == tab.id
    with HistoryStore.open(str(store_path)) as store:
        named = store.named_conversation("demo", cwd, "build")
        assert named is not None
        assert (named.id, named.sessions, named.turns) == (first.id, 2, 2)
        assert named.latest_session == again.id and named.name == "build"
        assert named.agent_session_id == again.agent_session_id
        assert store.named_conversation("demo", cwd, "other") is None
        rows = store.list_conversations(cwd=cwd)
        assert [(r.id, r.sessions) for r in rows][:2] == [(tab.id, 2), (apart.id, 1)]
        # A conversation whose first session is gone is still named by its id.
        store.delete_session(first.id)
        assert store.resolve_conversation(first.id[:10]) == first.id
        assert [s.id for s in store.get_conversation(first.id).sessions] == [again.id]


def test_an_imported_session_keeps_its_own_conversation(store_path, env, tmp_path):
    """An export of a conversation imports as its sessions, each its own: a file joins nothing."""
    env = {**env, "ACPHOST_DEMO_STATE_DIR": str(tmp_path / "demo-state")}
    prompt(env, tmp_path, "echo one")
    prompt(env, tmp_path, "--continue", "echo two")
    (row,) = listing(env, tmp_path)
    export = tmp_path / "chain.json"
    r = run_cli("history", "export", row["id"], "-f", "json", "-O", str(export), env=env)
    assert r.returncode == 0 and "wrote conversation" in r.stderr, r.stderr
    data = json.loads(export.read_text())
    for session, new_id in zip(data["sessions"], ("d" * 32, "e" * 32), strict=True):
        session["id"] = new_id
    export.write_text(json.dumps(data))
    assert run_cli("history", "import", str(export), env=env).returncode == 0
    rows = listing(env, tmp_path)
    assert sorted((r["sessions"], r["origin"]) for r in rows) == [
        (1, "imported"),
        (1, "imported"),
        (2, "recorded"),
    ]


async def test_a_session_the_agent_reopens_goes_on_with_its_conversation(store_path, tmp_path):
    """A load or resume (the TUI's list, a script) joins the conversation it was recorded in.

    A new session never joins by its id alone: simple agents reuse one id.
    """
    cwd = str(tmp_path)

    async def one_run(open_it):
        recorder = HistoryRecorder.open(str(store_path))
        async with AcpClient.start(DEMO) as client:
            session = await open_it(client)
            recording = recorder.open_session("demo", DEMO, cwd, session)
            await session.prompt("echo hi")
            recording.close()
        recorder.close()
        return recording, session.id

    first, sid = await one_run(lambda client: client.new_session(cwd))
    loaded, _ = await one_run(lambda client: client.load_session(sid, cwd))
    other, _ = await one_run(lambda client: client.new_session(cwd))
    assert loaded.conversation == first.id
    assert other.conversation == other.id
