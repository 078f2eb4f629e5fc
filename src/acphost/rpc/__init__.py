"""The JSON-RPC layer: a sans-I/O core, its asyncio driver and frame taps."""

from ._connection import (
    BlockHandler,
    Connection,
    DecodedHandler,
    NotificationHandler,
    RequestHandler,
)
from ._core import DEFAULT_MAX_LINE_BYTES, BlockDecoder, NotificationDecoder, RpcCore
from ._events import (
    CancelRequested,
    ErrorResponse,
    Event,
    Notification,
    ProtocolViolation,
    Request,
    Response,
)
from ._taps import FrameTap, TapFactory, chain_taps, tap_all_cores

__all__ = [
    "DEFAULT_MAX_LINE_BYTES",
    "BlockDecoder",
    "BlockHandler",
    "CancelRequested",
    "Connection",
    "DecodedHandler",
    "ErrorResponse",
    "Event",
    "FrameTap",
    "Notification",
    "NotificationDecoder",
    "NotificationHandler",
    "ProtocolViolation",
    "Request",
    "RequestHandler",
    "Response",
    "RpcCore",
    "TapFactory",
    "chain_taps",
    "tap_all_cores",
]
