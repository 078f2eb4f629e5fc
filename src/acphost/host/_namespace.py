"""A private view of the file system for the confined agent: Linux mount (and user) namespaces.

Landlock decides which files a process may open; it cannot tell a
pseudo-terminal the agent made from one of the user's (both live in
``/dev/pts``), and connecting to a Unix socket by its path takes no
Landlock right at all. Both are closed here by what the agent *sees*:
between ``fork`` and ``exec`` the child enters a mount namespace of its own
(``unshare(2)``, ``mount_namespaces(7)``) and

- mounts a fresh ``devpts`` instance on ``/dev/pts`` (``newinstance``,
  ``ptmxmode=0666``) and binds its ``ptmx`` onto ``/dev/ptmx``: the agent
  opens pseudo-terminals of its own, never the user's
  (``Documentation/filesystems/devpts.rst``);
- covers each folder to hide (``$XDG_RUNTIME_DIR``, the ssh-agent's folder,
  the denied folders) with an empty read-only ``tmpfs``: the sockets inside
  cannot be named.

An unprivileged process may do so only inside a user namespace of its own
(``user_namespaces(7)``): it maps its user and group to themselves (one line
each in ``uid_map`` and ``gid_map``, after ``deny`` in ``setgroups``), so files
keep their owners and its supplementary groups still count. A process that
already holds ``CAP_SYS_ADMIN`` (root) takes a mount namespace alone, which
keeps its view of every file's owner; its mounts are made slaves of the
host's first, so that nothing mounted here reaches the host.

Landlock, applied next, forbids the confined process to mount or unmount
anything, so the agent cannot lift these covers. Every step runs C functions
resolved in the parent with arguments prepared there; the outcome is written
to a page shared with the parent (``MAP_SHARED``), which reads it after the
spawn. When ``unshare`` is refused (no user namespaces: a sysctl, an
AppArmor restriction, a container's seccomp filter), nothing has changed and
the child goes on without the private view; so does a ``devpts`` that cannot be
mounted. A later step failing (covering a folder) stops the spawn: the
agent never runs with a socket folder left uncovered that the description
says is hidden.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import mmap
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

__all__ = ["PRIVATE", "UNAVAILABLE", "NamespacePlan", "namespace_support"]

_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_MS_RDONLY = 1
_MS_NOSUID = 2
_MS_NODEV = 4
_MS_NOEXEC = 8
_MS_BIND = 4096
_MS_REC = 16384
_MS_SLAVE = 1 << 19
_O_WRONLY = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0)

#: The child's outcome, in the shared page's first word.
NOT_RUN, PRIVATE, UNAVAILABLE = 0, 1, 2

_CAP_SYS_ADMIN = 21


@dataclass(frozen=True, slots=True)
class _Libc:
    unshare: Callable[..., int]
    mount: Callable[..., int]
    open: Callable[..., int]
    write: Callable[..., int]
    close: Callable[..., int]


_libc: _Libc | bool | None = False  # False: not looked up yet


def _lookup() -> _Libc | None:
    global _libc  # noqa: PLW0603 - resolved once per process
    if _libc is False:
        _libc = None
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                unshare, mount, c_open = libc.unshare, libc.mount, libc.open
                write, c_close = libc.write, libc.close
            except (OSError, AttributeError):
                return None
            # Typed once: the child's calls convert nothing they were not told.
            unshare.argtypes = [ctypes.c_int]
            mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]
            c_open.argtypes = [ctypes.c_char_p, ctypes.c_int]
            write.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
            write.restype = ctypes.c_ssize_t
            c_close.argtypes = [ctypes.c_int]
            _libc = _Libc(unshare, mount, c_open, write, c_close)
    return _libc if isinstance(_libc, _Libc) else None


def _read(path: str, limit: int = 64) -> str:
    """A small file of the kernel's (``/proc``), stripped; "" when it cannot be read."""
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            return f.read(limit).strip()
    except OSError:
        return ""


def _privileged() -> bool:
    """Whether we hold ``CAP_SYS_ADMIN`` (root, usually): a mount namespace needs no user one."""
    for line in _read("/proc/self/status", 1 << 16).splitlines():
        if line.startswith("CapEff:"):
            with contextlib.suppress(ValueError, IndexError):
                return bool(int(line.split()[1], 16) >> _CAP_SYS_ADMIN & 1)
    return False


def namespace_support() -> tuple[bool, str]:
    """Whether the child can be given a private view, and why not (one phrase).

    Read from the system's switches, without trying: a kernel without user
    namespaces (``/proc/self/ns/user`` missing), ``user.max_user_namespaces``
    at 0, Debian's ``kernel.unprivileged_userns_clone`` at 0, or Ubuntu's
    AppArmor restriction (``kernel.apparmor_restrict_unprivileged_userns``)
    for an unprivileged process. What is only known by trying (a container's
    seccomp filter) the child finds out, and then goes on without it.
    """
    if _lookup() is None:
        return False, f"no mount namespaces on {sys.platform}"
    if _privileged():
        return True, ""
    if not os.path.exists("/proc/self/ns/user"):
        return False, "no user namespaces: the kernel was built without them"
    if _read("/proc/sys/user/max_user_namespaces") == "0":
        return False, "no user namespaces: user.max_user_namespaces is 0"
    if _read("/proc/sys/kernel/unprivileged_userns_clone") == "0":
        return False, "no user namespaces: kernel.unprivileged_userns_clone is 0"
    if _read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
        return False, "no user namespaces: AppArmor restricts them for unprivileged users"
    return True, ""


