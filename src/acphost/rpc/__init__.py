"""The JSON-RPC layer: a sans-I/O core and its asyncio driver."""

from ._connection import Connection, NotificationHandler, RequestHandler
from ._core import (
    DEFAULT_MAX_LINE_BYTES,
    CancelRequested,
    ErrorResponse,
    Event,
    FrameTap,
    Notification,
    ProtocolViolation,
    Request,
    Response,
    RpcCore,
)

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "CancelRequested",
    "Connection",
    "ErrorResponse",
    "Event",
    "FrameTap",
    "NotificationHandler",
    "Notification",
    "ProtocolViolation",
    "Request",
    "RequestHandler",
    "Response",
    "RpcCore",
]
