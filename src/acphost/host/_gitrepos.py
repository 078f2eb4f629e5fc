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
real path). The walk is bounded (:data:`_MAX_FOLDERS`); a root with more
folders is searched up to the bound and reported once, and the
repositories on the way down to a written path are still asked
(:mod:`._protect`).
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Callable

__all__ = ["repositories"]

_log = logging.getLogger("acphost.host.protect")

# Past this many folders a root is not searched further: each write stats
# every known folder, which must stay cheap next to the write itself.
_MAX_FOLDERS = 20_000


class _Walk:
    """The folders of one root, their signatures and the repositories among them."""

    __slots__ = ("folders", "full", "is_bare", "root")

    def __init__(self, root: str, is_bare: Callable[[str], bool]) -> None:
        self.root = root
        self.is_bare = is_bare
        # folder -> (signature, its subfolders, whether it is a repository)
        self.folders: dict[str, tuple[tuple[int, int], tuple[str, ...], bool]] = {}
        self.full = False
        self._visit([root])

    def _visit(self, pending: list[str]) -> None:
        while pending:
            folder = pending.pop()
            if len(self.folders) >= _MAX_FOLDERS:
                if not self.full:
                    self.full = True
                    _log.warning(
                        "%s holds more than %d folders: git repositories past them are "
                        "not searched for configuration (those on the way to a written "
                        "path still are)",
                        self.root,
                        _MAX_FOLDERS,
                    )
                return
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
            if scanned is not None:
                self.folders[folder] = scanned
                self._visit([s for s in scanned[1] if s not in self.folders])

    def found(self) -> tuple[str, ...]:
        return tuple(sorted(f for f, (_, _, repo) in self.folders.items() if repo))


_walks: dict[str, _Walk] = {}


def repositories(root: str, is_bare: Callable[[str], bool]) -> tuple[str, ...]:
    """The folders inside ``root`` (itself included) that are git repositories.

    Args:
        root: a canonical workspace root.
        is_bare: tells whether a folder holding a ``HEAD`` is a git
            directory (the one test, :mod:`._protect`'s).

    Returns:
        Canonical paths, sorted: folders holding a ``.git``, and bare
        repositories.

    """
    walk = _walks.get(root)
    if walk is None:
        walk = _walks[root] = _Walk(root, is_bare)
    else:
        walk.refresh()
    return walk.found()
