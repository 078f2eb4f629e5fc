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
from acphost.batch._workspace import make_baseline, open_checkout, remove_leftover

from .conftest import FILES, git, tree


def change_everything(root: Path) -> None:
    (root / "hello.py").write_text('print("hello, world")\n')
    (root / "README.md").unlink()
    (root / "new.txt").write_text("no newline at the end")
    (root / "blob.bin").write_bytes(b"\x00\x01\x02")


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
    checkout = open_checkout(source, str(tmp_path / "run"), None)
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
    checkout = open_checkout(inspect_workspace(str(git_ws)), str(tmp_path / "run"), None)
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
    with ThreadPoolExecutor(16) as pool:
        checkouts = list(
            pool.map(lambda i: open_checkout(source, str(tmp_path / f"w{i}"), None), range(24))
        )
        assert all(tree(Path(c.root)) == FILES for c in checkouts)
        list(pool.map(lambda c: c.remove(), checkouts))
    assert len(git(git_ws, "worktree", "list").splitlines()) == 1


def test_a_worktree_whose_git_file_was_deleted_is_still_compared_and_removed(git_ws, tmp_path):
    checkout = open_checkout(inspect_workspace(str(git_ws)), str(tmp_path / "run"), None)
    for entry in Path(checkout.root).iterdir():  # what `rm -rf .* *` does
        subprocess.run(["rm", "-rf", str(entry)], check=True)
    changes = checkout.changes()
    assert sorted(c.path for c in changes.files) == sorted(FILES)
    assert {c.change for c in changes.files} == {"deleted"}
    remove_leftover(checkout.marker())
    assert len(git(git_ws, "worktree", "list").splitlines()) == 1


def test_remove_leftover_never_deletes_outside_the_worktrees_directory(git_ws, tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    remove_leftover({"root": None, "git_dir": str(victim), "common_dir": str(git_ws / ".git")})
    assert victim.exists()


def test_subdirectory_workspace_runs_in_the_same_subdirectory(git_ws, tmp_path):
    checkout = open_checkout(inspect_workspace(str(git_ws / "src")), str(tmp_path / "run"), None)
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
    checkout = open_checkout(inspect_workspace(str(git_ws)), str(tmp_path / "run"), None)
    root = Path(checkout.root)
    (root / "b c.txt").write_text("new\n")
    (root / "ü.txt").unlink()
    (root / "new file ü.txt").write_text("x\n")
    changes = checkout.changes()
    assert [(c.path, c.change) for c in changes.files] == [
        ("b c.txt", "modified"), ("new file ü.txt", "added"), ("ü.txt", "deleted")]
    checkout.remove()
    subprocess.run(["git", "apply", "--index", "-"], input=changes.patch.encode(), cwd=git_ws, check=True)
    assert (git_ws / "b c.txt").read_text() == "new\n" and not (git_ws / "ü.txt").exists()
    assert (git_ws / "new file ü.txt").read_text() == "x\n"
