"""The demo agent's sessions over real pipes: the unstable session and auth methods,
and sessions kept in the user's state directory across processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from _raw_client import ROOT, RawClient, texts

# -- unstable methods ------------------------------------------------------------------


def error_code(client: RawClient, method: str, params: dict[str, Any]) -> int:
    _, response = client.until_response(client.request(method, params))
    assert "error" in response, response
    code: int = response["error"]["code"]
    return code


def test_set_title(client: RawClient) -> None:
    sid = client.new_session("/proj")
    assert client.call("session/set_title", {"sessionId": sid, "title": " Fix the bug "}) == {
        "title": "Fix the bug"
    }
    listed = client.call("session/list", {"cwd": "/proj"})["sessions"]
    assert [(s["sessionId"], s["title"]) for s in listed] == [(sid, "Fix the bug")]
    assert error_code(client, "session/set_title", {"sessionId": "nope", "title": "x"}) == -32002
    assert error_code(client, "session/set_title", {"sessionId": sid, "title": "  "}) == -32602
    # A closed session can be retitled too (any session session/list returns).
    client.call("session/close", {"sessionId": sid})
    client.call("session/set_title", {"sessionId": sid, "title": "Closed but named"})
    assert client.call("session/list", {"cwd": "/proj"})["sessions"][0]["title"] == (
        "Closed but named"
    )


def test_status_open_then_saved(make_client: Any) -> None:
    first = make_client()
    first.initialize()
    sid = first.new_session()
    assert first.call("session/status", {"sessionId": sid}) == {"status": "open"}
    first.call("session/close", {"sessionId": sid})
    assert first.call("session/status", {"sessionId": sid}) == {"status": "saved"}
    assert error_code(first, "session/status", {"sessionId": "nope"}) == -32002
    assert first.close() == 0
    second = make_client()
    second.initialize()
    assert second.call("session/status", {"sessionId": sid}) == {"status": "saved"}


def test_archive_and_unarchive(make_client: Any) -> None:
    c = make_client(ACPHOST_DEMO_PAGE_SIZE="10")
    c.initialize()
    kept, archived = c.new_session("/a"), c.new_session("/a")
    request_id = c.start_prompt(archived, "wait 600")
    # Archiving a session with a running turn cancels it, as session/close would.
    assert c.call("session/archive", {"sessionId": archived}) == {}
    _, response = c.until_response(request_id)
    assert response["result"]["stopReason"] == "cancelled"
    assert c.call("session/archive", {"sessionId": archived}) == {}  # archiving twice succeeds

    def listed(**params: Any) -> list[tuple[str, bool]]:
        sessions = c.call("session/list", params)["sessions"]
        return [(s["sessionId"], s["archived"]) for s in sessions]

    assert listed() == [(kept, False)]
    assert listed(archived="only") == [(archived, True)]
    assert listed(archived="include") == [(kept, False), (archived, True)]
    assert error_code(c, "session/list", {"archived": "sometimes"}) == -32602
    _, closed = c.prompt(archived, "echo hi")
    assert closed["error"]["code"] == -32002
    assert c.call("session/unarchive", {"sessionId": archived}) == {}
    assert listed() == [(kept, False), (archived, False)]
    assert error_code(c, "session/archive", {"sessionId": "nope"}) == -32002


def test_fork_copies_the_history(client: RawClient) -> None:
    sid = client.new_session("/proj")
    client.prompt(sid, "echo the original")
    frames, response = client.until_response(
        client.request("session/fork", {"sessionId": sid, "cwd": "/fork", "mcpServers": []})
    )
    fork = response["result"]["sessionId"]
    assert fork != sid and response["result"]["modes"]["currentModeId"] == "ask"
    follow = client.next_frame()
    assert follow is not None and follow["params"]["sessionId"] == fork
    client.prompt(fork, "echo only in the fork")
    client.call("session/close", {"sessionId": fork})
    frames, _ = client.until_response(
        client.request("session/load", {"sessionId": fork, "cwd": "/fork", "mcpServers": []})
    )
    replayed = texts([f["params"]["update"] for f in frames if "params" in f])
    assert replayed == "the originalonly in the fork"
    frames, _ = client.until_response(
        client.request("session/load", {"sessionId": sid, "cwd": "/proj", "mcpServers": []})
    )
    assert "only in the fork" not in texts([f["params"]["update"] for f in frames])


def test_auth_status_and_updates(make_client: Any) -> None:
    c = make_client(ACPHOST_DEMO_REQUIRE_AUTH="1")
    c.initialize()
    # No auth/status call yet: logging in sends no (unstable) status update.
    frames, _ = c.until_response(c.request("authenticate", {"methodId": "demo-login"}))
    assert frames == []
    c.call("logout", {})
    assert c.call("auth/status", {}) == {"state": "unauthenticated"}
    c.until_response(c.request("authenticate", {"methodId": "demo-login"}))
    update = c.next_frame()
    assert update is not None and update["method"] == "auth/status_update"
    assert update["params"]["state"] == "authenticated"
    assert update["params"]["accounts"][0]["active"] is True
    assert c.call("auth/status", {})["state"] == "authenticated"
    # Authenticating again changes nothing, so nothing is sent.
    frames, _ = c.until_response(c.request("authenticate", {"methodId": "demo-login"}))
    assert frames == []

    optional = make_client()
    optional.initialize()
    assert optional.call("auth/status", {}) == {"state": "not_required"}


# -- where sessions live ------------------------------------------------------------------


def session_files(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.json")) if directory.is_dir() else []


def test_sessions_persist_in_the_xdg_state_home(make_client: Any, state_home: Path) -> None:
    first = make_client()
    first.initialize()
    sid = first.new_session("/proj")
    first.prompt(sid, "echo remember me")
    assert first.close() == 0
    store = state_home / "acphost" / "demo"
    (saved,) = session_files(store)
    assert (
        saved.stem == sid and json.loads(saved.read_text())["history"][1]["text"] == "remember me"
    )
    assert saved.stat().st_mode & 0o777 == 0o600
    assert not list(store.glob("*.tmp"))

    second = make_client()
    second.initialize()
    _, response = second.until_response(
        second.request("session/resume", {"sessionId": sid, "cwd": "/proj"})
    )
    assert "result" in response
    updates, _ = second.prompt(sid, "echo again")
    assert texts(updates) == "again"


def test_home_fallback_and_memory_switches(make_client: Any, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_STATE_HOME": ""}  # unset, as far as the agent cares
    c = make_client(**env)
    c.initialize()
    c.new_session()
    assert c.close() == 0
    assert len(session_files(home / ".local" / "state" / "acphost" / "demo")) == 1

    for extra in ({"ACPHOST_DEMO_MEMORY": "1"}, {"ACPHOST_DEMO_SEED": "s"}):
        quiet = make_client(**env, **extra)
        quiet.initialize()
        quiet.new_session()
        assert quiet.close() == 0
    assert len(session_files(home / ".local" / "state" / "acphost" / "demo")) == 1


def run_demo(
    args: list[str], env: dict[str, str], stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **env}
    return subprocess.run(
        [sys.executable, "-m", "acphost.agents.demo", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=full,
        timeout=30,
        check=False,
    )


INIT_AND_NEW = (
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}\n'
    '{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}\n'
)


def test_command_line(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "xdg")}
    shown = run_demo(["--help"], env)
    assert shown.returncode == 0 and "--memory" in shown.stdout
    assert run_demo(["--version"], env).stdout.startswith("acphost-demo ")
    bad = run_demo(["--frobnicate"], env)
    assert bad.returncode == 2 and "unknown argument '--frobnicate'" in bad.stderr
    assert run_demo(["--state-dir"], env).returncode == 2
    ran = run_demo(["--state-dir", str(tmp_path / "chosen")], env, INIT_AND_NEW)
    assert ran.returncode == 0 and len(session_files(tmp_path / "chosen")) == 1
    ran = run_demo(["--memory"], env, INIT_AND_NEW)
    assert ran.returncode == 0 and not (tmp_path / "xdg").exists()


def test_unwritable_store_keeps_sessions_in_memory(make_client: Any, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    c = make_client(XDG_STATE_HOME=str(blocker))
    c.initialize()
    sid = c.new_session()
    updates, response = c.prompt(sid, "echo still works")
    assert texts(updates) == "still works" and response["result"]["stopReason"] == "end_turn"
    assert [s["sessionId"] for s in c.call("session/list", {})["sessions"]] == [sid]
    assert c.close() == 0
    stderr = c.stderr.decode()
    assert "keeping sessions in memory only" in stderr and stderr.count("acphost-demo:") == 1
    assert "Not a directory" in stderr


def test_corrupt_session_files_are_skipped(make_client: Any, state_home: Path) -> None:
    first = make_client()
    first.initialize()
    good = first.new_session("/w")
    assert first.close() == 0
    store = state_home / "acphost" / "demo"
    (store / "broken.json").write_text('{"sessionId": "broken", "cwd": ')
    (store / "list.json").write_text("[1, 2]")
    (store / "half.json").write_text('{"cwd": "/w"}')
    second = make_client()
    second.initialize()
    assert [s["sessionId"] for s in second.call("session/list", {})["sessions"]] == [good]
    assert (
        error_code(second, "session/load", {"sessionId": "broken", "cwd": "/w", "mcpServers": []})
        == -32002
    )
    assert second.new_session("/w")
    assert second.close() == 0
    stderr = second.stderr.decode()
    assert "ignoring the unreadable session file" in stderr and "broken.json" in stderr


def test_concurrent_agents_never_corrupt_sessions(make_client: Any, state_home: Path) -> None:
    agents = [make_client(ACPHOST_DEMO_PAGE_SIZE="100") for _ in range(3)]
    created: list[list[str]] = [[] for _ in agents]

    def work(index: int) -> None:
        agent = agents[index]
        agent.initialize()
        for turn in range(8):
            sid = agent.new_session(f"/w{index}")
            agent.prompt(sid, f"echo agent {index} turn {turn}")
            created[index].append(sid)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(agents))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for agent in agents:
        assert agent.close() == 0
    store = state_home / "acphost" / "demo"
    files = session_files(store)
    assert len(files) == 24 and not list(store.glob("*.tmp"))
    for path in files:
        json.loads(path.read_text())  # whole files only
    reader = make_client(ACPHOST_DEMO_PAGE_SIZE="100")
    reader.initialize()
    listed = {s["sessionId"] for s in reader.call("session/list", {})["sessions"]}
    assert listed == {sid for ids in created for sid in ids}


def test_old_sessions_are_pruned(make_client: Any, state_home: Path) -> None:
    first = make_client(ACPHOST_DEMO_MAX_SESSIONS="3")
    first.initialize()
    old = [first.new_session() for _ in range(3)]
    assert first.close() == 0
    store = state_home / "acphost" / "demo"
    for age, sid in enumerate(old):  # oldest first, whatever the clock's resolution
        os.utime(store / f"{sid}.json", (1_000_000 + age, 1_000_000 + age))
    second = make_client(ACPHOST_DEMO_MAX_SESSIONS="3")
    second.initialize()
    new = [second.new_session() for _ in range(2)]
    assert {p.stem for p in session_files(store)} == {old[2], *new}


@pytest.mark.parametrize("resume_with", ["file", "id"])
def test_cli_save_session_then_resume_in_a_new_process(tmp_path: Path, resume_with: str) -> None:
    """What a user runs: two acphost processes, the demo agent's defaults."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "XDG_STATE_HOME": str(tmp_path / "xdg"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "ACPHOST_DEMO_STEP": "0",
    }
    for name in ("ACPHOST_DEMO_STATE_DIR", "ACPHOST_DEMO_MEMORY", "ACPHOST_DEMO_SEED"):
        env.pop(name, None)
    saved = tmp_path / "s.json"

    def acphost(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "acphost", "-o", "simple", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )

    first = acphost("--save-session", str(saved), "echo hi")
    assert first.returncode == 0 and "hi" in first.stdout, first.stderr
    sid = json.loads(saved.read_text())["sessionId"]
    resume_arg = str(saved) if resume_with == "file" else sid
    again = acphost("--resume", resume_arg, "echo again")
    assert again.returncode == 0 and "again" in again.stdout, again.stderr
    stored = json.loads((tmp_path / "xdg" / "acphost" / "demo" / f"{sid}.json").read_text())
    assert [e["text"] for e in stored["history"]] == ["echo hi", "hi", "echo again", "again"]
