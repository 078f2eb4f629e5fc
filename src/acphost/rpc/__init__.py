"""The JSON-RPC layer: a sans-I/O core and its asyncio driver."""

from ._connection import Connection
from ._core import (
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
    "CancelRequested",
    "Connection",
    "ErrorResponse",
    "Event",
    "FrameTap",
    "Notification",
    "ProtocolViolation",
    "Request",
    "Response",
    "RpcCore",
]
