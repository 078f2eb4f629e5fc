"""What a run changed: the list of files and a unified diff in git's format.

Two ways to the same result. In a git worktree, git compares the commit the
run started from with the work tree (untracked files included, ignored ones
not). For a copy, :func:`tree_changes` compares the run's tree with the
pristine baseline itself, and writes the patch as git would (``a/`` and
``b/`` prefixes, ``/dev/null`` for added and deleted files, "Binary files
... differ"), so ``git apply`` and ``patch -p1`` take either.
"""

from __future__ import annotations

import difflib
import filecmp
import os
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ._model import ChangedFile

__all__ = ["Changes", "git_changes", "tree_changes"]

#: Files larger than this are not diffed line by line.
MAX_DIFF_BYTES = 2 * 1024 * 1024

_CHANGE = {"A": "added", "M": "modified", "D": "deleted", "T": "modified"}

GitRunner = Callable[[Sequence[str]], "subprocess.CompletedProcess[bytes]"]


class DiffError(Exception):
    """The comparison failed (the message says why)."""


@dataclass(frozen=True, slots=True)
class Changes:
    """What a run changed.

    Attributes:
        files: the changed files, sorted by path.
        patch: a unified diff in git's format ("" when nothing changed).

    """

    files: tuple[ChangedFile, ...]
    patch: str


def git_changes(run_git: GitRunner, root: str, commit: str) -> Changes:
    """The changes of the worktree at ``root`` against ``commit`` (``run_git`` is bound to it).

    Git compares the tracked files; untracked ones (not ignored) are added
    files, written here as git would, so that nothing is hashed into the
    repository's object store.

    Raises:
        DiffError: git failed.

    """

    def ok(args: Sequence[str]) -> bytes:
        done = run_git(args)
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip()
            raise DiffError(f"git {args[0]} failed in the run's worktree: {message}")
        return done.stdout

    # One call: the raw listing (NUL-separated: ":modes shas STATUS\0path\0"...), an
    # empty field, then the patch (git diff's --patch-with-raw with -z).
    out = ok(
        [
            "-c",
            "diff.noprefix=false",
            "-c",
            "diff.mnemonicPrefix=false",
            "-c",
            "core.quotePath=false",
            "diff",
            "--patch-with-raw",
            "-z",
            "--no-renames",
            "--no-ext-diff",
            "--no-textconv",
            "--no-color",
            commit,
        ]
    )
    files = []
    at = 0
    while out.startswith(b":", at):
        meta_end = out.index(b"\0", at)
        path_end = out.index(b"\0", meta_end + 1)
        kind = out[at:meta_end].rsplit(b" ", 1)[-1][:1].decode("ascii", "replace")
        path = out[meta_end + 1 : path_end].decode("utf-8", "surrogateescape")
        files.append(ChangedFile(path, _CHANGE.get(kind, "modified")))
        at = path_end + 1
    if out.startswith(b"\0", at):
        at += 1
    patch = out[at:].decode("utf-8", "surrogateescape")
    untracked = ok(["ls-files", "-z", "--others", "--exclude-standard"]).split(b"\0")
    added = sorted(p.decode("utf-8", "surrogateescape") for p in untracked if p)
    files += [ChangedFile(path, "added") for path in added]
    patch += "".join(_file_patch(path, None, os.path.join(root, path)) for path in added)
    files.sort(key=lambda c: c.path)
    return Changes(tuple(files), patch)


def _entries(root: str) -> dict[str, str]:
    """Relative path -> ``f`` (file) or ``l`` (symbolic link) for every entry under ``root``."""
    found: dict[str, str] = {}
    for directory, dirs, names in os.walk(root):
        rel_dir = os.path.relpath(directory, root)
        for name in [*dirs, *names]:
            full = os.path.join(directory, name)
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if os.path.islink(full):
                found[rel] = "l"
            elif os.path.isfile(full):
                found[rel] = "f"
        # os.walk does not descend into links to directories; they are kept above.
    return found


def tree_changes(before: str, after: str) -> Changes:
    """Compare a run's tree with its baseline.

    Args:
        before: the pristine baseline.
        after: the run's workspace.

    Returns:
        The changed files and a git-style patch.

    """
    old, new = _entries(before), _entries(after)
    files: list[ChangedFile] = []
    pieces: list[str] = []
    for path in sorted(old.keys() | new.keys()):
        a = os.path.join(before, path) if path in old else None
        b = os.path.join(after, path) if path in new else None
        if a is not None and b is not None and _same(a, b, old[path], new[path]):
            continue
        change = "added" if a is None else "deleted" if b is None else "modified"
        files.append(ChangedFile(path, change))
        pieces.append(_file_patch(path, a, b))
    return Changes(tuple(files), "".join(pieces))


def _same(a: str, b: str, kind_a: str, kind_b: str) -> bool:
    if kind_a != kind_b:
        return False
    if kind_a == "l":
        return os.readlink(a) == os.readlink(b)
    return filecmp.cmp(a, b, shallow=False)


def _content(path: str | None) -> tuple[bytes, str]:
    """The bytes to compare and the git mode of an entry (a link's content is its target)."""
    if path is None:
        return b"", ""
    if os.path.islink(path):
        return os.fsencode(os.readlink(path)), "120000"
    mode = "100755" if os.access(path, os.X_OK) else "100644"
    if os.path.getsize(path) > MAX_DIFF_BYTES:
        return b"\0", mode  # shown as binary: too large to diff line by line
    with open(path, "rb") as f:
        return f.read(), mode


def _text(data: bytes) -> list[str] | None:
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def _file_patch(path: str, a: str | None, b: str | None) -> str:
    old, old_mode = _content(a)
    new, new_mode = _content(b)
    head = [f"diff --git a/{path} b/{path}\n"]
    if a is None:
        head.append(f"new file mode {new_mode}\n")
    elif b is None:
        head.append(f"deleted file mode {old_mode}\n")
    elif old_mode != new_mode:
        head += [f"old mode {old_mode}\n", f"new mode {new_mode}\n"]
    from_name = f"a/{path}" if a is not None else "/dev/null"
    to_name = f"b/{path}" if b is not None else "/dev/null"
    old_lines, new_lines = _text(old), _text(new)
    if old_lines is None or new_lines is None:
        if old == new:
            return "".join(head)
        return "".join(head) + f"Binary files {from_name} and {to_name} differ\n"
    if old_lines == new_lines:
        return "".join(head)  # only the mode changed
    body = []
    for line in difflib.unified_diff(old_lines, new_lines, from_name, to_name, n=3):
        if line.endswith("\n"):
            body.append(line)
        else:
            body.append(line + "\n\\ No newline at end of file\n")
    return "".join(head + body)
