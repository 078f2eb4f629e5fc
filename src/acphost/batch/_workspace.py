"""Each run's own workspace: a git worktree at the batch's commit, or a copy.

A workspace in a git repository gives every run a ``git worktree`` of the
commit the batch started from (the agent sees a real repository); any other
directory is copied, once into a pristine *baseline* and from it into each
run. After the run, :meth:`Checkout.changes` lists what the agent changed
against that starting point, with a patch.

``git worktree add`` is not safe to run concurrently on one repository (it
reads the other worktrees' half-written administrative files), so every
change to a repository's worktree list holds an exclusive ``flock`` on its
common git directory: across the runs of this process and across processes.
The worktree is created without a checkout under the lock and filled
outside it. Git never runs hooks here (``core.hooksPath=/dev/null``), and
nothing is written to the repository's object store (untracked files are
compared here, not hashed by git).

These functions block: the runner calls them in a worker thread.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..config import InputFileError, loads_strict, read_input
from ._diff import Changes, git_changes, tree_changes
from ._model import WorkspaceSource

__all__ = [
    "Checkout",
    "WorkspaceError",
    "inspect_workspace",
    "make_baseline",
    "open_checkout",
    "remove_leftover",
    "uncommitted_changes",
]

_GIT_TIMEOUT = 120.0


class WorkspaceError(Exception):
    """A workspace could not be inspected, created or removed (the message says why)."""


def _git_env() -> dict[str, str]:
    # Variables that would point git at another repository or index must not
    # leak in from the host's environment (acphost run from a git hook).
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")
    }
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"})
    return env


def git(
    args: Sequence[str], *, cwd: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run git (hooks off) and return the completed process; never raises for its exit code.

    Raises:
        WorkspaceError: git is not installed or did not finish in time.

    """
    argv = ["git", "-c", "core.hooksPath=/dev/null", *args]
    try:
        return subprocess.run(
            argv,
            cwd=cwd,
            env=env if env is not None else _git_env(),
            capture_output=True,
            timeout=_GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise WorkspaceError(
            "git is not installed (needed for a workspace in a repository)"
        ) from None
    except subprocess.TimeoutExpired:
        raise WorkspaceError(f"git {args[0]} took more than {_GIT_TIMEOUT:g} s") from None


def _git_ok(args: Sequence[str], **kw: Any) -> str:
    done = git(args, **kw)
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip() or f"exit code {done.returncode}"
        raise WorkspaceError(f"git {' '.join(args[:2])} failed: {message}")
    return done.stdout.decode("utf-8", "surrogateescape").strip()


def inspect_workspace(path: str) -> WorkspaceSource:
    """Describe a workspace directory: a git work tree (at its ``HEAD``) or a plain directory.

    A repository without any commit is treated as a plain directory.

    Args:
        path: the directory.

    Returns:
        Its :class:`WorkspaceSource`.

    Raises:
        WorkspaceError: not a directory.

    """
    full = os.path.realpath(os.path.expanduser(path))
    if not os.path.isdir(full):
        raise WorkspaceError(f"the workspace {path} is not a directory")
    with contextlib.suppress(WorkspaceError):
        done = git(["rev-parse", "--show-toplevel", "--show-prefix", "HEAD"], cwd=full)
        lines = done.stdout.decode("utf-8", "surrogateescape").splitlines()
        if done.returncode == 0 and len(lines) == 3:
            top, prefix, commit = lines
            return WorkspaceSource(
                path=full,
                git_root=os.path.realpath(top),
                commit=commit,
                subdir=prefix.rstrip("/"),
            )
    return WorkspaceSource(path=full)


def uncommitted_changes(source: WorkspaceSource) -> bool:
    """True when a git workspace has changes that its commit (what runs start from) lacks."""
    if not source.is_git or source.git_root is None:
        return False
    done = git(["status", "--porcelain", "--untracked-files=no"], cwd=source.git_root)
    return done.returncode == 0 and bool(done.stdout.strip())


def make_baseline(source: WorkspaceSource, dest: str, exclude: Sequence[str] = ()) -> None:
    """Copy a plain directory once: the pristine tree runs are copied from and compared to.

    Args:
        source: a workspace that is not in git.
        dest: the new directory.
        exclude: absolute paths inside the source left out (the batch's own
            output directory, when it is inside the workspace).

    Raises:
        WorkspaceError: the copy failed.

    """
    _copy_tree(source.path, dest, exclude)


def _copy_tree(src: str, dest: str, exclude: Sequence[str] = ()) -> None:
    excluded = {os.path.realpath(p) for p in exclude}

    def ignore(directory: str, names: list[str]) -> set[str]:
        skipped = set()
        for name in names:
            full = os.path.join(directory, name)
            if full in excluded:
                skipped.add(name)
                continue
            try:
                mode = os.lstat(full).st_mode
            except OSError:
                skipped.add(name)
                continue
            # Sockets, FIFOs and devices are not workspace content (copying a
            # FIFO would block on it).
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
                skipped.add(name)
        return skipped

    try:
        shutil.copytree(src, dest, symlinks=True, ignore=ignore)
    except (OSError, shutil.Error) as exc:
        raise WorkspaceError(f"cannot copy the workspace {src} to {dest}: {exc}") from None


@contextlib.contextmanager
def _repo_lock(common_dir: str) -> Iterator[None]:
    """Hold the exclusive lock on a repository's worktree list (an ``flock`` on its git dir)."""
    fd = os.open(common_dir, os.O_RDONLY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


@dataclass(frozen=True, slots=True)
class Checkout:
    """A run's own workspace.

    Attributes:
        root: the directory made for the run (a worktree or a copy).
        cwd: the session's working directory inside it.
        baseline: the pristine tree a copy is compared to (None for a worktree).
        commit: the commit a worktree started from.
        git_dir: the worktree's administrative directory (in the repository).
        common_dir: the repository's common git directory.

    """

    root: str
    cwd: str
    baseline: str | None = None
    commit: str | None = None
    git_dir: str | None = None
    common_dir: str | None = None

    def marker(self) -> dict[str, Any]:
        """What :func:`remove_leftover` needs to remove it after a crash."""
        return {"root": self.root, "git_dir": self.git_dir, "common_dir": self.common_dir}

    def changes(self) -> Changes:
        """The files the run changed and the patch against its starting point.

        Raises:
            WorkspaceError: git failed to compare a worktree.

        """
        if self.git_dir is not None and self.commit is not None:
            env = {**_git_env(), "GIT_DIR": self.git_dir, "GIT_WORK_TREE": self.root}
            return git_changes(
                lambda args: git(args, cwd=self.root, env=env), self.root, self.commit
            )
        assert self.baseline is not None
        return tree_changes(self.baseline, self.root)

    def remove(self) -> None:
        """Delete the workspace (and the worktree's entry in its repository). Idempotent."""
        remove_leftover(self.marker())


def open_checkout(source: WorkspaceSource, dest: str, baseline: str | None) -> Checkout:
    """Create a run's workspace at ``dest``.

    Args:
        source: where runs start from.
        dest: a path that does not exist yet.
        baseline: the pristine tree to copy (:func:`make_baseline`; an unpacked
            archive on another machine); None for a git worktree.

    Returns:
        The checkout; remove it with :meth:`Checkout.remove`.

    Raises:
        WorkspaceError: git or the copy failed (nothing is left behind).

    """
    if baseline is not None:
        _copy_tree(baseline, dest)
        cwd = os.path.join(dest, source.subdir) if source.subdir else dest
        return Checkout(root=dest, cwd=cwd, baseline=baseline)
    if not source.is_git:
        raise WorkspaceError("a plain directory needs its baseline copy first")
    assert source.git_root is not None and source.commit is not None
    common = os.path.realpath(
        os.path.join(
            source.git_root, _git_ok(["rev-parse", "--git-common-dir"], cwd=source.git_root)
        )
    )
    with _repo_lock(common):
        _git_ok(
            ["worktree", "add", "--detach", "--no-checkout", "--quiet", dest, source.commit],
            cwd=source.git_root,
        )
    checkout = Checkout(root=dest, cwd=dest, commit=source.commit, common_dir=common)
    try:
        git_dir = _read_gitdir(dest)
        checkout = Checkout(
            root=dest,
            cwd=os.path.join(dest, source.subdir) if source.subdir else dest,
            commit=source.commit,
            git_dir=git_dir,
            common_dir=common,
        )
        env = {**_git_env(), "GIT_DIR": git_dir, "GIT_WORK_TREE": dest}
        _git_ok(["reset", "--hard", "--quiet", source.commit], cwd=dest, env=env)
    except BaseException:
        checkout.remove()
        raise
    return checkout


def _read_gitdir(worktree: str) -> str:
    try:
        with open(os.path.join(worktree, ".git"), encoding="utf-8") as f:
            line = f.read().strip()
    except OSError as exc:
        raise WorkspaceError(f"the new worktree {worktree} has no .git file: {exc}") from None
    if not line.startswith("gitdir: "):
        raise WorkspaceError(f"the new worktree {worktree} has an unexpected .git file")
    return os.path.realpath(os.path.join(worktree, line[len("gitdir: ") :]))


def remove_leftover(marker: dict[str, Any]) -> None:
    """Remove a run's workspace from its :meth:`Checkout.marker` (also after a crash).

    The directory goes first; then, holding the repository's lock, the
    worktree's administrative directory (what ``git worktree prune`` would
    remove for it, and only that).

    Raises:
        WorkspaceError: the directory could not be removed.

    """
    root = marker.get("root")
    if isinstance(root, str) and os.path.lexists(root):
        _rmtree(root)
    git_dir, common = marker.get("git_dir"), marker.get("common_dir")
    if not (isinstance(git_dir, str) and isinstance(common, str)):
        return
    worktrees = os.path.join(common, "worktrees") + os.sep
    # Only ever an entry under <common>/worktrees/, whatever the marker says.
    if not os.path.realpath(git_dir).startswith(worktrees) or not os.path.isdir(common):
        return
    with _repo_lock(common):
        if os.path.isdir(git_dir):
            _rmtree(git_dir)


def _rmtree(path: str) -> None:
    def retry_writable(func: Any, target: str, _exc: Any) -> None:
        # A run may leave read-only directories behind: make them writable and retry.
        parent = os.path.dirname(target)
        with contextlib.suppress(OSError):
            os.chmod(parent, 0o700)
        if os.path.isdir(target) and not os.path.islink(target):
            with contextlib.suppress(OSError):
                os.chmod(target, 0o700)
        func(target)

    try:
        if os.path.isdir(path) and not os.path.islink(path):
            if sys.version_info >= (3, 12):
                shutil.rmtree(path, onexc=retry_writable)
            else:
                shutil.rmtree(path, onerror=retry_writable)
        else:
            os.unlink(path)
    except OSError as exc:
        raise WorkspaceError(f"cannot remove the run's workspace {path}: {exc}") from None


def read_marker(path: str) -> dict[str, Any] | None:
    """A workspace marker file's content, or None when it is missing or unreadable."""
    try:
        data = loads_strict(read_input(path, what="workspace marker"), where=path)
    except InputFileError:
        return None
    return data if isinstance(data, dict) else None
