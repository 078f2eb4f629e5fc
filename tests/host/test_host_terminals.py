"""Terminal manager: command forms, limits, kill/release, no orphans, events."""

from __future__ import annotations

import asyncio
import os
import tracemalloc

import pytest

from acphost.errors import InternalError, InvalidParams, UsageError
from acphost.host import (
    ExitStatus,
    TerminalCreated,
    TerminalExited,
    TerminalManager,
    TerminalOutputReceived,
    Workspace,
)
from acphost.host._output import OutputBuffer
from tests.support.waiting import eventually


@pytest.fixture
async def manager():
    m = TerminalManager(kill_grace=0.5)
    yield m
    await m.close()


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


async def test_shell_line_and_exit_code(manager, workspace):
    tid = await manager.create("s", workspace, "echo out; echo err >&2; exit 3")
    assert await manager.wait_for_exit("s", tid) == ExitStatus(3, None)
    out = manager.output("s", tid)
    assert out.output == "out\nerr\n"
    assert not out.truncated
    assert out.exit_status == ExitStatus(3, None)


async def test_argv_form_is_not_a_shell(manager, workspace):
    tid = await manager.create("s", workspace, "echo", args=["a; echo pwned", "$HOME"])
    await manager.wait_for_exit("s", tid)
    assert manager.output("s", tid).output == "a; echo pwned $HOME\n"


async def test_env_overlay_and_default_cwd(manager, workspace, ws_dir, monkeypatch):
    monkeypatch.setenv("ACPHOST_BASE", "base")
    tid = await manager.create(
        "s", workspace, 'echo "$ACPHOST_BASE $ACPHOST_NEW"; pwd', env={"ACPHOST_NEW": "new"}
    )
    await manager.wait_for_exit("s", tid)
    assert manager.output("s", tid).output == f"base new\n{ws_dir}\n"


async def test_stdin_is_devnull(manager, workspace):
    tid = await manager.create("s", workspace, "cat; echo done")
    await asyncio.wait_for(manager.wait_for_exit("s", tid), 5)
    assert manager.output("s", tid).output == "done\n"


async def test_cwd_clamp(manager, workspace, ws_dir, outside):
    (ws_dir / "sub").mkdir()
    tid = await manager.create("s", workspace, "pwd", cwd=str(ws_dir / "sub"))
    await manager.wait_for_exit("s", tid)
    assert manager.output("s", tid).output == f"{ws_dir / 'sub'}\n"
    with pytest.raises(InvalidParams, match="outside the workspace"):
        await manager.create("s", workspace, "pwd", cwd=str(outside))
    with pytest.raises(InvalidParams, match="outside the workspace"):
        await manager.create("s", workspace, "pwd", cwd=str(ws_dir / ".." / "outside"))
    (ws_dir / "esc").symlink_to(outside)
    with pytest.raises(InvalidParams, match="outside the workspace"):
        await manager.create("s", workspace, "pwd", cwd=str(ws_dir / "esc"))
    with pytest.raises(InvalidParams, match="absolute"):
        await manager.create("s", workspace, "pwd", cwd="sub")
    with pytest.raises(InvalidParams, match="not an existing directory"):
        await manager.create("s", workspace, "pwd", cwd=str(ws_dir / "missing"))
    free = TerminalManager(allow_cwd_outside_workspace=True)
    tid = await free.create("s", workspace, "pwd", cwd=str(outside))
    await free.wait_for_exit("s", tid)
    assert free.output("s", tid).output == f"{outside}\n"
    await free.close()


async def test_bad_arguments(manager, workspace):
    with pytest.raises(InvalidParams, match="empty"):
        await manager.create("s", workspace, "  ")
    with pytest.raises(InvalidParams, match="NUL"):
        await manager.create("s", workspace, "echo\x00")
    with pytest.raises(InvalidParams, match="NUL"):
        await manager.create("s", workspace, "echo", args=["a\x00"])
    with pytest.raises(InvalidParams, match="not valid"):
        await manager.create("s", workspace, "echo", env={"A=B": "x"})
    with pytest.raises(InvalidParams, match="outputByteLimit"):
        await manager.create("s", workspace, "echo", output_byte_limit=-1)
    with pytest.raises(InvalidParams, match="could not be started"):
        await manager.create("s", workspace, "/nonexistent/program", args=["x"])


async def test_truncation_at_character_boundary(manager, workspace):
    # "é" is 2 bytes: 11 bytes of "aéééé..." cut at a boundary, never half a char.
    tid = await manager.create(
        "s",
        workspace,
        "printf",
        args=["x\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"],
        output_byte_limit=6,
    )
    await manager.wait_for_exit("s", tid)
    out = manager.output("s", tid)
    assert out.truncated
    assert out.output == "\u00e9\u00e9\u00e9"
    tid = await manager.create("s", workspace, "printf", args=["ab\u20ac"], output_byte_limit=4)
    await manager.wait_for_exit("s", tid)
    out = manager.output("s", tid)
    assert (out.output, out.truncated) == ("b\u20ac", True)


def test_output_buffer_unit():
    buf = OutputBuffer(5)
    buf.append("é€".encode())  # 2 + 3 bytes
    assert buf.text(final=True) == "é€" and not buf.truncated
    buf.append(b"x")  # 6 bytes: drop "é" entirely, keep "€x"
    assert buf.text(final=True) == "€x" and buf.truncated
    part = OutputBuffer(100)
    part.append("ok€".encode()[:-1])  # incomplete trailing char while running
    assert part.text(final=False) == "ok"
    assert part.text(final=True) == "ok\ufffd"
    bad = OutputBuffer(100)
    bad.append(b"\xff\xfeok")
    assert bad.text(final=True) == "\ufffd\ufffdok"
    zero = OutputBuffer(0)
    zero.append(b"abc")
    assert zero.text(final=True) == "" and zero.truncated


