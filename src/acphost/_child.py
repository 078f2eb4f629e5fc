"""The step every process acphost starts for an agent takes between fork and exec.

The agent's own process (:mod:`acphost.transport`) and each terminal it asks
for (``terminal/create`` and the ``run_command`` tool, :mod:`acphost.host`)
are spawned with :func:`preexec` as their ``preexec_fn``; with the sandbox on,
its hook runs inside it, after ours. One step, for both kinds of child:

- on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the child is killed when the
  host dies, even by SIGKILL, where no cleanup code of ours runs (closing the
  agent, killing a terminal's process group). Without it, a killed host
  leaves its terminals running (their stdin is ``/dev/null``: nothing tells
  them), and an agent that ignores the end of its stdin too;
- then ``getppid()`` is compared with the host's pid, taken before the fork:
  a host killed between the fork and the ``prctl`` has already handed the
  child to another parent, and the signal would never come, so the child
  exits at once, before the program runs.

The signal is sent when the *thread* that forked the child exits
(prctl(2), "the parent thread"), not the process. Every spawn that uses this
step is made by ``loop.subprocess_exec`` from a coroutine, and asyncio forks
in the call itself, on the thread running the event loop; none is made from
a worker thread (``asyncio.to_thread``, ``run_in_executor``), whose exit
would kill a healthy child. The loop's thread runs as long as the loop, and
an agent or a terminal cannot outlive its loop anyway (its pipes, its exit
and its process group are watched there), so the signal comes only when the
host is gone, or the thread that ran the whole run has returned. A new
caller must spawn from the loop's thread too.

The step calls only what is resolved beforehand, in the parent (``prctl``
from the C library, ``getppid``, ``_exit``): no Python that could wait on a
lock another thread held at the fork, as the sandbox's hook (see
:meth:`acphost.host.Confinement.preexec`). It costs the spawn a ``fork``
instead of a ``vfork`` when the sandbox is off (with it on, the sandbox's
hook already needs one).

macOS (and any system without ``prctl``) has no parent-death signal: there
the step is nothing, the spawn is unchanged, and a host killed outright can
leave its agent and terminals running; the process-group kill on close
remains the mechanism.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["preexec"]

#: ``PR_SET_PDEATHSIG`` from ``<linux/prctl.h>``.
_PR_SET_PDEATHSIG = 1

#: The exit status of a child whose host died before the step (nobody reads it).
_ORPHANED = 1


@functools.cache
def _prctl() -> Callable[..., Any] | None:
    """The C library's ``prctl`` on Linux, resolved once; None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes  # noqa: PLC0415 - only Linux needs it, and only at the first spawn

        function: Callable[..., Any] = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    return function


def preexec(confine: Callable[[], None] | None = None) -> Callable[[], None] | None:
    """Return the ``preexec_fn`` for a process that must not outlive the host.

    Call it in the spawning coroutine, just before ``loop.subprocess_exec``:
    the parent's pid is taken now.

    Args:
        confine: the sandbox's hook, run in the child after the step (it
            may take the child into a user namespace; the death signal
            stays set across it).

    Returns:
        The hook; ``confine`` itself where there is no parent-death signal
        (None when both are missing: the spawn may then use ``vfork``).

    """
    prctl = _prctl()
    if prctl is None:
        return confine
    parent = os.getpid()
    getppid, exit_now, kill = os.getppid, os._exit, int(signal.SIGKILL)

    def hook() -> None:
        if prctl(_PR_SET_PDEATHSIG, kill, 0, 0, 0) != 0:
            # The spawn fails: a child that could outlive us never runs.
            raise OSError("prctl(PR_SET_PDEATHSIG) failed")
        if getppid() != parent:
            exit_now(_ORPHANED)  # the host died before the prctl: no signal would come
        if confine is not None:
            confine()

    return hook
