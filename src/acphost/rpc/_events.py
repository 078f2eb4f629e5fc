"""What the JSON-RPC core reports: one frozen, slotted event per thing that happened."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Union

from .._errors import RequestError

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


@dataclass(frozen=True, slots=True)
class Request:
    """The peer sent a request; it must get exactly one response."""

    id: RequestId
    method: str
    params: Any


@dataclass(frozen=True, slots=True)
class Notification:
    """The peer sent a notification (no response expected)."""

    method: str
    params: Any


@dataclass(frozen=True, slots=True)
class Response:
    """The peer answered one of our requests with a result."""

    id: RequestId
    method: str
    result: Any


@dataclass(frozen=True, slots=True)
class ErrorResponse:
    """The peer answered one of our requests with an error."""

    id: RequestId
    method: str
    error: RequestError


@dataclass(frozen=True, slots=True)
class CancelRequested:
    """The peer asked us to abandon the request it sent with this id."""

    id: RequestId


@dataclass(frozen=True, slots=True)
class ProtocolViolation:
    """The peer sent something that breaks JSON-RPC; the frame was skipped.

    When JSON-RPC requires an answer (bad JSON, bad request object), the core
    has already queued it.

    Attributes:
        message: what was wrong, in a sentence.
        excerpt: the start of the offending line, exact bytes (not safe to
            print as is: pass it through ``repr`` or a sanitiser).

    """

    message: str
    excerpt: bytes


Event = Union[Request, Notification, Response, ErrorResponse, CancelRequested, ProtocolViolation]
