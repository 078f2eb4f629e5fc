"""Validate every frame the client sends against the vendored ACP schema.

A thin layer over :class:`acphost.trace.TraceValidator`, which follows the
traffic in both directions (so the client's responses are checked against the
response type of the agent's request), keeping only what the *client* broke:
agents in the tests misbehave on purpose, our client must not.

The protocol version is the one the ``initialize`` exchange the checker sees
agreed (a refused ``initialize`` followed by another counts the last): on
version 2 the client's frames are checked against the v2 schema and v2's
rules (no ``session/load``, ``type`` on ``set_config_option``, capabilities
as objects), on version 1 against v1's.
"""

from __future__ import annotations

from typing import Any

import orjson

from acphost.trace import TraceValidator


class _ClientSchemaValidator(TraceValidator):
    """Follows both directions, checks shapes only of what the client sends.

    The agents in the tests misbehave on purpose; validating every frame they
    send against the whole schema would only cost time (a flood of updates
    would be checked one by one inside the client's reader).
    """

    def _check_schema(self, at: int, side: Any, name: str | None, value: Any) -> None:
        # Shapes only the unstable schema defines (``systemPrompt``,
        # ``clientCapabilities.subagents``) are checked there by the validator.
        if side == "client":
            super()._check_schema(at, side, name, value)


class FrameChecker:
    """Feed it every frame (direction, bytes); it records the client's violations."""

    def __init__(self, ignore: frozenset[str] = frozenset()) -> None:
        self.ignore = ignore
        self.errors: list[str] = []
        self.sent = 0
        self.received = 0
        self._validator = _ClientSchemaValidator(schema=True)

    @property
    def protocol_version(self) -> int:
        """The version the client's frames are checked against (1, or 2 once negotiated)."""
        return self._validator.protocol_version

    def __call__(self, direction: str, line: bytes) -> None:
        outgoing = direction == "send"
        try:
            msg: Any = orjson.loads(line)  # no recursion limit below orjson's own
        except ValueError:
            # The core hands taps only frames that parse; anything else is a bug.
            self.errors.append(
                f"a tap was given a line that is not JSON ({direction}): {line[:200]!r}"
            )
            return
        if outgoing:
            self.sent += 1
        else:
            self.received += 1
        try:
            found = self._validator.feed("outgoing" if outgoing else "incoming", msg)
        except RecursionError:
            # Only an agent nests frames this deep on purpose.
            if outgoing:
                self.errors.append(f"client sent a frame too deep to validate: {line[:200]!r}")
            return
        self.errors.extend(
            str(v) for v in found if v.side == "client" and v.rule not in self.ignore
        )
