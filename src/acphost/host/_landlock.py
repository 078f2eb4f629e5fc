"""Landlock, Linux's unprivileged sandbox: the three system calls, through ctypes.

The kernel's interface (``Documentation/userspace-api/landlock.rst``,
``include/uapi/linux/landlock.h``): a *ruleset* says which access rights it
handles (everything handled and not granted is denied); *path-beneath*
rules grant rights on a file or on a directory and everything beneath it,
named by an ``O_PATH`` file descriptor; ``landlock_restrict_self`` applies
the ruleset to the calling thread, for good, and to everything it execs or
forks afterwards.

The ruleset is built here, in the parent (opening every path, adding every
rule); the child, between ``fork`` and ``exec``, only calls
``prctl(PR_SET_NO_NEW_PRIVS)`` and ``landlock_restrict_self`` on the ruleset's
descriptor (:meth:`Ruleset.preexec`). That descriptor is close-on-exec, and
:mod:`subprocess` closes the child's other descriptors only after its
``preexec_fn`` ran: it is open when the hook needs it and gone when the
program starts.

The access rights handled depend on the kernel's ABI version (queried with
``LANDLOCK_CREATE_RULESET_VERSION``): REFER (moving files between
directories) from 2, TRUNCATE from 3, IOCTL_DEV from 5, the signal scope
from 6. An older kernel gets the rights it knows; none (no Landlock, another
system) makes :func:`abi_version` return 0.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "ACCESS_FILE",
    "ACCESS_READ",
    "LandlockError",
    "Ruleset",
    "abi_version",
    "handled_access",
]

# System call numbers: x86_64, and the generic table arm64 and riscv64 use,
# give the Landlock calls the same numbers (444, 445, 446).
_SYSCALLS = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446), "arm64": (444, 445, 446)}
_SYSCALLS["riscv64"] = (444, 445, 446)

_CREATE_RULESET_VERSION = 1 << 0
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

# Filesystem access rights (landlock.h, LANDLOCK_ACCESS_FS_*).
EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5
# Scopes (ABI 6): abstract unix sockets made outside the sandbox, and signals
# to processes outside it.
SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
SCOPE_SIGNAL = 1 << 1

#: What reading a tree takes: list directories, read and run files.
ACCESS_READ = EXECUTE | READ_FILE | READ_DIR
#: The rights that apply to a file (the kernel refuses the others on one).
ACCESS_FILE = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV

_ABI1 = (1 << 13) - 1  # EXECUTE .. MAKE_SYM


class LandlockError(OSError):
    """A Landlock call failed (the message names the call and the path)."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # __attribute__((packed)) in landlock.h: 12 bytes
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


@dataclass(frozen=True, slots=True)
class _Calls:
    syscall: Callable[..., int]
    prctl: Callable[..., int]
    numbers: tuple[int, int, int]
    open: Callable[..., int]
    close: Callable[..., int]


_calls: _Calls | bool | None = False  # False: not looked up yet


def _lookup() -> _Calls | None:
    global _calls  # noqa: PLW0603 - resolved once per process
    if _calls is False:
        _calls = None
        numbers = _SYSCALLS.get(platform.machine())
        if sys.platform.startswith("linux") and numbers is not None:
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                syscall, prctl, c_open, c_close = libc.syscall, libc.prctl, libc.open, libc.close
            except (OSError, AttributeError):
                return None
            syscall.restype = ctypes.c_long
            c_open.argtypes = [ctypes.c_char_p, ctypes.c_int]
            c_close.argtypes = [ctypes.c_int]
            _calls = _Calls(syscall, prctl, numbers, c_open, c_close)
    return _calls if isinstance(_calls, _Calls) else None


def abi_version() -> int:
    """The kernel's Landlock ABI version: 0 where Landlock cannot be used.

    0 on another system or architecture, a kernel built without Landlock
    (``ENOSYS``) or booted with it off (``EOPNOTSUPP``).
    """
    calls = _lookup()
    if calls is None:
        return 0
    version = calls.syscall(calls.numbers[0], None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION)
    return max(int(version), 0)


def handled_access(abi: int) -> int:
    """Every filesystem right the ABI version knows (what a ruleset handles)."""
    if abi <= 0:
        return 0
    access = _ABI1
    if abi >= 2:
        access |= REFER
    if abi >= 3:
        access |= TRUNCATE
    if abi >= 5:
        access |= IOCTL_DEV
    return access


def _error(what: str) -> LandlockError:
    code = ctypes.get_errno()
    return LandlockError(code, f"{what}: {os.strerror(code)}")


