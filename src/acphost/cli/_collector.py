"""The garbage collector, paused while a run imports its modules.

Importing the ~300 modules of a prompt run makes tens of thousands of
objects that live as long as the process. The collector's passes over them
while they are made free nothing and cost ~6% of a prompt run's start-up,
so :func:`acphost.cli.main` pauses it first and the run resumes it once
everything is imported (before the turn streams; a subcommand at once).
Run as the program, what exists then is moved out of the collector's reach
(``gc.freeze``), so later full collections skip it too; called in process,
the collector is left as it was found.
"""

from __future__ import annotations

import gc

__all__ = ["pause", "resume"]

# Whether the collector is paused now, and whether resuming freezes what exists.
_state = {"paused": False, "freeze": False}


def pause(*, freeze: bool) -> None:
    """Turn the collector off until :func:`resume` (nothing happens if it is off already).

    Args:
        freeze: resuming also freezes the objects that exist then (for the
            program, whose process ends with the run; not in process).

    """
    if gc.isenabled():
        gc.disable()
        _state.update(paused=True, freeze=freeze)


def resume() -> None:
    """Turn the collector back on if :func:`pause` turned it off. Idempotent."""
    if _state["paused"]:
        _state["paused"] = False
        if _state["freeze"]:
            gc.freeze()
        gc.enable()
