"""acphost writes only into a results folder it made, and reads back only that folder's files.

Real ``acphost batch`` and ``acphost batch report`` processes, with the demo
agent, real git, real links and FIFOs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acphost.batch import BatchError, OutDir

from .conftest import acphost, git

FAST = {"ACPHOST_DEMO_STEP": "0"}
SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- s3cr3t\n"


def snapshot(root: Path) -> dict[str, tuple[str, bytes | str]]:
    """Every entry under ``root`` (not followed), with its content: to see nothing changed."""
    found: dict[str, tuple[str, bytes | str]] = {}
    for directory, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            full = Path(directory) / name
            rel = str(full.relative_to(root))
            if full.is_symlink():
                found[rel] = ("link", os.readlink(full))
            elif full.is_dir():
                found[rel] = ("dir", "")
            else:
                found[rel] = ("file", full.read_bytes())
    return found


def users_batch_folder(path: Path) -> Path:
    """A folder of the user's: a batch's results, with reports of their own."""
    path.mkdir()
    plan = {"format": "acphost-batch", "version": 1, "runs": []}
    (path / "batch.json").write_text(json.dumps(plan))
    for name in ("report.md", "report.json", "report.html"):
        (path / name).write_text(f"the user's {name}\n")
    return path


def one_line_exit_2(r: subprocess.CompletedProcess[str], needle: str) -> None:
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert needle in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


# -- whose folder ---------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["a batch folder", "a plain folder", "missing"])
def test_a_checkout_shipping_the_default_name_as_a_link_writes_nothing(target, git_ws, tmp_path):
    victim = tmp_path / "victim"
    if target == "a batch folder":
        users_batch_folder(victim)
    elif target == "a plain folder":
        victim.mkdir()
        (victim / "report.md").write_text("my notes\n")
    os.symlink(victim, git_ws / "acphost-batch")
    git(git_ws, "add", "acphost-batch")
    git(git_ws, "commit", "-qm", "ship a link")
    before = snapshot(tmp_path)
    r = acphost(["batch", "-a", "demo", "-p", "hi", "--no-history"], cwd=git_ws, env=FAST)
    one_line_exit_2(r, "acphost-batch is a symbolic link")
    assert snapshot(tmp_path) == before
    assert not victim.exists() or "runs" not in os.listdir(victim)


def test_an_existing_folder_that_is_not_a_batchs_is_left_as_it_is(plain_ws, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "report.md").write_text("my notes\n")
    (notes / "todo.txt").write_text("x\n")
    before = snapshot(tmp_path)
    r = acphost(
        ["batch", "-a", "demo", "-p", "hi", "--no-history", "--out", str(notes)],
        cwd=plain_ws,
        env=FAST,
    )
    one_line_exit_2(r, "is not an acphost batch's results folder")
    assert snapshot(tmp_path) == before


def test_a_folder_with_a_foreign_batch_json_is_not_a_batchs(plain_ws, tmp_path):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "batch.json").write_text('{"format": "something else", "runs": []}\n')
    (notes / "report.md").write_text("my notes\n")
    before = snapshot(tmp_path)
    r = acphost(
        ["batch", "-a", "demo", "-p", "hi", "--no-history", "--out", str(notes)],
        cwd=plain_ws,
        env=FAST,
    )
    one_line_exit_2(r, "is not an acphost batch's results folder")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("kind", ["new", "empty", "a batch's", "a link the user named"])
def test_a_folder_acphost_may_use_is_used(kind, plain_ws, tmp_path):
    out = tmp_path / "out"
    if kind == "empty":
        out.mkdir()
    elif kind == "a batch's":
        users_batch_folder(out)
    elif kind == "a link the user named":
        real = users_batch_folder(tmp_path / "real")
        os.symlink(real, out)
    r = acphost(
        ["batch", "-a", "demo", "-p", "hi", "--no-history", "--out", str(out)],
        cwd=plain_ws,
        env=FAST,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads((out / "batch.json").read_text())["format"] == "acphost-batch"
    assert (out / "runs" / "demo--p1--0" / "result.json").is_file()


def test_the_default_folder_is_made_and_used_again(plain_ws):
    for _ in range(2):
        r = acphost(["batch", "-a", "demo", "-p", "hi", "--no-history"], cwd=plain_ws, env=FAST)
        assert r.returncode == 0, r.stderr
    assert (plain_ws / "acphost-batch" / "report.md").is_file()


# -- reading back ---------------------------------------------------------------------------


@pytest.fixture
def two_runs(plain_ws, tmp_path):
    out = tmp_path / "out"
    r = acphost(
        [
            "batch", "-a", "demo", "--no-history", "--write", "--out", str(out),
            "-p", "terminal sh -c 'echo x > x.txt'", "-p", "echo ho",
        ],
        cwd=plain_ws,
        env=FAST,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    return out


@pytest.mark.parametrize("how", ["fifo", "link", "directory", "garbage"])
def test_one_unreadable_result_does_not_stop_the_report(how, two_runs, tmp_path):
    result = two_runs / "runs" / "demo--p1--0" / "result.json"
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"id": "demo--p1--0", "final_text": SECRET}))
    result.unlink()
    if how == "fifo":
        os.mkfifo(result)
    elif how == "link":
        os.symlink(secret, result)
    elif how == "directory":
        result.mkdir()
    else:
        result.write_text("{not json")
    r = acphost(["batch", "report", str(two_runs)], cwd=tmp_path, timeout=60)
    assert r.returncode == 0, r.stderr
    md = (two_runs / "report.md").read_text()
    assert "run demo--p1--0 not shown" in md
    assert "demo--p2--0" in md  # the other run is reported
    assert "run demo--p1--0 not shown" in (two_runs / "report.html").read_text()
    report = json.loads((two_runs / "report.json").read_text())
    assert [run["id"] for run in report["runs"]] == ["demo--p2--0"]
    assert len(report["unread"]) == 1
    for name in ("report.md", "report.html", "report.json"):
        assert "s3cr3t" not in (two_runs / name).read_text()


def test_a_run_directory_that_is_a_link_is_not_read(two_runs, tmp_path):
    """A link on the way (not only at the file) is refused: nothing is read through it."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "diff.patch").write_text(SECRET)
    (elsewhere / "result.json").write_text(
        (two_runs / "runs" / "demo--p1--0" / "result.json").read_text()
    )
    (two_runs / "runs").rename(tmp_path / "runs-real")
    (two_runs / "runs").mkdir()
    os.symlink(elsewhere, two_runs / "runs" / "demo--p1--0")
    r = acphost(["batch", "report", str(two_runs)], cwd=tmp_path, timeout=60)
    assert r.returncode == 0, r.stderr
    md = (two_runs / "report.md").read_text()
    assert "s3cr3t" not in md and "run demo--p1--0 not shown" in md


