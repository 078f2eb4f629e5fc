"""A project's own settings file: its folder resolved once, the file read once, never via a link.

A project's ``.acphost/settings.json`` is honoured only when trusted
(:mod:`._trust`), and what it runs is relative to the project: ``python
agent.py`` runs the ``agent.py`` of the folder the agent starts in. So the
folder that is checked, the file that is read and the folder the agent
starts in must be one and the same, even while someone else changes links
under us:

- :func:`project_dir` resolves the working directory the user gave
  (``--cwd``, the current directory) once, following links above the project
  (``cd link-to-A`` is project A). Every later use takes that one string:
  the trust check, the settings read, the agent's working directory, the
  workspace's root. Resolving again later could reach another folder.
- :func:`read_project_file` opens that folder, then ``.acphost`` relative to
  it and ``settings.json`` relative to that, neither followed if it is a
  symbolic link (``O_NOFOLLOW``), checks it is a regular file and reads its
  bytes once. The trust digest and the parse both take those bytes, and the
  path the trust is looked up by is the resolved folder's, never a link's
  target.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path

from ._files import InputFileError, read_input_fd

__all__ = ["ProjectFile", "project_dir", "read_project_file"]

# O_PATH (Linux): a folder we may enter but not list is still a project.
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: a FIFO named settings.json must not block the open (read_input_fd refuses it).
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC

_WHAT = "project settings file"


@dataclass(frozen=True, slots=True)
class ProjectFile:
    """A project's settings file as read.

    Attributes:
        path: ``<project>/.acphost/settings.json``, the project folder as
            given (resolved by :func:`project_dir`): the path trust is for.
        data: the bytes read, or None when it is reached through a link.
        link: ``"LINK -> TARGET"`` when the file, its ``.acphost`` folder or
            the project folder itself is a symbolic link (never trusted).

    """

    path: Path
    data: bytes | None
    link: str | None = None


def project_dir(cwd: str | os.PathLike[str]) -> str:
    """The real project folder of a working directory: ``~`` expanded, every link resolved.

    Call it once per run and use its result everywhere (trust, settings,
    the agent's working directory, the workspace): each resolution may
    reach another folder if a link changes in between.

    Args:
        cwd: the working directory given (absolute or relative to ours).

    Returns:
        The canonical absolute path.

    """
    # abspath first: ``..`` is taken as the user typed it, as ``cd`` does.
    return os.path.realpath(os.path.abspath(os.path.expanduser(os.fspath(cwd))))


def _link(name: str, dir_fd: int | None, shown: str) -> str | None:
    """``"SHOWN -> TARGET"`` when ``name`` is a symbolic link, else None."""
    try:
        return f"{shown} -> {os.readlink(name, dir_fd=dir_fd)}"
    except OSError:
        return None


def _was_link(name: str, dir_fd: int | None, shown: str) -> str:
    """What to say of ``name``, which an ``O_NOFOLLOW`` open found to be a link (ELOOP).

    It was a link when it was opened, whatever it is now: swapped back for a
    plain file since, it is still reported as a link, never as unreadable.
    """
    return _link(name, dir_fd, shown) or f"{shown} (a symbolic link when it was opened)"


def _open_dir(name: str, dir_fd: int | None, shown: str) -> int | str | None:
    """A folder's descriptor, its link text when it is a link, or None when it is missing."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        # O_NOFOLLOW on a link: ELOOP (ENOTDIR with O_DIRECTORY on some systems).
        if exc.errno == errno.ELOOP:
            return _was_link(name, dir_fd, shown)
        if exc.errno == errno.ENOTDIR:
            link = _link(name, dir_fd, shown)
            return link  # a link, or a plain file named .acphost: no project settings
        raise InputFileError(f"cannot read the folder {shown}: {exc.strerror}") from None


def read_project_file(project: str) -> ProjectFile | None:
    """Read ``<project>/.acphost/settings.json`` once, never through a symbolic link.

    Args:
        project: the real project folder (:func:`project_dir`). A link here
            is not followed either: it is reported as a link.

    Returns:
        The file (its bytes, or the link it is reached through), or None
        when the project has no ``.acphost/settings.json``.

    Raises:
        InputFileError: a folder or the file cannot be read, the file is not
            a regular file or is too large; one line naming it.

    """
    acphost = os.path.join(project, ".acphost")
    path = Path(acphost, "settings.json")
    top = _open_dir(project, None, project)
    if top is None:
        return None
    if isinstance(top, str):
        return ProjectFile(path, None, top)
    try:
        folder = _open_dir(".acphost", top, acphost)
    finally:
        os.close(top)
    if folder is None:
        return None
    if isinstance(folder, str):
        return ProjectFile(path, None, folder)
    try:
        fd = os.open("settings.json", _FILE_FLAGS, dir_fd=folder)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return ProjectFile(path, None, _was_link("settings.json", folder, str(path)))
        raise InputFileError(f"cannot read {_WHAT} {path}: {exc.strerror}") from None
    finally:
        os.close(folder)
    return ProjectFile(path, read_input_fd(fd, name=str(path), what=_WHAT))
