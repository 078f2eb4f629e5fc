"""Frame taps: callbacks that see the exact bytes of every valid frame.

A tap is attached to one :class:`~acphost.rpc.RpcCore` (its ``tap=``
argument), or to every core created inside a :func:`tap_all_cores` block:
that is how a test suite or a debugging session watches connections made by
code it does not control, without changing which code path runs.

A tap may also have a ``receive_block(block)`` method: the core then gives it
the lines of a block its typed decoder read at once (``bytes``: whole lines,
each ending with a newline; blank ones are not frames), instead of one call
per line. Chained taps keep it: those without the method get the lines one
by one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Literal

__all__ = ["FrameTap", "TapFactory", "chain_taps", "deliver_block", "tap_all_cores"]

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
    return _Chain(present)


class _Chain:
    """Taps called in turn; a block goes to each as it takes blocks (see the module)."""

    __slots__ = ("taps",)

    def __init__(self, taps: tuple[FrameTap, ...]) -> None:
        self.taps = taps

    def __call__(self, direction: Literal["send", "receive"], line: bytes) -> None:
        _each(self.taps, lambda tap: tap(direction, line))

    def receive_block(self, block: bytes) -> None:
        _each(self.taps, lambda tap: deliver_block(tap, block))


def _each(taps: tuple[FrameTap, ...], action: Callable[[FrameTap], object]) -> None:
    """``action(tap)`` for every tap, even after one raised (then raised again at the end)."""
    failed: Exception | None = None
    for tap in taps:
        try:
            action(tap)
        except Exception as exc:
            failed = exc
    if failed is not None:
        raise failed


def deliver_block(tap: FrameTap, block: bytes) -> None:
    """Give ``tap`` the lines of a decoded block: at once if it takes blocks, else one by one.

    Raises:
        Exception: the last error the tap raised; every line reached it all the same.

    """
    receive_block = getattr(tap, "receive_block", None)
    if receive_block is not None:
        receive_block(block)
        return
    failed: Exception | None = None
    for line in block[:-1].split(b"\n"):
        if line and not line.isspace():
            try:
                tap("receive", line)
            except Exception as exc:
                failed = exc
    if failed is not None:
        raise failed


def taps_for(own: FrameTap | None) -> FrameTap | None:
    """The tap a new core uses: its own, then those of the active factories."""
    if not _factories:
        return own
    with _lock:
        factories = tuple(_factories)
    return chain_taps(own, *(factory() for factory in factories))
