"""The methods of ACP protocol version 2, for the trace checks.

(method, handling side, role) to the ``$defs`` name of its params or result
in the vendored v2 schema (``acphost/schema/v2/``), ``unstable:`` prefixed
for what only ``schema.unstable.json`` defines. Read from the schemas'
``x-method`` and ``x-side`` annotations (a test keeps this table equal to
them), so that a check of the ordering rules alone never loads the schema
files, as the generated v1 tables spare it for v1.

Version 2 has no client ``fs/*`` or ``terminal/*`` methods (an agent gets
client tools from MCP servers the client provides) and no ``session/load``
(``session/resume`` with ``replayFrom`` replays a session).
"""

from __future__ import annotations

__all__ = ["V2_METHODS"]

#: (method, the side that handles it, ``request``/``response``/``notification``) → ``$defs`` name.
V2_METHODS: dict[tuple[str, str, str], str] = {
    ("$/cancel_request", "protocol", "notification"): "CancelRequestNotification",
    ("auth/login", "agent", "request"): "LoginAuthRequest",
    ("auth/login", "agent", "response"): "LoginAuthResponse",
    ("auth/logout", "agent", "request"): "LogoutAuthRequest",
    ("auth/logout", "agent", "response"): "LogoutAuthResponse",
    ("elicitation/complete", "client", "notification"): "CompleteElicitationNotification",
    ("elicitation/create", "client", "request"): "CreateElicitationRequest",
    ("elicitation/create", "client", "response"): "CreateElicitationResponse",
    ("initialize", "agent", "request"): "InitializeRequest",
    ("initialize", "agent", "response"): "InitializeResponse",
    ("session/cancel", "agent", "notification"): "CancelSessionNotification",
    ("session/close", "agent", "request"): "CloseSessionRequest",
    ("session/close", "agent", "response"): "CloseSessionResponse",
    ("session/delete", "agent", "request"): "DeleteSessionRequest",
    ("session/delete", "agent", "response"): "DeleteSessionResponse",
    ("session/list", "agent", "request"): "ListSessionsRequest",
    ("session/list", "agent", "response"): "ListSessionsResponse",
    ("session/new", "agent", "request"): "NewSessionRequest",
    ("session/new", "agent", "response"): "NewSessionResponse",
    ("session/prompt", "agent", "request"): "PromptRequest",
    ("session/prompt", "agent", "response"): "PromptResponse",
    ("session/request_permission", "client", "request"): "RequestPermissionRequest",
    ("session/request_permission", "client", "response"): "RequestPermissionResponse",
    ("session/resume", "agent", "request"): "ResumeSessionRequest",
    ("session/resume", "agent", "response"): "ResumeSessionResponse",
    ("session/set_config_option", "agent", "request"): "SetSessionConfigOptionRequest",
    ("session/set_config_option", "agent", "response"): "SetSessionConfigOptionResponse",
    ("session/update", "client", "notification"): "UpdateSessionNotification",
    ("terminal/cancel", "agent", "request"): "CancelTerminalRequest",
    ("terminal/cancel", "agent", "response"): "CancelTerminalResponse",
    ("tool_call/cancel", "agent", "request"): "CancelToolCallRequest",
    ("tool_call/cancel", "agent", "response"): "CancelToolCallResponse",
    ("auth/status", "agent", "request"): "unstable:AuthStatusRequest",
    ("auth/status", "agent", "response"): "unstable:AuthStatusResponse",
    ("auth/status_update", "client", "notification"): "unstable:AuthStatusUpdateNotification",
    ("mcp/message", "agent", "notification"): "unstable:MessageMcpNotification",
    ("mcp/message", "client", "request"): "unstable:MessageMcpRequest",
    ("mcp/message", "client", "response"): "unstable:MessageMcpResponse",
    ("providers/disable", "agent", "request"): "unstable:DisableProviderRequest",
    ("providers/disable", "agent", "response"): "unstable:DisableProviderResponse",
    ("providers/list", "agent", "request"): "unstable:ListProvidersRequest",
    ("providers/list", "agent", "response"): "unstable:ListProvidersResponse",
    ("providers/set", "agent", "request"): "unstable:SetProviderRequest",
    ("providers/set", "agent", "response"): "unstable:SetProviderResponse",
    ("proxy/initialize", "proxy", "request"): "unstable:InitializeProxyRequest",
    ("proxy/initialize", "proxy", "response"): "unstable:InitializeProxyResponse",
    ("proxy/successor", "proxy", "notification"): "unstable:ProxySuccessorNotification",
    ("proxy/successor", "proxy", "request"): "unstable:ProxySuccessorRequest",
    ("proxy/successor", "proxy", "response"): "unstable:ProxySuccessorResponse",
    ("session/archive", "agent", "request"): "unstable:ArchiveSessionRequest",
    ("session/archive", "agent", "response"): "unstable:ArchiveSessionResponse",
    ("session/fork", "agent", "request"): "unstable:ForkSessionRequest",
    ("session/fork", "agent", "response"): "unstable:ForkSessionResponse",
    ("session/set_title", "agent", "request"): "unstable:SetSessionTitleRequest",
    ("session/set_title", "agent", "response"): "unstable:SetSessionTitleResponse",
    ("session/status", "agent", "request"): "unstable:SessionStatusRequest",
    ("session/status", "agent", "response"): "unstable:SessionStatusResponse",
    ("session/unarchive", "agent", "request"): "unstable:UnarchiveSessionRequest",
    ("session/unarchive", "agent", "response"): "unstable:UnarchiveSessionResponse",
}
