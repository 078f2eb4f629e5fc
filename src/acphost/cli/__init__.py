"""The ``acphost`` command line.

``acphost [options] [--] [prompt]`` runs one prompt (read from stdin when no
prompt is given); a first word naming a subcommand runs that instead, and
``acphost -- WORD`` sends WORD as the prompt.

Exit codes: 0 the turn completed; 1 agent, protocol or transport error;
2 usage or configuration error; 3 a budget was crossed (the turn was
cancelled); 130 interrupted (128 + the signal for SIGTERM, SIGHUP).
"""

from __future__ import annotations

import os
import sys

# Not `from typing import TYPE_CHECKING`, nor collections.abc at run time: a
# warm named run is done in the time they would take to load.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return the exit code.

    Run as the program (``argv`` None), the process ends here once its
    output is flushed: the agent is gone and every file acphost wrote is
    closed, so tearing down hundreds of modules one by one would only make
    the user wait.

    Args:
        argv: the arguments (default: ``sys.argv[1:]``).

    """
    words = list(sys.argv[1:] if argv is None else argv)
    if argv is None:
        _standard_fds()
    if argv is None and any(w.startswith(("-s", "--session")) for w in words):
        # A prompt to a named session: a warm run that repeats a command line
        # goes straight to the session's host by its shortcut, before any of
        # the command line's modules load (its first output then comes in a
        # few milliseconds). It writes to this process's own stdout.
        try:
            from ._named_client import warm_run  # noqa: PLC0415

            code = warm_run(words)
        except KeyboardInterrupt:  # Ctrl-C before the run's own handlers: nothing was sent
            code = 130
        if code is not None:
            os._exit(code)
    from . import _collector  # noqa: PLC0415

    _collector.pause(freeze=argv is None)  # until the run's modules are imported
    try:
        from ._main import run_cli  # noqa: PLC0415 - keeps `import acphost.cli` instant

        code = run_cli(words)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`acphost ... | head`): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    except KeyboardInterrupt:
        # Ctrl-C while the command line's modules load, before a run's own
        # handling of it begins: interrupted, without a traceback.
        code = 130
    finally:
        _collector.resume()  # whichever way the run ended
    if argv is None and sys.gettrace() is None and sys.getprofile() is None:
        # (Profilers and coverage tools write their results at exit: they get one.)
        try:
            sys.stderr.flush()
        finally:
            os._exit(code)
    return code


def _standard_fds() -> None:
    """Give a closed stdin, stdout or stderr ``/dev/null``, before any file is opened.

    Started with one closed (``acphost ... >&-``), the next file or socket
    opened would take its number, and what is meant for stdout would go
    into it (the agent's pipe, a named session's socket).
    """
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        try:
            os.fstat(fd)
        except OSError:
            os.open(os.devnull, os.O_RDWR)  # the lowest free number: this one
            if getattr(sys, name) is None:  # Python found it closed at its start
                setattr(sys, name, open(fd, "r" if fd == 0 else "w", closefd=False))  # noqa: SIM115
