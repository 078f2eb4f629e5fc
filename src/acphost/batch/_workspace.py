"""Each run's own workspace: a git worktree at the batch's commit, or a copy.

A workspace in a git repository gives every run a ``git worktree`` of the
commit the batch started from (the agent sees a real repository); any other
directory is copied, once into a pristine *baseline* and from it into each
run. After the run, :meth:`Checkout.changes` lists what the agent changed
against that starting point, with a patch.

The comparison never asks git to read the run's files. The agent wrote
them, and with them ``.gitattributes`` (``* -diff`` makes every change
"Binary files differ", a ``diff=`` or ``filter=`` driver runs a program or
rewrites what git compares), the index and ``.gitignore``. So a worktree is
compared, byte for byte, with a baseline checked out of the same commit once
per batch (:func:`make_baseline`), by the same code as a copy
(:func:`~acphost.batch._diff.tree_changes`): binary is decided by content,
no attribute, driver, filter or external diff applies. Git only lists the
untracked files the user's ignore rules leave out (``ls-files``, which runs
nothing; ``info/exclude`` and ``core.excludesFile`` as they were when the
batch started); a file the commit has is never left out, and if the agent
added or changed a ``.gitignore`` nothing is left out at all.

``git worktree add`` is not safe to run concurrently on one repository (it
reads the other worktrees' half-written administrative files), so every
change to a repository's worktree list holds an exclusive ``flock`` on its
common git directory: across the runs of this process and across processes.
The worktree is created without a checkout under the lock and filled
outside it, from the baseline: its index by ``read-tree``, its files copied.

What git runs: a repository's configuration can name programs (hooks,
``core.fsmonitor``, ``filter.<name>.smudge``/``clean``/``process``), and an
agent can write that configuration (``.git/config`` and ``info/`` are shared
by every worktree). No hook and no file system monitor ever runs
(:func:`git`). Filters run once, in the baseline checkout made before any
agent starts: that is the user's own configuration, as ``git checkout``
would run it (git-lfs needs it). After that no git command converts a file:
runs are filled from the baseline, and the listing of ignored files after a
run names a repository and index of acphost's own, reads no system or user
configuration, and takes the ignore rules snapshotted at the start
(:meth:`Checkout._ignored`). Nothing is written to the repository's object
store (untracked files are compared here, not hashed by git).

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
from typing import Any, Literal, overload

from ..config import InputFileError, read_input
from ._diff import Changes, tree_changes
from ._model import WorkspaceSource

__all__ = [
    "Checkout",
    "WorkspaceError",
    "forget_worktrees",
    "inspect_workspace",
    "make_baseline",
    "open_checkout",
    "remove_tree",
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


def _isolated_env(**extra: str) -> dict[str, str]:
    """An environment in which git reads no configuration file but its repository's.

    For git run on a run's workspace after its agent: the repository named
    (``GIT_DIR``) is acphost's own, and neither the system's nor the user's
    configuration (which the agent could have written to) is read.
    """
    return {**_git_env(), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, **extra}


def git(
    args: Sequence[str], *, cwd: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run git and return the completed process; never raises for its exit code.

    No hook and no file system monitor runs (``core.hooksPath=/dev/null``,
    ``core.fsmonitor=false`` on the command line, which wins over any
    configuration file): a repository's configuration may name programs, and
    batch needs neither.

    Raises:
        WorkspaceError: git is not installed or did not finish in time.

    """
    argv = ["git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", *args]
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


@overload
def _git_ok(args: Sequence[str], *, raw: Literal[False] = False, **kw: Any) -> str: ...
@overload
def _git_ok(args: Sequence[str], *, raw: Literal[True], **kw: Any) -> bytes: ...
def _git_ok(args: Sequence[str], *, raw: bool = False, **kw: Any) -> str | bytes:
    done = git(args, **kw)
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip() or f"exit code {done.returncode}"
        raise WorkspaceError(f"git {' '.join(args[:2])} failed: {message}")
    if raw:
        return done.stdout
    return done.stdout.decode("utf-8", "surrogateescape").strip()


def _is_ignore_file(path: str) -> bool:
    return path.rpartition("/")[2] == ".gitignore"


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
    """Make the pristine tree every run is copied from and compared to.

    A plain directory is copied; a git workspace's commit is checked out,
    without any ``.git``, through git's conversion (the repository's
    attributes, line ends and filters: the one checkout that runs them), and
    beside it (:func:`rules_dir`) go the commit's index, the user's ignore
    rules as they are now, and an empty repository for the listing of
    ignored files after each run.

    Args:
        source: the workspace.
        dest: the new directory.
        exclude: absolute paths inside a plain source left out (the batch's
            own output directory, when it is inside the workspace).

    Raises:
        WorkspaceError: the copy or the checkout failed.

    """
    if not source.is_git:
        _copy_tree(source.path, dest, exclude)
        return
    assert source.git_root is not None and source.commit is not None
    rules = rules_dir(dest)
    index = os.path.join(rules, "index")
    env = {**_git_env(), "GIT_INDEX_FILE": index, "GIT_WORK_TREE": dest}
    try:
        os.mkdir(dest, 0o700)
        os.mkdir(rules, 0o700)
        _git_ok(["read-tree", source.commit], cwd=source.git_root, env=env)
        # The one checkout through git's conversion: the user's own filters
        # (git-lfs) and line ends, before any agent ran. Runs are filled
        # from this tree, never checked out by git again.
        _git_ok(["checkout-index", "--all", "--force"], cwd=source.git_root, env=env)
        _snapshot_ignore_rules(source, rules)
    except OSError as exc:
        raise WorkspaceError(f"cannot make the baseline {dest}: {exc}") from None


