r"""What a run changed: the list of files and a unified diff in git's format.

:func:`tree_changes` compares the run's tree with the pristine baseline it
started from (a copy's, or the commit checked out for a git worktree) and
writes the patch as git would (``a/`` and ``b/`` prefixes, ``/dev/null``
for added and deleted files, "Binary files ... differ", names quoted as
git quotes them: :func:`quote_name`), so ``git apply`` and ``patch -p1``
take it. It never runs git: nothing the agent wrote
(``.gitattributes``, a ``diff=`` or ``filter=`` driver, the index) decides
what the patch shows; a file is binary by its content alone (a NUL byte,
not UTF-8, or too large).

The agent wrote the files, so each is read with a bound: a file over
:data:`MAX_DIFF_BYTES` is shown as binary (as git shows a file it does not
diff), anything but a regular file is not opened (a FIFO swapped in would
block the read), and the hunks come from :func:`acphost._difftext.diff_lines`,
bounded in time however many lines changed. Lines end at ``\n`` only, their
ends kept, so a form feed or a CR inside a line stays in it and a change of
line ends or of the final newline is in the patch.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from dataclasses import dataclass

from .._difftext import diff_lines
from ._model import ChangedFile

__all__ = ["Changes", "tree_changes"]

#: Files larger than this are not diffed line by line.
MAX_DIFF_BYTES = 2 * 1024 * 1024


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


def _entries(
    root: str,
    ignored: Collection[str] = (),
    keep: Collection[str] = (),
    skip_top: Collection[str] = (),
) -> dict[str, str]:
    """Relative path -> ``f`` (file) or ``l`` (symbolic link) for every entry under ``root``.

    Paths in ``ignored`` (directories with a trailing ``/``) are left out,
    unless they are in ``keep`` (files and directories of the baseline);
    names in ``skip_top`` are left out at the top.
    """
    found: dict[str, str] = {}
    for directory, dirs, files in os.walk(root):
        rel_dir = os.path.relpath(directory, root)
        prefix = "" if rel_dir == "." else f"{rel_dir}/"
        names = files
        if not prefix:
            dirs[:] = [d for d in dirs if d not in skip_top]
            names = [n for n in files if n not in skip_top]
        if ignored:
            dirs[:] = [d for d in dirs if f"{prefix}{d}/" not in ignored or f"{prefix}{d}" in keep]
        for name in [*dirs, *names]:
            full = os.path.join(directory, name)
            rel = prefix + name
            if rel in ignored and rel not in keep:
                continue
            if os.path.islink(full):
                found[rel] = "l"
            elif os.path.isfile(full):
                found[rel] = "f"
        # os.walk does not descend into links to directories; they are kept above.
    return found


def _with_parents(paths: Collection[str]) -> set[str]:
    """``paths`` and every directory above each."""
    out = set(paths)
    for path in paths:
        parent = path
        while "/" in parent:
            parent = parent.rpartition("/")[0]
            out.add(parent)
    return out


def tree_changes(
    before: str,
    after: str,
    *,
    ignored: Collection[str] = (),
    skip_top: Collection[str] = (),
) -> Changes:
    """Compare a run's tree with its baseline, by content.

    Args:
        before: the pristine baseline.
        after: the run's workspace.
        ignored: paths of ``after`` to leave out (untracked files git
            ignores; directories end with ``/``), unless the baseline has them.
        skip_top: names at the top of ``after`` that are not content (a
            worktree's ``.git``).

    Returns:
        The changed files and a git-style patch.

    """
    old = _entries(before)
    keep = _with_parents(old) if ignored else set()
    new = _entries(after, ignored, keep, skip_top)
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
    return _same_bytes(a, b)


def _open_regular(path: str) -> int | None:
    """A descriptor of ``path`` if it is still a regular file (never a link or a FIFO)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def _same_bytes(a: str, b: str) -> bool:
    """Whether two files hold the same bytes (a file swapped for a FIFO is never opened)."""
    fd_a = _open_regular(a)
    fd_b = _open_regular(b) if fd_a is not None else None
    try:
        if fd_a is None or fd_b is None:
            return False
        if os.fstat(fd_a).st_size != os.fstat(fd_b).st_size:
            return False
        while True:
            chunk_a, chunk_b = os.read(fd_a, 1 << 16), os.read(fd_b, 1 << 16)
            if chunk_a != chunk_b:
                return False
            if not chunk_a:
                return True
    finally:
        for fd in (fd_a, fd_b):
            if fd is not None:
                os.close(fd)


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


#: C escapes git writes in a quoted name; every other byte that needs quoting is octal.
_ESCAPES = {7: "a", 8: "b", 9: "t", 10: "n", 11: "v", 12: "f", 13: "r", 34: '"', 92: "\\"}


def quote_name(prefix: str, path: str) -> str:
    r"""``prefix + path`` as git writes a name in a patch header (``core.quotePath`` on).

    A name with a control character, a ``"``, a ``\``, DEL or any byte from
    0x80 is written in double quotes with C escapes (``\t``, ``\n``,
    ``\"``, ``\\``) and the other bytes in octal (``\303\251``), the whole
    ``a/...`` inside the quotes; any other name is written as it is.
    ``git apply`` and ``patch`` read a tab or newline in a bare name as the
    end of the name, so a name like ``notes.md<TAB>install.sh`` must be quoted.
    """
    raw = (prefix + path).encode("utf-8", "surrogateescape")
    if not any(b < 0x20 or b in (34, 92) or b >= 0x7F for b in raw):
        return prefix + path
    out = []
    for b in raw:
        if b in _ESCAPES:
            out.append("\\" + _ESCAPES[b])
        elif b < 0x20 or b >= 0x7F:
            out.append(f"\\{b:03o}")
        else:
            out.append(chr(b))
    return '"' + "".join(out) + '"'


def _file_patch(path: str, a: str | None, b: str | None) -> str:
    old, old_mode = _content(a)
    new, new_mode = _content(b)
    a_name, b_name = quote_name("a/", path), quote_name("b/", path)
    head = [f"diff --git {a_name} {b_name}\n"]
    if a is None:
        head.append(f"new file mode {new_mode}\n")
    elif b is None:
        head.append(f"deleted file mode {old_mode}\n")
    elif old_mode != new_mode:
        head += [f"old mode {old_mode}\n", f"new mode {new_mode}\n"]
    from_name = a_name if a is not None else "/dev/null"
    to_name = b_name if b is not None else "/dev/null"
    old_lines, new_lines = _text(old), _text(new)
    if old_lines is None or new_lines is None:
        if old is not None and old == new:
            return "".join(head)
        return "".join(head) + f"Binary files {from_name} and {to_name} differ\n"
    if old_lines == new_lines:
        return "".join(head)  # only the mode changed
    # As git: a name with a space ends with a tab on these lines, so that
    # patch(1) does not take what follows the space for a timestamp.
    tab = "\t" if " " in path else ""
    body = [f"--- {from_name}{tab if a else ''}\n", f"+++ {to_name}{tab if b else ''}\n"]
    for line in diff_lines(old_lines, new_lines):
        if line.startswith("@@"):
            body.append(line + "\n")
        elif line.endswith("\n"):
            body.append(line)
        else:
            body.append(line + "\n\\ No newline at end of file\n")
    return "".join(head + body)
