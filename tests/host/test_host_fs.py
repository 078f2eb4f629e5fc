"""The workspace jail under attack: each test asserts nothing outside leaked or changed."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import shutil
import stat
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from acphost.errors import InternalError, InvalidParams, RequestError, ResourceNotFound
from acphost.host import FileSystemProvider, Workspace

SECRET = "TOP-SECRET"


@pytest.fixture
def fs() -> FileSystemProvider:
    return FileSystemProvider()


# -- basics -------------------------------------------------------------------


async def test_read_write_roundtrip(fs, workspace, ws_dir):
    await fs.write_text_file(workspace, str(ws_dir / "a.txt"), "héllo\nworld\n")
    assert (ws_dir / "a.txt").read_text("utf-8") == "héllo\nworld\n"
    assert await fs.read_text_file(workspace, str(ws_dir / "a.txt"), None, None) == "héllo\nworld\n"


async def test_window(fs, workspace, ws_dir):
    (ws_dir / "l.txt").write_text("".join(f"line{i}\n" for i in range(1, 11)))
    p = str(ws_dir / "l.txt")
    assert await fs.read_text_file(workspace, p, 3, 2) == "line3\nline4\n"
    assert await fs.read_text_file(workspace, p, None, 2) == "line1\nline2\n"
    assert await fs.read_text_file(workspace, p, 10, None) == "line10\n"
    assert await fs.read_text_file(workspace, p, 11, 5) == ""
    assert await fs.read_text_file(workspace, p, 2, 0) == ""
    assert (await fs.read_text_file(workspace, p, 9, None)) == "line9\nline10\n"


@pytest.mark.parametrize(("line", "limit"), [(0, None), (-1, 3), (None, -1), (True, None)])
async def test_window_bad_values(fs, workspace, ws_dir, line, limit):
    (ws_dir / "l.txt").write_text("x\n")
    with pytest.raises(InvalidParams):
        await fs.read_text_file(workspace, str(ws_dir / "l.txt"), line, limit)


async def test_crlf_and_no_final_newline(fs, workspace, ws_dir):
    (ws_dir / "c.txt").write_bytes(b"a\r\nb\r\nc")
    assert await fs.read_text_file(workspace, str(ws_dir / "c.txt"), 2, 5) == "b\r\nc"


async def test_missing_file(workspace, ws_dir):
    with pytest.raises(ResourceNotFound) as info:
        await FileSystemProvider().read_text_file(workspace, str(ws_dir / "nope.txt"))
    assert info.value.code == -32002
    with pytest.raises(ResourceNotFound):
        await FileSystemProvider().read_text_file(workspace, str(ws_dir / "no" / "dir.txt"))
    compat = FileSystemProvider(missing_file_returns_empty=True)
    assert await compat.read_text_file(workspace, str(ws_dir / "nope.txt")) == ""


async def test_additional_directories(fs, tmp_path, ws_dir):
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "e.txt").write_text("extra\n")
    ws = Workspace([str(ws_dir), str(extra)])
    assert await fs.read_text_file(ws, str(extra / "e.txt")) == "extra\n"
    await fs.write_text_file(ws, str(extra / "new.txt"), "n")
    assert (extra / "new.txt").read_text() == "n"


def test_workspace_validation(tmp_path):
    with pytest.raises(ValueError, match="absolute"):
        Workspace(["relative"])
    with pytest.raises(ValueError, match="at least one"):
        Workspace([])
    with pytest.raises(ValueError):
        Workspace([str(tmp_path / "missing")])
    link = tmp_path / "link"
    link.symlink_to(tmp_path)
    assert Workspace([str(link)]).roots == (str(tmp_path),)


# -- path syntax --------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "needle"),
    [
        ("", "empty"),
        ("relative.txt", "must be absolute"),
        ("./x", "must be absolute"),
        ("a\x00b", "NUL"),
    ],
)
async def test_bad_path_syntax(fs, workspace, guard, path, needle):
    with pytest.raises(InvalidParams, match=needle):
        await fs.read_text_file(workspace, path)
    with pytest.raises(InvalidParams, match=needle):
        await fs.write_text_file(workspace, path, "x")


async def test_nul_inside_absolute(fs, workspace, ws_dir, guard):
    with pytest.raises(InvalidParams, match="NUL"):
        await fs.write_text_file(workspace, str(ws_dir) + "/a\x00/../../x", "x")


async def test_dotdot_traversal(fs, workspace, ws_dir, outside, guard):
    path = str(ws_dir) + "/../outside/secret.txt"
    with pytest.raises(InvalidParams, match="outside the workspace"):
        await fs.read_text_file(workspace, path)
    with pytest.raises(InvalidParams, match="outside the workspace"):
        await fs.write_text_file(workspace, path, "pwned")
    deep = str(ws_dir) + "/a/b/../../../outside/secret.txt"
    with pytest.raises(InvalidParams, match="outside the workspace"):
        await fs.read_text_file(workspace, deep)


async def test_sibling_prefix_is_not_inside(fs, tmp_path, ws_dir):
    twin = tmp_path / "ws-evil"
    twin.mkdir()
    (twin / "f").write_text(SECRET)
    ws = Workspace([str(ws_dir)])
    with pytest.raises(InvalidParams, match="outside"):
        await fs.read_text_file(ws, str(twin / "f"))


async def test_absolute_outside(fs, workspace, outside, guard):
    with pytest.raises(InvalidParams, match="outside the workspace"):
        await fs.read_text_file(workspace, str(outside / "secret.txt"))
    with pytest.raises(InvalidParams, match="outside the workspace"):
        await fs.write_text_file(workspace, str(outside / "new.txt"), "x")
    with pytest.raises(InvalidParams, match="outside the workspace"):
        await fs.read_text_file(workspace, "/etc/passwd")


async def test_read_outside_allowed_never_write(workspace, outside, guard):
    fs = FileSystemProvider(allow_read_outside_workspace=True)
    assert await fs.read_text_file(workspace, str(outside / "secret.txt")) == SECRET + "\n"
    with pytest.raises(InvalidParams, match="outside the workspace"):
        await fs.write_text_file(workspace, str(outside / "secret.txt"), "pwned")


async def test_too_long_paths(fs, workspace, ws_dir, guard):
    with pytest.raises(InvalidParams, match="too long"):
        await fs.read_text_file(workspace, str(ws_dir) + "/" + "a" * 300)
    with pytest.raises(InvalidParams, match="too long"):
        await fs.write_text_file(workspace, str(ws_dir) + ("/" + "b" * 200) * 30, "x")


async def test_directory_is_refused(fs, workspace, ws_dir):
    (ws_dir / "d").mkdir()
    with pytest.raises(InvalidParams, match="directory"):
        await fs.read_text_file(workspace, str(ws_dir / "d"))
    with pytest.raises(InvalidParams, match="directory"):
        await fs.write_text_file(workspace, str(ws_dir / "d"), "x")
    with pytest.raises(InvalidParams, match="directory"):
        await fs.read_text_file(workspace, str(ws_dir))
    with pytest.raises(InvalidParams, match="not a directory"):
        (ws_dir / "file").write_text("x")
        await fs.write_text_file(workspace, str(ws_dir / "file" / "sub.txt"), "x")


# -- symlinks -------------------------------------------------------------------


async def test_symlink_file_to_outside(fs, workspace, ws_dir, outside, guard):
    (ws_dir / "link").symlink_to(outside / "secret.txt")
    with pytest.raises(InvalidParams, match="points outside"):
        await fs.read_text_file(workspace, str(ws_dir / "link"))
    with pytest.raises(InvalidParams):
        await fs.write_text_file(workspace, str(ws_dir / "link"), "pwned")


async def test_symlink_dir_to_outside(fs, workspace, ws_dir, outside, guard):
    (ws_dir / "d").symlink_to(outside)
    with pytest.raises(InvalidParams, match="points outside"):
        await fs.read_text_file(workspace, str(ws_dir / "d" / "secret.txt"))
    with pytest.raises(InvalidParams, match="points outside"):
        await fs.write_text_file(workspace, str(ws_dir / "d" / "new.txt"), "pwned")
    with pytest.raises(InvalidParams, match="points outside"):
        await fs.write_text_file(workspace, str(ws_dir / "d" / "x" / "y.txt"), "pwned")


async def test_relative_symlink_escape(fs, workspace, ws_dir, outside, guard):
    (ws_dir / "sub").mkdir()
    (ws_dir / "sub" / "up").symlink_to("../../outside")
    with pytest.raises(InvalidParams, match="points outside"):
        await fs.read_text_file(workspace, str(ws_dir / "sub" / "up" / "secret.txt"))


async def test_symlink_chain_escape(fs, workspace, ws_dir, outside, guard):
    (ws_dir / "a").symlink_to(ws_dir / "b")
    (ws_dir / "b").symlink_to(outside / "secret.txt")
    with pytest.raises(InvalidParams, match="points outside"):
        await fs.read_text_file(workspace, str(ws_dir / "a"))


async def test_symlink_loop(fs, workspace, ws_dir):
    (ws_dir / "a").symlink_to(ws_dir / "b")
    (ws_dir / "b").symlink_to(ws_dir / "a")
    with pytest.raises(InvalidParams, match="symbolic links"):
        await fs.read_text_file(workspace, str(ws_dir / "a"))


async def test_symlink_within_jail_is_followed(fs, workspace, ws_dir):
    (ws_dir / "real").mkdir()
    (ws_dir / "real" / "f.txt").write_text("inside\n")
    (ws_dir / "alias").symlink_to("real")
    (ws_dir / "flink").symlink_to(ws_dir / "real" / "f.txt")
    assert await fs.read_text_file(workspace, str(ws_dir / "alias" / "f.txt")) == "inside\n"
    assert await fs.read_text_file(workspace, str(ws_dir / "flink")) == "inside\n"
    # writes through an in-jail directory symlink are fine...
    await fs.write_text_file(workspace, str(ws_dir / "alias" / "g.txt"), "g")
    assert (ws_dir / "real" / "g.txt").read_text() == "g"
    # ...and a final symlink is resolved inside the jail: the link stays a link.
    await fs.write_text_file(workspace, str(ws_dir / "flink"), "new\n")
    assert (ws_dir / "flink").is_symlink()
    assert (ws_dir / "real" / "f.txt").read_text() == "new\n"


async def test_dangling_symlink_outside_for_write(fs, workspace, ws_dir, outside, guard):
    (ws_dir / "dangling").symlink_to(outside / "created-by-agent.txt")
    with pytest.raises(InvalidParams, match="points outside"):
        await fs.write_text_file(workspace, str(ws_dir / "dangling"), "pwned")
    assert not (outside / "created-by-agent.txt").exists()


async def test_symlink_swapped_at_open(fs, workspace, ws_dir, outside, guard, monkeypatch):
    """Deterministic TOCTOU: the entry becomes a symlink right before the open."""
    (ws_dir / "f.txt").write_text("inside\n")
    real_open = os.open
    swapped = []

    def racing_open(path, flags, *args, **kwargs):
        if path == "f.txt" and not swapped:
            swapped.append(True)
            os.unlink(ws_dir / "f.txt")
            os.symlink(outside / "secret.txt", ws_dir / "f.txt")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", racing_open)
    with pytest.raises(InvalidParams, match="points outside"):
        await fs.read_text_file(workspace, str(ws_dir / "f.txt"))
    assert swapped


async def test_dir_swapped_at_open(fs, workspace, ws_dir, outside, guard, monkeypatch):
    """The intermediate directory becomes a symlink to outside right before its open."""
    (ws_dir / "d").mkdir()
    (ws_dir / "d" / "secret.txt").write_text("inside\n")
    real_open = os.open
    swapped = []

    def racing_open(path, flags, *args, **kwargs):
        if path == "d" and not swapped:
            swapped.append(True)
            os.rename(ws_dir / "d", ws_dir / "d.old")
            os.symlink(outside, ws_dir / "d")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", racing_open)
    with pytest.raises(InvalidParams, match="points outside"):
        await fs.read_text_file(workspace, str(ws_dir / "d" / "secret.txt"))
    with pytest.raises(InvalidParams, match="points outside"):
        await fs.write_text_file(workspace, str(ws_dir / "d" / "secret.txt"), "pwned")
    assert swapped


async def test_symlink_swap_race_thread(fs, workspace, ws_dir, outside, guard):
    """A thread flips a directory <-> symlink-to-outside while we read and write."""
    (ws_dir / "real").mkdir()
    (ws_dir / "real" / "secret.txt").write_text("inside\n")
    stop = threading.Event()

    def reset(target) -> None:
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.exists():
            shutil.rmtree(target)

    def flipper() -> None:
        target = ws_dir / "d"
        while not stop.is_set():
            # Each state is held a moment (the attacker's pace), so that reads
            # land in every one of them, and in the swaps between them.
            try:
                os.symlink(ws_dir / "real", target)  # in-jail link
                time.sleep(0.0005)
                os.unlink(target)
                os.symlink(outside, target)  # escaping link
                time.sleep(0.0005)
                os.unlink(target)
                os.mkdir(target)
                (target / "secret.txt").write_text("inside\n")
                time.sleep(0.0005)
            except OSError:
                pass
            with contextlib.suppress(OSError):
                reset(target)  # whatever the writes below left in it

    thread = threading.Thread(target=flipper)
    thread.start()
    outcomes: collections.Counter[str] = collections.Counter()
    try:
        # Until the race was hit both ways: reads that saw the in-jail state,
        # and reads that met the escaping link mid-walk and were refused.
        deadline = time.monotonic() + 40
        while outcomes["inside"] < 3 or outcomes["refused outside"] < 3:
            assert time.monotonic() < deadline, f"the race was not hit both ways: {outcomes}"
            try:
                text = await fs.read_text_file(workspace, str(ws_dir / "d" / "secret.txt"))
            except RequestError as exc:
                assert SECRET not in exc.message
                outcomes["refused outside" if "points outside" in exc.message else "refused"] += 1
            else:
                assert SECRET not in text
                outcomes["inside"] += 1
            with contextlib.suppress(RequestError):
                await fs.write_text_file(workspace, str(ws_dir / "d" / "w.txt"), "w")
    finally:
        stop.set()
        thread.join()
    assert not (outside / "w.txt").exists()  # no write ever went through the escaping link


# -- hard links -------------------------------------------------------------------


async def test_hard_link_read_allowed_write_breaks_link(fs, workspace, ws_dir, outside):
    os.link(outside / "secret.txt", ws_dir / "hl.txt")
    # Reading is allowed: the content is reachable through the workspace name.
    assert await fs.read_text_file(workspace, str(ws_dir / "hl.txt")) == SECRET + "\n"
    # Writing replaces only the workspace's entry: the outside name is untouched.
    await fs.write_text_file(workspace, str(ws_dir / "hl.txt"), "mine\n")
    assert (outside / "secret.txt").read_text() == SECRET + "\n"
    assert (ws_dir / "hl.txt").read_text() == "mine\n"
    assert os.stat(outside / "secret.txt").st_nlink == 1


# -- special files ----------------------------------------------------------------


async def test_proc_and_dev_refused_even_when_reading_anywhere(workspace):
    fs = FileSystemProvider(allow_read_outside_workspace=True)
    for path in ("/proc/self/environ", "/dev/zero", "/dev/null", "/sys/kernel/mm/../mm"):
        with pytest.raises(RequestError):
            await fs.read_text_file(workspace, path)
    with pytest.raises(InvalidParams, match="outside"):
        await FileSystemProvider().read_text_file(workspace, "/proc/self/environ")


async def test_symlink_to_proc_refused(workspace, ws_dir):
    (ws_dir / "env").symlink_to("/proc/self/environ")
    for fs in (FileSystemProvider(), FileSystemProvider(allow_read_outside_workspace=True)):
        with pytest.raises(InvalidParams):
            await fs.read_text_file(workspace, str(ws_dir / "env"))


async def test_fifo_does_not_hang(fs, workspace, ws_dir):
    os.mkfifo(ws_dir / "fifo")
    with pytest.raises(InvalidParams, match="FIFO"):
        await asyncio.wait_for(fs.read_text_file(workspace, str(ws_dir / "fifo")), 5)
    with pytest.raises(InvalidParams, match="FIFO"):
        await asyncio.wait_for(fs.write_text_file(workspace, str(ws_dir / "fifo"), "x"), 5)


async def test_fifo_swapped_in_at_open(fs, workspace, ws_dir, monkeypatch):
    (ws_dir / "f").write_text("x")
    real_open = os.open

    def racing_open(path, flags, *args, **kwargs):
        if path == "f" and (ws_dir / "f").is_file():
            os.unlink(ws_dir / "f")
            os.mkfifo(ws_dir / "f")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", racing_open)
    with pytest.raises(InvalidParams, match="FIFO"):
        await asyncio.wait_for(fs.read_text_file(workspace, str(ws_dir / "f")), 5)


async def test_socket_refused(fs, workspace, tmp_path):
    import socket

    short = Path("/tmp") / f"acphost-sock-{os.getpid()}"
    short.mkdir(exist_ok=True)
    try:
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(short / "s"))
        ws = Workspace([str(short)])
        with pytest.raises(InvalidParams, match="socket"):
            await fs.read_text_file(ws, str(short / "s"))
        sock.close()
    finally:
        for p in short.iterdir():
            p.unlink()
        short.rmdir()


# -- names and contents -------------------------------------------------------------


async def test_non_utf8_name(fs, workspace, ws_dir):
    name = os.fsdecode(b"caf\xe9.txt")  # surrogate-escaped, as os.listdir returns it
    (ws_dir / name).write_text("latin\n")
    assert await fs.read_text_file(workspace, os.path.join(str(ws_dir), name)) == "latin\n"
    await fs.write_text_file(workspace, os.path.join(str(ws_dir), name), "new\n")
    assert (ws_dir / name).read_text() == "new\n"


async def test_unicode_name(fs, workspace, ws_dir):
    await fs.write_text_file(workspace, str(ws_dir / "日本語.txt"), "ok")
    assert await fs.read_text_file(workspace, str(ws_dir / "日本語.txt")) == "ok"


async def test_non_utf8_content(fs, workspace, ws_dir):
    (ws_dir / "bin").write_bytes(b"ok\n\xff\xfe\n")
    with pytest.raises(InvalidParams, match="not UTF-8") as info:
        await fs.read_text_file(workspace, str(ws_dir / "bin"))
    assert "\\xff" not in info.value.message
    # the valid window is still readable
    assert await fs.read_text_file(workspace, str(ws_dir / "bin"), 1, 1) == "ok\n"


async def test_lone_surrogate_content(fs, workspace, ws_dir):
    with pytest.raises(InvalidParams, match="UTF-8"):
        await fs.write_text_file(workspace, str(ws_dir / "x"), "a\udcff")
    assert not (ws_dir / "x").exists()


async def test_content_must_be_str(fs, workspace, ws_dir):
    with pytest.raises(InvalidParams):
        await fs.write_text_file(workspace, str(ws_dir / "x"), b"bytes")  # type: ignore[arg-type]


# -- size ---------------------------------------------------------------------------


async def test_huge_file_small_window(fs, workspace, ws_dir):
    path = ws_dir / "huge.txt"
    line = b"x" * 99 + b"\n"
    with open(path, "wb") as out:
        out.write(line * 1000)
        out.truncate(200 * 1024 * 1024)  # sparse tail: 200 MB on paper
    tracemalloc.start()
    text = await fs.read_text_file(workspace, str(path), 500, 3)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert text == (line * 3).decode()
    assert peak < 4 * 1024 * 1024  # a window, not the file: 200 MB were never read


async def test_size_cap(workspace, ws_dir):
    fs = FileSystemProvider(max_read_bytes=1000)
    (ws_dir / "big.txt").write_text("y" * 50 + "\n" * 100)
    (ws_dir / "big.txt").write_text(("z" * 99 + "\n") * 20)
    with pytest.raises(InvalidParams, match=r"1000-byte read limit.*line and limit"):
        await fs.read_text_file(workspace, str(ws_dir / "big.txt"))
    with pytest.raises(InvalidParams, match="read limit"):
        await fs.read_text_file(workspace, str(ws_dir / "big.txt"), 1, 15)
    assert len(await fs.read_text_file(workspace, str(ws_dir / "big.txt"), 1, 5)) == 500
    # one enormous line does not get read whole either
    (ws_dir / "oneline").write_text("q" * 100_000)
    with pytest.raises(InvalidParams, match="read limit"):
        await fs.read_text_file(workspace, str(ws_dir / "oneline"), 1, 1)


# -- writes --------------------------------------------------------------------------


async def test_write_creates_parents(fs, workspace, ws_dir):
    await fs.write_text_file(workspace, str(ws_dir / "a" / "b" / "c.txt"), "deep")
    assert (ws_dir / "a" / "b" / "c.txt").read_text() == "deep"


async def test_write_keeps_mode(fs, workspace, ws_dir):
    target = ws_dir / "script.sh"
    target.write_text("old")
    target.chmod(0o751)
    await fs.write_text_file(workspace, str(target), "new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    assert target.read_text() == "new"


async def test_write_failure_keeps_original(fs, workspace, ws_dir, monkeypatch):
    target = ws_dir / "keep.txt"
    target.write_text("original\n")

    def failing_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(InternalError, match="could not be accessed"):
        await fs.write_text_file(workspace, str(target), "half-written")
    assert target.read_text() == "original\n"
    assert sorted(os.listdir(ws_dir)) == ["keep.txt"]


async def test_write_failure_in_rename_leaves_no_temp(fs, workspace, ws_dir, monkeypatch):
    target = ws_dir / "keep.txt"
    target.write_text("original\n")

    def failing_rename(*args, **kwargs):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "rename", failing_rename)
    with pytest.raises(InternalError):
        await fs.write_text_file(workspace, str(target), "new")
    assert target.read_text() == "original\n"
    assert os.listdir(ws_dir) == ["keep.txt"]


async def test_write_onto_symlink_to_dir_is_refused(fs, workspace, ws_dir):
    (ws_dir / "dir").mkdir()
    (ws_dir / "ld").symlink_to("dir")
    with pytest.raises(InvalidParams, match="directory"):
        await fs.write_text_file(workspace, str(ws_dir / "ld"), "x")


async def test_write_to_workspace_root_refused(fs, workspace, ws_dir):
    with pytest.raises(InvalidParams, match="directory"):
        await fs.write_text_file(workspace, str(ws_dir), "x")


async def test_root_replaced_by_symlink(fs, tmp_path, outside, guard):
    ws_dir = tmp_path / "ws2"
    ws_dir.mkdir()
    ws = Workspace([str(ws_dir)])
    ws_dir.rmdir()
    ws_dir.symlink_to(outside)
    with pytest.raises(RequestError, match=r"replaced|cannot be opened"):
        await fs.read_text_file(ws, str(ws_dir / "secret.txt"))


async def test_logs_never_contain_contents(fs, workspace, ws_dir, caplog):
    caplog.set_level("DEBUG", logger="acphost.host.fs")
    await fs.write_text_file(workspace, str(ws_dir / "s.txt"), SECRET)
    await fs.read_text_file(workspace, str(ws_dir / "s.txt"))
    assert caplog.records
    assert all(r.name == "acphost.host.fs" for r in caplog.records)
    assert SECRET not in caplog.text
    assert "s.txt" in caplog.text


@pytest.mark.parametrize("seed", range(40))
async def test_window_agrees_with_splitting_lines(ws_dir, workspace, seed):
    """The chunked window (newlines counted per chunk) returns what splitting gives."""
    import random
    import re

    rng = random.Random(seed)
    parts = [rng.choice([b"\n", b"x", b"yy\n", b"z" * rng.randint(0, 70000) + b"\n"])
             for _ in range(rng.randint(0, 30))]  # fmt: skip
    if rng.random() < 0.5:
        parts.append(b"tail")
    data = b"".join(parts)
    (ws_dir / "f").write_bytes(data)
    lines = re.findall(rb"[^\n]*\n|[^\n]+$", data)
    fs = FileSystemProvider(max_read_bytes=1 << 30, max_scan_bytes=1 << 30)
    for _ in range(5):
        line, limit = rng.randint(1, len(lines) + 2), rng.choice([None, 0, 1, 2, 7])
        want = lines[line - 1 : None if limit is None else line - 1 + limit]
        got = await fs.read_text_file(workspace, str(ws_dir / "f"), line, limit)
        assert got.encode() == b"".join(want), (line, limit)


async def test_the_scan_for_a_line_stops_at_its_cap(ws_dir, workspace):
    (ws_dir / "f").write_bytes(b"a" * 5000 + b"\nsecond\n")
    fs = FileSystemProvider(max_scan_bytes=4096)
    with pytest.raises(InvalidParams, match="not within the first 4096 bytes"):
        await fs.read_text_file(workspace, str(ws_dir / "f"), 2, 1)
    assert await fs.read_text_file(workspace, str(ws_dir / "f"), 1, 1) == "a" * 5000 + "\n"