def test_a_link_in_place_when_the_file_is_opened_is_refused(tmp_path):
    """No check-then-open: the open itself refuses a link (O_NOFOLLOW, component by component)."""
    out = tmp_path / "out"
    (out / "runs" / "r").mkdir(parents=True)
    secret = tmp_path / "secret"
    secret.write_text(SECRET)
    folder = OutDir(str(out))
    os.symlink(secret, out / "runs" / "r" / "diff.patch")
    with pytest.raises(BatchError, match="symbolic link"):
        folder.open_file("runs/r/diff.patch", "the run file")
    with pytest.raises(BatchError, match="symbolic link"):
        folder.read_file("runs/r/diff.patch", "the run file")
    os.rename(out / "runs" / "r", tmp_path / "r")
    os.symlink(tmp_path / "r", out / "runs" / "r")
    (tmp_path / "r" / "diff.patch").unlink()
    (tmp_path / "r" / "diff.patch").write_text(SECRET)
    with pytest.raises(BatchError, match="symbolic link or not a directory"):
        folder.open_file("runs/r/diff.patch", "the run file")


FLIP = """
import os, sys
path, target, stop = sys.argv[1:]
while not os.path.exists(stop):
    try:
        os.symlink(target, path)
    except FileExistsError:
        pass
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
"""


def test_a_link_flipping_in_and_out_is_never_read(tmp_path):
    """A bounded race: another process flips a link in place while the file is opened
    twenty thousand times: it is never read, and every failure is a
    BatchError (the check-then-open this replaced leaked it about once in 100 tries, and
    a link flipping under realpath raised OSError)."""
    out = tmp_path / "out"
    (out / "runs" / "r").mkdir(parents=True)
    secret = tmp_path / "secret"
    secret.write_text(SECRET)
    stop = tmp_path / "stop"
    flipper = subprocess.Popen(
        [sys.executable, "-c", FLIP, str(out / "runs" / "r" / "diff.patch"), str(secret), str(stop)]
    )
    folder = OutDir(str(out))
    leaks = refused = 0
    try:
        for _ in range(20_000):
            try:
                with folder.open_file("runs/r/diff.patch", "the run file") as f:
                    leaks += b"s3cr3t" in f.read()
            except BatchError as exc:
                refused += "symbolic link" in str(exc)
    finally:
        stop.touch()
        flipper.wait(timeout=30)
    assert leaks == 0
