"""What every face (the CLI, the TUI, batch, ``acphost.run``) needs to launch an agent.

Below both faces and above the library: which agent to run (settings lookup
and resolution), how the host is configured (the permission flags turned into
a policy, a broker and a :class:`~acphost.HostConfig`), the one assembly that
opens a run (:func:`open_run`), and the exit codes the faces share. Nothing
here renders; errors are :class:`UsageProblem`, and :func:`fail` prints the
one-line diagnostic the faces use.

The exit codes are plain constants defined here, so ``acphost --help`` can
import them without the rest; everything else is imported on first use.
"""

from __future__ import annotations

from .._lazy import lazy_exports

TYPE_CHECKING = False

#: The turn completed (a stop reason other than ``end_turn`` is reported on stderr).
EXIT_OK = 0
#: An agent, protocol or transport error.
EXIT_ERROR = 1
#: A usage or configuration error.
EXIT_USAGE = 2
#: A budget (``--max-tokens``, ``--max-cost``) was crossed: the turn was cancelled.
EXIT_BUDGET = 3
#: A named session was busy and the run was told not to queue (``--no-queue``).
EXIT_BUSY = 4
#: Interrupted (Ctrl-C), as shells report SIGINT.
EXIT_INTERRUPTED = 130

__all__ = [
    "DEMO_AGENT",
    "EXIT_BUDGET",
    "EXIT_BUSY",
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "WIRE_LIMIT",
    "AskPolicy",
    "DefaultPolicy",
    "HostChoices",
    "HostHooks",
    "NamedHost",
    "NamedPlace",
    "NamedUnavailable",
    "Refusals",
    "Run",
    "RunResult",
    "RunOptions",
    "SessionChoice",
    "UsageProblem",
    "build_broker",
    "build_host_config",
    "check_session_name",
    "connect_named",
    "fail",
    "named_places",
    "options_digest",
    "open_run",
    "parse_duration",
    "place_of",
    "read_system_prompt",
    "receive_message",
    "resolve",
    "run",
    "send_message",
    "start_agent",
    "with_sandbox_choice",
]

_LAZY = {
    "HostHooks": "._named_runs",
    "options_digest": "._named_runs",
    "NamedHost": "._named_host",
    "NamedPlace": "._named",
    "NamedUnavailable": "._named",
    "check_session_name": "._named",
    "connect_named": "._named",
    "named_places": "._named",
    "parse_duration": "._named",
    "place_of": "._named",
    "receive_message": "._named",
    "send_message": "._named",
    "WIRE_LIMIT": "._named",
    "AskPolicy": "._policy",
    "DefaultPolicy": "._policy",
    "Refusals": "._policy",
    "build_broker": "._policy",
    "HostChoices": "._host",
    "build_host_config": "._host",
    "Run": "._open",
    "RunOptions": "._open",
    "SessionChoice": "._open",
    "open_run": "._open",
    "read_system_prompt": "._open",
    "DEMO_AGENT": "._sync",
    "RunResult": "._sync",
    "run": "._sync",
    "UsageProblem": "._setup",
    "resolve": "._setup",
    "fail": "._setup",
    "start_agent": "._setup",
    "with_sandbox_choice": "._setup",
}

if TYPE_CHECKING:
    from ._host import HostChoices, build_host_config
    from ._named import (
        WIRE_LIMIT,
        NamedPlace,
        NamedUnavailable,
        check_session_name,
        connect_named,
        named_places,
        parse_duration,
        place_of,
        receive_message,
        send_message,
    )
    from ._named_host import NamedHost
    from ._named_runs import HostHooks, options_digest
    from ._open import Run, RunOptions, SessionChoice, open_run, read_system_prompt
    from ._policy import AskPolicy, DefaultPolicy, Refusals, build_broker
    from ._setup import UsageProblem, fail, resolve, start_agent, with_sandbox_choice
    from ._sync import DEMO_AGENT, RunResult, run

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
