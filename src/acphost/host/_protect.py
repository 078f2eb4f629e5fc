"""Protected paths: where an agent's write would become host code or host configuration.

Inside every workspace root (at any depth, so nested repositories and
submodules count too):

* ``.acphost/**``: project settings, which choose the agent command and the
  permission rules;
* ``.git`` and everything below it (and a ``.git`` file): git runs hooks
  and configured commands (``core.fsmonitor``, aliases, ``core.pager``) on
  the user's next ``git status``, and its metadata has more indirections than
  hooks and config (``commondir``, ``info/``, ``modules/*/``, ``worktrees/``,
  ``objects/info/alternates``, a ``.git`` file naming another directory): git
  metadata is never a legitimate target of an agent's file write.

Anywhere: the host's own output files (audit log, trace, saved session, the
history store), registered by whoever opens them; an entry protects the path
and everything below it.

A write there is refused unless a permission rule *names* the protected area:
its ``path`` glob spells the area out literally before any wildcard
(:func:`names_area`), so ``/repo/.git/hooks/pre-commit`` or
``/repo/.git/hooks/*`` names ``/repo/.git/hooks`` but ``/repo/**`` does not.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

__all__ = ["ProtectedPaths", "names_area"]

_GLOB = "*?["


def _within(path: str, area: str) -> bool:
    return path == area or path.startswith(area.rstrip("/") + "/")


class ProtectedPaths:
    """Tells which paths are protected, and the protected area each lies in.

    Args:
        roots: the canonical workspace roots.
        outputs: the host's output files (made absolute and canonical here).

    """

    __slots__ = ("_outputs", "_roots")

    def __init__(self, roots: Iterable[str], outputs: Iterable[str] = ()) -> None:
        self._roots = tuple(os.path.normpath(r) for r in roots)
        self._outputs = tuple(os.path.realpath(os.path.abspath(o)) for o in outputs)

    def area(self, path: str) -> str | None:
        """Return the protected area ``path`` lies in, or ``None``.

        Args:
            path: a canonical absolute path (resolved the way the jail resolves).

        Returns:
            The area: the output file, or the workspace directory prefix up to
            and including ``.acphost`` or ``.git``.

        """
        for output in self._outputs:
            if _within(path, output):
                return output
        for root in self._roots:
            if not _within(path, root) or path == root:
                continue
            parts = path[len(root) :].strip("/").split("/")
            for index, part in enumerate(parts):
                if part in (".acphost", ".git"):
                    return os.path.join(root, *parts[: index + 1])
        return None

    def areas(self, paths: Iterable[str]) -> tuple[str, ...]:
        """Return the protected areas the paths lie in, each once, in order.

        Args:
            paths: canonical absolute paths.

        Returns:
            The areas (empty when nothing is protected).

        """
        found: list[str] = []
        for path in paths:
            area = self.area(path)
            if area is not None and area not in found:
                found.append(area)
        return tuple(found)


def names_area(glob: str, area: str) -> bool:
    """Tell whether a rule's ``path`` glob names a protected area explicitly.

    The glob's literal part (everything before its first ``*``, ``?`` or
    ``[``) must reach the area: equal it, or go below it. A broad glob whose
    wildcard merely covers the area (``/repo/**``, ``/repo/.git/*``) does not.

    Args:
        glob: the rule's path glob.
        area: an area from :meth:`ProtectedPaths.area`.

    Returns:
        ``True`` when the glob names the area.

    """
    cut = min((i for i, c in enumerate(glob) if c in _GLOB), default=len(glob))
    if cut == len(glob):
        return _within(os.path.normpath(glob), area)
    # Only whole components before the first wildcard count: "/repo/.git/hooks/*"
    # names "/repo/.git/hooks", "/repo/.git/hoo*" and "/repo/.git/*" do not.
    head = glob[: glob.rfind("/", 0, cut) + 1]
    return bool(head) and _within(os.path.normpath(head), area)