@dataclass
class NamespacePlan:
    """What the child mounts in its own namespace; built in the parent.

    Attributes:
        hide: the folders covered with an empty read-only ``tmpfs`` (real paths).

    """

    hide: tuple[str, ...]
    _status: mmap.mmap | None = field(default=None, repr=False)
    _last: tuple[int, int] = (NOT_RUN, 0)

    def __post_init__(self) -> None:
        # One anonymous page shared with every child (MAP_SHARED is mmap's
        # default): the child's outcome and errno, read after the spawn.
        self._status = mmap.mmap(-1, mmap.PAGESIZE)

    @property
    def outcome(self) -> tuple[int, int]:
        """The last child's outcome (:data:`PRIVATE`, :data:`UNAVAILABLE`, or 0) and its errno."""
        if self._status is None or self._status.closed:
            return self._last
        words = (ctypes.c_int32 * 2).from_buffer_copy(self._status[:8])
        return int(words[0]), int(words[1])

    def preexec(self, *, own_user: bool | None = None) -> Callable[[], None]:
        """The child's step, before Landlock: enter the namespace and mount (see the module).

        Args:
            own_user: take a user namespace too; None (the default): only
                when we lack ``CAP_SYS_ADMIN``.

        Raises:
            RuntimeError: the plan is closed, or the C functions are missing.

        """
        libc = _lookup()
        if libc is None or self._status is None or self._status.closed:
            raise RuntimeError("no namespace plan to apply")
        status = (ctypes.c_int32 * 2).from_buffer(self._status)
        get_errno = ctypes.get_errno
        unshare, mount, c_open, write, c_close = (
            libc.unshare,
            libc.mount,
            libc.open,
            libc.write,
            libc.close,
        )
        # Everything the child needs, as C values made now.
        root = not own_user if own_user is not None else _privileged()
        flags = _CLONE_NEWNS if root else _CLONE_NEWUSER | _CLONE_NEWNS
        uid, gid = os.geteuid(), os.getegid()
        maps = [
            (b"/proc/self/setgroups", b"deny"),
            (b"/proc/self/uid_map", f"{uid} {uid} 1".encode()),
            (b"/proc/self/gid_map", f"{gid} {gid} 1".encode()),
        ]
        maps_c = [(ctypes.c_char_p(p), ctypes.c_char_p(d), len(d)) for p, d in maps]
        devpts, pts, ptmx = b"devpts", b"/dev/pts", b"/dev/ptmx"
        slash, tmpfs = b"/", b"tmpfs"
        pts_opts = b"newinstance,ptmxmode=0666,mode=0620"
        hide_opts = b"mode=0555,size=4k,nr_inodes=2"
        hide = [ctypes.c_char_p(os.fsencode(p)) for p in self.hide]
        pts_flags = _MS_NOSUID | _MS_NOEXEC
        hide_flags = _MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC

        def fail(what: str) -> None:
            raise OSError(get_errno(), what)

        def hook() -> None:
            userns = not root
            if unshare(flags) != 0:
                # Refused: nothing has changed; Landlock alone follows. (Root
                # whose mount namespace is refused tries as anyone would.)
                if not root or unshare(_CLONE_NEWUSER | _CLONE_NEWNS) != 0:
                    status[0], status[1] = UNAVAILABLE, get_errno()
                    return
                userns = True
            if userns:
                for path, data, size in maps_c:
                    fd = c_open(path, _O_WRONLY)
                    if fd < 0 or write(fd, data, size) != size:
                        fail("cannot map the user namespace to ourselves")
                    c_close(fd)
            # Nothing mounted here may reach the host's namespace.
            if mount(None, slash, None, _MS_REC | _MS_SLAVE, None) != 0:
                if get_errno() not in (errno.EPERM, errno.EACCES):
                    fail("cannot make the mounts slaves of the host's")
                # A namespace without the right to mount in it (AppArmor's
                # restriction): nothing is mounted; Landlock alone follows.
                status[0], status[1] = UNAVAILABLE, get_errno()
                return
            if mount(devpts, pts, devpts, pts_flags, pts_opts) != 0:
                # No devpts to be had (a system without /dev/pts): nothing
                # visible has changed yet; Landlock alone follows.
                status[0], status[1] = UNAVAILABLE, get_errno()
                return
            # The kernel's /dev/ptmx already opens the pts instance beside it
            # (Documentation/filesystems/devpts.rst); the bind makes sure of
            # it, and is not needed for it.
            mount(b"/dev/pts/ptmx", ptmx, None, _MS_BIND, None)
            for path in hide:
                if mount(tmpfs, path, tmpfs, hide_flags, hide_opts) != 0 and get_errno() not in (
                    errno.ENOENT,
                    errno.ENOTDIR,
                ):
                    fail("cannot hide a folder")
            status[0], status[1] = PRIVATE, 0

        return hook

    def close(self) -> None:
        """Release the shared page (the last outcome stays known)."""
        if self._status is not None and not self._status.closed:
            self._last = self.outcome
            with contextlib.suppress(BufferError):
                self._status.close()


def hidden_folders(candidates: Sequence[str], keep: Sequence[str]) -> tuple[str, ...]:
    """The existing folders among ``candidates`` that hold none of ``keep``, outermost only.

    A folder holding the workspace, a write root or the private temporary
    folder stays visible (covering it would hide what the agent works in).
    """
    found: list[str] = []
    for path in candidates:
        if not os.path.isabs(path):
            continue
        real = os.path.realpath(path)
        if real == os.sep or not os.path.isdir(real):
            continue
        if any(under(k, real) for k in keep):
            continue
        found.append(real)
    found = sorted(set(found))
    return tuple(p for p in found if not any(under(p, o) for o in found if o != p))


def under(path: str, root: str) -> bool:
    """Whether ``path`` is ``root`` or lies below it (both as given, not resolved)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
