"""Find configured values in text, any number of any length, in time linear in the text.

The configured values (:mod:`._configured`) are literals, and some are long:
a service-account JSON, a certificate, a JWT of a few kilobytes, whatever a
user put in an agent's ``env``. One trie-shaped regular expression finds
short literals fast, but the engine walks as deep as the literal at every
position of the text (text that keeps almost matching a long value costs
the value's length at every character), and compiling a megabyte-long
literal takes seconds. So:

* literals of up to :data:`SHORT` characters make one trie-shaped
  expression: a search walks at most that deep at any position;
* each longer literal is looked for with :meth:`str.find` (CPython searches
  long needles in linear time, with the two-way algorithm), and the
  occurrence found is remembered: the text is searched for that literal
  again only once the scan has passed it.

Letters are compared without their ASCII case: a value printed upper- or
lower-cased (``quote(v).lower()``, a hexadecimal key in capitals) is the
value still. Folding ASCII only keeps every character where it was, so the
spans found in the folded text are the spans in the text.

:attr:`Literals.heads` (every literal's first :data:`HEAD` characters) is
what a cheap search looks for first, to skip text that holds none.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Iterator

from ._patterns import trie_pattern

__all__ = ["HEAD", "SHORT", "Literals"]

#: Literals longer than this are looked for with ``str.find``, not in the trie.
SHORT = 64
#: How much of each literal :attr:`Literals.heads` holds.
HEAD = 16
_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


class Literals:
    """A set of literals to find in text, leftmost first, the longest at a position.

    ASCII letters match whatever their case.

    Args:
        words: the literals (empty ones are ignored).

    Attributes:
        heads: every literal's first :data:`HEAD` characters: text that
            holds none of them holds no literal.

    """

    __slots__ = ("_long", "_short", "_short_words", "heads")

    def __init__(self, words: Iterable[str]) -> None:
        unique = {w.translate(_FOLD) for w in words if w}
        self._short_words = frozenset(w for w in unique if len(w) <= SHORT)
        self._long = tuple(sorted(unique - self._short_words))
        self.heads: tuple[str, ...] = tuple(sorted({w[:HEAD] for w in unique}))
        # Compiled on first use: a redactor that never meets text pays nothing.
        self._short: re.Pattern[str] | None = None

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        """Yield ``(start, end)`` of each occurrence, left to right, never overlapping.

        At each position the longest literal wins, as a regular expression
        alternation of the literals, longest first, would match.

        Args:
            text: the text to search.

        """
        if self._short is None:
            self._short = re.compile(trie_pattern(self._short_words))
        short = self._short
        text = text.translate(_FOLD)
        # The next occurrence of each long literal at or after where it was
        # last looked for: (start, -length, literal), the leftmost and then
        # the longest first. A literal not found again leaves the heap.
        ahead: list[tuple[int, int, str]] = []
        for word in self._long:
            at = text.find(word)
            if at >= 0:
                ahead.append((at, -len(word), word))
        heapq.heapify(ahead)
        pos = 0
        found: re.Match[str] | None = None
        stale = bool(self._short_words)  # ``found`` must be looked for (again)
        while True:
            while ahead and ahead[0][0] < pos:  # passed: look again from here
                _, length, word = ahead[0]
                at = text.find(word, pos)
                if at < 0:
                    heapq.heappop(ahead)
                else:
                    heapq.heapreplace(ahead, (at, length, word))
            if stale or (found is not None and found.start() < pos):
                # Where nothing matched from an earlier place, nothing matches
                # from a later one: the text is searched once, not per match.
                found = short.search(text, pos)
                stale = False
            if ahead and (found is None or ahead[0][0] <= found.start()):
                # At the same place a long literal is longer than any short one.
                start, length, _ = ahead[0]
                end = start - length
            elif found is not None:
                start, end = found.span()
            else:
                return
            yield start, end
            pos = end

    def sub(self, replacement: str, text: str) -> str:
        """Return ``text`` with every occurrence replaced (the same object when there is none).

        Args:
            replacement: what each occurrence becomes.
            text: the text.

        """
        pieces: list[str] = []
        last = 0
        for start, end in self.spans(text):
            pieces += (text[last:start], replacement)
            last = end
        if not pieces:
            return text
        pieces.append(text[last:])
        return "".join(pieces)