async def test_kill_keeps_output_and_kills_children(manager, workspace, tmp_path):
    pids = tmp_path / "pids"
    tid = await manager.create(
        "s",
        workspace,
        f"sleep 100 & echo $! > {pids}; sleep 100 & echo $! >> {pids}; echo started; wait",
    )
    await eventually(lambda: manager.output("s", tid).output == "started\n")
    children = [int(p) for p in pids.read_text().split()]
    assert all(alive(p) for p in children)
    await manager.kill("s", tid)
    status = await manager.wait_for_exit("s", tid)
    assert status.exit_code is None and status.signal in ("SIGTERM", "SIGKILL")
    assert manager.output("s", tid).output == "started\n"
    await eventually(lambda: not any(alive(p) for p in children), what="the children's end")


async def test_children_die_when_leader_exited(manager, workspace, tmp_path):
    """The leader is gone, a background child holds on: kill still reaches it."""
    pids = tmp_path / "pids"
    tid = await manager.create("s", workspace, f"sleep 100 >/dev/null & echo $! > {pids}")
    await manager.wait_for_exit("s", tid)
    child = int(pids.read_text())
    assert alive(child)
    await manager.release("s", tid)
    await eventually(lambda: not alive(child), what="the child's end")


async def test_sigterm_ignored_gets_sigkill(workspace):
    m = TerminalManager(kill_grace=0.2)
    tid = await m.create("s", workspace, "trap '' TERM; echo ready; while :; do sleep 0.05; done")
    await eventually(lambda: m.output("s", tid).output)
    await m.kill("s", tid)
    assert (await m.wait_for_exit("s", tid)).signal == "SIGKILL"
    await m.close()


async def test_release_semantics(manager, workspace):
    tid = await manager.create("s", workspace, "sleep 100")
    pid = manager._terminals[tid].pid
    await manager.release("s", tid)
    assert not alive(pid)
    for call in (manager.output, manager.wait_for_exit, manager.kill, manager.release):
        with pytest.raises(InvalidParams, match="unknown terminal id"):
            result = call("s", tid)
            if asyncio.iscoroutine(result):
                await result


async def test_other_session_cannot_touch(manager, workspace):
    tid = await manager.create("a", workspace, "sleep 100")
    with pytest.raises(InvalidParams, match="unknown terminal id"):
        manager.output("b", tid)
    with pytest.raises(InvalidParams):
        await manager.kill("b", tid)
    with pytest.raises(InvalidParams):
        await manager.release("b", tid)
    with pytest.raises(InvalidParams):
        manager.output("a", "term_guess")
    assert manager.output("a", tid).exit_status is None


async def test_ids_unique_and_unguessable(manager, workspace):
    ids = {await manager.create("s", workspace, "true") for _ in range(5)}
    assert len(ids) == 5
    assert all(len(i) > 20 for i in ids)


async def test_cap_per_session(workspace):
    m = TerminalManager(max_per_session=2)
    first = await m.create("s", workspace, "sleep 100")
    await m.create("s", workspace, "sleep 100")
    with pytest.raises(InternalError, match="release one"):
        await m.create("s", workspace, "sleep 100")
    await m.create("other", workspace, "true")  # other sessions unaffected
    await m.release("s", first)
    await m.create("s", workspace, "true")
    await m.close()


async def test_release_session_and_close(workspace):
    m = TerminalManager()
    a = await m.create("s", workspace, "sleep 100")
    b = await m.create("t", workspace, "sleep 100")
    pa, pb = m._terminals[a].pid, m._terminals[b].pid
    await m.release_session("s")
    assert not alive(pa) and alive(pb)
    await m.close()
    assert not alive(pb)
    with pytest.raises(UsageError):
        await m.create("t", workspace, "true")


async def test_output_flood_bounded(workspace):
    m = TerminalManager(default_output_byte_limit=100_000)
    tracemalloc.start()
    tid = await m.create("s", workspace, "yes | head -c 50000000")
    await asyncio.wait_for(m.wait_for_exit("s", tid), 15)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    out = m.output("s", tid)
    assert out.truncated
    assert len(out.output) == 100_000
    assert out.output.endswith("y\n")
    assert peak < 5_000_000
    await m.close()


async def test_agent_limit_capped_by_host(workspace):
    m = TerminalManager(default_output_byte_limit=10)
    tid = await m.create("s", workspace, "printf 0123456789abcdef", output_byte_limit=10**12)
    await m.wait_for_exit("s", tid)
    assert m.output("s", tid).output == "6789abcdef"
    await m.close()


async def test_events(workspace):
    events = []
    m = TerminalManager(on_event=events.append)
    tid = await m.create("s", workspace, "printf 'h\\303'; printf '\\251llo'")
    await m.wait_for_exit("s", tid)
    await m.close()
    assert isinstance(events[0], TerminalCreated) and events[0].terminal_id == tid
    texts = "".join(e.text for e in events if isinstance(e, TerminalOutputReceived))
    assert texts == "héllo"
    exited = [e for e in events if isinstance(e, TerminalExited)]
    assert exited == [TerminalExited("s", tid, ExitStatus(0, None))]


async def test_event_handler_failure_is_contained(workspace):
    def boom(event):
        raise RuntimeError("ui bug")

    m = TerminalManager(on_event=boom)
    tid = await m.create("s", workspace, "echo x")
    assert (await m.wait_for_exit("s", tid)).exit_code == 0
    await m.close()


def test_workspace_cwd(tmp_path):
    assert Workspace([str(tmp_path)]).cwd == os.path.realpath(tmp_path)
