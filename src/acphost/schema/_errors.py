"""The error raised when a wire object does not match the ACP schema."""

from __future__ import annotations

from acphost._errors import RemoteProtocolError

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
        super().__init__(f"{path}: {reason}" if path else reason)
