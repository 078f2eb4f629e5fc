"""Traces on the command line: live checks of a run, and ``acphost validate``.

Both print what the agent sent (methods, ids, schema messages quoting
values): every line goes through the terminal sanitiser, and live warnings
through the run's redactor too, since they may quote a frame.
"""

from __future__ import annotations

import logging
import operator
import sys
from collections.abc import Callable
from typing import Any, Literal

import msgspec
import orjson

from ..errors import AcpError, RemoteProtocolError
from ..redact import Redactor
from ..rpc import FrameTap, chain_taps
from ..safetext import sanitize_line
from ..trace import TraceValidator, Violation, validate_file

__all__ = ["LiveCheck", "validate"]

logger = logging.getLogger("acphost.validate")


class _Update(msgspec.Struct, gc=False):
    kind: str = msgspec.field(name="sessionUpdate")
    # A subagent_update's child (the session it announces), read without a
    # call: absent from every other update.
    child: str | None = msgspec.field(name="sessionId", default=None)


class _Params(msgspec.Struct, gc=False):
    session_id: str = msgspec.field(name="sessionId")
    update: _Update


class _SessionUpdate(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """What the ordering and capability rules read of a ``session/update`` frame.

    Nothing else: other members are skipped unread (no object is built for
    them); a frame of another shape (an ``id``, another method or version, a
    member of the wrong type) does not match and is checked whole.
    """

    jsonrpc: Literal["2.0"]
    method: Literal["session/update"]
    params: _Params


_reader = msgspec.json.Decoder(_SessionUpdate)
_read_update = _reader.decode
_read_updates = _reader.decode_lines
_session_and_kind = operator.attrgetter(
    "params.session_id", "params.update.kind", "params.update.child"
)


# ACP v2, for a block of updates: the same, plus what a ``state_update`` ends
# the turn with (a line-by-line search for the kind would miss an escaped one).


class _ChildState(msgspec.Struct, frozen=True, gc=False):
    """A ``subagent_update``'s ``state`` object: read past, not into (hashable, as tuples go)."""


class _UpdateV2(msgspec.Struct, gc=False):
    kind: str = msgspec.field(name="sessionUpdate")
    child: str | None = msgspec.field(name="sessionId", default=None)
    state: str | _ChildState | None = None
    stop: str | None = msgspec.field(name="stopReason", default=None)


class _ParamsV2(msgspec.Struct, gc=False):
    session_id: str = msgspec.field(name="sessionId")
    update: _UpdateV2


class _SessionUpdateV2(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """:class:`_SessionUpdate` on a v2 connection: with the update's state and stop reason."""

    jsonrpc: Literal["2.0"]
    method: Literal["session/update"]
    params: _ParamsV2


_reader_v2 = msgspec.json.Decoder(_SessionUpdateV2)
_v2_fields = operator.attrgetter(
    "params.session_id",
    "params.update.kind",
    "params.update.child",
    "params.update.state",
    "params.update.stop",
)


class LiveCheck:
    """Validates a run's frames as they pass (a frame tap).

    By default only the ordering and capability rules are checked and each
    violation is logged as a warning. ``strict`` adds the schema and stops the
    run at the agent's first violation (``on_abort``). Frames the JSON-RPC
    reader refuses are left to it (it reports them once); nothing a frame
    holds makes the check raise into the connection.

    It runs for every frame of every run, so the frame a stream repeats, an
    incoming ``session/update``, is read only as far as those rules look (its
    session id and kind) when the schema is not checked. A ``state_update``
    (ACP v2 ends a turn with its state and stop reason) is read whole, and
    on a v2 connection (the version the ``initialize`` exchange it sees
    agreed) a block of updates is read with those two members too.

    Args:
        strict: check the schema too, and abort on the agent's first violation.
        on_abort: called once with the error that stops the run.
        redactor: applied to every warning (default: patterns only; pass the
            run's, built from its configuration).

    """

    def __init__(
        self,
        *,
        strict: bool,
        on_abort: Callable[[AcpError], None],
        redactor: Redactor | None = None,
    ) -> None:
        self.strict = strict
        self.validator = TraceValidator(schema=strict)
        self.on_abort = on_abort
        self.failure: AcpError | None = None
        self.redactor = redactor or Redactor()
        # How a block of updates is read: v1's reader, or v2's once the connection agreed 2.
        self._v2 = False
        self._read_updates: Callable[[bytes], list[Any]] = _read_updates
        self._fields: Callable[[Any], tuple[Any, ...]] = _session_and_kind

    def __call__(self, direction: str, line: bytes) -> None:
        """Check one frame (``send``/``receive``)."""
        try:
            if direction == "receive" and not self.strict:
                try:
                    hot = _read_update(line)
                except (ValueError, RecursionError):  # msgspec.DecodeError is one
                    pass  # another frame: read whole below
                else:
                    params = hot.params
                    update = params.update
                    if update.kind != "state_update":  # v2 ends a turn with it: read whole
                        for v in self.validator.feed_session_update(
                            params.session_id, update.kind, update.child
                        ):
                            self._report(v)
                        return
            try:
                frame: Any = orjson.loads(line)
            except orjson.JSONDecodeError:
                return  # the JSON-RPC core reports unparsable frames itself
            found = self.validator.feed("outgoing" if direction == "send" else "incoming", frame)
            if (self.validator.protocol_version >= 2) != self._v2:  # initialize agreed
                self._v2 = not self._v2
                self._read_updates = _reader_v2.decode_lines if self._v2 else _read_updates
                self._fields = _v2_fields if self._v2 else _session_and_kind
        except Exception as exc:  # a checker bug must never take the run down
            self._off(exc)
            return
        for v in found:
            self._report(v)

    def receive_block(self, block: bytes) -> None:
        """Check a block of received lines at once (the client's decoded updates).

        Without the schema, a block of ``session/update`` frames is read in
        one go and checked in one call; anything else, line by line.
        """
        if not self.strict:
            try:
                updates = self._read_updates(block)
            except (ValueError, RecursionError):  # not only updates: line by line
                pass
            else:
                try:
                    found = self.validator.feed_session_updates(list(map(self._fields, updates)))
                except Exception as exc:  # a checker bug must never take the run down
                    self._off(exc)
                    return
                for v in found:
                    self._report(v)
                return
        for line in block[:-1].split(b"\n"):
            if line and not line.isspace():
                self("receive", line)

    def _off(self, exc: Exception) -> None:
        logger.error(
            "the live protocol check failed on a frame (%s); it is off for this run",
            type(exc).__name__,
        )
        logger.debug("the live protocol check failed", exc_info=True)
        self.validator = _Off()

    def _report(self, v: Violation) -> None:
        message = self.redactor.redact_text(v.message)
        if self.strict and v.side == "agent":
            if self.failure is None:
                self.failure = RemoteProtocolError(
                    f"--strict: the agent broke the protocol ({v.rule}): {message}"
                )
                self.on_abort(self.failure)
            return
        logger.warning(
            "protocol violation by the %s (%s): %s", v.side, v.rule, sanitize_line(message)
        )

    def chain(self, tap: FrameTap | None) -> FrameTap:
        """A tap that feeds this check, then ``tap``."""
        chained = chain_taps(self, tap)
        assert chained is not None  # this check is one of them
        return chained


class _Off(TraceValidator):
    def feed(self, direction: Any, frame: Any, line: int | None = None) -> list[Violation]:
        return []

    def feed_session_update(
        self,
        session_id: str,
        kind: str,
        child: str | None = None,
        state: object = None,
        stop_reason: object = None,
    ) -> list[Violation]:
        return []

    def feed_session_updates(self, updates: Any) -> list[Violation]:
        return []


def validate(paths: list[str], *, schema: bool) -> int:
    """``acphost validate``: print each violation as ``FILE:LINE: …``.

    Every file is checked, even after one cannot be read.

    Returns:
        0 when every file is clean, 1 when one has violations, 2 when one
        cannot be read (or jsonschema is missing).

    """
    violated = unreadable = False
    for path in paths:
        shown = sanitize_line(path)
        try:
            violations = validate_file(path, schema=schema)
        except OSError as exc:
            print(f"acphost: cannot read trace {shown}: {exc.strerror or exc}", file=sys.stderr)
            unreadable = True
            continue
        except RuntimeError as exc:
            print(f"acphost: {exc}", file=sys.stderr)
            return 2
        for v in violations:
            print(sanitize_line(f"{path}:{v.line}: [{v.side}] {v.rule}: {v.message}"))
        violated = violated or bool(violations)
        if not violations:
            print(f"{shown}: ok", file=sys.stderr)
    return 2 if unreadable else 1 if violated else 0
