"""Run workspaces: worktrees and copies, their changes, their removal, packing them to travel."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from acphost.batch import WorkspaceError, inspect_workspace, uncommitted_changes
from acphost.batch._pack import pack, unpack
from acphost.batch._workspace import make_baseline, open_checkout

from .conftest import FILES, git, tree


def change_everything(root: Path) -> None:
    (root / "hello.py").write_text('print("hello, world")\n')
    (root / "README.md").unlink()
    (root / "new.txt").write_text("no newline at the end")
    (root / "blob.bin").write_bytes(b"\x00\x01\x02")


def checkout_of(source, tmp_path: Path, name: str = "run"):
    """A run's workspace with its baseline, as the local executor makes them."""
    baseline = str(tmp_path / f"{name}.baseline")
    make_baseline(source, baseline, exclude=[])
    return open_checkout(source, str(tmp_path / name), baseline)


EXPECTED = [
    ("README.md", "deleted"),
    ("blob.bin", "added"),
    ("hello.py", "modified"),
    ("new.txt", "added"),
]


def test_inspect_git_plain_and_subdirectory(git_ws, plain_ws):
    source = inspect_workspace(str(git_ws))
    assert source.is_git and source.git_root == str(git_ws) and source.subdir == ""
    assert source.commit == git(git_ws, "rev-parse", "HEAD").strip()
    sub = inspect_workspace(str(git_ws / "src"))
    assert sub.git_root == str(git_ws) and sub.subdir == "src"
    assert not inspect_workspace(str(plain_ws)).is_git
    with pytest.raises(WorkspaceError, match="not a directory"):
        inspect_workspace(str(plain_ws / "hello.py"))


def test_uncommitted_changes_are_noticed(git_ws):
    source = inspect_workspace(str(git_ws))
    assert not uncommitted_changes(source)
    (git_ws / "hello.py").write_text("changed\n")
    assert uncommitted_changes(source)


def test_worktree_changes_and_removal_leave_the_repository_as_it_was(git_ws, tmp_path):
    source = inspect_workspace(str(git_ws))
    objects_before = git(git_ws, "count-objects", "-v")
    checkout = checkout_of(source, tmp_path)
    assert tree(Path(checkout.root)) == FILES
    assert len(git(git_ws, "worktree", "list").splitlines()) == 2
    change_everything(Path(checkout.root))
    changes = checkout.changes()
    assert [(c.path, c.change) for c in changes.files] == EXPECTED
    assert "Binary files" in changes.patch and '+print("hello, world")' in changes.patch
    # The comparison hashed nothing into the user's repository.
    assert git(git_ws, "count-objects", "-v") == objects_before
    checkout.remove()
    assert not os.path.exists(checkout.root)
    assert git(git_ws, "worktree", "list").splitlines() == [
        git(git_ws, "worktree", "list").splitlines()[0]
    ]
    assert not (git_ws / ".git" / "worktrees").exists() or not any(
        (git_ws / ".git" / "worktrees").iterdir()
    )
    assert tree(git_ws) == FILES


def test_worktree_patch_applies_to_the_commit(git_ws, tmp_path):
    checkout = checkout_of(inspect_workspace(str(git_ws)), tmp_path)
    change_everything(Path(checkout.root))
    patch = checkout.changes().patch
    checkout.remove()
    subprocess.run(
        ["git", "apply", "--index", "--exclude=blob.bin", "-"],
        input=patch.encode(),
        cwd=git_ws,
        check=True,
    )
    assert (git_ws / "hello.py").read_text() == 'print("hello, world")\n'
    assert not (git_ws / "README.md").exists()


def test_copy_changes_and_patch_apply_with_git(plain_ws, tmp_path):
    source = inspect_workspace(str(plain_ws))
    baseline = str(tmp_path / "baseline")
    make_baseline(source, baseline, exclude=[str(plain_ws / "src")])
    assert "src/lib.py" not in tree(Path(baseline))
    checkout = open_checkout(source, str(tmp_path / "run"), baseline)
    change_everything(Path(checkout.root))
    changes = checkout.changes()
    assert [(c.path, c.change) for c in changes.files] == EXPECTED
    assert "\\ No newline at end of file" in changes.patch
    # The patch is git's format: it turns the baseline into the run's tree.
    target = tmp_path / "apply"
    make_baseline(source, str(target), exclude=[str(plain_ws / "src")])
    subprocess.run(
        ["git", "apply", "--exclude=blob.bin", "-"],
        input=changes.patch.encode(),
        cwd=target,
        check=True,
    )
    assert (target / "new.txt").read_text() == "no newline at the end"
    assert not (target / "README.md").exists()
    checkout.remove()
    assert not os.path.exists(checkout.root) and tree(plain_ws) == FILES


