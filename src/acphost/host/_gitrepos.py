"""The git repositories inside a workspace root, found by a bounded walk kept up to date.

Each repository's configuration can name a path anywhere in the workspace
(``git -C app config core.hooksPath ../shared-hooks``), so the protected
paths ask git about every repository in it, not only those on the way down
to the written path. A repository is a folder holding a ``.git`` (folder or
file: nested repositories, submodules, linked worktrees) or a folder git
would take for a bare repository.

The walk is done once per root and then kept current cheaply: a folder's
modification time changes when an entry is added, removed or renamed in
it, so each later call only stats the folders it knows and lists again
those that changed (a ``git init``, ``git clone`` or ``git worktree add``
run by a command since). Nothing inside a git directory is walked, and
symbolic links are not followed (a write through one is judged at its
real path).

The walk is bounded (:data:`_MAX_FOLDERS`) and breadth first, so the
shallow repositories (the root's, its projects', their submodules) are
found before a deep tree (a ``node_modules`` of 30,000 folders) uses the
bound up. Past the bound it fails closed: the folders not walked are
reported (:attr:`Survey.unwalked`) and :mod:`._protect` refuses writes in
them (a repository may hide there, whose configuration names any path),
said once with the way out: a rule naming the folder. The trade-off: in a
tree that large, writes deep in it (inside ``node_modules``, say) need
that rule, while those in the folders walked (the sources) do not; a
command the agent runs (``npm install``) is not a write and is not
affected. The repositories on the way down to a written path are still
asked.
"""

from __future__ import annotations

import logging
import os
import stat
from collections import deque
from collections.abc import Callable
from typing import NamedTuple

__all__ = ["Survey", "repositories"]

_log = logging.getLogger("acphost.host.protect")

# Past this many folders a root is not searched further: each write stats
# every known folder, which must stay cheap next to the write itself.
_MAX_FOLDERS = 20_000


class _Walk:
    """The folders of one root, their signatures and the repositories among them."""

    __slots__ = ("folders", "full", "is_bare", "root", "unwalked")

    def __init__(self, root: str, is_bare: Callable[[str], bool]) -> None:
        self.root = root
        self.is_bare = is_bare
        # folder -> (signature, its subfolders, whether it is a repository)
        self.folders: dict[str, tuple[tuple[int, int], tuple[str, ...], bool]] = {}
        # Folders seen in a walked one but not walked themselves (the bound).
        self.unwalked: set[str] = set()
        self.full = False
        self._visit([root])

    def _visit(self, start: list[str]) -> None:
        pending = deque(start)  # breadth first: the shallow repositories first
        while pending:
            folder = pending.popleft()
            if len(self.folders) >= _MAX_FOLDERS:
                self.unwalked.add(folder)
                self.unwalked.update(pending)
                if not self.full:
                    self.full = True
                    _log.warning(
                        "%s holds more than %d folders: writes in those not searched for "
                        "git repositories (such as %s) are refused (a repository there may "
                        "name any path); allow them with a rule naming the folder",
                        self.root,
                        _MAX_FOLDERS,
                        folder,
                    )
                return
            self.unwalked.discard(folder)
            scanned = self._scan(folder)
            if scanned is None:
                continue
            self.folders[folder] = scanned
            pending += [s for s in scanned[1] if s not in self.folders]

    def _scan(self, folder: str) -> tuple[tuple[int, int], tuple[str, ...], bool] | None:
        try:
            st = os.lstat(folder)
            if not stat.S_ISDIR(st.st_mode):
                return None
            with os.scandir(folder) as entries:
                names = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
        except OSError:
            return None
        repo = any(name == ".git" for name, _ in names)
        # git's is_git_directory: a valid HEAD beside objects/ and refs/.
        bare = (
            not repo
            and {"HEAD", "objects", "refs"} <= {name for name, _ in names}
            and self.is_bare(folder)
        )
        # A git directory's own folders (objects/, refs/) are no repositories.
        subs = () if bare else tuple(
            os.path.join(folder, name) for name, is_dir in names if is_dir and name != ".git"
        )  # fmt: skip
        return (st.st_ino, st.st_mtime_ns), subs, repo or bare

    def refresh(self) -> None:
        """List again every folder whose entries changed since it was listed."""
        for folder, (signature, subs, _) in list(self.folders.items()):
            if folder not in self.folders:
                continue  # dropped with a parent that went away
            try:
                st = os.lstat(folder)
                now: tuple[int, int] | None = (st.st_ino, st.st_mtime_ns)
            except OSError:
                now = None
            if now == signature:
                continue
            scanned = self._scan(folder) if now is not None else None
            gone = set(subs) - set(scanned[1] if scanned else ())
            if scanned is None:
                gone.add(folder)
            for old in gone:
                for known in [k for k in self.folders if k == old or k.startswith(old + "/")]:
                    del self.folders[known]
                self.unwalked -= {k for k in self.unwalked if k == old or k.startswith(old + "/")}
            if scanned is not None:
                self.folders[folder] = scanned
                self._visit([s for s in scanned[1] if s not in self.folders])
        if self.unwalked and len(self.folders) < _MAX_FOLDERS:
            self._visit(sorted(self.unwalked))  # room again (folders removed)

    def found(self) -> tuple[str, ...]:
        return tuple(sorted(f for f, (_, _, repo) in self.folders.items() if repo))


_walks: dict[str, _Walk] = {}


class Survey(NamedTuple):
    """What the walk of a workspace root knows.

    Attributes:
        repositories: canonical paths, sorted: folders holding a ``.git``,
            and bare repositories.
        unwalked: the folders past the walk's bound, not searched (anything
            below them is unknown).

    """

    repositories: tuple[str, ...]
    unwalked: frozenset[str] = frozenset()


def repositories(root: str, is_bare: Callable[[str], bool]) -> Survey:
    """The folders inside ``root`` (itself included) that are git repositories.

    Args:
        root: a canonical workspace root.
        is_bare: tells whether a folder holding a ``HEAD`` is a git
            directory (the one test, :mod:`._protect`'s).

    Returns:
        The repositories, and the folders the bound left unwalked.

    """
    walk = _walks.get(root)
    if walk is None:
        walk = _walks[root] = _Walk(root, is_bare)
    else:
        walk.refresh()
    return Survey(walk.found(), frozenset(walk.unwalked))
