r"""What a run changed: the list of files and a unified diff in git's format.

Two ways to the same result. In a git worktree, git compares the commit the
run started from with the work tree (untracked files included, ignored ones
not). For a copy, :func:`tree_changes` compares the run's tree with the
pristine baseline itself, and writes the patch as git would (``a/`` and
``b/`` prefixes, ``/dev/null`` for added and deleted files, "Binary files
... differ"), so ``git apply`` and ``patch -p1`` take either.

The agent wrote the files, so each is read with a bound: a file over
:data:`MAX_DIFF_BYTES` is shown as binary (as git shows a file it does not
diff), anything but a regular file is not opened (a FIFO swapped in would
block the read), and the hunks come from :func:`acphost._difftext.diff_lines`,
bounded in time however many lines changed. Lines end at ``\n`` only, their
ends kept, so a form feed or a CR inside a line stays in it and a change of
line ends or of the final newline is in the patch.
"""

from __future__ import annotations

import filecmp
import os
import stat
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .._difftext import diff_lines
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

    settings = ["-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false"]
    settings += ["-c", "core.quotePath=false"]
    options = ["-z", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color"]
    # First the listing (NUL-separated ":modes shas STATUS\0path\0"...), which reads
    # no file whole; then the patch, without the files too large to diff.
    out = ok([*settings, "diff", "--raw", *options, commit])
    files = []
    listed: list[tuple[str, str, str]] = []  # path, old blob, status
    at = 0
    while out.startswith(b":", at):
        meta_end = out.index(b"\0", at)
        path_end = out.index(b"\0", meta_end + 1)
        meta = out[at + 1 : meta_end].decode("ascii", "replace").split(" ")
        path = out[meta_end + 1 : path_end].decode("utf-8", "surrogateescape")
        files.append(ChangedFile(path, _CHANGE.get(meta[-1][:1], "modified")))
        listed.append((path, meta[2] if len(meta) > 2 else "", meta[-1][:1]))
        at = path_end + 1
    large = _too_large(ok, root, commit, listed)
    patch = ""
    if not large:
        patch = ok([*settings, "diff", "--patch", *options, commit]).decode(
            "utf-8", "surrogateescape"
        )
    else:  # the others by name, a bounded number a call (argv has a size limit)
        rest = [path for path, _, _ in listed if path not in large]
        for names in _batches(rest):
            diff = ok([*settings, "diff", "--patch", *options, commit, "--", *names])
            patch += diff.decode("utf-8", "surrogateescape")
    patch += "".join(_large_patch(path, large[path]) for path in sorted(large))
    untracked = ok(["ls-files", "-z", "--others", "--exclude-standard"]).split(b"\0")
    added = sorted(p.decode("utf-8", "surrogateescape") for p in untracked if p)
    files += [ChangedFile(path, "added") for path in added]
    patch += "".join(_file_patch(path, None, os.path.join(root, path)) for path in added)
    files.sort(key=lambda c: c.path)
    return Changes(tuple(files), patch)


def _too_large(
    ok: Callable[[Sequence[str]], bytes], root: str, commit: str, listed: list[tuple[str, str, str]]
) -> dict[str, str]:
    """The listed files too large to diff line by line (path -> status).

    Git diffs a file of any size as text; the patch of a run that wrote a
    huge file would be as large. A file is too large on either side: its
    blob at ``commit`` or its file in the work tree.
    """
    if not listed:
        return {}
    sizes: dict[str, int] = {}
    old = [path for path, blob, _ in listed if blob.strip("0")]
    for names in _batches(old):
        tree = ok(["ls-tree", "-r", "-z", "--long", commit, "--", *names])
        for entry in tree.split(b"\0"):
            meta, _, name = entry.partition(b"\t")
            size = meta.split()[-1] if meta else b"-"
            if size.isdigit():
                sizes[name.decode("utf-8", "surrogateescape")] = int(size)
    large: dict[str, str] = {}
    for path, _, status in listed:
        try:
            info = os.lstat(os.path.join(root, path))
            new_size = info.st_size if stat.S_ISREG(info.st_mode) else 0
        except OSError:
            new_size = 0  # deleted
        if max(sizes.get(path, 0), new_size) > MAX_DIFF_BYTES:
            large[path] = status
    return large


def _batches(paths: list[str], size: int = 256) -> list[list[str]]:
    """``paths`` as literal pathspecs (no glob, no magic), ``size`` a batch, in order."""
    specs = [f":(literal){path}" for path in sorted(paths)]
    return [specs[i : i + size] for i in range(0, len(specs), size)]


def _large_patch(path: str, status: str) -> str:
    """The patch of a file too large to diff, as git writes one it does not diff."""
    from_name = "/dev/null" if status == "A" else f"a/{path}"
    to_name = "/dev/null" if status == "D" else f"b/{path}"
    return f"diff --git a/{path} b/{path}\nBinary files {from_name} and {to_name} differ\n"


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


def _content(path: str | None) -> tuple[bytes | None, str]:
    """The bytes to compare and the git mode of an entry (a link's content is its target).

    The bytes are None for a file not to diff line by line: one too large,
    or one that is no longer a regular file.
    """
    if path is None:
        return b"", ""
    if os.path.islink(path):
        return os.fsencode(os.readlink(path)), "120000"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None, "100644"  # swapped or removed since the listing
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(fd)
        mode = "100755" if info.st_mode & stat.S_IXUSR else "100644"  # as git decides
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_DIFF_BYTES:
            return None, mode
        data = f.read(MAX_DIFF_BYTES + 1)
    return (None if len(data) > MAX_DIFF_BYTES else data), mode


def _text(data: bytes | None) -> list[str] | None:
    r"""``data``'s lines, each with its ``\n``; None for binary or non-UTF-8 data."""
    if data is None or b"\0" in data[:8192]:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = text.split("\n")
    last = lines.pop()
    return [line + "\n" for line in lines] + ([last] if last else [])


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
        if old is not None and old == new:
            return "".join(head)
        return "".join(head) + f"Binary files {from_name} and {to_name} differ\n"
    if old_lines == new_lines:
        return "".join(head)  # only the mode changed
    body = [f"--- {from_name}\n", f"+++ {to_name}\n"]
    for line in diff_lines(old_lines, new_lines):
        if line.startswith("@@"):
            body.append(line + "\n")
        elif line.endswith("\n"):
            body.append(line)
        else:
            body.append(line + "\n\\ No newline at end of file\n")
    return "".join(head + body)
