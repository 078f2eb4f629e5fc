"""Traces on the command line: live checks of a run, and ``acphost validate``."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from typing import Any

from .._errors import AcpError, RemoteProtocolError
from ..rpc import FrameTap
from ..trace import TraceValidator, Violation, validate_file

__all__ = ["LiveCheck", "validate"]

logger = logging.getLogger("acphost.validate")


class LiveCheck:
    """Validates a run's frames as they pass (a frame tap).

    By default only the ordering and capability rules are checked and each
    violation is logged as a warning. ``strict`` adds the schema and stops the
    run at the agent's first violation (``on_abort``).
    """

    def __init__(self, *, strict: bool, on_abort: Callable[[AcpError], None]) -> None:
        self.strict = strict
        self.validator = TraceValidator(schema=strict)
        self.on_abort = on_abort
        self.failure: AcpError | None = None

    def __call__(self, direction: str, line: bytes) -> None:
        """Check one frame (``send``/``receive``)."""
        try:
            frame: Any = json.loads(line)
        except ValueError:
            return  # the JSON-RPC core reports unparsable frames itself
        try:
            found = self.validator.feed("outgoing" if direction == "send" else "incoming", frame)
        except Exception:  # a checker bug must never take the run down
            logger.exception("the live protocol check failed on a frame; it is off for this run")
            self.validator = _Off()
            return
        for v in found:
            self._report(v)

    def _report(self, v: Violation) -> None:
        if self.strict and v.side == "agent":
            if self.failure is None:
                self.failure = RemoteProtocolError(
                    f"--strict: the agent broke the protocol ({v.rule}): {v.message}"
                )
                self.on_abort(self.failure)
            return
        logger.warning("protocol violation by the %s (%s): %s", v.side, v.rule, v.message)

    def chain(self, tap: FrameTap | None) -> FrameTap:
        """A tap that feeds this check, then ``tap``."""
        if tap is None:
            return self

        def both(direction: Any, line: bytes) -> None:
            self(direction, line)
            tap(direction, line)

        return both


class _Off(TraceValidator):
    def feed(self, direction: Any, frame: Any, line: int | None = None) -> list[Violation]:
        return []


def validate(paths: list[str], *, schema: bool) -> int:
    """``acphost validate``: print each violation as ``FILE:LINE: …``; 0 when all are clean."""
    total = 0
    for path in paths:
        try:
            violations = validate_file(path, schema=schema)
        except OSError as exc:
            print(f"acphost: cannot read trace {path}: {exc.strerror}", file=sys.stderr)
            return 2
        except RuntimeError as exc:
            print(f"acphost: {exc}", file=sys.stderr)
            return 2
        for v in violations:
            print(f"{path}:{v.line}: [{v.side}] {v.rule}: {v.message}")
        total += len(violations)
        if not violations:
            print(f"{path}: ok", file=sys.stderr)
    return 1 if total else 0