def test_concurrent_worktrees_of_one_repository_all_succeed(git_ws, tmp_path):
    # Unserialised, `git worktree add` fails here: it reads half-made entries.
    source = inspect_workspace(str(git_ws))
    baseline = str(tmp_path / "baseline")
    make_baseline(source, baseline)
    with ThreadPoolExecutor(16) as pool:
        checkouts = list(
            pool.map(lambda i: open_checkout(source, str(tmp_path / f"w{i}"), baseline), range(24))
        )
        assert all(tree(Path(c.root)) == FILES for c in checkouts)
        list(pool.map(lambda c: c.remove(), checkouts))
    assert len(git(git_ws, "worktree", "list").splitlines()) == 1


def test_a_worktree_whose_git_file_was_deleted_is_still_compared_and_removed(git_ws, tmp_path):
    checkout = checkout_of(inspect_workspace(str(git_ws)), tmp_path)
    for entry in Path(checkout.root).iterdir():  # what `rm -rf .* *` does
        subprocess.run(["rm", "-rf", str(entry)], check=True)
    changes = checkout.changes()
    assert sorted(c.path for c in changes.files) == sorted(FILES)
    assert {c.change for c in changes.files} == {"deleted"}
    checkout.remove()
    assert len(git(git_ws, "worktree", "list").splitlines()) == 1


def test_subdirectory_workspace_runs_in_the_same_subdirectory(git_ws, tmp_path):
    checkout = checkout_of(inspect_workspace(str(git_ws / "src")), tmp_path)
    assert checkout.cwd == os.path.join(checkout.root, "src")
    checkout.remove()


@pytest.mark.parametrize("kind", ["git", "plain"])
def test_pack_and_unpack_the_starting_tree(kind, git_ws, plain_ws, tmp_path):
    root = git_ws if kind == "git" else plain_ws
    (root / "untracked-or-plain.txt").write_text("x\n")
    os.symlink("hello.py", root / "link.py")
    data = pack(inspect_workspace(str(root)), exclude=[str(root / "untracked-or-plain.txt")])
    unpack(data, str(tmp_path / "out"))
    # git: the commit's tree (the link and the untracked file are not in it).
    expected = dict(FILES) if kind == "git" else {**FILES, "link.py": FILES["hello.py"]}
    assert tree(tmp_path / "out") == expected


def test_unpack_refuses_members_outside_the_workspace(tmp_path):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo("../escaped.txt")
        info.size = 1
        tar.addfile(info, io.BytesIO(b"x"))
    with pytest.raises(WorkspaceError, match="outside the workspace"):
        unpack(buffer.getvalue(), str(tmp_path / "out"))
    assert not (tmp_path / "escaped.txt").exists()


def test_file_names_with_spaces_and_non_ascii_come_back_exactly(git_ws, tmp_path):
    for name in ("b c.txt", "ü.txt"):
        (git_ws / name).write_text("old\n")
    git(git_ws, "add", ".")
    git(git_ws, "commit", "-qm", "names")
    checkout = checkout_of(inspect_workspace(str(git_ws)), tmp_path)
    root = Path(checkout.root)
    (root / "b c.txt").write_text("new\n")
    (root / "ü.txt").unlink()
    (root / "new file ü.txt").write_text("x\n")
    changes = checkout.changes()
    assert [(c.path, c.change) for c in changes.files] == [
        ("b c.txt", "modified"),
        ("new file ü.txt", "added"),
        ("ü.txt", "deleted"),
    ]
    checkout.remove()
    subprocess.run(
        ["git", "apply", "--index", "-"], input=changes.patch.encode(), cwd=git_ws, check=True
    )
    assert (git_ws / "b c.txt").read_text() == "new\n" and not (git_ws / "ü.txt").exists()
    assert (git_ws / "new file ü.txt").read_text() == "x\n"


#: Files whose lines a careless diff gets wrong: a form feed, a vertical tab, a
#: U+2028 and a CR inside lines (``str.splitlines`` breaks at each), CRLF line
#: ends changed to LF, and a final newline taken away.
AWKWARD_BEFORE = {
    "feed.py": "def a():\n    pass\n\x0c\ndef b():\n    return '\x0b'\n",
    "crlf.txt": "one\r\ntwo\r\nthree\r\n",
    "tail.txt": "keep\nlast line\n",
    "odd.txt": "a\u2028b\nc\rd\n",
}
AWKWARD_AFTER = {
    "feed.py": "def a():\n    return 1\n\x0c\ndef b():\n    return '\x0b\x0b'\n",
    "crlf.txt": "one\ntwo\r\nthree\n",
    "tail.txt": "keep\nlast line",
    "odd.txt": "a\u2028B\nc\rD\n",
}


def write_files(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).write_bytes(text.encode())


def applied(tmp_path: Path, before: dict[str, str], patch: str) -> dict[str, bytes]:
    """The files ``before`` after ``git apply`` of ``patch``, byte for byte."""
    target = tmp_path / "apply"
    target.mkdir()
    write_files(target, before)
    subprocess.run(["git", "apply", "-"], input=patch.encode(), cwd=target, check=True)
    return {p.name: p.read_bytes() for p in target.iterdir()}


