"""The local executor's work directory: made here, found again by its id alone.

Workspaces and baselines are made in ``<tmp>/acphost-batch-<id>`` (``<tmp>``
the canonical temporary directory, ``<id>`` 16 random hex digits), created
here with mode 0700; the batch holds an exclusive ``flock`` on it while it
lives. The output directory keeps only the id (``OUT/.workdir``), so that the
next batch there can remove what a killed one left behind.

A results folder is data, never an instruction (it may be copied from another
machine or shipped in a checkout), so the note is an id, never a path, and a
work directory is removed only when all of these hold:

* the note holds an id of the exact form written here;
* ``<tmp>/acphost-batch-<id>`` is a real directory (not a link), owned by
  this user;
* no live batch holds its lock (one writing to another folder may use it).

Anything else is left where it is, and the caller is told why. Git worktrees
made in it are registered in their repositories: their entries are removed
with it (:func:`~acphost.batch._workspace.forget_worktrees`).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import secrets
import stat
import tempfile
from collections.abc import Callable, Sequence

from ._model import WorkspaceSource
from ._out import BatchError, OutDir, write_atomic
from ._workspace import WorkspaceError, forget_worktrees, remove_tree

__all__ = ["WORKDIR_NOTE", "WorkDir", "free_path", "private_dir", "remove_stale"]

#: The file in the output directory that holds the id of the executor's work directory.
WORKDIR_NOTE = ".workdir"

_PREFIX = "acphost-batch-"
_ID = re.compile(r"[0-9a-f]{16}")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _path_of(ident: str) -> str:
    return os.path.join(os.path.realpath(tempfile.gettempdir()), _PREFIX + ident)


class WorkDir:
    """A work directory this process made; locked until :meth:`remove`.

    Attributes:
        ident: the id noted in the output directory.
        path: the directory (canonical).

    """

    def __init__(self, ident: str, path: str, fd: int) -> None:
        self.ident = ident
        self.path = path
        self._fd: int | None = fd

    @classmethod
    def make(cls) -> WorkDir:
        """Create and lock a new work directory.

        Raises:
            WorkspaceError: the temporary directory cannot be written.

        """
        for _ in range(100):
            ident = secrets.token_hex(8)
            path = _path_of(ident)
            try:
                os.mkdir(path, 0o700)
            except FileExistsError:
                continue
            except OSError as exc:
                raise WorkspaceError(f"cannot create a work directory {path}: {exc}") from None
            fd = os.open(path, _DIR_FLAGS)
            fcntl.flock(fd, fcntl.LOCK_EX)
            return cls(ident, path, fd)
        raise WorkspaceError(f"cannot create a work directory in {tempfile.gettempdir()}")

    def note(self, out: str) -> None:
        """Write the id into ``OUT/.workdir`` (replacing whatever the name was)."""
        write_atomic(os.path.join(out, WORKDIR_NOTE), self.ident + "\n")

    def remove(self, out: str | None = None) -> None:
        """Remove the directory and release its lock; then the note in ``out``, if given."""
        try:
            with contextlib.suppress(WorkspaceError):
                remove_tree(self.path)
        finally:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
        if out is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(out, WORKDIR_NOTE))


def remove_stale(out: str, sources: Sequence[WorkspaceSource]) -> list[str]:
    """Remove the work directory a killed batch noted in ``out``, when it is ours to remove.

    The caller holds the output directory's lock. The worktree entries the
    noted directory held in the repositories of ``sources`` go with it.

    Returns:
        What was left and why (one line each), for the user.

    """
    note = os.path.join(out, WORKDIR_NOTE)
    try:
        text = OutDir(out).read_file(WORKDIR_NOTE, "the note", limit=1024)
    except BatchError as exc:
        return [f"{exc}; nothing is removed for it"]
    if text is None:
        return []
    ident = text.decode("ascii", "replace").strip()
    if not _ID.fullmatch(ident):
        return [f"{note} holds no work directory id acphost wrote: nothing is removed for it"]
    path = _path_of(ident)
    try:
        fd = os.open(path, _DIR_FLAGS)
    except FileNotFoundError:
        fd = None  # gone already (a reboot): its worktree entries may remain
    except OSError as exc:
        return [f"left {path}: not a directory acphost made ({exc.strerror})"]
    if fd is not None:
        try:
            why = _why_not_ours(fd, path)
            if why is not None:
                return [f"left {path}: {why}"]
            remove_tree(path)  # still locked: no batch can take it meanwhile
        except WorkspaceError as exc:
            return [str(exc)]
        finally:
            os.close(fd)
    left = []
    for source in sources:
        try:
            forget_worktrees(source, path)
        except WorkspaceError as exc:
            left.append(str(exc))
    return left


def _why_not_ours(fd: int, path: str) -> str | None:
    """None when the open directory ``fd`` is one to remove; else why it is left."""
    info = os.fstat(fd)
    if info.st_uid != os.geteuid():
        return "it belongs to another user"
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return "a running batch uses it"
    try:
        now = os.lstat(path)
    except OSError:
        return "it changed while it was checked"
    if not os.path.samestat(info, now) or not stat.S_ISDIR(now.st_mode):
        return "it changed while it was checked"
    return None


def private_dir(path: str) -> str:
    """Make (or find) ``path`` as a directory only this user can use; return it.

    For a fixed name in a shared temporary directory: another user may have
    made it first, or put a link there.

    Raises:
        WorkspaceError: it exists and is not this user's own real directory.

    """
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(path, 0o700)
        info = os.lstat(path)
    except OSError as exc:
        raise WorkspaceError(f"cannot make {path}: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        raise WorkspaceError(f"{path} is not a directory of this user's: remove it")
    return path


def free_path(directory: str, name: str, warn: Callable[[str], None] | None) -> str:
    """``directory/name``, or the first free ``name.2``, ``name.3``... when it is taken.

    What is there was left by an earlier batch, or put there by someone
    else: either way not something this batch made, so it is left alone and
    the user is told.
    """
    path = os.path.join(directory, name)
    n = 1
    while os.path.lexists(path):
        n += 1
        path = os.path.join(directory, f"{name}.{n}")
    if n > 1 and warn is not None:
        warn(
            f"left {os.path.join(directory, name)} as it is (acphost removes only what it "
            f"made in this batch); this run's workspace is {path}"
        )
    return path
