"""Waiting on events in tests: await them, or poll a condition with a deadline.

Never sleep a fixed time hoping something happened: under load it has not,
and when idle the test wastes time. The deadline is generous because it is
only reached when the test fails.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

DEADLINE = 10.0


async def eventually(
    condition: Callable[[], object], *, timeout: float = DEADLINE, what: str = "the condition"
) -> None:
    """Return as soon as ``condition()`` is true; fail the test at the deadline."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"{what} did not hold within {timeout:g} s")
        await asyncio.sleep(0.005)


def eventually_sync(
    condition: Callable[[], object], *, timeout: float = DEADLINE, what: str = "the condition"
) -> None:
    """:func:`eventually` for code outside an event loop."""
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"{what} did not hold within {timeout:g} s")
        time.sleep(0.005)
