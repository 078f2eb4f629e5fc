"""Second paths to a denied file: the same file system mounted again elsewhere (a bind mount).

The sandbox denies a path by name, carving grants around it; a bind mount of
an ancestor elsewhere (``mount --bind ~ /mnt/home``, or of ``/``) reaches the
same files by another name. ``/proc/self/mountinfo`` (``proc(5)``) says, for
each mount, its device, the folder of that file system it shows (*root*)
and where (*mount point*): a denied path's place in its file system, seen
through every other mount of the same device whose root holds it, is a
second path to deny.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ._namespace import under

__all__ = ["Mount", "other_terminals", "parse_mountinfo", "second_paths"]

_ESCAPE = re.compile(r"\\([0-7]{3})")


@dataclass(frozen=True, slots=True)
class Mount:
    """One line of ``mountinfo``: the device, the folder it shows, where it is mounted."""

    device: str
    root: str
    point: str
    fstype: str = ""


def _unescape(field: str) -> str:
    # mountinfo writes space, tab, newline and backslash as octal escapes.
    return _ESCAPE.sub(lambda m: chr(int(m.group(1), 8)), field)


def parse_mountinfo(text: str) -> list[Mount]:
    """The mounts of a ``mountinfo`` text, in its order; lines that do not parse are skipped."""
    mounts: list[Mount] = []
    for line in text.splitlines():
        fields = line.split(" ")
        if len(fields) < 5 or ":" not in fields[2]:
            continue
        root, point = _unescape(fields[3]), _unescape(fields[4])
        # After the optional fields, a lone "-", then the file system's type.
        fstype = fields[fields.index("-") + 1] if "-" in fields[5:-1] else ""
        if os.path.isabs(root) and os.path.isabs(point):
            mounts.append(Mount(fields[2], os.path.normpath(root), os.path.normpath(point), fstype))
    return mounts


def _inside(path: str, root: str) -> str:
    """``path`` relative to ``root`` (which holds it), "" for ``root`` itself."""
    return path[len(root.rstrip("/")) :].lstrip("/")


def _holder(path: str, mounts: list[Mount]) -> Mount | None:
    """The mount ``path`` is reached through: the deepest mount point, the last mounted there."""
    best: Mount | None = None
    for mount in mounts:
        if under(path, mount.point) and (best is None or len(mount.point) >= len(best.point)):
            best = mount
    return best


def second_paths(denied: Iterable[str], mounts: list[Mount]) -> list[str]:
    """The other names the mounts give the denied paths (absolute, not checked to exist).

    For a denied path, its place in its file system (the holding mount's
    root joined with the rest of the path); then every other mount of that
    device: one whose root holds that place shows it beneath its mount point;
    one whose root lies inside it is denied whole.
    """
    found: list[str] = []
    for path in denied:
        holder = _holder(path, mounts)
        if holder is None:
            continue
        place = os.path.join(holder.root, _inside(path, holder.point)).rstrip("/") or "/"
        for mount in mounts:
            if mount is holder or mount.device != holder.device:
                continue
            if under(place, mount.root):
                alias = os.path.join(mount.point, _inside(place, mount.root)).rstrip("/") or "/"
            elif under(mount.root, place):
                alias = mount.point
            else:
                continue
            if alias != path:
                found.append(alias)
    return list(dict.fromkeys(found))


def other_terminals(mounts: list[Mount]) -> list[str]:
    """Terminals mounted outside ``/dev/pts``: a ``devpts`` file bound elsewhere (``/dev/console``).

    A container's console is the user's terminal bound from the host's
    ``devpts``; the agent must not read what is typed there.
    """
    points = [m.point for m in mounts if m.fstype == "devpts" and m.point != "/dev/pts"]
    return list(dict.fromkeys(points))


def read_mounts() -> list[Mount]:
    """Our mounts (none where ``/proc/self/mountinfo`` cannot be read)."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as f:
            return parse_mountinfo(f.read(4 * 1024 * 1024))
    except OSError:
        return []
