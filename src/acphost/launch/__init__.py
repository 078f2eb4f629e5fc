"""What every face (the CLI, the TUI) needs to launch an agent from a user's choices.

Below both faces and above the library: which agent to run (settings lookup
and resolution), how the host is configured (the permission flags turned into
a policy, a broker and a :class:`~acphost.HostConfig`), and the exit codes the
faces share. Nothing here renders; errors are :class:`UsageProblem`, and :func:`fail` prints
the one-line diagnostic both faces use.

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
#: Interrupted (Ctrl-C), as shells report SIGINT.
EXIT_INTERRUPTED = 130

__all__ = [
    "EXIT_BUDGET",
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "AskPolicy",
    "DefaultPolicy",
    "HostChoices",
    "Refusals",
    "UsageProblem",
    "build_broker",
    "build_host_config",
    "fail",
    "resolve",
    "start_agent",
]

_LAZY = {
    "AskPolicy": "._policy",
    "DefaultPolicy": "._policy",
    "Refusals": "._policy",
    "build_broker": "._policy",
    "HostChoices": "._host",
    "build_host_config": "._host",
    "UsageProblem": "._setup",
    "resolve": "._setup",
    "fail": "._setup",
    "start_agent": "._setup",
}

if TYPE_CHECKING:
    from ._host import HostChoices, build_host_config
    from ._policy import AskPolicy, DefaultPolicy, Refusals, build_broker
    from ._setup import UsageProblem, fail, resolve, start_agent

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
