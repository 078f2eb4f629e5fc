"""Which rules a text can wake: every trigger literal it holds, found in one scan.

Each rule of the redactor names literals (its triggers) of which one must
occur for the rule to apply; the text is lower-cased once and searched for
all of them. The answer must be every trigger that occurs *anywhere*, also
where occurrences overlap (``sk-----begin`` holds ``sk-`` and ``-----begin``).

A search that reports overlapping matches (a lookahead tried at every
position) costs several times a plain scan of the same trie-shaped
expression: Python's engine skips ahead to a possible first character only
for a plain one. So the scan here is plain (leftmost, the longest trigger
at a position, never overlapping), and what it steps over is made up for:

- a trigger that occurs inside a match, ending inside it too, is a
  substring of the matched trigger: each trigger wakes the rules of every
  trigger it contains (its prefixes among them);
- one that starts inside a match and ends after it begins with a proper
  suffix of the matched trigger. For each such pair the two overlapped
  (``sk-`` and ``-----begin`` make ``sk-----begin``) is looked for with
  ``str.__contains__``, only when the matched trigger was found and the
  other's rules are not woken yet: the overlap is in the text exactly when
  the second trigger occurs there overlapping the first.

Every occurrence of a trigger is at the start of a match (a prefix of the
longest trigger there), inside one, or after it, where the scan goes on:
none is missed, and nothing is woken that the text does not hold.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Set

from ._patterns import trie_pattern

__all__ = ["Triggers"]


class Triggers:
    """Trigger literals and the rules each wakes; :meth:`woken` finds them in text.

    Args:
        rules: each trigger (lower-cased) and the rules it wakes.

    """

    __slots__ = ("_overlaps", "_pattern", "_wakes")

    def __init__(self, rules: Mapping[str, Set[int]]) -> None:
        own = {t: frozenset(ids) for t, ids in rules.items() if t}
        lengths = sorted({len(t) for t in own})
        # Each trigger wakes its own rules and those of the triggers inside it.
        wakes: dict[str, frozenset[int]] = {}
        for word, ids in own.items():
            inside = set(ids)
            for start in range(len(word)):
                for length in lengths:
                    if start + length > len(word):
                        break
                    inside.update(own.get(word[start : start + length], ()))
            wakes[word] = frozenset(inside)
        by_first: dict[str, list[str]] = {}
        for t in own:
            by_first.setdefault(t[0], []).append(t)
        # A trigger and each trigger that can start inside it and end after it:
        # the two overlapped, with the rules the second adds.
        overlaps: dict[str, tuple[tuple[str, frozenset[int]], ...]] = {}
        for word, woken in wakes.items():
            found = []
            for start in range(1, len(word)):
                suffix = word[start:]
                for other in by_first.get(suffix[0], ()):
                    more = wakes[other] - woken
                    if len(other) > len(suffix) and other.startswith(suffix) and more:
                        found.append((word[:start] + other, more))
            if found:
                overlaps[word] = tuple(found)
        self._wakes = wakes
        self._overlaps = overlaps
        self._pattern = re.compile(trie_pattern(own))

    def woken(self, lowered: str) -> set[int]:
        """The rules of every trigger that occurs in ``lowered`` (the text, lower-cased).

        Args:
            lowered: the text, as ``str.lower`` gives it.

        """
        wakes = self._wakes
        found = set(self._pattern.findall(lowered))
        out: set[int] = set()
        for word in found:
            out |= wakes[word]
        overlaps = self._overlaps
        for word in found:
            for both, more in overlaps.get(word, ()):
                if not more <= out and both in lowered:
                    out |= more
        return out
