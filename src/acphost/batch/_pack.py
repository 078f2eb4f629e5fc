"""A workspace as bytes, so it can travel with a run to another machine.

A git workspace travels as ``git archive`` of its commit (the tracked files
of the commit the batch started from: what its worktrees hold, without the
history); a plain directory as a tar of its files (links kept, special
files and the excluded paths left out). Both are gzip-compressed.
Unpacking refuses members that would land outside the target directory.
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import tarfile
from collections.abc import Sequence

from ._model import WorkspaceSource
from ._workspace import WorkspaceError, git

__all__ = ["pack", "unpack"]


def pack(source: WorkspaceSource, exclude: Sequence[str] = ()) -> bytes:
    """The workspace's starting tree as a gzip-compressed tar.

    Args:
        source: the workspace.
        exclude: absolute paths left out of a plain directory.

    Returns:
        The archive.

    Raises:
        WorkspaceError: git or the file system failed.

    """
    if source.is_git:
        assert source.git_root is not None and source.commit is not None
        done = git(["archive", "--format=tar", source.commit], cwd=source.git_root)
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip()
            raise WorkspaceError(f"git archive failed: {message}")
        return gzip.compress(done.stdout, compresslevel=1)
    excluded = {os.path.realpath(p) for p in exclude}
    root = source.path

    def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        full = os.path.join(root, info.name)
        if os.path.realpath(full) in excluded and not os.path.islink(full):
            return None
        if not (info.isfile() or info.isdir() or info.issym()):
            return None
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info

    buffer = io.BytesIO()
    try:
        with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as tar:
            for name in sorted(os.listdir(root)):
                tar.add(os.path.join(root, name), arcname=name, filter=keep)
    except OSError as exc:
        raise WorkspaceError(f"cannot pack the workspace {root}: {exc}") from None
    return buffer.getvalue()


def unpack(data: bytes, dest: str) -> None:
    """Extract an archive from :func:`pack` into the new directory ``dest``.

    Raises:
        WorkspaceError: not an archive, or a member that would escape ``dest``.

    """
    os.makedirs(dest, exist_ok=False)
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as tar:
            members = [_checked(m, dest) for m in tar.getmembers()]
            if hasattr(tarfile, "data_filter"):
                tar.extractall(dest, members=members, filter="data")
            else:  # Python before 3.10.12 / 3.11.4: the checks above stand in
                tar.extractall(dest, members=members)
    except (tarfile.TarError, OSError) as exc:
        raise WorkspaceError(f"cannot unpack the workspace into {dest}: {exc}") from None


def _checked(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo:
    root = os.path.realpath(dest)
    target = os.path.realpath(os.path.join(root, member.name))
    if os.path.isabs(member.name) or not (target == root or target.startswith(root + os.sep)):
        raise WorkspaceError(f"the archive member {member.name!r} is outside the workspace")
    if not (member.isfile() or member.isdir() or member.issym()):
        raise WorkspaceError(f"the archive member {member.name!r} is not a file, directory or link")
    if member.issym():
        link = os.path.realpath(os.path.join(os.path.dirname(target), member.linkname))
        if not (link == root or link.startswith(root + os.sep)):
            raise WorkspaceError(f"the archive link {member.name!r} points outside the workspace")
    member.mode &= stat.S_IRWXU | stat.S_IRWXG | stat.S_IRWXO
    return member
