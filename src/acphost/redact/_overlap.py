"""How far text runs into or out of a configured value: overlaps, in time linear in the text.

Two questions about a piece of text and a set of literals (the configured
values in every spelling) come up where text is not seen whole:

* does the text **end with the beginning** of a literal? The trace holds a
  chunk back while a value could still continue in the next one
  (:mod:`._carry`), and text cut short before it was redacted must not show
  the start of a value it cut (:class:`~acphost.trace.Redactor`);
* does the text **start with the end** of a literal? Text whose beginning
  was dropped (the last lines of a stream) must not show the rest of a value.

Checking each place where a literal's first character occurs costs the
text's length at each of them: quadratic when a long value is repetitive
and the text repeats it (``abab…``). So each literal gets the prefix
function of Knuth, Morris and Pratt (for each length ``i``, the longest
proper prefix of ``literal[:i]`` that is also its suffix); running that
automaton over the text's last ``len(literal)`` characters ends in the
state that answers the first question, each character costing amortised
constant time. The second question is the first one asked of the reversed
text and literals. A literal's prefix function is computed only as far as
some text ever reached into it, and kept.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["Overlaps"]


class _Automaton:
    """One literal's matching automaton, its prefix function extended on demand."""

    __slots__ = ("_fail", "word")

    def __init__(self, word: str) -> None:
        self.word = word
        # _fail[i]: the length of the longest proper border of word[: i + 1].
        self._fail: list[int] = [0]

    def _extend(self, length: int) -> None:
        """Compute the prefix function of ``word[:length]``."""
        word, fail = self.word, self._fail
        k = fail[-1]
        for i in range(len(fail), min(length, len(word))):
            c = word[i]
            while k and word[k] != c:
                k = fail[k - 1]
            if word[k] == c:
                k += 1
            fail.append(k)

    def overlap(self, text: str, *, proper: bool) -> int:
        """The length of the longest suffix of ``text`` that is a prefix of the word.

        Args:
            text: the text.
            proper: only prefixes shorter than the word count.

        """
        word = self.word
        n = len(word)
        window = text[len(text) - n :] if len(text) > n else text
        # Before the word's first character occurs, the automaton stays at 0.
        start = window.find(word[0])
        if start < 0:
            return 0
        window = window[start:]
        self._extend(len(window))
        fail = self._fail
        k = 0
        for c in window:
            if k == n:  # a whole occurrence: go on from its longest border
                k = fail[k - 1]
            while k and word[k] != c:
                k = fail[k - 1]
            if word[k] == c:
                k += 1
        if proper and k == n:
            k = fail[k - 1]
        return k


class Overlaps:
    """Overlaps of text with a set of literals, at either end.

    Args:
        words: the literals (empty ones are ignored).

    """

    __slots__ = ("_backward", "_forward")

    def __init__(self, words: Iterable[str]) -> None:
        unique = sorted({w for w in words if w})
        self._forward = [_Automaton(w) for w in unique]
        self._backward = [_Automaton(w[::-1]) for w in unique]

    def begins(self, text: str, *, proper: bool = False) -> int:
        """The length of the longest suffix of ``text`` that is the beginning of a literal.

        Args:
            text: the text.
            proper: only beginnings shorter than their literal count (a
                whole literal at the end is not a beginning of it).

        Returns:
            0 when the text ends with the beginning of none.

        """
        return max((a.overlap(text, proper=proper) for a in self._forward), default=0)

    def ends(self, text: str) -> int:
        """The length of the longest prefix of ``text`` that is the end of a literal.

        Args:
            text: the text.

        Returns:
            0 when the text starts with the end of none.

        """
        best = 0
        for a in self._backward:
            head = text[: len(a.word)]
            best = max(best, a.overlap(head[::-1], proper=False))
        return best
