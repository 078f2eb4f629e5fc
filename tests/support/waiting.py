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


async def settled(*, rounds: int = 10_000) -> None:
    """Return once the event loop has nothing left to run but the calling task.

    For a check that something did *not* happen, between parties in this
    loop (in-memory transports, tasks, futures): once nothing is ready to run
    and no timer is due, whatever would prove the check wrong would have to
    have been scheduled already, so it cannot pass merely because the test
    did not wait long enough (as one ``asyncio.sleep(0)`` can). Timers set for
    later (a timeout) do not count: they are not the consequence being
    checked. Not for real pipes or processes: the loop may be idle while the
    kernel still holds their bytes; wait for a later frame there instead.
    """
    loop = asyncio.get_running_loop()
    for _ in range(rounds):
        await asyncio.sleep(0)
        ready = loop._ready  # type: ignore[attr-defined]  # asyncio's run queue
        due = [
            h
            for h in loop._scheduled  # type: ignore[attr-defined]  # asyncio's timers
            if not h.cancelled() and h.when() <= loop.time() + loop._clock_resolution  # type: ignore[attr-defined]
        ]
        if not ready and not due:
            return
    raise AssertionError(f"the event loop still had work after {rounds} rounds")
