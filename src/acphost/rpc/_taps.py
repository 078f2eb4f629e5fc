"""Frame taps: callbacks that see the exact bytes of every valid frame.

A tap is attached to one :class:`~acphost.rpc.RpcCore` (its ``tap=``
argument), or to every core created inside a :func:`tap_all_cores` block:
that is how a test suite or a debugging session watches connections made by
code it does not control, without changing which code path runs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal

__all__ = ["FrameTap", "TapFactory", "chain_taps", "tap_all_cores"]

#: ``tap(direction, line)``: ``"receive"`` or ``"send"``, and the frame's
#: exact bytes without the newline.
FrameTap = Callable[[Literal["send", "receive"], bytes], object]
#: Called once per new core; returns the tap to attach to it, or None.
TapFactory = Callable[[], "FrameTap | None"]

_lock = threading.Lock()
_factories: list[TapFactory] = []


@contextmanager
def tap_all_cores(factory: TapFactory) -> Iterator[None]:
    """Attach ``factory()``'s tap to every :class:`RpcCore` created in the block.

    The tap runs after the core's own ``tap=``, on the same path as every
    other tap: observing never changes how frames are parsed. Blocks may be
    nested and used from several threads; cores created before the block or
    after it are not touched.

    Args:
        factory: called once per new core; returns its tap, or None to skip it.

    Returns:
        A context manager; the factory is removed when the block ends.

    """
    with _lock:
        _factories.append(factory)
    try:
        yield
    finally:
        with _lock:
            _factories.remove(factory)


def chain_taps(*taps: FrameTap | None) -> FrameTap | None:
    """Combine taps into one that calls each in turn; ``None`` entries are skipped.

    Args:
        *taps: the taps, in the order they should see each frame.

    Returns:
        None when no tap is given, the tap itself when there is one, else a
        tap that calls them all: every one sees every frame even when one
        before it raises (the error is raised again once all have run).

    """
    present = tuple(t for t in taps if t is not None)
    if not present:
        return None
    if len(present) == 1:
        return present[0]

    def chained(direction: Literal["send", "receive"], line: bytes) -> None:
        failed: Exception | None = None
        for tap in present:
            try:
                tap(direction, line)
            except Exception as exc:
                failed = exc
        if failed is not None:
            raise failed

    return chained


def taps_for(own: FrameTap | None) -> FrameTap | None:
    """The tap a new core uses: its own, then those of the active factories."""
    if not _factories:
        return own
    with _lock:
        factories = tuple(_factories)
    return chain_taps(own, *(factory() for factory in factories))
