"""How a prompt run that failed is reported: one line (or a short block) on stderr.

Agent text in a report (its error message and ``error.data``, its stderr
tail) passes the run's one redactor, is cut to
:data:`~acphost.safetext.AGENT_TEXT_LIMIT` characters by
:func:`~acphost.safetext.bounded`, then passes the sanitiser of
:func:`~acphost.launch.fail`.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import schema as s
from ..client import auth_method_id
from ..errors import (
    AcpError,
    AgentExited,
    AgentStartError,
    LocalProtocolError,
    NotAnAcpAgent,
    RequestError,
)
from ..launch import EXIT_ERROR, UsageProblem, fail
from ..safetext import bounded
from ._parser import usage_error

if TYPE_CHECKING:
    from ..config import AgentSpec
    from ..errors import AuthRequired
    from ..redact import Redactor

__all__ = ["agent_text", "auth_message", "report", "terminal_login"]


def agent_text(text: str, redact: Callable[[str], str]) -> str:
    """Agent-supplied text for stderr: redacted whole (no secret is cut in two), then bounded."""
    return bounded(redact(text))


def auth_message(exc: AuthRequired, spec: AgentSpec, redactor: Redactor) -> str:
    """What to tell a user whose agent wants authentication: the methods, the flag.

    The agent's words (its error message, its methods' names) pass the run's
    redactor: an agent that cannot log in may well quote the credential it
    was given.
    """
    methods = exc.auth_methods
    if not methods:
        return (
            f"the agent {spec.name!r} requires authentication but offers no method: "
            + agent_text(exc.message, redactor.redact_text)
        )
    lines = [f"the agent {spec.name!r} requires authentication. Methods:"]
    for m in methods:
        name = redactor.redact_text(getattr(m, "name", ""))
        kind = (
            "runs a login command"
            if isinstance(m, s.AuthMethodTerminal)
            else "handled by the agent"
        )
        lines.append(f"  {auth_method_id(m)}: {name} ({kind})")
    lines.append(f"rerun with --auth METHOD, e.g. --auth {auth_method_id(methods[0])}")
    return "\n".join(lines)


def terminal_login(exc: AuthRequired, chosen_id: str | None, spec: AgentSpec) -> bool:
    """Run the agent's login command in this terminal (ACP terminal auth), if chosen.

    Returns:
        True when the login ran and succeeded (the run connects again).

    """
    chosen = [
        m for m in exc.auth_methods if isinstance(m, s.AuthMethodTerminal) and m.id == chosen_id
    ]
    if not chosen or sys.stdin is None or not sys.stdin.isatty():
        return False
    method = chosen[0]
    env = {**os.environ, **spec.env, **(method.env or {})}
    print(f"acphost: running the agent's login ({method.name}) in this terminal", file=sys.stderr)
    return subprocess.call([*spec.argv, *(method.args or [])], env=env) == 0


def report(exc: Exception, spec: AgentSpec, redactor: Redactor) -> int:
    """Print what ended the run; return its exit code.

    Args:
        exc: the error.
        spec: the agent.
        redactor: the run's redactor (agent text may quote its configured secrets).

    Returns:
        2 for a usage or configuration problem, else 1.

    """
    from ..host import PolicyFileError  # noqa: PLC0415

    def redact(text: str) -> str:
        return agent_text(text, redactor.redact_text)

    if isinstance(exc, (UsageProblem, PolicyFileError, LocalProtocolError)):
        # LocalProtocolError covers CapabilityNotSupported and refused
        # --mode/--config values: the command line asked for the impossible.
        return usage_error(bounded(str(exc)))
    if isinstance(exc, AgentStartError):
        fail(f"{exc} (agent {spec.name!r} from {spec.source})")
    elif isinstance(exc, (AgentExited, NotAnAcpAgent)):
        fail(f"agent {spec.name!r}: {redact(str(exc))}")
    elif isinstance(exc, RequestError):
        detail = ""
        if exc.data is not None:
            data = json.dumps(exc.data, ensure_ascii=False, default=repr)
            detail = "\n  data: " + redact(data)
        fail(f"the agent answered an error: {redact(str(exc))}{detail}")
    elif isinstance(exc, AcpError):  # AcpTimeout, RemoteProtocolError (--strict), ...
        fail(redact(str(exc)))
    elif isinstance(exc, BrokenPipeError):
        pass  # our reader went away; cli.main silences stdout
    elif isinstance(exc, OSError):
        fail(redact(str(exc)))
    else:  # a bug of ours: still one line, not a traceback
        logging.getLogger("acphost.cli").debug("unexpected error", exc_info=exc)
        fail(f"internal error: {type(exc).__name__}: {redact(str(exc))} (run with -vv for details)")
    return EXIT_ERROR