@pytest.mark.parametrize("kind", ["git", "copy"])
def test_patches_keep_every_character_of_every_line(kind, tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    write_files(ws, AWKWARD_BEFORE)
    if kind == "git":
        git(ws, "init", "-q")
        git(ws, "add", "-A")
        git(ws, "commit", "-qm", "start")
    source = inspect_workspace(str(ws))
    checkout = checkout_of(source, tmp_path)
    write_files(Path(checkout.root), AWKWARD_AFTER)
    changes = checkout.changes()
    checkout.remove()
    assert sorted(c.path for c in changes.files) == sorted(AWKWARD_AFTER)
    expected = {name: text.encode() for name, text in AWKWARD_AFTER.items()}
    assert applied(tmp_path, AWKWARD_BEFORE, changes.patch) == expected


def test_a_file_rewritten_whole_gives_a_patch_that_applies(plain_ws, tmp_path):
    """Every line of a long file changed: the hunks are made without comparing them
    all pairwise (difflib's worst case), and still turn the old file into the new."""
    old = "".join(f"value {i % 997} {i}\n" for i in range(40_000))
    new = "".join(f"other {i % 991} {i}\n" for i in range(40_000))
    (plain_ws / "big.txt").write_text(old)
    source = inspect_workspace(str(plain_ws))
    baseline = str(tmp_path / "baseline")
    make_baseline(source, baseline, exclude=[])
    checkout = open_checkout(source, str(tmp_path / "run"), baseline)
    (Path(checkout.root) / "big.txt").write_text(new)
    patch = checkout.changes().patch
    checkout.remove()
    target = tmp_path / "apply"
    make_baseline(source, str(target), exclude=[])
    subprocess.run(["git", "apply", "-"], input=patch.encode(), cwd=target, check=True)
    assert (target / "big.txt").read_text() == new


@pytest.mark.parametrize("kind", ["git", "copy"])
def test_a_file_over_the_limit_is_shown_as_binary(kind, git_ws, plain_ws, tmp_path):
    """Two different files over the limit are a change (not "the same"), shown as git
    shows a file it does not diff; the patch stays small."""
    from acphost.batch._diff import MAX_DIFF_BYTES

    ws = git_ws if kind == "git" else plain_ws
    line = "x" * 99 + "\n"
    big = line * (MAX_DIFF_BYTES // len(line) + 10)
    (ws / "huge.txt").write_text(big)
    if kind == "git":
        git(ws, "add", "huge.txt")
        git(ws, "commit", "-qm", "huge")
    source = inspect_workspace(str(ws))
    checkout = checkout_of(source, tmp_path)
    (Path(checkout.root) / "huge.txt").write_text(big.replace("x", "y", 1))
    changes = checkout.changes()
    checkout.remove()
    assert [(c.path, c.change) for c in changes.files] == [("huge.txt", "modified")]
    assert "Binary files a/huge.txt and b/huge.txt differ" in changes.patch
    assert len(changes.patch) < 1000


def test_a_fifo_in_the_run_is_not_read(plain_ws, tmp_path):
    """A named pipe the agent left behind is no file (git does not list one either):
    comparing never opens it, and a file it replaced is gone."""
    source = inspect_workspace(str(plain_ws))
    baseline = str(tmp_path / "baseline")
    make_baseline(source, baseline, exclude=[])
    checkout = open_checkout(source, str(tmp_path / "run"), baseline)
    (Path(checkout.root) / "hello.py").unlink()
    os.mkfifo(Path(checkout.root) / "hello.py")
    os.mkfifo(Path(checkout.root) / "pipe")
    changes = checkout.changes()
    checkout.remove()
    assert [(c.path, c.change) for c in changes.files] == [("hello.py", "deleted")]
    assert "deleted file mode 100644" in changes.patch


def test_hundreds_of_changes_beside_a_huge_file_all_reach_the_patch(git_ws, tmp_path):
    """Files are named to git a bounded number a call; names that look like globs or
    pathspec magic are taken literally."""
    from acphost.batch._diff import MAX_DIFF_BYTES

    names = [f"f{i:03}.txt" for i in range(600)] + ["*.txt", ":(glob)x", "[ab].txt"]
    for name in names:
        (git_ws / name).write_text("before\n")
    (git_ws / "huge.txt").write_text("x" * (MAX_DIFF_BYTES + 1))
    git(git_ws, "add", "-A")
    git(git_ws, "commit", "-qm", "many")
    checkout = checkout_of(inspect_workspace(str(git_ws)), tmp_path)
    root = Path(checkout.root)
    for name in names:
        (root / name).write_text("after\n")
    (root / "huge.txt").write_text("y" * (MAX_DIFF_BYTES + 1))
    changes = checkout.changes()
    checkout.remove()
    assert len(changes.files) == len(names) + 1
    assert changes.patch.count("diff --git") == len(names) + 1
    subprocess.run(
        ["git", "apply", "--exclude=huge.txt", "-"],
        input=changes.patch.encode(),
        cwd=git_ws,
        check=True,
    )
    assert all((git_ws / name).read_text() == "after\n" for name in names)
