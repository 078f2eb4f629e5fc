"""A run of a turn's message or thought text as it streams: joined as it comes, written in parts.

The recorder's listener appends each chunk to :attr:`TextRun.pieces` (the hot
path: one ``append``). Every :data:`GATHER` characters the pieces are joined
into one string, so a flood of short chunks never holds a million small
objects; once :data:`PART` characters are pending, the run is cut and the part
before the cut is redacted and written to the store, so a long turn never
holds its whole text either.

A cut must not change what the redactor finds: a secret split across two
parts would be found in neither. So the text after a cut stays pending (at
least :func:`lookahead` characters: the redactor's :data:`~acphost.redact.REACH`,
how far past its start any rule's match is known to be one, plus twice the
longest configured value), and the cut is taken only when redacting the
pending text whole gives the redaction of the text after the cut as its
end. A match starting before the cut is then seen in the pending text
(it is known within REACH, and a configured value is whole within the
rest), so it shows as a difference: no match crosses the cut, and the part
before it is written as the whole text's redaction shows it. When a
match does cross it (a configured value, a key-value pair, an unterminated
private key), the text stays pending until one does not, or until the run
ends and is redacted whole.
"""

from __future__ import annotations

from collections.abc import Callable

from ..redact import REACH

__all__ = ["GATHER", "LOOKAHEAD", "PART", "TextRun", "lookahead"]

#: Characters between two joins of a run's pieces (the listener's slow path).
GATHER = 16 * 1024
#: Characters of pending text before a part is cut off and written.
PART = 128 * 1024
#: The least text kept after a cut, whatever the longest configured value.
LOOKAHEAD = 2 * REACH


def lookahead(secrets: tuple[str, ...]) -> int:
    """The text kept after a cut: a rule's reach, and any configured value twice over."""
    return max(LOOKAHEAD, REACH + 2 * max((len(v) for v in secrets), default=0))


def _boundary(raw: str, end: int) -> int:
    """Where to cut ``raw`` at or before ``end``: after a line, else a space, else at ``end``.

    A part that ends at a line break keeps words and lines whole, so that a
    search of the stored parts finds what it would find in the whole text.
    """
    low = max(0, end - PART // 2)
    for sep in ("\n", " "):
        at = raw.rfind(sep, low, end)
        if at >= 0:
            return at + 1
    return end


class TextRun:
    """The text of one ``text`` or ``thought`` event of a turn.

    Attributes:
        kind: ``text`` or ``thought``.
        index: the event's index in the turn's events.
        pieces: the chunks appended since the last join.
        blocks: the text joined so far and not yet written.
        size: characters in ``blocks``.
        written: parts of it already in the store.

    """

    __slots__ = ("blocks", "index", "kind", "pieces", "retry", "size", "written")

    def __init__(self, kind: str, index: int, pieces: list[str]) -> None:
        self.kind = kind
        self.index = index
        self.pieces = pieces
        self.blocks: list[str] = []
        self.size = 0
        self.retry = 0
        self.written = 0

    def gather(self) -> None:
        """Join the pieces into one block (the list object is kept: the listener holds it)."""
        if self.pieces:
            block = "".join(self.pieces)
            self.pieces.clear()
            self.blocks.append(block)
            self.size += len(block)

    def rest(self) -> str:
        """All the text not yet written, joined (the pieces included)."""
        self.gather()
        return "".join(self.blocks)

    def take(self) -> str:
        """:meth:`rest`, which is then forgotten (it is about to be written)."""
        text = self.rest()
        self.blocks = []
        self.size = 0
        return text

    def cut(self, redact: Callable[[str], str], keep: int) -> str | None:
        """Cut off a part, redacted, when enough is pending and no secret crosses the cut.

        Args:
            redact: the redactor's text function.
            keep: characters that stay pending after the cut (:func:`lookahead`).

        Returns:
            The redacted part to write, or None (nothing is cut).

        """
        if self.size < max(PART + keep, self.retry):
            return None
        raw = "".join(self.blocks)
        whole = redact(raw)
        end = len(raw) - keep
        for _ in range(3):
            at = _boundary(raw, end)
            tail = redact(raw[at:])
            if whole.endswith(tail):
                self.blocks = [raw[at:]]
                self.size = len(raw) - at
                self.retry = 0
                return whole[: len(whole) - len(tail)]
            end = at - keep  # a match crosses the cut: try before it
            if end <= 0:
                break
        # Look again once the pending text has doubled (not at every gather).
        self.blocks = [raw]
        self.retry = 2 * len(raw)
        return None
