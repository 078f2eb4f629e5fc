"""The workspace jail: resolve an agent-supplied path to an open directory fd.

The kernel's ``openat2(RESOLVE_BENEATH)`` is not in the stdlib, so the jail
walks paths itself, one component at a time, from a directory fd of a
workspace root, so that paths are canonical, symlinks resolved, before any
allow or deny:

* every component is opened relative to its parent's fd with ``O_NOFOLLOW``
  (and ``O_DIRECTORY`` for intermediate components), so a symlink planted or
  swapped in between a check and an open is never followed by the kernel;
* a symlink met on the way is resolved here: its target is read with
  ``readlinkat``, joined to the (real) directory it sits in, and the walk
  restarts from the root that contains the result. A target that leaves the
  jail is refused; so is a chain of more than 40 links (``ELOOP``'s limit);
* ``..`` is collapsed lexically (``/ws/a/../b`` is ``/ws/b``) before any
  filesystem access, and ``..`` inside a symlink target is collapsed against the
  directory the link sits in. The walk never opens ``..`` itself, so it can
  never climb out of the root fd.

Known limit: a directory the walk already holds an fd for could be *renamed*
outside the jail by a process that can write there; whoever can do that can
already read and write outside the jail without us.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ..errors import InternalError, InvalidParams, RequestError, ResourceNotFound

__all__ = ["Workspace", "resolve_path"]

# The Linux limits: PATH_MAX bytes for a whole path, NAME_MAX for a component.
_PATH_MAX = 4096
_NAME_MAX = 255
# Linux gives up after 40 symlinks (fs/namei.c MAXSYMLINKS).
_MAX_SYMLINK_HOPS = 40

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

# Pseudo filesystems whose "regular files" are not files (``/proc/self/environ``
# is S_ISREG with st_size 0): refused even when reading outside the workspace.
_PSEUDO_PREFIXES = ("/proc", "/sys", "/dev")


def _shown(path: str) -> str:
    """Quote a path for an error message, shortened so a hostile one cannot flood it."""
    text = repr(path)
    return text if len(text) <= 200 else text[:180] + "...'"


def _within(path: str, root: str) -> bool:
    if root == "/":
        return True
    return path == root or path.startswith(root + "/")


def _pseudo_devices() -> frozenset[int]:
    devices: set[int] = set()
    for prefix in _PSEUDO_PREFIXES:
        try:
            devices.add(os.stat(prefix).st_dev)
        except OSError:
            continue
    return frozenset(devices)


@dataclass(frozen=True, slots=True)
class _Root:
    path: str
    dev: int
    ino: int


class Workspace:
    """The directories a session may touch: its ``cwd`` plus ``additionalDirectories``.

    Roots are canonicalised (``os.path.realpath``) once, here, and their
    identity (device, inode) is remembered: if a root is later replaced (for
    example by a symlink), every request fails instead of following it.

    Args:
        roots: absolute directory paths; the first is the session's ``cwd``.

    Raises:
        ValueError: no root was given, or a root is relative, contains a NUL
            byte, does not exist or is not a directory.

    """

    __slots__ = ("_roots",)

    def __init__(self, roots: Iterable[str]) -> None:
        resolved: list[_Root] = []
        for raw in roots:
            if not isinstance(raw, str) or not raw or "\x00" in raw or not os.path.isabs(raw):
                raise ValueError(f"workspace roots must be absolute paths, got {raw!r}")
            real = os.path.realpath(raw)
            try:
                st = os.stat(real)
            except OSError as exc:
                raise ValueError(f"workspace root {raw!r} cannot be used: {exc.strerror}") from exc
            if not stat.S_ISDIR(st.st_mode):
                raise ValueError(f"workspace root {raw!r} is not a directory")
            if all(r.path != real for r in resolved):
                resolved.append(_Root(real, st.st_dev, st.st_ino))
        if not resolved:
            raise ValueError("a workspace needs at least one root directory")
        self._roots: tuple[_Root, ...] = tuple(resolved)

    @property
    def roots(self) -> tuple[str, ...]:
        """The canonical root directories, the session ``cwd`` first."""
        return tuple(r.path for r in self._roots)

    @property
    def cwd(self) -> str:
        """The canonical session ``cwd`` (the first root)."""
        return self._roots[0].path

    def contains(self, path: str) -> bool:
        """Tell whether a canonical absolute path lies inside one of the roots.

        Args:
            path: an absolute path, already canonical (symlinks resolved).

        Returns:
            ``True`` when the path is a root or below one.

        """
        normal = os.path.normpath(path)
        return any(_within(normal, r.path) for r in self._roots)

    def __repr__(self) -> str:
        return f"Workspace({list(self.roots)!r})"


@dataclass(frozen=True, slots=True)
class _Resolved:
    """The outcome of a walk: the parent directory fd and the final entry."""

    dir_fd: int
    name: str
    path: str  # the canonical path of the entry (parent is real; entry may not exist)
    st: os.stat_result | None  # lstat of the entry, or None when missing


def check_path(path: object) -> str:
    """Validate an agent-supplied path and normalise it lexically.

    Args:
        path: the ``path`` parameter as decoded from the wire.

    Returns:
        The path with ``.``, ``..`` and duplicate slashes collapsed.

    Raises:
        InvalidParams: the path is not a string, is empty, contains a NUL byte,
            is relative or is longer than Linux allows.

    """
    if not isinstance(path, str):
        raise InvalidParams("path must be a string")
    if not path:
        raise InvalidParams("path must not be empty")
    if "\x00" in path:
        raise InvalidParams("path must not contain NUL bytes")
    if not os.path.isabs(path):
        raise InvalidParams(f"path must be absolute, got {_shown(path)}")
    encoded = os.fsencode(path)
    if len(encoded) >= _PATH_MAX or any(len(p) > _NAME_MAX for p in encoded.split(b"/")):
        raise InvalidParams(
            f"path is too long (Linux allows {_PATH_MAX - 1} bytes in a path and "
            f"{_NAME_MAX} in a name): {_shown(path)}"
        )
    normal = os.path.normpath(path)
    # POSIX keeps a leading "//"; the kernel treats it as "/".
    if normal.startswith("//"):
        normal = "/" + normal.lstrip("/")
    return normal


class Jail:
    """Resolves paths beneath a set of roots without ever following a symlink out.

    Args:
        workspace: the workspace whose roots are the jail.
        anywhere: use ``/`` as the only root instead (reading outside the
            workspace); callers still refuse ``/proc``, ``/sys`` and ``/dev``
            with :meth:`refuse_pseudo`.

    """

    __slots__ = ("_anywhere", "_pseudo", "_roots")

    def __init__(self, workspace: Workspace | None, *, anywhere: bool = False) -> None:
        self._anywhere = anywhere
        if anywhere or workspace is None:
            st = os.stat("/")
            # Nested roots are fine: the longest match is used.
            self._roots: tuple[_Root, ...] = (_Root("/", st.st_dev, st.st_ino),)
        else:
            self._roots = workspace._roots
        self._pseudo = _pseudo_devices()

    def _root_for(self, path: str, shown: str) -> _Root:
        best: _Root | None = None
        for root in self._roots:
            if _within(path, root.path) and (best is None or len(root.path) > len(best.path)):
                best = root
        if best is None:
            raise InvalidParams(f"path {shown} is outside the workspace")
        return best

    def _open_root(self, root: _Root) -> int:
        try:
            fd = os.open(root.path, _DIR_FLAGS)
        except OSError as exc:
            raise InternalError(f"workspace root {root.path!r} cannot be opened") from exc
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != (root.dev, root.ino):
            os.close(fd)
            raise InternalError(
                f"workspace root {root.path!r} was replaced since the session began"
            )
        return fd

    def refuse_pseudo(self, path: str, st: os.stat_result, shown: str) -> None:
        """Refuse entries of ``/proc``, ``/sys`` and ``/dev``, by path and by device.

        Raises:
            InvalidParams: the entry lives on one of those filesystems.

        """
        if any(_within(path, p) for p in _PSEUDO_PREFIXES) or st.st_dev in self._pseudo:
            raise InvalidParams(f"path {shown} is on a special filesystem (/proc, /sys, /dev)")

    def canonical(self, path: str) -> str:
        """Return the canonical path the jail would open for ``path``, touching nothing.

        The same walk as :meth:`resolve` (so the same answer for every
        existing component, symlinks inside the jail followed), except that
        missing components are appended as they are: they do not exist, so
        they cannot be links. A root itself is its own canonical path.

        Args:
            path: an absolute path that passed :func:`check_path`.

        Returns:
            The canonical absolute path.

        Raises:
            InvalidParams: the path, or a symlink on the way, leads outside the
                jail; a component is not a directory; a symlink loop.
            InternalError: the operating system refused (permissions, I/O).

        """
        shown = _shown(path)
        current = path
        for _hop in range(_MAX_SYMLINK_HOPS + 1):
            outcome = self._walk_once(current, shown, create=False, probe=True)
            if isinstance(outcome, str):
                current = outcome
                continue
            if outcome.dir_fd >= 0:
                os.close(outcome.dir_fd)
            return outcome.path
        raise InvalidParams(f"path {shown} has too many levels of symbolic links")

    @contextmanager
    def resolve(self, path: str, *, create_parents: bool = False) -> Iterator[_Resolved]:
        """Walk to the parent directory of ``path`` and yield it with the final entry.

        Args:
            path: an absolute path that passed :func:`check_path`.
            create_parents: create missing intermediate directories (writes).

        Yields:
            The parent directory fd (closed on exit), the final name, the
            canonical path and the ``lstat`` of the final entry (``None`` when
            missing). A final symlink inside the jail is followed, unless the
            caller then treats an ``S_ISLNK`` result itself (it never is here:
            a final symlink is always resolved or refused).

        Raises:
            InvalidParams: the path, or a symlink on the way, leads outside the
                jail; a component is not a directory; a symlink loop.
            ResourceNotFound: an intermediate directory is missing (and
                ``create_parents`` is false).
            InternalError: the operating system refused (permissions, I/O).

        """
        shown = _shown(path)
        current = path
        hops = 0
        while True:
            outcome = self._walk_once(current, shown, create_parents)
            if isinstance(outcome, str):
                hops += 1
                if hops > _MAX_SYMLINK_HOPS:
                    raise InvalidParams(f"path {shown} has too many levels of symbolic links")
                current = outcome
                continue
            break
        try:
            yield outcome
        finally:
            os.close(outcome.dir_fd)

    def _walk_once(
        self, path: str, shown: str, create: bool, probe: bool = False
    ) -> _Resolved | str:
        """Walk once; return the result, or the new path when a symlink was met.

        With ``probe`` (for :meth:`canonical`) a root is an answer and a
        missing directory ends the walk: the rest is appended lexically and
        the result holds no fd (``dir_fd`` is -1).
        """
        root = self._root_for(path, shown)
        rel = path[len(root.path) :].strip("/")
        parts = [p for p in rel.split("/") if p] if rel else []
        if not parts:
            if probe:
                return _Resolved(-1, "", root.path, None)
            raise InvalidParams(f"path {shown} is a directory, not a file")
        fd = self._open_root(root)
        here = root.path
        try:
            for index, part in enumerate(parts[:-1]):
                rest = parts[index + 1 :]
                try:
                    nfd = self._open_dir(fd, part, here, shown, create)
                except ResourceNotFound:
                    if not probe:
                        raise
                    return _Resolved(-1, "", os.path.join(here, *parts[index:]), None)
                if isinstance(nfd, str):
                    return self._follow(nfd, rest, shown)
                os.close(fd)
                fd = nfd
                here = os.path.join(here, part)
            name = parts[-1]
            try:
                st: os.stat_result | None = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                st = None
            except OSError as exc:
                raise _os_error(exc, shown) from exc
            if st is not None and stat.S_ISLNK(st.st_mode):
                target = self._readlink(fd, name, here, shown)
                return self._follow(target, [], shown)
            result = _Resolved(fd, name, os.path.join(here, name), st)
            fd = -1
            return result
        finally:
            if fd >= 0:
                os.close(fd)

    def _open_dir(self, fd: int, part: str, here: str, shown: str, create: bool) -> int | str:
        """Open one intermediate component; return its fd or a symlink's new path."""
        for _attempt in range(3):
            try:
                return os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise ResourceNotFound(
                        f"path {shown} does not exist (missing directory {_shown(part)})"
                    ) from None
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass  # raced with another creator: open it on the next attempt
                except OSError as exc:
                    raise _os_error(exc, shown) from exc
                continue
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise _os_error(exc, shown) from exc
            # ELOOP/ENOTDIR: a symlink (follow it ourselves) or a non-directory.
            try:
                st = os.stat(part, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise _os_error(exc, shown) from exc
            if stat.S_ISLNK(st.st_mode):
                return self._readlink(fd, part, here, shown)
            if stat.S_ISDIR(st.st_mode):
                continue  # swapped back to a directory: try again
            raise InvalidParams(
                f"path {shown} goes through {_shown(part)}, which is not a directory"
            )
        raise InternalError(f"path {shown} kept changing while it was being resolved")

    def _readlink(self, fd: int, name: str, here: str, shown: str) -> str:
        try:
            target = os.readlink(name, dir_fd=fd)
        except OSError as exc:
            raise _os_error(exc, shown) from exc
        return os.path.normpath(os.path.join(here, target))

    def _follow(self, target: str, rest: list[str], shown: str) -> str:
        new = os.path.normpath(os.path.join(target, *rest))
        if new.startswith("//"):
            new = "/" + new.lstrip("/")
        if not any(_within(new, r.path) for r in self._roots):
            raise InvalidParams(
                f"path {shown} goes through a symbolic link that points outside the workspace"
            )
        return new


def resolve_path(path: str, *, base: str | None = None) -> str:
    """Resolve a path the way the jail does: the one resolution policies judge.

    The path is normalised lexically (``//ws/x`` and ``ws/./a/../x`` become
    ``/ws/x``), then walked from ``/`` component by component exactly as the
    jail walks it, following symbolic links, so a link inside the workspace
    that points at ``.git/hooks`` resolves to ``.git/hooks``. Missing
    components are kept as they are. For a path inside a workspace whose
    links stay inside, this is the path the jail opens; a link that leaves
    the workspace resolves to its real target here and is refused by the jail.

    Args:
        path: an absolute path, or a relative one when ``base`` is given.
        base: the directory a relative ``path`` is relative to (a session's ``cwd``).

    Returns:
        The canonical absolute path.

    Raises:
        InvalidParams: the path is malformed (see :func:`check_path`), goes
            through a non-directory, or has a symlink loop.
        InternalError: the operating system refused to look (permissions, I/O).

    """
    if base is not None and isinstance(path, str) and path and not os.path.isabs(path):
        path = os.path.join(base, path)
    return Jail(None, anywhere=True).canonical(check_path(path))


def _os_error(exc: OSError, shown: str) -> RequestError:
    """Translate an OSError met while resolving into a clear request error."""
    if exc.errno == errno.ENAMETOOLONG:
        return InvalidParams(f"path {shown} is too long")
    if exc.errno in (errno.EACCES, errno.EPERM):
        return InternalError(f"the operating system denied access to {shown}")
    if exc.errno == errno.ENOENT:
        return ResourceNotFound(f"path {shown} does not exist")
    if exc.errno == errno.ELOOP:
        return InvalidParams(f"path {shown} has too many levels of symbolic links")
    return InternalError(f"path {shown} could not be accessed ({exc.strerror})")
