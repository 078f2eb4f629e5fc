"""The error raised when a wire object does not match the ACP schema."""

from __future__ import annotations

from acphost.errors import RemoteProtocolError

__all__ = ["SchemaError"]


class SchemaError(RemoteProtocolError, ValueError):
    """A wire object does not match the schema.

    Args:
        path: where, in JSON names (``update.content[2].text``); ``""`` for the root.
        reason: what is wrong (``expected a string, got 42``).

    Raised by the generated ``from_wire`` and ``decode_*`` functions. The frame
    is unusable as that type: answer a request with ``InvalidParams``, or log
    and drop a notification.

    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        # The path as segments (keys, list indexes), outermost first. The
        # generated decoders build no path on success: each level prefixes its
        # segment only while an error propagates up (see ``_within``).
        self._segs: list[str | int] = [path] if path else []
        super().__init__(f"{path}: {reason}" if path else reason)

    def _within(self, seg: str | int) -> None:
        """Prefix a key or a list index to the path (the error left that member)."""
        self._segs.insert(0, seg)
        self._rebase("")

    def _rebase(self, base: str) -> None:
        """Set the path to ``base`` followed by the segments (``base`` may be "")."""
        path = base
        for seg in self._segs:
            if isinstance(seg, int):
                path = f"{path}[{seg}]"
            elif path:
                path = f"{path}.{seg}"
            else:
                path = seg
        self.path = path
        self.args = (f"{path}: {self.reason}" if path else self.reason,)
