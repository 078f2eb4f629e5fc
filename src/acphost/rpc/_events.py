"""What the JSON-RPC core reports: one frozen, slotted event per thing that happened.

The events are plain slotted classes with value semantics (equality, hash,
repr, pattern matching by position), written out rather than made by
``dataclasses``: its code generation cost milliseconds at import, on the path
of every command line run.
"""

from __future__ import annotations

from typing import Any, ClassVar, Union

from ..errors import RemoteProtocolError, RequestError

__all__ = [
    "CancelRequested",
    "ErrorResponse",
    "Event",
    "Notification",
    "ProtocolViolation",
    "Request",
    "RequestId",
    "Response",
]

RequestId = Union[int, str, None]
_set = object.__setattr__


class _Frozen:
    """Value semantics over ``__slots__``; assigning an attribute raises."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__match_args__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__match_args__)
        return f"{self.__class__.__qualname__}({shown})"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")


class Request(_Frozen):
    """The peer sent a request; it must get exactly one response."""

    __slots__ = ("id", "method", "params")
    __match_args__ = ("id", "method", "params")
    id: RequestId
    method: str
    params: Any

    def __init__(self, id: RequestId, method: str, params: Any) -> None:
        _set(self, "id", id)
        _set(self, "method", method)
        _set(self, "params", params)


class Notification(_Frozen):
    """The peer sent a notification (no response expected)."""

    __slots__ = ("method", "params")
    __match_args__ = ("method", "params")
    method: str
    params: Any

    def __init__(self, method: str, params: Any) -> None:
        _set(self, "method", method)
        _set(self, "params", params)


class Response(_Frozen):
    """The peer answered one of our requests with a result."""

    __slots__ = ("id", "method", "result")
    __match_args__ = ("id", "method", "result")
    id: RequestId
    method: str
    result: Any

    def __init__(self, id: RequestId, method: str, result: Any) -> None:
        _set(self, "id", id)
        _set(self, "method", method)
        _set(self, "result", result)


class ErrorResponse(_Frozen):
    """One of our requests failed: the peer answered it with an error, or broke it.

    Attributes:
        error: the peer's JSON-RPC error (a :class:`~acphost.RequestError`),
            or a :class:`~acphost.RemoteProtocolError` when its answer could
            be told apart (its id read) but not decoded: malformed JSON, or
            longer than the line limit. Either way the request is over.

    """

    __slots__ = ("error", "id", "method")
    __match_args__ = ("id", "method", "error")
    id: RequestId
    method: str
    error: RequestError | RemoteProtocolError

    def __init__(
        self, id: RequestId, method: str, error: RequestError | RemoteProtocolError
    ) -> None:
        _set(self, "id", id)
        _set(self, "method", method)
        _set(self, "error", error)


class CancelRequested(_Frozen):
    """The peer asked us to abandon the request it sent with this id."""

    __slots__ = ("id",)
    __match_args__ = ("id",)
    id: RequestId

    def __init__(self, id: RequestId) -> None:
        _set(self, "id", id)


class ProtocolViolation(_Frozen):
    """The peer sent something that breaks JSON-RPC; the frame was skipped.

    When JSON-RPC requires an answer (bad JSON, bad request object), the core
    has already queued it.

    Attributes:
        message: what was wrong, in a sentence.
        excerpt: the start of the offending line, exact bytes (not safe to
            print as is: pass it through ``repr`` or a sanitiser).
        cut: the line was longer than the excerpt (whoever shows the
            excerpt marks it :data:`~acphost.safetext.CUT` before redacting).

    """

    __slots__ = ("cut", "excerpt", "message")
    __match_args__ = ("message", "excerpt")
    message: str
    excerpt: bytes
    cut: bool

    def __init__(self, message: str, excerpt: bytes, cut: bool = False) -> None:
        _set(self, "message", message)
        _set(self, "excerpt", excerpt)
        _set(self, "cut", cut)


Event = Union[Request, Notification, Response, ErrorResponse, CancelRequested, ProtocolViolation]