class Ruleset:
    """A Landlock ruleset being built in the parent; applied in the child.

    Args:
        abi: the kernel's ABI version (:func:`abi_version`, at least 1).

    Raises:
        LandlockError: the kernel refused to create it.

    """

    def __init__(self, abi: int) -> None:
        calls = _lookup()
        if calls is None or abi < 1:
            raise LandlockError(errno.ENOSYS, "Landlock is not available")
        self._calls = calls
        self.abi = abi
        self.handled = handled_access(abi)
        self.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0
        attr = _RulesetAttr(self.handled, 0, self.scoped)
        # The struct grew with the ABI: pass the size this kernel knows.
        size = 8 if abi < 4 else 16 if abi < 6 else 24
        fd = calls.syscall(calls.numbers[0], ctypes.byref(attr), ctypes.c_size_t(size), 0)
        if fd < 0:
            raise _error("landlock_create_ruleset")
        self.fd: int = int(fd)

    def allow(self, fd: int, access: int, *, is_dir: bool) -> None:
        """Grant ``access`` beneath the file or directory open as ``fd`` (``O_PATH``).

        Rights the ruleset does not handle are dropped, and so are the
        directory-only rights on a file (the kernel refuses them there).

        Raises:
            LandlockError: the kernel refused the rule.

        """
        access &= self.handled
        if not is_dir:
            access &= ACCESS_FILE
        if not access:
            return
        attr = _PathBeneathAttr(access, fd)
        calls = self._calls
        if calls.syscall(calls.numbers[1], self.fd, _RULE_PATH_BENEATH, ctypes.byref(attr), 0) < 0:
            raise _error("landlock_add_rule")

    def close(self) -> None:
        """Close the ruleset's descriptor (children already confined stay confined)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def preexec(self, late: Sequence[tuple[str, int, bool]] = ()) -> Callable[[], None]:
        """The hook to run in the child between ``fork`` and ``exec``.

        It calls only C functions resolved here, in the parent:
        ``prctl(PR_SET_NO_NEW_PRIVS)`` (which ``landlock_restrict_self``
        requires of an unprivileged process, and which stops set-user-id
        programs from gaining rights), then ``landlock_restrict_self``. A
        failure raises, which makes :mod:`subprocess` fail the spawn: the
        program never runs unconfined.

        Args:
            late: ``(path, access, is_dir)`` rules added in the child, first:
                for what exists only there (a ``devpts`` mounted in its own
                namespace; a rule names an inode, and the walk up from a
                mount's root skips the mount point, where the parent's rule
                is). The ruleset is shared: these rules stay in it, for
                inodes no later child can reach.

        """
        calls = self._calls
        prctl, syscall, c_open, c_close = calls.prctl, calls.syscall, calls.open, calls.close
        add, restrict, fd = calls.numbers[1], calls.numbers[2], self.fd
        rules = []
        for path, access, is_dir in late:
            granted = access & self.handled & (~0 if is_dir else ACCESS_FILE)
            attr = _PathBeneathAttr(granted, -1)
            rules.append((ctypes.c_char_p(os.fsencode(path)), attr, ctypes.byref(attr)))
        flags = os.O_PATH | os.O_CLOEXEC

        def hook() -> None:
            for path, attr, ref in rules:
                opened = c_open(path, flags)
                if opened < 0:
                    continue  # not there: nothing to grant (less, never more)
                attr.parent_fd = opened
                added = syscall(add, fd, _RULE_PATH_BENEATH, ref, 0)
                c_close(opened)
                if added != 0:
                    raise OSError("landlock_add_rule failed in the child")
            if prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
                raise OSError("prctl(PR_SET_NO_NEW_PRIVS) failed")
            if syscall(restrict, fd, 0) != 0:
                raise OSError("landlock_restrict_self failed")

        return hook


def open_path(path: str) -> tuple[int, bool] | None:
    """``path`` opened ``O_PATH`` without following a final symbolic link, and whether a directory.

    None when it does not exist or is a symbolic link: a link's target is
    covered (or not) where it really lives, since Landlock judges the file
    reached, not the name used.
    """
    try:
        fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        return None
    import stat  # noqa: PLC0415

    if stat.S_ISLNK(st.st_mode):
        os.close(fd)
        return None
    return fd, stat.S_ISDIR(st.st_mode)


def add_rules(ruleset: Ruleset, rules: Iterable[tuple[str, int]]) -> list[str]:
    """Add a rule per ``(path, access)``; return the paths that could not be opened."""
    skipped: list[str] = []
    for path, access in rules:
        opened = open_path(path)
        if opened is None:
            skipped.append(path)
            continue
        fd, is_dir = opened
        try:
            ruleset.allow(fd, access, is_dir=is_dir)
        finally:
            os.close(fd)
    return skipped
