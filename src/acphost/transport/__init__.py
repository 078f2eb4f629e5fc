"""Byte transports to an agent: a stdio subprocess, or an in-memory pair for tests."""

from ._base import ExitInfo, Transport
from ._memory import MemoryTransport, memory_pair
from ._stdio import StdioTransport

__all__ = ["ExitInfo", "MemoryTransport", "StdioTransport", "Transport", "memory_pair"]
