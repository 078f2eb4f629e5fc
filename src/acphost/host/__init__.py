"""Host-side providers: the workspace jail, the permission policy, terminals, forms.

And the OS sandbox the agent's processes run in (loaded on first use: it
needs ctypes, which a run without it does not pay for), and the same tools
offered as an MCP server (:class:`HostTools`, loaded on first use too).
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from .._outfile import open_output
from ._audit import AuditLog
from ._config import ElicitationHandler, HostConfig
from ._forms import FormField, check_form, form_fields, parse_field
from ._fs import DEFAULT_MAX_READ_BYTES, Authorizer, FileSystemProvider
from ._jail import Workspace, resolve_path
from ._output import DEFAULT_OUTPUT_BYTE_LIMIT, OutputBuffer
from ._params import check_terminal_params
from ._permissions import PermissionBroker, PermissionOutcome
from ._policy import (
    READ_ONLY_TOOL_KINDS,
    AllowAll,
    AllowReads,
    Decision,
    DenyAll,
    Interactive,
    InteractiveCallback,
    PermissionOption,
    PermissionPolicy,
    PermissionRequest,
    Verdict,
)
from ._programs import workspace_code_note
from ._protect import ProtectedPaths, startup_files
from ._request import describe_request, request_facts
from ._rules import PolicyFileError, Rule, RulesPolicy
from ._terminals import (
    ExitStatus,
    TerminalCreated,
    TerminalEvent,
    TerminalExited,
    TerminalManager,
    TerminalOutput,
    TerminalOutputReceived,
)

if TYPE_CHECKING:
    from ._mcpserve import HostTools
    from ._sandbox import Confinement, SandboxUnavailable, build_confinement, sandbox_support

__all__ = [
    "DEFAULT_MAX_READ_BYTES",
    "DEFAULT_OUTPUT_BYTE_LIMIT",
    "READ_ONLY_TOOL_KINDS",
    "AllowAll",
    "AllowReads",
    "AuditLog",
    "Authorizer",
    "Confinement",
    "Decision",
    "DenyAll",
    "ElicitationHandler",
    "ExitStatus",
    "FileSystemProvider",
    "FormField",
    "HostConfig",
    "HostTools",
    "Interactive",
    "InteractiveCallback",
    "OutputBuffer",
    "PermissionBroker",
    "PermissionOption",
    "PermissionOutcome",
    "PermissionPolicy",
    "PermissionRequest",
    "PolicyFileError",
    "ProtectedPaths",
    "SandboxUnavailable",
    "Rule",
    "RulesPolicy",
    "TerminalCreated",
    "TerminalEvent",
    "TerminalExited",
    "TerminalManager",
    "TerminalOutput",
    "TerminalOutputReceived",
    "Verdict",
    "Workspace",
    "build_confinement",
    "check_form",
    "check_terminal_params",
    "describe_request",
    "form_fields",
    "request_facts",
    "open_output",
    "parse_field",
    "resolve_path",
    "sandbox_support",
    "startup_files",
    "workspace_code_note",
]

_SANDBOX = ("Confinement", "SandboxUnavailable", "build_confinement", "sandbox_support")
_LAZY = {**dict.fromkeys(_SANDBOX, "._sandbox"), "HostTools": "._mcpserve"}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
