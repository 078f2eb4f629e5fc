"""The composer's model: prompt history, workspace files, fuzzy and command matching.

No Textual here; :mod:`acphost.tui._composer` shows what these compute.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from .. import schema as s

__all__ = ["PromptHistory", "command_matches", "fuzzy_rank", "workspace_files"]


class PromptHistory:
    """Prompts sent, newest last, browsed with up/down like a shell."""

    def __init__(self, limit: int = 500) -> None:
        self.entries: list[str] = []
        self.limit = limit
        self._pos: int | None = None
        self._draft = ""

    def add(self, text: str) -> None:
        """Remember a sent prompt (not twice in a row) and reset browsing."""
        if text.strip() and (not self.entries or self.entries[-1] != text):
            self.entries.append(text)
            del self.entries[: -self.limit]
        self._pos = None

    def previous(self, current: str) -> str | None:
        """The older entry, or None at the oldest; ``current`` is kept as the draft."""
        if not self.entries:
            return None
        if self._pos is None:
            self._draft = current
            self._pos = len(self.entries)
        if self._pos == 0:
            return None
        self._pos -= 1
        return self.entries[self._pos]

    def next(self) -> str | None:
        """The newer entry, the draft after the newest, or None when not browsing."""
        if self._pos is None:
            return None
        self._pos += 1
        if self._pos >= len(self.entries):
            self._pos = None
            return self._draft
        return self.entries[self._pos]


_SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".tox",
        "dist",
        "build",
        ".idea",
        ".vscode",
    }
)


def workspace_files(root: str, limit: int = 20_000) -> list[str]:
    """Relative paths of the files under ``root`` (no hidden or build dirs), sorted.

    Completion stays inside the workspace: symlinked directories are not followed.
    """
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS and not d.startswith("."))
        rel = os.path.relpath(dirpath, root)
        for name in sorted(filenames):
            out.append(name if rel == "." else os.path.join(rel, name))
            if len(out) >= limit:
                return out
    return out


def _fuzzy_score(query: str, candidate: str) -> int | None:
    """A subsequence match score (higher is better), or None when it does not match."""
    q = query.lower()
    c = candidate.lower()
    if not q:
        return 0
    pos = -1
    score = 0
    prev = -2
    base = c.rfind("/") + 1
    for ch in q:
        pos = c.find(ch, pos + 1)
        if pos < 0:
            return None
        if pos == prev + 1:
            score += 5  # contiguous
        if pos >= base:
            score += 2  # in the file name
        if pos == 0 or c[pos - 1] in "/_-. ":
            score += 3  # word start
        prev = pos
    if q in c[base:]:
        score += 20
    return score * 100 - len(c)


def fuzzy_rank(query: str, candidates: Iterable[str], limit: int = 20) -> list[str]:
    """The candidates matching ``query`` as a subsequence, best first."""
    scored = []
    for cand in candidates:
        score = _fuzzy_score(query, cand)
        if score is not None:
            scored.append((-score, cand))
    scored.sort()
    return [c for _, c in scored[:limit]]


def command_matches(
    prefix: str, commands: Sequence[s.AvailableCommand]
) -> list[s.AvailableCommand]:
    """The agent's slash commands whose name starts with ``prefix`` (then contains it)."""
    p = prefix.lower().lstrip("/")
    starts = [c for c in commands if c.name.lower().startswith(p)]
    inside = [c for c in commands if p and p in c.name.lower() and c not in starts]
    return starts + inside