def rules_dir(baseline: str) -> str:
    """Where a git baseline's ignore rules and index are kept (beside it)."""
    return baseline + ".rules"


def _excludes_file(git_root: str) -> str | None:
    """The user's ``core.excludesFile`` (or git's default one), as configured now."""
    done = git(["config", "--path", "--get", "core.excludesFile"], cwd=git_root)
    if done.returncode == 0 and done.stdout.strip():
        return os.fsdecode(done.stdout.strip())
    xdg = os.environ.get("XDG_CONFIG_HOME") or (
        os.path.join(os.environ["HOME"], ".config") if os.environ.get("HOME") else None
    )
    return os.path.join(xdg, "git", "ignore") if xdg else None


def _snapshot_ignore_rules(source: WorkspaceSource, rules: str) -> None:
    """Keep the user's ignore rules as they are before any run, and an empty repository.

    ``core.excludesFile`` and ``info/exclude`` are copied into
    ``rules/exclude`` now: an agent can append to them (``info/exclude`` is
    shared by every worktree), and a rule it wrote must not hide the files it
    added. ``rules/git`` is a repository of acphost's own for
    :meth:`Checkout._ignored` to name, so that git reads no configuration the
    agent could have written.
    """
    assert source.git_root is not None
    texts = []
    for path in (
        _excludes_file(source.git_root),
        os.path.join(_common_dir(source.git_root), "info", "exclude"),
    ):
        if path is None:
            continue
        try:
            text = read_input(path, what="git's ignore rules", limit=1 << 20)
        except InputFileError:
            continue  # missing or unusable: no rules from it
        texts.append(text if text.endswith(b"\n") or not text else text + b"\n")
    with open(os.path.join(rules, "exclude"), "wb") as f:
        f.write(b"".join(texts))
    _git_ok(
        ["init", "--quiet", "--bare", "--template=", os.path.join(rules, "git")],
        cwd=rules,
        env=_isolated_env(),
    )


def _copy_tree(src: str, dest: str, exclude: Sequence[str] = (), *, into: bool = False) -> None:
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
        shutil.copytree(src, dest, symlinks=True, ignore=ignore, dirs_exist_ok=into)
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
        baseline: the pristine tree it is compared to (:func:`make_baseline`).
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

    def changes(self) -> Changes:
        """The files the run changed and the patch against its starting point.

        Raises:
            WorkspaceError: no baseline to compare to, or git failed to list
                a worktree's ignored files.

        """
        if self.baseline is None:
            raise WorkspaceError("the run's workspace has no baseline to compare to")
        if self.git_dir is None:
            return tree_changes(self.baseline, self.root)
        # The run's own .git (the file git wrote, naming the worktree's entry) is
        # not content; anything else the agent put there is.
        skip = (".git",) if self._own_git_file() else ()
        ignored = self._ignored()
        changes = tree_changes(self.baseline, self.root, ignored=ignored, skip_top=skip)
        if ignored and any(_is_ignore_file(f.path) for f in changes.files):
            # The agent changed the rules that left files out: trust none of them.
            changes = tree_changes(self.baseline, self.root, skip_top=skip)
        return changes

    def git_replaced(self) -> bool:
        """Whether a worktree's ``.git`` is no longer the file git wrote (the agent's now).

        git run in such a workspace reads the agent's configuration (its
        hooks, ``core.fsmonitor``...): acphost never does, and tells the user
        when the workspace is kept.
        """
        return self.git_dir is not None and not self._own_git_file()

    def _own_git_file(self) -> bool:
        """Whether ``ROOT/.git`` is still the file git wrote (or gone), not the agent's."""
        path = os.path.join(self.root, ".git")
        if not os.path.lexists(path):
            return True
        try:
            line = read_input(path, what="the worktree's .git", limit=4096).strip()
        except InputFileError:
            return False
        if not line.startswith(b"gitdir: ") or self.git_dir is None:
            return False
        named = os.path.join(self.root, os.fsdecode(line[len(b"gitdir: ") :]))
        return os.path.realpath(named) == self.git_dir

    def _ignored(self) -> frozenset[str]:
        """Untracked paths the user's ignore rules leave out (directories end with ``/``).

        The rules are the ``.gitignore`` files in the tree and the user's
        ``info/exclude`` and ``core.excludesFile`` as they were when the
        batch started (:func:`_snapshot_ignore_rules`), never as the agent
        left them; git is pointed at acphost's own empty repository and index
        of the commit and reads no system or user configuration, so nothing
        the agent configured applies or runs. Empty when an ignored
        ``.gitignore`` exists: a rule the agent wrote could hide the files it
        added (a ``.gitignore`` that ignores itself).
        """
        assert self.baseline is not None
        rules = rules_dir(self.baseline)
        env = _isolated_env(
            GIT_DIR=os.path.join(rules, "git"),
            GIT_INDEX_FILE=os.path.join(rules, "index"),
            GIT_WORK_TREE=self.root,
        )
        listing = ["ls-files", "-z", "--others", "--ignored", "--exclude-per-directory=.gitignore"]
        listing.append(f"--exclude-from={os.path.join(rules, 'exclude')}")
        hidden = _git_ok([*listing, "--", ":(glob)**/.gitignore"], cwd=self.root, env=env, raw=True)
        if hidden.strip(b"\0"):
            return frozenset()
        out = _git_ok([*listing, "--directory"], cwd=self.root, env=env, raw=True)
        return frozenset(p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p)

    def remove(self) -> None:
        """Delete the workspace (and the worktree's entry in its repository). Idempotent.

        Only what this process made: the paths are the checkout's own, never
        read back from disk.

        Raises:
            WorkspaceError: the directory could not be removed.

        """
        if os.path.lexists(self.root):
            remove_tree(self.root)
        git_dir, common = self.git_dir, self.common_dir
        if git_dir is None or common is None:
            return
        # Only ever an entry under <common>/worktrees/.
        if not git_dir.startswith(os.path.join(common, "worktrees") + os.sep):
            return
        with _repo_lock(common):
            if os.path.isdir(git_dir) and not os.path.islink(git_dir):
                remove_tree(git_dir)


