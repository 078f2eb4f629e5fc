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
#: Interrupted (Ctrl-C), as shells report SIGINT.
EXIT_INTERRUPTED = 130

__all__ = [
    "DEMO_AGENT",
    "EXIT_BUDGET",
    "EXIT_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_USAGE",
    "AskPolicy",
    "DefaultPolicy",
    "HostChoices",
    "Refusals",
    "Run",
    "RunResult",
    "RunOptions",
    "SessionChoice",
    "UsageProblem",
    "build_broker",
    "build_host_config",
    "fail",
    "open_run",
    "read_system_prompt",
    "resolve",
    "run",
    "start_agent",
    "with_sandbox_choice",
]

_LAZY = {
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
    from ._open import Run, RunOptions, SessionChoice, open_run, read_system_prompt
    from ._policy import AskPolicy, DefaultPolicy, Refusals, build_broker
    from ._setup import UsageProblem, fail, resolve, start_agent, with_sandbox_choice
    from ._sync import DEMO_AGENT, RunResult, run

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