def open_checkout(
    source: WorkspaceSource, dest: str, baseline: str | None, *, copy: bool = False
) -> Checkout:
    """Create a run's workspace at ``dest``.

    Args:
        source: where runs start from.
        dest: a path that does not exist yet.
        baseline: the pristine tree (:func:`make_baseline`; an unpacked
            archive on another machine): copied for a plain directory, or to
            make a copy on another machine; a git worktree's files are copied
            from it too, and it is compared to it.
        copy: copy ``baseline`` even for a git workspace (on another
            machine, where the repository is not).

    Returns:
        The checkout; remove it with :meth:`Checkout.remove`.

    Raises:
        WorkspaceError: git or the copy failed (nothing is left behind).

    """
    if copy or not source.is_git or source.git_root is None:
        if baseline is None:
            raise WorkspaceError("a plain directory needs its baseline copy first")
        _copy_tree(baseline, dest)
        cwd = os.path.join(dest, source.subdir) if source.subdir else dest
        return Checkout(root=dest, cwd=cwd, baseline=baseline)
    assert source.commit is not None
    if baseline is None:
        raise WorkspaceError("a git worktree needs its baseline checkout first")
    common = _common_dir(source.git_root)
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
            baseline=baseline,
            commit=source.commit,
            git_dir=git_dir,
            common_dir=common,
        )
        # The index from the commit (no file is converted: no filter runs), the
        # files from the baseline: the repository's configuration, which an
        # agent of an earlier run may have changed, runs nothing here.
        env = {**_git_env(), "GIT_DIR": git_dir, "GIT_WORK_TREE": dest}
        _git_ok(["read-tree", source.commit], cwd=dest, env=env)
        _copy_tree(baseline, dest, into=True)
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


def _common_dir(git_root: str) -> str:
    """A repository's common git directory (canonical), asked of git."""
    return os.path.realpath(
        os.path.join(git_root, _git_ok(["rev-parse", "--git-common-dir"], cwd=git_root))
    )


def forget_worktrees(source: WorkspaceSource, directory: str) -> None:
    """Remove the worktree entries of ``source``'s repository for worktrees under ``directory``.

    What ``git worktree prune`` does for the worktrees a killed batch made in
    its work directory (``directory``, gone or being removed), and only for
    those: an entry is removed when its ``gitdir`` (written by git) names a
    path under ``directory``. The repository is the one the user named now,
    never one a file in the results folder names.

    Raises:
        WorkspaceError: git failed, or an entry could not be removed.

    """
    if not source.is_git or source.git_root is None:
        return
    common = _common_dir(source.git_root)
    worktrees = os.path.join(common, "worktrees")
    prefix = directory.rstrip(os.sep) + os.sep
    with _repo_lock(common):
        try:
            names = os.listdir(worktrees)
        except OSError:
            return
        for name in names:
            entry = os.path.join(worktrees, name)
            if os.path.islink(entry) or not os.path.isdir(entry):
                continue
            try:
                gitdir = read_input(os.path.join(entry, "gitdir"), what="gitdir", limit=4096)
            except InputFileError:
                continue
            if os.fsdecode(gitdir.strip()).startswith(prefix):
                remove_tree(entry)


def remove_tree(path: str) -> None:
    """Remove a directory tree (or a file) at a path this process chose; never follows a link.

    Raises:
        WorkspaceError: it could not be removed.

    """

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
