"""The unstable ACP schema as Python classes (GENERATED; do not edit).

Source: ``schema/v1/schema.unstable.json`` (ACP schema v1.25.0), through
``tools/gen_schema.py``; ``--check`` fails when this file is stale. These types are
**unstable**: the protocol may change or drop them in any release, and a client
uses them only when it opted in (``unstable=True``). A type the unstable schema
defines exactly as the stable one is the stable class itself (imported from
:mod:`acphost.schema`), so ``isinstance`` checks work across both; a type it
extends (``ClientCapabilities``, ``SessionUpdate``, ``NewSessionRequest``, ...) is
a separate class here, and the stable class never carries its unstable fields.
The classes follow the rules of :mod:`acphost.schema._types`.
"""

# ruff: noqa
from __future__ import annotations

from acphost.schema import _types as _t
from acphost.schema._errors import SchemaError
from acphost.schema._types import (
    _MISSING,
    UNSET,
    Unset,
    _any,
    _bad,
    _bool,
    _dict,
    _extra,
    _first,
    _float,
    _int,
    _list,
    _map,
    _missing,
    _new,
    _null,
    _set,
    _str,
    _Struct,
    _to_json,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ClassVar, Literal

__all__ = [
    'AgentAuthCapabilities',
    'AgentCapabilities',
    'AgentMessageChunk',
    'AgentNotification',
    'AgentRequest',
    'AgentResponse',
    'AgentThoughtChunk',
    'Annotations',
    'ArchiveSessionRequest',
    'ArchiveSessionResponse',
    'AudioContent',
    'AudioContentBlock',
    'AuthAccount',
    'AuthCapabilities',
    'AuthMethod',
    'AuthMethodAgent',
    'AuthMethodId',
    'AuthMethodTerminal',
    'AuthState',
    'AuthStatusCapabilities',
    'AuthStatusRequest',
    'AuthStatusResponse',
    'AuthStatusUpdateNotification',
    'AuthenticateRequest',
    'AuthenticateResponse',
    'AvailableCommand',
    'AvailableCommandInput',
    'AvailableCommandsUpdate',
    'BlobResourceContents',
    'BooleanConfigOptionCapabilities',
    'BooleanPropertySchema',
    'CancelNotification',
    'CancelRequestNotification',
    'CancelledPermissionOutcome',
    'ClientCapabilities',
    'ClientNotification',
    'ClientRequest',
    'ClientResponse',
    'ClientSessionCapabilities',
    'CloseSessionRequest',
    'CloseSessionResponse',
    'CompactionCapabilities',
    'CompactionId',
    'CompactionStatus',
    'CompactionSummaryChunk',
    'CompactionUpdate',
    'CompleteElicitationNotification',
    'ConfigOptionUpdate',
    'Content',
    'ContentBlock',
    'ContentChunk',
    'ContentToolCallContent',
    'Cost',
    'CreateElicitationRequest',
    'CreateElicitationResponse',
    'CreateTerminalRequest',
    'CreateTerminalResponse',
    'CurrentModeUpdate',
    'DECODERS',
    'DeleteSessionRequest',
    'DeleteSessionResponse',
    'Diff',
    'DiffToolCallContent',
    'DisableProviderRequest',
    'DisableProviderResponse',
    'ElicitationAcceptAction',
    'ElicitationCapabilities',
    'ElicitationContentValue',
    'ElicitationFormCapabilities',
    'ElicitationFormMode',
    'ElicitationId',
    'ElicitationPropertySchema',
    'ElicitationRequestScope',
    'ElicitationSchema',
    'ElicitationSchemaType',
    'ElicitationSessionScope',
    'ElicitationUrlCapabilities',
    'ElicitationUrlMode',
    'EmbeddedResource',
    'EmbeddedResourceContentBlock',
    'EmbeddedResourceResource',
    'EnumOption',
    'EnvVariable',
    'Error',
    'ErrorCode',
    'ErrorStopReason',
    'ExtNotification',
    'ExtRequest',
    'ExtResponse',
    'FileSystemCapabilities',
    'ForkSessionRequest',
    'ForkSessionResponse',
    'HttpHeader',
    'IdleStateUpdate',
    'ImageContent',
    'ImageContentBlock',
    'Implementation',
    'InitializeProxyRequest',
    'InitializeProxyResponse',
    'InitializeRequest',
    'InitializeResponse',
    'IntegerPropertySchema',
    'KillTerminalRequest',
    'KillTerminalResponse',
    'ListProvidersRequest',
    'ListProvidersResponse',
    'ListSessionsRequest',
    'ListSessionsResponse',
    'LlmProtocol',
    'LoadSessionRequest',
    'LoadSessionResponse',
    'LogoutCapabilities',
    'LogoutRequest',
    'LogoutResponse',
    'McpCapabilities',
    'McpError',
    'McpRequestId',
    'McpServer',
    'McpServerAcp',
    'McpServerAcpId',
    'McpServerHttp',
    'McpServerSse',
    'McpServerStdio',
    'MessageId',
    'MessageMcpNotification',
    'MessageMcpRequest',
    'MessageMcpResponse',
    'MultiSelectItems',
    'MultiSelectPropertySchema',
    'NewSessionRequest',
    'NewSessionResponse',
    'Notice',
    'NoticeCapabilities',
    'NoticeSeverity',
    'NumberPropertySchema',
    'PermissionOption',
    'PermissionOptionId',
    'PermissionOptionKind',
    'Plan',
    'PlanCapabilities',
    'PlanContentUpdate',
    'PlanEntry',
    'PlanEntryPriority',
    'PlanEntryStatus',
    'PlanFile',
    'PlanId',
    'PlanItems',
    'PlanMarkdown',
    'PlanRemoved',
    'PlanUpdate',
    'PlanUpdateContent',
    'PromptCapabilities',
    'PromptRequest',
    'PromptResponse',
    'ProtocolVersion',
    'ProviderCurrentConfig',
    'ProviderId',
    'ProviderInfo',
    'ProvidersCapabilities',
    'ProxyNotification',
    'ProxyRequest',
    'ProxyResponse',
    'ProxySuccessorNotification',
    'ProxySuccessorRequest',
    'ProxySuccessorResponse',
    'ReadTextFileRequest',
    'ReadTextFileResponse',
    'ReleaseTerminalRequest',
    'ReleaseTerminalResponse',
    'RequestId',
    'RequestPermissionOutcome',
    'RequestPermissionRequest',
    'RequestPermissionResponse',
    'RequiresActionStateUpdate',
    'ResourceLink',
    'ResourceLinkContentBlock',
    'ResumeSessionRequest',
    'ResumeSessionResponse',
    'Role',
    'RunningStateUpdate',
    'SelectedPermissionOutcome',
    'SessionAdditionalDirectoriesCapabilities',
    'SessionArchiveCapabilities',
    'SessionArchiveFilter',
    'SessionCancelCapabilities',
    'SessionCapabilities',
    'SessionCloseCapabilities',
    'SessionConfigBoolean',
    'SessionConfigGroupId',
    'SessionConfigId',
    'SessionConfigOption',
    'SessionConfigOptionCategory',
    'SessionConfigOptionsCapabilities',
    'SessionConfigSelect',
    'SessionConfigSelectGroup',
    'SessionConfigSelectOption',
    'SessionConfigSelectOptions',
    'SessionConfigValueId',
    'SessionDeleteCapabilities',
    'SessionForkCapabilities',
    'SessionId',
    'SessionInfo',
    'SessionInfoUpdate',
    'SessionListCapabilities',
    'SessionMessage',
    'SessionMessageChunk',
    'SessionMode',
    'SessionModeId',
    'SessionModeState',
    'SessionNotification',
    'SessionResumeCapabilities',
    'SessionStatus',
    'SessionStatusCapabilities',
    'SessionStatusRequest',
    'SessionStatusResponse',
    'SessionSystemPromptCapabilities',
    'SessionSystemPromptModeCapabilities',
    'SessionSystemPromptOverrideCapabilities',
    'SessionTitleCapabilities',
    'SessionUpdate',
    'SetProviderRequest',
    'SetProviderResponse',
    'SetSessionConfigOptionRequest',
    'SetSessionConfigOptionResponse',
    'SetSessionModeRequest',
    'SetSessionModeResponse',
    'SetSessionTitleRequest',
    'SetSessionTitleResponse',
    'StateUpdate',
    'StopReason',
    'StringFormat',
    'StringMultiSelectItems',
    'StringPropertySchema',
    'SubagentCapabilities',
    'SubagentSessionCapabilities',
    'SubagentUpdate',
    'SystemPrompt',
    'SystemPromptMode',
    'Terminal',
    'TerminalExitStatus',
    'TerminalId',
    'TerminalOutputRequest',
    'TerminalOutputResponse',
    'TerminalToolCallContent',
    'TextContent',
    'TextContentBlock',
    'TextResourceContents',
    'TitledMultiSelectItems',
    'ToolCall',
    'ToolCallContent',
    'ToolCallId',
    'ToolCallLocation',
    'ToolCallProgress',
    'ToolCallStart',
    'ToolCallStatus',
    'ToolCallUpdate',
    'ToolKind',
    'UNSET',
    'UnarchiveSessionRequest',
    'UnarchiveSessionResponse',
    'UnknownAuthMethod',
    'UnknownContentBlock',
    'UnknownElicitationPropertySchema',
    'UnknownMcpServer',
    'UnknownMultiSelectItems',
    'UnknownPlanUpdateContent',
    'UnknownRequestPermissionOutcome',
    'UnknownSessionConfigOption',
    'UnknownSessionUpdate',
    'UnknownStateUpdate',
    'UnknownToolCallContent',
    'UnrecognizedStateUpdate',
    'Unset',
    'UnstructuredCommandInput',
    'Usage',
    'UsageUpdate',
    'UserMessageChunk',
    'WaitForTerminalExitRequest',
    'WaitForTerminalExitResponse',
    'WriteTextFileRequest',
    'WriteTextFileResponse',
    'decode_auth_method',
    'decode_content_block',
    'decode_elicitation_content_value',
    'decode_elicitation_property_schema',
    'decode_embedded_resource_resource',
    'decode_mcp_server',
    'decode_multi_select_items',
    'decode_plan_update_content',
    'decode_request_id',
    'decode_request_permission_outcome',
    'decode_session_config_option',
    'decode_session_config_select_options',
    'decode_session_update',
    'decode_state_update',
    'decode_tool_call_content',
]


from acphost.schema._types import (
    AgentMessageChunk,
    AgentNotification,
    AgentRequest,
    AgentResponse,
    AgentThoughtChunk,
    Annotations,
    AudioContent,
    AudioContentBlock,
    AuthCapabilities,
    AuthMethod,
    AuthMethodAgent,
    AuthMethodId,
    AuthMethodTerminal,
    AuthenticateRequest,
    AuthenticateResponse,
    AvailableCommand,
    AvailableCommandInput,
    AvailableCommandsUpdate,
    BlobResourceContents,
    BooleanConfigOptionCapabilities,
    BooleanPropertySchema,
    CancelNotification,
    CancelRequestNotification,
    CancelledPermissionOutcome,
    ClientNotification,
    ClientRequest,
    ClientResponse,
    ClientSessionCapabilities,
    CloseSessionRequest,
    CloseSessionResponse,
    CompactionCapabilities,
    CompactionId,
    CompactionStatus,
    CompactionSummaryChunk,
    CompactionUpdate,
    CompleteElicitationNotification,
    ConfigOptionUpdate,
    Content,
    ContentBlock,
    ContentChunk,
    ContentToolCallContent,
    Cost,
    CreateElicitationRequest,
    CreateElicitationResponse,
    CreateTerminalRequest,
    CreateTerminalResponse,
    CurrentModeUpdate,
    DeleteSessionRequest,
    DeleteSessionResponse,
    Diff,
    DiffToolCallContent,
    ElicitationAcceptAction,
    ElicitationCapabilities,
    ElicitationContentValue,
    ElicitationFormCapabilities,
    ElicitationFormMode,
    ElicitationId,
    ElicitationPropertySchema,
    ElicitationRequestScope,
    ElicitationSchema,
    ElicitationSchemaType,
    ElicitationSessionScope,
    ElicitationUrlCapabilities,
    ElicitationUrlMode,
    EmbeddedResource,
    EmbeddedResourceContentBlock,
    EmbeddedResourceResource,
    EnumOption,
    EnvVariable,
    Error,
    ErrorCode,
    ExtNotification,
    ExtRequest,
    ExtResponse,
    FileSystemCapabilities,
    HttpHeader,
    ImageContent,
    ImageContentBlock,
    Implementation,
    IntegerPropertySchema,
    KillTerminalRequest,
    KillTerminalResponse,
    LoadSessionResponse,
    LogoutCapabilities,
    LogoutRequest,
    LogoutResponse,
    McpServerHttp,
    McpServerSse,
    McpServerStdio,
    MessageId,
    MultiSelectItems,
    MultiSelectPropertySchema,
    NewSessionResponse,
    Notice,
    NoticeCapabilities,
    NoticeSeverity,
    NumberPropertySchema,
    PermissionOption,
    PermissionOptionId,
    PermissionOptionKind,
    Plan,
    PlanEntry,
    PlanEntryPriority,
    PlanEntryStatus,
    PlanUpdate,
    PromptCapabilities,
    PromptRequest,
    ProtocolVersion,
    ReadTextFileRequest,
    ReadTextFileResponse,
    ReleaseTerminalRequest,
    ReleaseTerminalResponse,
    RequestId,
    RequestPermissionOutcome,
    RequestPermissionRequest,
    RequestPermissionResponse,
    ResourceLink,
    ResourceLinkContentBlock,
    ResumeSessionResponse,
    Role,
    SelectedPermissionOutcome,
    SessionAdditionalDirectoriesCapabilities,
    SessionCloseCapabilities,
    SessionConfigBoolean,
    SessionConfigGroupId,
    SessionConfigId,
    SessionConfigOption,
    SessionConfigOptionCategory,
    SessionConfigOptionsCapabilities,
    SessionConfigSelect,
    SessionConfigSelectGroup,
    SessionConfigSelectOption,
    SessionConfigSelectOptions,
    SessionConfigValueId,
    SessionDeleteCapabilities,
    SessionId,
    SessionInfoUpdate,
    SessionListCapabilities,
    SessionMode,
    SessionModeId,
    SessionModeState,
    SessionResumeCapabilities,
    SetSessionConfigOptionRequest,
    SetSessionConfigOptionResponse,
    SetSessionModeRequest,
    SetSessionModeResponse,
    StopReason,
    StringFormat,
    StringMultiSelectItems,
    StringPropertySchema,
    Terminal,
    TerminalExitStatus,
    TerminalId,
    TerminalOutputRequest,
    TerminalOutputResponse,
    TerminalToolCallContent,
    TextContent,
    TextContentBlock,
    TextResourceContents,
    TitledMultiSelectItems,
    ToolCall,
    ToolCallContent,
    ToolCallId,
    ToolCallLocation,
    ToolCallProgress,
    ToolCallStart,
    ToolCallStatus,
    ToolCallUpdate,
    ToolKind,
    UnknownAuthMethod,
    UnknownContentBlock,
    UnknownElicitationPropertySchema,
    UnknownMcpServer,
    UnknownMultiSelectItems,
    UnknownRequestPermissionOutcome,
    UnknownSessionConfigOption,
    UnknownSessionUpdate,
    UnknownToolCallContent,
    UnstructuredCommandInput,
    UsageUpdate,
    UserMessageChunk,
    WaitForTerminalExitRequest,
    WaitForTerminalExitResponse,
    WriteTextFileRequest,
    WriteTextFileResponse,
    decode_auth_method,
    decode_content_block,
    decode_elicitation_content_value,
    decode_elicitation_property_schema,
    decode_embedded_resource_resource,
    decode_multi_select_items,
    decode_request_id,
    decode_request_permission_outcome,
    decode_session_config_option,
    decode_session_config_select_options,
    decode_tool_call_content,
)


if TYPE_CHECKING:
    ProxySuccessorResponse = Any
else:
    ProxySuccessorResponse = object


McpServerAcpId = str
"""**UNSTABLE**"""
McpRequestId = str
"""**UNSTABLE**"""
ProviderId = str
"""**UNSTABLE**"""
LlmProtocol = str
"""**UNSTABLE**"""
AuthState = str
"""**UNSTABLE**"""
SessionStatus = str
"""**UNSTABLE**"""
PlanId = str
"""**UNSTABLE**"""
SystemPromptMode = str
"""**UNSTABLE**"""
SessionArchiveFilter = str
"""**UNSTABLE**"""


class MessageMcpRequest(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('server_id', 'request_id', 'method', 'params', 'meta', 'extra')
    __match_args__ = ('server_id', 'request_id', 'method', 'params', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('serverId', 'requestId', 'method', 'params', '_meta'))
    server_id: McpServerAcpId
    request_id: McpRequestId
    method: str
    params: dict[str, Any] | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, server_id: McpServerAcpId, request_id: McpRequestId, method: str, params: dict[str, Any] | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'server_id', server_id)
        _set(self, 'request_id', request_id)
        _set(self, 'method', method)
        _set(self, 'params', params)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> MessageMcpRequest:
        """Decode and validate a wire object as :class:`MessageMcpRequest`."""
        try:
            return _fw_MessageMcpRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'serverId': self.server_id, 'requestId': self.request_id, 'method': self.method}
        if self.params is not None:
            d['params'] = self.params
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MessageMcpRequest):
            return NotImplemented
        return (self.server_id, self.request_id, self.method, self.params, self.meta, self.extra,) == (other.server_id, other.request_id, other.method, other.params, other.meta, other.extra,)


def _fw_MessageMcpRequest(data: object) -> MessageMcpRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(MessageMcpRequest)
    n = 3
    v = data.get('serverId', _MISSING)
    if v is _MISSING:
        raise _missing('serverId')
    if not isinstance(v, str):
        raise _bad('serverId', 'a string', v)
    _set(self, 'server_id', v)
    v = data.get('requestId', _MISSING)
    if v is _MISSING:
        raise _missing('requestId')
    if not isinstance(v, str):
        raise _bad('requestId', 'a string', v)
    _set(self, 'request_id', v)
    v = data.get('method', _MISSING)
    if v is _MISSING:
        raise _missing('method')
    if not isinstance(v, str):
        raise _bad('method', 'a string', v)
    _set(self, 'method', v)
    v = data.get('params')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            raise _bad('params', 'an object', v)
    _set(self, 'params', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, MessageMcpRequest._wire_keys) if len(data) > n else None)
    return self


class InitializeResponse(_Struct):
    """Response to the `initialize` method."""

    __slots__ = ('protocol_version', 'agent_capabilities', 'auth_methods', 'agent_info', 'meta', 'extra')
    __match_args__ = ('protocol_version', 'agent_capabilities', 'auth_methods', 'agent_info', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('protocolVersion', 'agentCapabilities', 'authMethods', 'agentInfo', '_meta'))
    protocol_version: ProtocolVersion
    agent_capabilities: AgentCapabilities | None
    auth_methods: list[AuthMethod] | None
    agent_info: Implementation | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, protocol_version: ProtocolVersion, agent_capabilities: AgentCapabilities | None = None, auth_methods: list[AuthMethod] | None = None, agent_info: Implementation | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'protocol_version', protocol_version)
        _set(self, 'agent_capabilities', agent_capabilities)
        _set(self, 'auth_methods', auth_methods)
        _set(self, 'agent_info', agent_info)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> InitializeResponse:
        """Decode and validate a wire object as :class:`InitializeResponse`."""
        try:
            return _fw_InitializeResponse(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'protocolVersion': self.protocol_version}
        if self.agent_capabilities is not None:
            d['agentCapabilities'] = self.agent_capabilities.to_wire()
        if self.auth_methods is not None:
            d['authMethods'] = [x.to_wire() for x in self.auth_methods]
        if self.agent_info is not None:
            d['agentInfo'] = self.agent_info.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, InitializeResponse):
            return NotImplemented
        return (self.protocol_version, self.agent_capabilities, self.auth_methods, self.agent_info, self.meta, self.extra,) == (other.protocol_version, other.agent_capabilities, other.auth_methods, other.agent_info, other.meta, other.extra,)


def _fw_InitializeResponse(data: object) -> InitializeResponse:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(InitializeResponse)
    n = 1
    v = data.get('protocolVersion', _MISSING)
    if v is _MISSING:
        raise _missing('protocolVersion')
    if not isinstance(v, int) or v is True or v is False:
        raise _bad('protocolVersion', 'an integer', v)
    _set(self, 'protocol_version', v)
    v = data.get('agentCapabilities')
    if v is not None:
        n += 1
        try:
            v = _fw_AgentCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'agent_capabilities', v)
    v = data.get('authMethods')
    if v is not None:
        n += 1
        try:
            v = _list(v, _t._fw_AuthMethod, True)
        except SchemaError:
            v = None
    _set(self, 'auth_methods', v)
    v = data.get('agentInfo')
    if v is not None:
        n += 1
        try:
            v = _t._fw_Implementation(v)
        except SchemaError:
            v = None
    _set(self, 'agent_info', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, InitializeResponse._wire_keys) if len(data) > n else None)
    return self


class AgentCapabilities(_Struct):
    """Capabilities supported by the agent."""

    __slots__ = ('load_session', 'prompt_capabilities', 'mcp_capabilities', 'session_capabilities', 'auth', 'providers', 'meta', 'extra')
    __match_args__ = ('load_session', 'prompt_capabilities', 'mcp_capabilities', 'session_capabilities', 'auth', 'providers', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('loadSession', 'promptCapabilities', 'mcpCapabilities', 'sessionCapabilities', 'auth', 'providers', '_meta'))
    load_session: bool | None
    prompt_capabilities: PromptCapabilities | None
    mcp_capabilities: McpCapabilities | None
    session_capabilities: SessionCapabilities | None
    auth: AgentAuthCapabilities | None
    providers: ProvidersCapabilities | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, load_session: bool | None = None, prompt_capabilities: PromptCapabilities | None = None, mcp_capabilities: McpCapabilities | None = None, session_capabilities: SessionCapabilities | None = None, auth: AgentAuthCapabilities | None = None, providers: ProvidersCapabilities | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'load_session', load_session)
        _set(self, 'prompt_capabilities', prompt_capabilities)
        _set(self, 'mcp_capabilities', mcp_capabilities)
        _set(self, 'session_capabilities', session_capabilities)
        _set(self, 'auth', auth)
        _set(self, 'providers', providers)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> AgentCapabilities:
        """Decode and validate a wire object as :class:`AgentCapabilities`."""
        try:
            return _fw_AgentCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.load_session is not None:
            d['loadSession'] = self.load_session
        if self.prompt_capabilities is not None:
            d['promptCapabilities'] = self.prompt_capabilities.to_wire()
        if self.mcp_capabilities is not None:
            d['mcpCapabilities'] = self.mcp_capabilities.to_wire()
        if self.session_capabilities is not None:
            d['sessionCapabilities'] = self.session_capabilities.to_wire()
        if self.auth is not None:
            d['auth'] = self.auth.to_wire()
        if self.providers is not None:
            d['providers'] = self.providers.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AgentCapabilities):
            return NotImplemented
        return (self.load_session, self.prompt_capabilities, self.mcp_capabilities, self.session_capabilities, self.auth, self.providers, self.meta, self.extra,) == (other.load_session, other.prompt_capabilities, other.mcp_capabilities, other.session_capabilities, other.auth, other.providers, other.meta, other.extra,)


def _fw_AgentCapabilities(data: object) -> AgentCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(AgentCapabilities)
    n = 0
    v = data.get('loadSession')
    if v is not None:
        n += 1
        if v is not True and v is not False:
            v = None
    _set(self, 'load_session', v)
    v = data.get('promptCapabilities')
    if v is not None:
        n += 1
        try:
            v = _t._fw_PromptCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'prompt_capabilities', v)
    v = data.get('mcpCapabilities')
    if v is not None:
        n += 1
        try:
            v = _fw_McpCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'mcp_capabilities', v)
    v = data.get('sessionCapabilities')
    if v is not None:
        n += 1
        try:
            v = _fw_SessionCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'session_capabilities', v)
    v = data.get('auth')
    if v is not None:
        n += 1
        try:
            v = _fw_AgentAuthCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'auth', v)
    v = data.get('providers')
    if v is not None:
        n += 1
        try:
            v = _fw_ProvidersCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'providers', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, AgentCapabilities._wire_keys) if len(data) > n else None)
    return self


class McpCapabilities(_Struct):
    """MCP capabilities supported by the agent"""

    __slots__ = ('http', 'sse', 'acp', 'meta', 'extra')
    __match_args__ = ('http', 'sse', 'acp', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('http', 'sse', 'acp', '_meta'))
    http: bool | None
    sse: bool | None
    acp: bool | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, http: bool | None = None, sse: bool | None = None, acp: bool | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'http', http)
        _set(self, 'sse', sse)
        _set(self, 'acp', acp)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> McpCapabilities:
        """Decode and validate a wire object as :class:`McpCapabilities`."""
        try:
            return _fw_McpCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.http is not None:
            d['http'] = self.http
        if self.sse is not None:
            d['sse'] = self.sse
        if self.acp is not None:
            d['acp'] = self.acp
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, McpCapabilities):
            return NotImplemented
        return (self.http, self.sse, self.acp, self.meta, self.extra,) == (other.http, other.sse, other.acp, other.meta, other.extra,)


def _fw_McpCapabilities(data: object) -> McpCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(McpCapabilities)
    n = 0
    v = data.get('http')
    if v is not None:
        n += 1
        if v is not True and v is not False:
            v = None
    _set(self, 'http', v)
    v = data.get('sse')
    if v is not None:
        n += 1
        if v is not True and v is not False:
            v = None
    _set(self, 'sse', v)
    v = data.get('acp')
    if v is not None:
        n += 1
        if v is not True and v is not False:
            v = None
    _set(self, 'acp', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, McpCapabilities._wire_keys) if len(data) > n else None)
    return self


class SessionCapabilities(_Struct):
    """Session capabilities supported by the agent."""

    __slots__ = ('list', 'delete', 'additional_directories', 'system_prompt', 'fork', 'archive', 'status', 'title', 'resume', 'close', 'meta', 'extra')
    __match_args__ = ('list', 'delete', 'additional_directories', 'system_prompt', 'fork', 'archive', 'status', 'title', 'resume', 'close', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('list', 'delete', 'additionalDirectories', 'systemPrompt', 'fork', 'archive', 'status', 'title', 'resume', 'close', '_meta'))
    list: SessionListCapabilities | None
    delete: SessionDeleteCapabilities | None
    additional_directories: SessionAdditionalDirectoriesCapabilities | None
    system_prompt: SessionSystemPromptCapabilities | None
    fork: SessionForkCapabilities | None
    archive: SessionArchiveCapabilities | None
    status: SessionStatusCapabilities | None
    title: SessionTitleCapabilities | None
    resume: SessionResumeCapabilities | None
    close: SessionCloseCapabilities | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, list: SessionListCapabilities | None = None, delete: SessionDeleteCapabilities | None = None, additional_directories: SessionAdditionalDirectoriesCapabilities | None = None, system_prompt: SessionSystemPromptCapabilities | None = None, fork: SessionForkCapabilities | None = None, archive: SessionArchiveCapabilities | None = None, status: SessionStatusCapabilities | None = None, title: SessionTitleCapabilities | None = None, resume: SessionResumeCapabilities | None = None, close: SessionCloseCapabilities | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'list', list)
        _set(self, 'delete', delete)
        _set(self, 'additional_directories', additional_directories)
        _set(self, 'system_prompt', system_prompt)
        _set(self, 'fork', fork)
        _set(self, 'archive', archive)
        _set(self, 'status', status)
        _set(self, 'title', title)
        _set(self, 'resume', resume)
        _set(self, 'close', close)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SessionCapabilities:
        """Decode and validate a wire object as :class:`SessionCapabilities`."""
        try:
            return _fw_SessionCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.list is not None:
            d['list'] = self.list.to_wire()
        if self.delete is not None:
            d['delete'] = self.delete.to_wire()
        if self.additional_directories is not None:
            d['additionalDirectories'] = self.additional_directories.to_wire()
        if self.system_prompt is not None:
            d['systemPrompt'] = self.system_prompt.to_wire()
        if self.fork is not None:
            d['fork'] = self.fork.to_wire()
        if self.archive is not None:
            d['archive'] = self.archive.to_wire()
        if self.status is not None:
            d['status'] = self.status.to_wire()
        if self.title is not None:
            d['title'] = self.title.to_wire()
        if self.resume is not None:
            d['resume'] = self.resume.to_wire()
        if self.close is not None:
            d['close'] = self.close.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionCapabilities):
            return NotImplemented
        return (self.list, self.delete, self.additional_directories, self.system_prompt, self.fork, self.archive, self.status, self.title, self.resume, self.close, self.meta, self.extra,) == (other.list, other.delete, other.additional_directories, other.system_prompt, other.fork, other.archive, other.status, other.title, other.resume, other.close, other.meta, other.extra,)


def _fw_SessionCapabilities(data: object) -> SessionCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SessionCapabilities)
    n = 0
    v = data.get('list')
    if v is not None:
        n += 1
        try:
            v = _t._fw_SessionListCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'list', v)
    v = data.get('delete')
    if v is not None:
        n += 1
        try:
            v = _t._fw_SessionDeleteCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'delete', v)
    v = data.get('additionalDirectories')
    if v is not None:
        n += 1
        try:
            v = _t._fw_SessionAdditionalDirectoriesCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'additional_directories', v)
    v = data.get('systemPrompt')
    if v is not None:
        n += 1
        try:
            v = _fw_SessionSystemPromptCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'system_prompt', v)
    v = data.get('fork')
    if v is not None:
        n += 1
        try:
            v = _fw_SessionForkCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'fork', v)
    v = data.get('archive')
    if v is not None:
        n += 1
        try:
            v = _fw_SessionArchiveCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'archive', v)
    v = data.get('status')
    if v is not None:
        n += 1
        try:
            v = _fw_SessionStatusCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'status', v)
    v = data.get('title')
    if v is not None:
        n += 1
        try:
            v = _fw_SessionTitleCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'title', v)
    v = data.get('resume')
    if v is not None:
        n += 1
        try:
            v = _t._fw_SessionResumeCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'resume', v)
    v = data.get('close')
    if v is not None:
        n += 1
        try:
            v = _t._fw_SessionCloseCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'close', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SessionCapabilities._wire_keys) if len(data) > n else None)
    return self


class SessionSystemPromptCapabilities(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('mode', 'meta', 'extra')
    __match_args__ = ('mode', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('mode', '_meta'))
    mode: SessionSystemPromptModeCapabilities | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, mode: SessionSystemPromptModeCapabilities | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'mode', mode)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SessionSystemPromptCapabilities:
        """Decode and validate a wire object as :class:`SessionSystemPromptCapabilities`."""
        try:
            return _fw_SessionSystemPromptCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.mode is not None:
            d['mode'] = self.mode.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionSystemPromptCapabilities):
            return NotImplemented
        return (self.mode, self.meta, self.extra,) == (other.mode, other.meta, other.extra,)


def _fw_SessionSystemPromptCapabilities(data: object) -> SessionSystemPromptCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SessionSystemPromptCapabilities)
    n = 0
    v = data.get('mode')
    if v is not None:
        n += 1
        try:
            v = _fw_SessionSystemPromptModeCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'mode', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SessionSystemPromptCapabilities._wire_keys) if len(data) > n else None)
    return self


class SessionSystemPromptModeCapabilities(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('override', 'meta', 'extra')
    __match_args__ = ('override', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('override', '_meta'))
    override: SessionSystemPromptOverrideCapabilities | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, override: SessionSystemPromptOverrideCapabilities | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'override', override)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SessionSystemPromptModeCapabilities:
        """Decode and validate a wire object as :class:`SessionSystemPromptModeCapabilities`."""
        try:
            return _fw_SessionSystemPromptModeCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.override is not None:
            d['override'] = self.override.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionSystemPromptModeCapabilities):
            return NotImplemented
        return (self.override, self.meta, self.extra,) == (other.override, other.meta, other.extra,)


def _fw_SessionSystemPromptModeCapabilities(data: object) -> SessionSystemPromptModeCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SessionSystemPromptModeCapabilities)
    n = 0
    v = data.get('override')
    if v is not None:
        n += 1
        try:
            v = _fw_SessionSystemPromptOverrideCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'override', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SessionSystemPromptModeCapabilities._wire_keys) if len(data) > n else None)
    return self


class SessionSystemPromptOverrideCapabilities(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta',))
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SessionSystemPromptOverrideCapabilities:
        """Decode and validate a wire object as :class:`SessionSystemPromptOverrideCapabilities`."""
        try:
            return _fw_SessionSystemPromptOverrideCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionSystemPromptOverrideCapabilities):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_SessionSystemPromptOverrideCapabilities(data: object) -> SessionSystemPromptOverrideCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SessionSystemPromptOverrideCapabilities)
    n = 0
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SessionSystemPromptOverrideCapabilities._wire_keys) if len(data) > n else None)
    return self


class SessionForkCapabilities(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta',))
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SessionForkCapabilities:
        """Decode and validate a wire object as :class:`SessionForkCapabilities`."""
        try:
            return _fw_SessionForkCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionForkCapabilities):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_SessionForkCapabilities(data: object) -> SessionForkCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SessionForkCapabilities)
    n = 0
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SessionForkCapabilities._wire_keys) if len(data) > n else None)
    return self


class SessionArchiveCapabilities(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta',))
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SessionArchiveCapabilities:
        """Decode and validate a wire object as :class:`SessionArchiveCapabilities`."""
        try:
            return _fw_SessionArchiveCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionArchiveCapabilities):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_SessionArchiveCapabilities(data: object) -> SessionArchiveCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SessionArchiveCapabilities)
    n = 0
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SessionArchiveCapabilities._wire_keys) if len(data) > n else None)
    return self


class SessionStatusCapabilities(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta',))
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SessionStatusCapabilities:
        """Decode and validate a wire object as :class:`SessionStatusCapabilities`."""
        try:
            return _fw_SessionStatusCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionStatusCapabilities):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_SessionStatusCapabilities(data: object) -> SessionStatusCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SessionStatusCapabilities)
    n = 0
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SessionStatusCapabilities._wire_keys) if len(data) > n else None)
    return self


class SessionTitleCapabilities(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta',))
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SessionTitleCapabilities:
        """Decode and validate a wire object as :class:`SessionTitleCapabilities`."""
        try:
            return _fw_SessionTitleCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionTitleCapabilities):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_SessionTitleCapabilities(data: object) -> SessionTitleCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SessionTitleCapabilities)
    n = 0
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SessionTitleCapabilities._wire_keys) if len(data) > n else None)
    return self


class AgentAuthCapabilities(_Struct):
    """Authentication-related capabilities supported by the agent."""

    __slots__ = ('status', 'logout', 'meta', 'extra')
    __match_args__ = ('status', 'logout', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('status', 'logout', '_meta'))
    status: AuthStatusCapabilities | None
    logout: LogoutCapabilities | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, status: AuthStatusCapabilities | None = None, logout: LogoutCapabilities | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'status', status)
        _set(self, 'logout', logout)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> AgentAuthCapabilities:
        """Decode and validate a wire object as :class:`AgentAuthCapabilities`."""
        try:
            return _fw_AgentAuthCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.status is not None:
            d['status'] = self.status.to_wire()
        if self.logout is not None:
            d['logout'] = self.logout.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AgentAuthCapabilities):
            return NotImplemented
        return (self.status, self.logout, self.meta, self.extra,) == (other.status, other.logout, other.meta, other.extra,)


def _fw_AgentAuthCapabilities(data: object) -> AgentAuthCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(AgentAuthCapabilities)
    n = 0
    v = data.get('status')
    if v is not None:
        n += 1
        try:
            v = _fw_AuthStatusCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'status', v)
    v = data.get('logout')
    if v is not None:
        n += 1
        try:
            v = _t._fw_LogoutCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'logout', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, AgentAuthCapabilities._wire_keys) if len(data) > n else None)
    return self


class AuthStatusCapabilities(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta',))
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> AuthStatusCapabilities:
        """Decode and validate a wire object as :class:`AuthStatusCapabilities`."""
        try:
            return _fw_AuthStatusCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AuthStatusCapabilities):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_AuthStatusCapabilities(data: object) -> AuthStatusCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(AuthStatusCapabilities)
    n = 0
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, AuthStatusCapabilities._wire_keys) if len(data) > n else None)
    return self


class ProvidersCapabilities(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta',))
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ProvidersCapabilities:
        """Decode and validate a wire object as :class:`ProvidersCapabilities`."""
        try:
            return _fw_ProvidersCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProvidersCapabilities):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_ProvidersCapabilities(data: object) -> ProvidersCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ProvidersCapabilities)
    n = 0
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, ProvidersCapabilities._wire_keys) if len(data) > n else None)
    return self


class ListProvidersResponse(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('providers', 'meta', 'extra')
    __match_args__ = ('providers', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('providers', '_meta'))
    providers: list[ProviderInfo]
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, providers: list[ProviderInfo], meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'providers', providers)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ListProvidersResponse:
        """Decode and validate a wire object as :class:`ListProvidersResponse`."""
        try:
            return _fw_ListProvidersResponse(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'providers': [x.to_wire() for x in self.providers]}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ListProvidersResponse):
            return NotImplemented
        return (self.providers, self.meta, self.extra,) == (other.providers, other.meta, other.extra,)


def _fw_ListProvidersResponse(data: object) -> ListProvidersResponse:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ListProvidersResponse)
    n = 1
    v = data.get('providers', _MISSING)
    if v is _MISSING:
        raise _missing('providers')
    try:
        v = _list(v, _fw_ProviderInfo, False)
    except SchemaError as exc:
        exc._within('providers')
        raise
    _set(self, 'providers', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, ListProvidersResponse._wire_keys) if len(data) > n else None)
    return self


class ProviderInfo(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('provider_id', 'supported', 'required', 'current', 'meta', 'extra')
    __match_args__ = ('provider_id', 'supported', 'required', 'current', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('providerId', 'supported', 'required', 'current', '_meta'))
    provider_id: ProviderId
    supported: list[LlmProtocol]
    required: bool
    current: ProviderCurrentConfig | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, provider_id: ProviderId, supported: list[LlmProtocol], required: bool, current: ProviderCurrentConfig | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'provider_id', provider_id)
        _set(self, 'supported', supported)
        _set(self, 'required', required)
        _set(self, 'current', current)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ProviderInfo:
        """Decode and validate a wire object as :class:`ProviderInfo`."""
        try:
            return _fw_ProviderInfo(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'providerId': self.provider_id, 'supported': list(self.supported), 'required': self.required}
        if self.current is not None:
            d['current'] = self.current.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProviderInfo):
            return NotImplemented
        return (self.provider_id, self.supported, self.required, self.current, self.meta, self.extra,) == (other.provider_id, other.supported, other.required, other.current, other.meta, other.extra,)


def _fw_ProviderInfo(data: object) -> ProviderInfo:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ProviderInfo)
    n = 3
    v = data.get('providerId', _MISSING)
    if v is _MISSING:
        raise _missing('providerId')
    if not isinstance(v, str):
        raise _bad('providerId', 'a string', v)
    _set(self, 'provider_id', v)
    v = data.get('supported', _MISSING)
    if v is _MISSING:
        raise _missing('supported')
    try:
        v = _list(v, _str, True)
    except SchemaError:
        v = []
    _set(self, 'supported', v)
    v = data.get('required', _MISSING)
    if v is _MISSING:
        raise _missing('required')
    if v is not True and v is not False:
        raise _bad('required', 'a boolean', v)
    _set(self, 'required', v)
    v = data.get('current')
    if v is not None:
        n += 1
        try:
            v = _fw_ProviderCurrentConfig(v)
        except SchemaError as exc:
            exc._within('current')
            raise
    _set(self, 'current', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, ProviderInfo._wire_keys) if len(data) > n else None)
    return self


class ProviderCurrentConfig(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('api_type', 'base_url', 'meta', 'extra')
    __match_args__ = ('api_type', 'base_url', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('apiType', 'baseUrl', '_meta'))
    api_type: LlmProtocol
    base_url: str
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, api_type: LlmProtocol, base_url: str, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'api_type', api_type)
        _set(self, 'base_url', base_url)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ProviderCurrentConfig:
        """Decode and validate a wire object as :class:`ProviderCurrentConfig`."""
        try:
            return _fw_ProviderCurrentConfig(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'apiType': self.api_type, 'baseUrl': self.base_url}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProviderCurrentConfig):
            return NotImplemented
        return (self.api_type, self.base_url, self.meta, self.extra,) == (other.api_type, other.base_url, other.meta, other.extra,)


def _fw_ProviderCurrentConfig(data: object) -> ProviderCurrentConfig:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ProviderCurrentConfig)
    n = 2
    v = data.get('apiType', _MISSING)
    if v is _MISSING:
        raise _missing('apiType')
    if not isinstance(v, str):
        raise _bad('apiType', 'a string', v)
    _set(self, 'api_type', v)
    v = data.get('baseUrl', _MISSING)
    if v is _MISSING:
        raise _missing('baseUrl')
    if not isinstance(v, str):
        raise _bad('baseUrl', 'a string', v)
    _set(self, 'base_url', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, ProviderCurrentConfig._wire_keys) if len(data) > n else None)
    return self


class SetProviderResponse(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta',))
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SetProviderResponse:
        """Decode and validate a wire object as :class:`SetProviderResponse`."""
        try:
            return _fw_SetProviderResponse(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SetProviderResponse):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_SetProviderResponse(data: object) -> SetProviderResponse:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SetProviderResponse)
    n = 0
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SetProviderResponse._wire_keys) if len(data) > n else None)
    return self


class DisableProviderResponse(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta',))
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> DisableProviderResponse:
        """Decode and validate a wire object as :class:`DisableProviderResponse`."""
        try:
            return _fw_DisableProviderResponse(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DisableProviderResponse):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_DisableProviderResponse(data: object) -> DisableProviderResponse:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(DisableProviderResponse)
    n = 0
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, DisableProviderResponse._wire_keys) if len(data) > n else None)
    return self


class AuthStatusResponse(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('state', 'accounts', 'meta', 'extra')
    __match_args__ = ('state', 'accounts', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('state', 'accounts', '_meta'))
    state: AuthState
    accounts: list[AuthAccount] | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, state: AuthState, accounts: list[AuthAccount] | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'state', state)
        _set(self, 'accounts', accounts)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> AuthStatusResponse:
        """Decode and validate a wire object as :class:`AuthStatusResponse`."""
        try:
            return _fw_AuthStatusResponse(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'state': self.state}
        if self.accounts is not None:
            d['accounts'] = [x.to_wire() for x in self.accounts]
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AuthStatusResponse):
            return NotImplemented
        return (self.state, self.accounts, self.meta, self.extra,) == (other.state, other.accounts, other.meta, other.extra,)


def _fw_AuthStatusResponse(data: object) -> AuthStatusResponse:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(AuthStatusResponse)
    n = 1
    v = data.get('state', _MISSING)
    if v is _MISSING:
        raise _missing('state')
    if not isinstance(v, str):
        raise _bad('state', 'a string', v)
    _set(self, 'state', v)
    v = data.get('accounts')
    if v is not None:
        n += 1
        try:
            v = _list(v, _fw_AuthAccount, True)
        except SchemaError:
            v = None
    _set(self, 'accounts', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, AuthStatusResponse._wire_keys) if len(data) > n else None)
    return self


class AuthAccount(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('label', 'active', 'name', 'email', 'organization', 'meta', 'extra')
    __match_args__ = ('label', 'active', 'name', 'email', 'organization', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('label', 'active', 'name', 'email', 'organization', '_meta'))
    label: str
    active: bool | None
    name: str | None
    email: str | None
    organization: str | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, label: str, active: bool | None = None, name: str | None = None, email: str | None = None, organization: str | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'label', label)
        _set(self, 'active', active)
        _set(self, 'name', name)
        _set(self, 'email', email)
        _set(self, 'organization', organization)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> AuthAccount:
        """Decode and validate a wire object as :class:`AuthAccount`."""
        try:
            return _fw_AuthAccount(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'label': self.label}
        if self.active is not None:
            d['active'] = self.active
        if self.name is not None:
            d['name'] = self.name
        if self.email is not None:
            d['email'] = self.email
        if self.organization is not None:
            d['organization'] = self.organization
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AuthAccount):
            return NotImplemented
        return (self.label, self.active, self.name, self.email, self.organization, self.meta, self.extra,) == (other.label, other.active, other.name, other.email, other.organization, other.meta, other.extra,)


def _fw_AuthAccount(data: object) -> AuthAccount:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(AuthAccount)
    n = 1
    v = data.get('label', _MISSING)
    if v is _MISSING:
        raise _missing('label')
    if not isinstance(v, str):
        raise _bad('label', 'a string', v)
    _set(self, 'label', v)
    v = data.get('active')
    if v is not None:
        n += 1
        if v is not True and v is not False:
            v = None
    _set(self, 'active', v)
    v = data.get('name')
    if v is not None:
        n += 1
        if not isinstance(v, str):
            v = None
    _set(self, 'name', v)
    v = data.get('email')
    if v is not None:
        n += 1
        if not isinstance(v, str):
            v = None
    _set(self, 'email', v)
    v = data.get('organization')
    if v is not None:
        n += 1
        if not isinstance(v, str):
            v = None
    _set(self, 'organization', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, AuthAccount._wire_keys) if len(data) > n else None)
    return self


class ListSessionsResponse(_Struct):
    """Response from listing sessions."""

    __slots__ = ('sessions', 'next_cursor', 'meta', 'extra')
    __match_args__ = ('sessions', 'next_cursor', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('sessions', 'nextCursor', '_meta'))
    sessions: list[SessionInfo]
    next_cursor: str | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, sessions: list[SessionInfo], next_cursor: str | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'sessions', sessions)
        _set(self, 'next_cursor', next_cursor)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ListSessionsResponse:
        """Decode and validate a wire object as :class:`ListSessionsResponse`."""
        try:
            return _fw_ListSessionsResponse(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'sessions': [x.to_wire() for x in self.sessions]}
        if self.next_cursor is not None:
            d['nextCursor'] = self.next_cursor
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ListSessionsResponse):
            return NotImplemented
        return (self.sessions, self.next_cursor, self.meta, self.extra,) == (other.sessions, other.next_cursor, other.meta, other.extra,)


def _fw_ListSessionsResponse(data: object) -> ListSessionsResponse:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ListSessionsResponse)
    n = 1
    v = data.get('sessions', _MISSING)
    if v is _MISSING:
        raise _missing('sessions')
    try:
        v = _list(v, _fw_SessionInfo, True)
    except SchemaError:
        v = []
    _set(self, 'sessions', v)
    v = data.get('nextCursor')
    if v is not None:
        n += 1
        if not isinstance(v, str):
            v = None
    _set(self, 'next_cursor', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, ListSessionsResponse._wire_keys) if len(data) > n else None)
    return self


class SessionInfo(_Struct):
    """Information about a session returned by session/list"""

    __slots__ = ('session_id', 'cwd', 'additional_directories', 'title', 'updated_at', 'archived', 'meta', 'extra')
    __match_args__ = ('session_id', 'cwd', 'additional_directories', 'title', 'updated_at', 'archived', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('sessionId', 'cwd', 'additionalDirectories', 'title', 'updatedAt', 'archived', '_meta'))
    session_id: SessionId
    cwd: str
    additional_directories: list[str] | None
    title: str | None
    updated_at: str | None
    archived: bool | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, session_id: SessionId, cwd: str, additional_directories: list[str] | None = None, title: str | None = None, updated_at: str | None = None, archived: bool | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'session_id', session_id)
        _set(self, 'cwd', cwd)
        _set(self, 'additional_directories', additional_directories)
        _set(self, 'title', title)
        _set(self, 'updated_at', updated_at)
        _set(self, 'archived', archived)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SessionInfo:
        """Decode and validate a wire object as :class:`SessionInfo`."""
        try:
            return _fw_SessionInfo(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'sessionId': self.session_id, 'cwd': self.cwd}
        if self.additional_directories is not None:
            d['additionalDirectories'] = list(self.additional_directories)
        if self.title is not None:
            d['title'] = self.title
        if self.updated_at is not None:
            d['updatedAt'] = self.updated_at
        if self.archived is not None:
            d['archived'] = self.archived
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionInfo):
            return NotImplemented
        return (self.session_id, self.cwd, self.additional_directories, self.title, self.updated_at, self.archived, self.meta, self.extra,) == (other.session_id, other.cwd, other.additional_directories, other.title, other.updated_at, other.archived, other.meta, other.extra,)


def _fw_SessionInfo(data: object) -> SessionInfo:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SessionInfo)
    n = 2
    v = data.get('sessionId', _MISSING)
    if v is _MISSING:
        raise _missing('sessionId')
    if not isinstance(v, str):
        raise _bad('sessionId', 'a string', v)
    _set(self, 'session_id', v)
    v = data.get('cwd', _MISSING)
    if v is _MISSING:
        raise _missing('cwd')
    if not isinstance(v, str):
        raise _bad('cwd', 'a string', v)
    _set(self, 'cwd', v)
    v = data.get('additionalDirectories')
    if v is not None:
        n += 1
        try:
            v = _list(v, _str, True)
        except SchemaError:
            v = None
    _set(self, 'additional_directories', v)
    v = data.get('title')
    if v is not None:
        n += 1
        if not isinstance(v, str):
            v = None
    _set(self, 'title', v)
    v = data.get('updatedAt')
    if v is not None:
        n += 1
        if not isinstance(v, str):
            v = None
    _set(self, 'updated_at', v)
    v = data.get('archived')
    if v is not None:
        n += 1
        if v is not True and v is not False:
            v = None
    _set(self, 'archived', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SessionInfo._wire_keys) if len(data) > n else None)
    return self


class ForkSessionResponse(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('session_id', 'modes', 'config_options', 'meta', 'extra')
    __match_args__ = ('session_id', 'modes', 'config_options', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('sessionId', 'modes', 'configOptions', '_meta'))
    session_id: SessionId
    modes: SessionModeState | None
    config_options: list[SessionConfigOption] | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, session_id: SessionId, modes: SessionModeState | None = None, config_options: list[SessionConfigOption] | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'session_id', session_id)
        _set(self, 'modes', modes)
        _set(self, 'config_options', config_options)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ForkSessionResponse:
        """Decode and validate a wire object as :class:`ForkSessionResponse`."""
        try:
            return _fw_ForkSessionResponse(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'sessionId': self.session_id}
        if self.modes is not None:
            d['modes'] = self.modes.to_wire()
        if self.config_options is not None:
            d['configOptions'] = [x.to_wire() for x in self.config_options]
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ForkSessionResponse):
            return NotImplemented
        return (self.session_id, self.modes, self.config_options, self.meta, self.extra,) == (other.session_id, other.modes, other.config_options, other.meta, other.extra,)


def _fw_ForkSessionResponse(data: object) -> ForkSessionResponse:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ForkSessionResponse)
    n = 1
    v = data.get('sessionId', _MISSING)
    if v is _MISSING:
        raise _missing('sessionId')
    if not isinstance(v, str):
        raise _bad('sessionId', 'a string', v)
    _set(self, 'session_id', v)
    v = data.get('modes')
    if v is not None:
        n += 1
        try:
            v = _t._fw_SessionModeState(v)
        except SchemaError:
            v = None
    _set(self, 'modes', v)
    v = data.get('configOptions')
    if v is not None:
        n += 1
        try:
            v = _list(v, _t._fw_SessionConfigOption, True)
        except SchemaError:
            v = None
    _set(self, 'config_options', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, ForkSessionResponse._wire_keys) if len(data) > n else None)
    return self


class ArchiveSessionResponse(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta',))
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ArchiveSessionResponse:
        """Decode and validate a wire object as :class:`ArchiveSessionResponse`."""
        try:
            return _fw_ArchiveSessionResponse(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ArchiveSessionResponse):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_ArchiveSessionResponse(data: object) -> ArchiveSessionResponse:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ArchiveSessionResponse)
    n = 0
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, ArchiveSessionResponse._wire_keys) if len(data) > n else None)
    return self


class UnarchiveSessionResponse(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta',))
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> UnarchiveSessionResponse:
        """Decode and validate a wire object as :class:`UnarchiveSessionResponse`."""
        try:
            return _fw_UnarchiveSessionResponse(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, UnarchiveSessionResponse):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_UnarchiveSessionResponse(data: object) -> UnarchiveSessionResponse:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(UnarchiveSessionResponse)
    n = 0
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, UnarchiveSessionResponse._wire_keys) if len(data) > n else None)
    return self


class SessionStatusResponse(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('status', 'meta', 'extra')
    __match_args__ = ('status', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('status', '_meta'))
    status: SessionStatus
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, status: SessionStatus, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'status', status)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SessionStatusResponse:
        """Decode and validate a wire object as :class:`SessionStatusResponse`."""
        try:
            return _fw_SessionStatusResponse(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'status': self.status}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionStatusResponse):
            return NotImplemented
        return (self.status, self.meta, self.extra,) == (other.status, other.meta, other.extra,)


def _fw_SessionStatusResponse(data: object) -> SessionStatusResponse:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SessionStatusResponse)
    n = 1
    v = data.get('status', _MISSING)
    if v is _MISSING:
        raise _missing('status')
    if not isinstance(v, str):
        raise _bad('status', 'a string', v)
    _set(self, 'status', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SessionStatusResponse._wire_keys) if len(data) > n else None)
    return self


class SetSessionTitleResponse(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('title', 'meta', 'extra')
    __match_args__ = ('title', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('title', '_meta'))
    title: str
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, title: str, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'title', title)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SetSessionTitleResponse:
        """Decode and validate a wire object as :class:`SetSessionTitleResponse`."""
        try:
            return _fw_SetSessionTitleResponse(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'title': self.title}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SetSessionTitleResponse):
            return NotImplemented
        return (self.title, self.meta, self.extra,) == (other.title, other.meta, other.extra,)


def _fw_SetSessionTitleResponse(data: object) -> SetSessionTitleResponse:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SetSessionTitleResponse)
    n = 1
    v = data.get('title', _MISSING)
    if v is _MISSING:
        raise _missing('title')
    if not isinstance(v, str):
        raise _bad('title', 'a string', v)
    _set(self, 'title', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SetSessionTitleResponse._wire_keys) if len(data) > n else None)
    return self


class PromptResponse(_Struct):
    """Response from processing a user prompt."""

    __slots__ = ('stop_reason', 'usage', 'meta', 'extra')
    __match_args__ = ('stop_reason', 'usage', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('stopReason', 'usage', '_meta'))
    stop_reason: StopReason
    usage: Usage | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, stop_reason: StopReason, usage: Usage | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'stop_reason', stop_reason)
        _set(self, 'usage', usage)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> PromptResponse:
        """Decode and validate a wire object as :class:`PromptResponse`."""
        try:
            return _fw_PromptResponse(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'stopReason': self.stop_reason}
        if self.usage is not None:
            d['usage'] = self.usage.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PromptResponse):
            return NotImplemented
        return (self.stop_reason, self.usage, self.meta, self.extra,) == (other.stop_reason, other.usage, other.meta, other.extra,)


def _fw_PromptResponse(data: object) -> PromptResponse:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(PromptResponse)
    n = 1
    v = data.get('stopReason', _MISSING)
    if v is _MISSING:
        raise _missing('stopReason')
    if not isinstance(v, str):
        raise _bad('stopReason', 'a string', v)
    _set(self, 'stop_reason', v)
    v = data.get('usage')
    if v is not None:
        n += 1
        try:
            v = _fw_Usage(v)
        except SchemaError:
            v = None
    _set(self, 'usage', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, PromptResponse._wire_keys) if len(data) > n else None)
    return self


class Usage(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('total_tokens', 'input_tokens', 'output_tokens', 'thought_tokens', 'cached_read_tokens', 'cached_write_tokens', 'meta', 'extra')
    __match_args__ = ('total_tokens', 'input_tokens', 'output_tokens', 'thought_tokens', 'cached_read_tokens', 'cached_write_tokens', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('totalTokens', 'inputTokens', 'outputTokens', 'thoughtTokens', 'cachedReadTokens', 'cachedWriteTokens', '_meta'))
    total_tokens: int
    input_tokens: int
    output_tokens: int
    thought_tokens: int | None
    cached_read_tokens: int | None
    cached_write_tokens: int | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, total_tokens: int, input_tokens: int, output_tokens: int, thought_tokens: int | None = None, cached_read_tokens: int | None = None, cached_write_tokens: int | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'total_tokens', total_tokens)
        _set(self, 'input_tokens', input_tokens)
        _set(self, 'output_tokens', output_tokens)
        _set(self, 'thought_tokens', thought_tokens)
        _set(self, 'cached_read_tokens', cached_read_tokens)
        _set(self, 'cached_write_tokens', cached_write_tokens)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> Usage:
        """Decode and validate a wire object as :class:`Usage`."""
        try:
            return _fw_Usage(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'totalTokens': self.total_tokens, 'inputTokens': self.input_tokens, 'outputTokens': self.output_tokens}
        if self.thought_tokens is not None:
            d['thoughtTokens'] = self.thought_tokens
        if self.cached_read_tokens is not None:
            d['cachedReadTokens'] = self.cached_read_tokens
        if self.cached_write_tokens is not None:
            d['cachedWriteTokens'] = self.cached_write_tokens
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Usage):
            return NotImplemented
        return (self.total_tokens, self.input_tokens, self.output_tokens, self.thought_tokens, self.cached_read_tokens, self.cached_write_tokens, self.meta, self.extra,) == (other.total_tokens, other.input_tokens, other.output_tokens, other.thought_tokens, other.cached_read_tokens, other.cached_write_tokens, other.meta, other.extra,)


def _fw_Usage(data: object) -> Usage:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(Usage)
    n = 3
    v = data.get('totalTokens', _MISSING)
    if v is _MISSING:
        raise _missing('totalTokens')
    if not isinstance(v, int) or v is True or v is False:
        raise _bad('totalTokens', 'an integer', v)
    _set(self, 'total_tokens', v)
    v = data.get('inputTokens', _MISSING)
    if v is _MISSING:
        raise _missing('inputTokens')
    if not isinstance(v, int) or v is True or v is False:
        raise _bad('inputTokens', 'an integer', v)
    _set(self, 'input_tokens', v)
    v = data.get('outputTokens', _MISSING)
    if v is _MISSING:
        raise _missing('outputTokens')
    if not isinstance(v, int) or v is True or v is False:
        raise _bad('outputTokens', 'an integer', v)
    _set(self, 'output_tokens', v)
    v = data.get('thoughtTokens')
    if v is not None:
        n += 1
        if not isinstance(v, int) or v is True or v is False:
            v = None
    _set(self, 'thought_tokens', v)
    v = data.get('cachedReadTokens')
    if v is not None:
        n += 1
        if not isinstance(v, int) or v is True or v is False:
            v = None
    _set(self, 'cached_read_tokens', v)
    v = data.get('cachedWriteTokens')
    if v is not None:
        n += 1
        if not isinstance(v, int) or v is True or v is False:
            v = None
    _set(self, 'cached_write_tokens', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, Usage._wire_keys) if len(data) > n else None)
    return self


class SessionNotification(_Struct):
    """Notification containing a session update from the agent."""

    __slots__ = ('session_id', 'update', 'meta', 'extra')
    __match_args__ = ('session_id', 'update', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('sessionId', 'update', '_meta'))
    session_id: SessionId
    update: SessionUpdate
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, session_id: SessionId, update: SessionUpdate, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'session_id', session_id)
        _set(self, 'update', update)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SessionNotification:
        """Decode and validate a wire object as :class:`SessionNotification`."""
        try:
            return _fw_SessionNotification(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'sessionId': self.session_id, 'update': self.update.to_wire()}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionNotification):
            return NotImplemented
        return (self.session_id, self.update, self.meta, self.extra,) == (other.session_id, other.update, other.meta, other.extra,)


def _fw_SessionNotification(data: object) -> SessionNotification:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SessionNotification)
    n = 2
    v = data.get('sessionId', _MISSING)
    if v is _MISSING:
        raise _missing('sessionId')
    if not isinstance(v, str):
        raise _bad('sessionId', 'a string', v)
    _set(self, 'session_id', v)
    v = data.get('update', _MISSING)
    if v is _MISSING:
        raise _missing('update')
    try:
        v = _fw_SessionUpdate(v)
    except SchemaError as exc:
        exc._within('update')
        raise
    _set(self, 'update', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SessionNotification._wire_keys) if len(data) > n else None)
    return self


class PlanContentUpdate(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('plan', 'meta', 'extra')
    __match_args__ = ('plan', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('plan', '_meta', 'sessionUpdate'))
    session_update: Literal["plan_update"] = "plan_update"
    plan: PlanUpdateContent
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, plan: PlanUpdateContent, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'plan', plan)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> PlanContentUpdate:
        """Decode and validate a wire object as :class:`PlanContentUpdate`."""
        try:
            return _fw_PlanContentUpdate(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'sessionUpdate': "plan_update", 'plan': self.plan.to_wire()}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlanContentUpdate):
            return NotImplemented
        return (self.plan, self.meta, self.extra,) == (other.plan, other.meta, other.extra,)


def _fw_PlanContentUpdate(data: object) -> PlanContentUpdate:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(PlanContentUpdate)
    n = 1 + ('sessionUpdate' in data)
    v = data.get('plan', _MISSING)
    if v is _MISSING:
        raise _missing('plan')
    try:
        v = _fw_PlanUpdateContent(v)
    except SchemaError as exc:
        exc._within('plan')
        raise
    _set(self, 'plan', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, PlanContentUpdate._wire_keys) if len(data) > n else None)
    return self


class PlanRemoved(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('plan_id', 'meta', 'extra')
    __match_args__ = ('plan_id', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('planId', '_meta', 'sessionUpdate'))
    session_update: Literal["plan_removed"] = "plan_removed"
    plan_id: PlanId
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, plan_id: PlanId, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'plan_id', plan_id)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> PlanRemoved:
        """Decode and validate a wire object as :class:`PlanRemoved`."""
        try:
            return _fw_PlanRemoved(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'sessionUpdate': "plan_removed", 'planId': self.plan_id}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlanRemoved):
            return NotImplemented
        return (self.plan_id, self.meta, self.extra,) == (other.plan_id, other.meta, other.extra,)


def _fw_PlanRemoved(data: object) -> PlanRemoved:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(PlanRemoved)
    n = 1 + ('sessionUpdate' in data)
    v = data.get('planId', _MISSING)
    if v is _MISSING:
        raise _missing('planId')
    if not isinstance(v, str):
        raise _bad('planId', 'a string', v)
    _set(self, 'plan_id', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, PlanRemoved._wire_keys) if len(data) > n else None)
    return self


class SubagentUpdate(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('session_id', 'title', 'description', 'capabilities', 'state', 'cwd', 'additional_directories', 'meta', 'extra')
    __match_args__ = ('session_id', 'title', 'description', 'capabilities', 'state', 'cwd', 'additional_directories', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('sessionId', 'title', 'description', 'capabilities', 'state', 'cwd', 'additionalDirectories', '_meta', 'sessionUpdate'))
    _patch: ClassVar[frozenset[str]] = frozenset(('title', 'description', 'capabilities', 'state', 'cwd', 'additional_directories', 'meta'))
    session_update: Literal["subagent_update"] = "subagent_update"
    session_id: SessionId
    title: str | Unset | None
    description: str | Unset | None
    capabilities: SubagentSessionCapabilities | Unset | None
    state: StateUpdate | Unset | None
    cwd: str | Unset | None
    additional_directories: list[str] | Unset | None
    meta: dict[str, Any] | Unset | None
    extra: dict[str, Any] | None

    def __init__(self, *, session_id: SessionId, title: str | Unset | None = UNSET, description: str | Unset | None = UNSET, capabilities: SubagentSessionCapabilities | Unset | None = UNSET, state: StateUpdate | Unset | None = UNSET, cwd: str | Unset | None = UNSET, additional_directories: list[str] | Unset | None = UNSET, meta: dict[str, Any] | Unset | None = UNSET, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'session_id', session_id)
        _set(self, 'title', title)
        _set(self, 'description', description)
        _set(self, 'capabilities', capabilities)
        _set(self, 'state', state)
        _set(self, 'cwd', cwd)
        _set(self, 'additional_directories', additional_directories)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SubagentUpdate:
        """Decode and validate a wire object as :class:`SubagentUpdate`."""
        try:
            return _fw_SubagentUpdate(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'sessionUpdate': "subagent_update", 'sessionId': self.session_id}
        if not isinstance(self.title, Unset):
            d['title'] = self.title
        if not isinstance(self.description, Unset):
            d['description'] = self.description
        if not isinstance(self.capabilities, Unset):
            d['capabilities'] = None if self.capabilities is None else self.capabilities.to_wire()
        if not isinstance(self.state, Unset):
            d['state'] = None if self.state is None else self.state.to_wire()
        if not isinstance(self.cwd, Unset):
            d['cwd'] = self.cwd
        if not isinstance(self.additional_directories, Unset):
            d['additionalDirectories'] = None if self.additional_directories is None else list(self.additional_directories)
        if not isinstance(self.meta, Unset):
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SubagentUpdate):
            return NotImplemented
        return (self.session_id, self.title, self.description, self.capabilities, self.state, self.cwd, self.additional_directories, self.meta, self.extra,) == (other.session_id, other.title, other.description, other.capabilities, other.state, other.cwd, other.additional_directories, other.meta, other.extra,)


def _fw_SubagentUpdate(data: object) -> SubagentUpdate:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SubagentUpdate)
    n = 1 + ('sessionUpdate' in data)
    v = data.get('sessionId', _MISSING)
    if v is _MISSING:
        raise _missing('sessionId')
    if not isinstance(v, str):
        raise _bad('sessionId', 'a string', v)
    _set(self, 'session_id', v)
    v = data.get('title', UNSET)
    if v is not UNSET:
        n += 1
        if v is not None:
            if not isinstance(v, str):
                v = UNSET
    _set(self, 'title', v)
    v = data.get('description', UNSET)
    if v is not UNSET:
        n += 1
        if v is not None:
            if not isinstance(v, str):
                v = UNSET
    _set(self, 'description', v)
    v = data.get('capabilities', UNSET)
    if v is not UNSET:
        n += 1
        if v is not None:
            try:
                v = _fw_SubagentSessionCapabilities(v)
            except SchemaError:
                v = UNSET
    _set(self, 'capabilities', v)
    v = data.get('state', UNSET)
    if v is not UNSET:
        n += 1
        if v is not None:
            try:
                v = _fw_StateUpdate(v)
            except SchemaError:
                v = UNSET
    _set(self, 'state', v)
    v = data.get('cwd', UNSET)
    if v is not UNSET:
        n += 1
        if v is not None:
            if not isinstance(v, str):
                raise _bad('cwd', 'a string', v)
    _set(self, 'cwd', v)
    v = data.get('additionalDirectories', UNSET)
    if v is not UNSET:
        n += 1
        if v is not None:
            try:
                v = _list(v, _str, False)
            except SchemaError as exc:
                exc._within('additionalDirectories')
                raise
    _set(self, 'additional_directories', v)
    v = data.get('_meta', UNSET)
    if v is not UNSET:
        n += 1
        if v is not None:
            if not isinstance(v, dict):
                v = UNSET
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SubagentUpdate._wire_keys) if len(data) > n else None)
    return self


class SessionMessage(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('message_id', 'sender_session_id', 'recipient_session_id', 'sender_message_id', 'recipient_message_id', 'content', 'meta', 'extra')
    __match_args__ = ('message_id', 'sender_session_id', 'recipient_session_id', 'sender_message_id', 'recipient_message_id', 'content', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('messageId', 'senderSessionId', 'recipientSessionId', 'senderMessageId', 'recipientMessageId', 'content', '_meta', 'sessionUpdate'))
    _patch: ClassVar[frozenset[str]] = frozenset(('sender_session_id', 'recipient_session_id', 'sender_message_id', 'recipient_message_id', 'content', 'meta'))
    session_update: Literal["session_message"] = "session_message"
    message_id: MessageId
    sender_session_id: SessionId | Unset | None
    recipient_session_id: SessionId | Unset | None
    sender_message_id: MessageId | Unset | None
    recipient_message_id: MessageId | Unset | None
    content: list[ContentBlock] | Unset | None
    meta: dict[str, Any] | Unset | None
    extra: dict[str, Any] | None

    def __init__(self, *, message_id: MessageId, sender_session_id: SessionId | Unset | None = UNSET, recipient_session_id: SessionId | Unset | None = UNSET, sender_message_id: MessageId | Unset | None = UNSET, recipient_message_id: MessageId | Unset | None = UNSET, content: list[ContentBlock] | Unset | None = UNSET, meta: dict[str, Any] | Unset | None = UNSET, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'message_id', message_id)
        _set(self, 'sender_session_id', sender_session_id)
        _set(self, 'recipient_session_id', recipient_session_id)
        _set(self, 'sender_message_id', sender_message_id)
        _set(self, 'recipient_message_id', recipient_message_id)
        _set(self, 'content', content)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SessionMessage:
        """Decode and validate a wire object as :class:`SessionMessage`."""
        try:
            return _fw_SessionMessage(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'sessionUpdate': "session_message", 'messageId': self.message_id}
        if not isinstance(self.sender_session_id, Unset):
            d['senderSessionId'] = self.sender_session_id
        if not isinstance(self.recipient_session_id, Unset):
            d['recipientSessionId'] = self.recipient_session_id
        if not isinstance(self.sender_message_id, Unset):
            d['senderMessageId'] = self.sender_message_id
        if not isinstance(self.recipient_message_id, Unset):
            d['recipientMessageId'] = self.recipient_message_id
        if not isinstance(self.content, Unset):
            d['content'] = None if self.content is None else [x.to_wire() for x in self.content]
        if not isinstance(self.meta, Unset):
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionMessage):
            return NotImplemented
        return (self.message_id, self.sender_session_id, self.recipient_session_id, self.sender_message_id, self.recipient_message_id, self.content, self.meta, self.extra,) == (other.message_id, other.sender_session_id, other.recipient_session_id, other.sender_message_id, other.recipient_message_id, other.content, other.meta, other.extra,)


def _fw_SessionMessage(data: object) -> SessionMessage:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SessionMessage)
    n = 1 + ('sessionUpdate' in data)
    v = data.get('messageId', _MISSING)
    if v is _MISSING:
        raise _missing('messageId')
    if not isinstance(v, str):
        raise _bad('messageId', 'a string', v)
    _set(self, 'message_id', v)
    v = data.get('senderSessionId', UNSET)
    if v is not UNSET:
        n += 1
        if v is not None:
            if not isinstance(v, str):
                v = UNSET
    _set(self, 'sender_session_id', v)
    v = data.get('recipientSessionId', UNSET)
    if v is not UNSET:
        n += 1
        if v is not None:
            if not isinstance(v, str):
                v = UNSET
    _set(self, 'recipient_session_id', v)
    v = data.get('senderMessageId', UNSET)
    if v is not UNSET:
        n += 1
        if v is not None:
            if not isinstance(v, str):
                v = UNSET
    _set(self, 'sender_message_id', v)
    v = data.get('recipientMessageId', UNSET)
    if v is not UNSET:
        n += 1
        if v is not None:
            if not isinstance(v, str):
                v = UNSET
    _set(self, 'recipient_message_id', v)
    v = data.get('content', UNSET)
    if v is not UNSET:
        n += 1
        if v is not None:
            try:
                v = _list(v, _t._fw_ContentBlock, True)
            except SchemaError:
                v = UNSET
    _set(self, 'content', v)
    v = data.get('_meta', UNSET)
    if v is not UNSET:
        n += 1
        if v is not None:
            if not isinstance(v, dict):
                v = UNSET
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SessionMessage._wire_keys) if len(data) > n else None)
    return self


class SessionMessageChunk(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('message_id', 'content', 'meta', 'extra')
    __match_args__ = ('message_id', 'content', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('messageId', 'content', '_meta', 'sessionUpdate'))
    session_update: Literal["session_message_chunk"] = "session_message_chunk"
    message_id: MessageId
    content: ContentBlock
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    @property
    def text(self) -> str:
        """The chunk's text: its text block's ``text``; ``""`` when the block is not text."""
        # Only TextContentBlock has ``type == "text"`` (its fixed discriminator).
        block = self.content
        return block.text if getattr(block, "type", None) == "text" else ""  # type: ignore[union-attr]

    def __init__(self, *, message_id: MessageId, content: ContentBlock, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'message_id', message_id)
        _set(self, 'content', content)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SessionMessageChunk:
        """Decode and validate a wire object as :class:`SessionMessageChunk`."""
        try:
            return _fw_SessionMessageChunk(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'sessionUpdate': "session_message_chunk", 'messageId': self.message_id, 'content': self.content.to_wire()}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionMessageChunk):
            return NotImplemented
        return (self.message_id, self.content, self.meta, self.extra,) == (other.message_id, other.content, other.meta, other.extra,)


def _fw_SessionMessageChunk(data: object) -> SessionMessageChunk:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SessionMessageChunk)
    n = 2 + ('sessionUpdate' in data)
    v = data.get('messageId', _MISSING)
    if v is _MISSING:
        raise _missing('messageId')
    if not isinstance(v, str):
        raise _bad('messageId', 'a string', v)
    _set(self, 'message_id', v)
    v = data.get('content', _MISSING)
    if v is _MISSING:
        raise _missing('content')
    try:
        v = _t._fw_ContentBlock(v)
    except SchemaError as exc:
        exc._within('content')
        raise
    _set(self, 'content', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SessionMessageChunk._wire_keys) if len(data) > n else None)
    return self


class PlanItems(_Struct):
    """Structured plan entries."""

    __slots__ = ('plan_id', 'entries', 'meta', 'extra')
    __match_args__ = ('plan_id', 'entries', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('planId', 'entries', '_meta', 'type'))
    type: Literal["items"] = "items"
    plan_id: PlanId
    entries: list[PlanEntry]
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, plan_id: PlanId, entries: list[PlanEntry], meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'plan_id', plan_id)
        _set(self, 'entries', entries)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> PlanItems:
        """Decode and validate a wire object as :class:`PlanItems`."""
        try:
            return _fw_PlanItems(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'type': "items", 'planId': self.plan_id, 'entries': [x.to_wire() for x in self.entries]}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlanItems):
            return NotImplemented
        return (self.plan_id, self.entries, self.meta, self.extra,) == (other.plan_id, other.entries, other.meta, other.extra,)


def _fw_PlanItems(data: object) -> PlanItems:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(PlanItems)
    n = 2 + ('type' in data)
    v = data.get('planId', _MISSING)
    if v is _MISSING:
        raise _missing('planId')
    if not isinstance(v, str):
        raise _bad('planId', 'a string', v)
    _set(self, 'plan_id', v)
    v = data.get('entries', _MISSING)
    if v is _MISSING:
        raise _missing('entries')
    try:
        v = _list(v, _t._fw_PlanEntry, True)
    except SchemaError:
        v = []
    _set(self, 'entries', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, PlanItems._wire_keys) if len(data) > n else None)
    return self


class PlanFile(_Struct):
    """A URI pointing to a file containing the plan."""

    __slots__ = ('plan_id', 'uri', 'meta', 'extra')
    __match_args__ = ('plan_id', 'uri', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('planId', 'uri', '_meta', 'type'))
    type: Literal["file"] = "file"
    plan_id: PlanId
    uri: str
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, plan_id: PlanId, uri: str, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'plan_id', plan_id)
        _set(self, 'uri', uri)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> PlanFile:
        """Decode and validate a wire object as :class:`PlanFile`."""
        try:
            return _fw_PlanFile(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'type': "file", 'planId': self.plan_id, 'uri': self.uri}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlanFile):
            return NotImplemented
        return (self.plan_id, self.uri, self.meta, self.extra,) == (other.plan_id, other.uri, other.meta, other.extra,)


def _fw_PlanFile(data: object) -> PlanFile:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(PlanFile)
    n = 2 + ('type' in data)
    v = data.get('planId', _MISSING)
    if v is _MISSING:
        raise _missing('planId')
    if not isinstance(v, str):
        raise _bad('planId', 'a string', v)
    _set(self, 'plan_id', v)
    v = data.get('uri', _MISSING)
    if v is _MISSING:
        raise _missing('uri')
    if not isinstance(v, str):
        raise _bad('uri', 'a string', v)
    _set(self, 'uri', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, PlanFile._wire_keys) if len(data) > n else None)
    return self


class PlanMarkdown(_Struct):
    """Raw markdown content for the plan."""

    __slots__ = ('plan_id', 'content', 'meta', 'extra')
    __match_args__ = ('plan_id', 'content', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('planId', 'content', '_meta', 'type'))
    type: Literal["markdown"] = "markdown"
    plan_id: PlanId
    content: str
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, plan_id: PlanId, content: str, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'plan_id', plan_id)
        _set(self, 'content', content)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> PlanMarkdown:
        """Decode and validate a wire object as :class:`PlanMarkdown`."""
        try:
            return _fw_PlanMarkdown(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'type': "markdown", 'planId': self.plan_id, 'content': self.content}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlanMarkdown):
            return NotImplemented
        return (self.plan_id, self.content, self.meta, self.extra,) == (other.plan_id, other.content, other.meta, other.extra,)


def _fw_PlanMarkdown(data: object) -> PlanMarkdown:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(PlanMarkdown)
    n = 2 + ('type' in data)
    v = data.get('planId', _MISSING)
    if v is _MISSING:
        raise _missing('planId')
    if not isinstance(v, str):
        raise _bad('planId', 'a string', v)
    _set(self, 'plan_id', v)
    v = data.get('content', _MISSING)
    if v is _MISSING:
        raise _missing('content')
    if not isinstance(v, str):
        raise _bad('content', 'a string', v)
    _set(self, 'content', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, PlanMarkdown._wire_keys) if len(data) > n else None)
    return self


class UnknownPlanUpdateContent(_Struct):
    """A :data:`PlanUpdateContent` whose ``type`` value this schema version does not know."""
    __slots__ = ("kind", "raw")
    __match_args__ = ("kind", "raw")
    kind: str
    raw: dict[str, Any]

    def __init__(self, *, kind: str, raw: dict[str, Any]) -> None:
        _set(self, "kind", kind)
        _set(self, "raw", raw)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> UnknownPlanUpdateContent:
        """Keep a wire object whose variant is unknown, as it came."""
        if not isinstance(data, dict):
            raise _bad(path, "an object", data)
        self = _new(cls)
        _set(self, "kind", str(data.get('type', "")))
        _set(self, "raw", data)
        return self

    def to_wire(self) -> dict[str, Any]:
        """Return the object as it came."""
        return dict(self.raw)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, UnknownPlanUpdateContent):
            return NotImplemented
        return (self.kind, self.raw) == (other.kind, other.raw)


class SubagentSessionCapabilities(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('cancel', 'meta', 'extra')
    __match_args__ = ('cancel', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('cancel', '_meta'))
    cancel: SessionCancelCapabilities | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, cancel: SessionCancelCapabilities | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'cancel', cancel)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SubagentSessionCapabilities:
        """Decode and validate a wire object as :class:`SubagentSessionCapabilities`."""
        try:
            return _fw_SubagentSessionCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.cancel is not None:
            d['cancel'] = self.cancel.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SubagentSessionCapabilities):
            return NotImplemented
        return (self.cancel, self.meta, self.extra,) == (other.cancel, other.meta, other.extra,)


def _fw_SubagentSessionCapabilities(data: object) -> SubagentSessionCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SubagentSessionCapabilities)
    n = 0
    v = data.get('cancel')
    if v is not None:
        n += 1
        try:
            v = _fw_SessionCancelCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'cancel', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SubagentSessionCapabilities._wire_keys) if len(data) > n else None)
    return self


class SessionCancelCapabilities(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta',))
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SessionCancelCapabilities:
        """Decode and validate a wire object as :class:`SessionCancelCapabilities`."""
        try:
            return _fw_SessionCancelCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionCancelCapabilities):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_SessionCancelCapabilities(data: object) -> SessionCancelCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SessionCancelCapabilities)
    n = 0
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SessionCancelCapabilities._wire_keys) if len(data) > n else None)
    return self


class RunningStateUpdate(_Struct):
    """Foreground work is in progress."""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta', 'state'))
    state: Literal["running"] = "running"
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> RunningStateUpdate:
        """Decode and validate a wire object as :class:`RunningStateUpdate`."""
        try:
            return _fw_RunningStateUpdate(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'state': "running"}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RunningStateUpdate):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_RunningStateUpdate(data: object) -> RunningStateUpdate:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(RunningStateUpdate)
    n = 0 + ('state' in data)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, RunningStateUpdate._wire_keys) if len(data) > n else None)
    return self


class IdleStateUpdate(_Struct):
    """The child is ready to process another prompt."""

    __slots__ = ('usage', 'stop_reason', 'error', 'meta', 'extra')
    __match_args__ = ('usage', 'stop_reason', 'error', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('usage', 'stopReason', 'error', '_meta', 'state'))
    state: Literal["idle"] = "idle"
    usage: Usage | None
    stop_reason: str | None
    error: Error | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, usage: Usage | None = None, stop_reason: str | None = None, error: Error | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'usage', usage)
        _set(self, 'stop_reason', stop_reason)
        _set(self, 'error', error)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> IdleStateUpdate:
        """Decode and validate a wire object as :class:`IdleStateUpdate`."""
        try:
            return _fw_IdleStateUpdate(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'state': "idle"}
        if self.usage is not None:
            d['usage'] = self.usage.to_wire()
        if self.stop_reason is not None:
            d['stopReason'] = self.stop_reason
        if self.error is not None:
            d['error'] = self.error.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IdleStateUpdate):
            return NotImplemented
        return (self.usage, self.stop_reason, self.error, self.meta, self.extra,) == (other.usage, other.stop_reason, other.error, other.meta, other.extra,)


def _fw_IdleStateUpdate(data: object) -> IdleStateUpdate:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(IdleStateUpdate)
    n = 0 + ('state' in data)
    v = data.get('usage')
    if v is not None:
        n += 1
        try:
            v = _fw_Usage(v)
        except SchemaError:
            v = None
    _set(self, 'usage', v)
    v = data.get('stopReason')
    if v is not None:
        n += 1
        try:
            v = _d0(v)
        except SchemaError:
            v = None
    _set(self, 'stop_reason', v)
    v = data.get('error')
    if v is not None:
        n += 1
        try:
            v = _t._fw_Error(v)
        except SchemaError:
            v = None
    _set(self, 'error', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, IdleStateUpdate._wire_keys) if len(data) > n else None)
    return self


class RequiresActionStateUpdate(_Struct):
    """Foreground work is blocked on user action."""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta', 'state'))
    state: Literal["requires_action"] = "requires_action"
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> RequiresActionStateUpdate:
        """Decode and validate a wire object as :class:`RequiresActionStateUpdate`."""
        try:
            return _fw_RequiresActionStateUpdate(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'state': "requires_action"}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RequiresActionStateUpdate):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_RequiresActionStateUpdate(data: object) -> RequiresActionStateUpdate:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(RequiresActionStateUpdate)
    n = 0 + ('state' in data)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, RequiresActionStateUpdate._wire_keys) if len(data) > n else None)
    return self


class UnknownStateUpdate(_Struct):
    """The Agent cannot currently determine foreground activity."""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta', 'state'))
    state: Literal["unknown"] = "unknown"
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> UnknownStateUpdate:
        """Decode and validate a wire object as :class:`UnknownStateUpdate`."""
        try:
            return _fw_UnknownStateUpdate(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'state': "unknown"}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, UnknownStateUpdate):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_UnknownStateUpdate(data: object) -> UnknownStateUpdate:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(UnknownStateUpdate)
    n = 0 + ('state' in data)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, UnknownStateUpdate._wire_keys) if len(data) > n else None)
    return self


class UnrecognizedStateUpdate(_Struct):
    """A :data:`StateUpdate` whose ``state`` value this schema version does not know."""
    __slots__ = ("kind", "raw")
    __match_args__ = ("kind", "raw")
    kind: str
    raw: dict[str, Any]

    def __init__(self, *, kind: str, raw: dict[str, Any]) -> None:
        _set(self, "kind", kind)
        _set(self, "raw", raw)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> UnrecognizedStateUpdate:
        """Keep a wire object whose variant is unknown, as it came."""
        if not isinstance(data, dict):
            raise _bad(path, "an object", data)
        self = _new(cls)
        _set(self, "kind", str(data.get('state', "")))
        _set(self, "raw", data)
        return self

    def to_wire(self) -> dict[str, Any]:
        """Return the object as it came."""
        return dict(self.raw)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, UnrecognizedStateUpdate):
            return NotImplemented
        return (self.kind, self.raw) == (other.kind, other.raw)


class ErrorStopReason(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('error', 'extra')
    __match_args__ = ('error',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('error',))
    error: Error | None
    extra: dict[str, Any] | None

    def __init__(self, *, error: Error | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'error', error)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ErrorStopReason:
        """Decode and validate a wire object as :class:`ErrorStopReason`."""
        try:
            return _fw_ErrorStopReason(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.error is not None:
            d['error'] = self.error.to_wire()
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ErrorStopReason):
            return NotImplemented
        return (self.error, self.extra,) == (other.error, other.extra,)


def _fw_ErrorStopReason(data: object) -> ErrorStopReason:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ErrorStopReason)
    n = 0
    v = data.get('error')
    if v is not None:
        n += 1
        try:
            v = _t._fw_Error(v)
        except SchemaError:
            v = None
    _set(self, 'error', v)
    _set(self, 'extra', _extra(data, ErrorStopReason._wire_keys) if len(data) > n else None)
    return self


class AuthStatusUpdateNotification(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('state', 'accounts', 'meta', 'extra')
    __match_args__ = ('state', 'accounts', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('state', 'accounts', '_meta'))
    state: AuthState
    accounts: list[AuthAccount] | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, state: AuthState, accounts: list[AuthAccount] | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'state', state)
        _set(self, 'accounts', accounts)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> AuthStatusUpdateNotification:
        """Decode and validate a wire object as :class:`AuthStatusUpdateNotification`."""
        try:
            return _fw_AuthStatusUpdateNotification(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'state': self.state}
        if self.accounts is not None:
            d['accounts'] = [x.to_wire() for x in self.accounts]
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AuthStatusUpdateNotification):
            return NotImplemented
        return (self.state, self.accounts, self.meta, self.extra,) == (other.state, other.accounts, other.meta, other.extra,)


def _fw_AuthStatusUpdateNotification(data: object) -> AuthStatusUpdateNotification:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(AuthStatusUpdateNotification)
    n = 1
    v = data.get('state', _MISSING)
    if v is _MISSING:
        raise _missing('state')
    if not isinstance(v, str):
        raise _bad('state', 'a string', v)
    _set(self, 'state', v)
    v = data.get('accounts')
    if v is not None:
        n += 1
        try:
            v = _list(v, _fw_AuthAccount, True)
        except SchemaError:
            v = None
    _set(self, 'accounts', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, AuthStatusUpdateNotification._wire_keys) if len(data) > n else None)
    return self


class InitializeRequest(_Struct):
    """Request parameters for the initialize method."""

    __slots__ = ('protocol_version', 'client_capabilities', 'client_info', 'meta', 'extra')
    __match_args__ = ('protocol_version', 'client_capabilities', 'client_info', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('protocolVersion', 'clientCapabilities', 'clientInfo', '_meta'))
    protocol_version: ProtocolVersion
    client_capabilities: ClientCapabilities | None
    client_info: Implementation | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, protocol_version: ProtocolVersion, client_capabilities: ClientCapabilities | None = None, client_info: Implementation | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'protocol_version', protocol_version)
        _set(self, 'client_capabilities', client_capabilities)
        _set(self, 'client_info', client_info)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> InitializeRequest:
        """Decode and validate a wire object as :class:`InitializeRequest`."""
        try:
            return _fw_InitializeRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'protocolVersion': self.protocol_version}
        if self.client_capabilities is not None:
            d['clientCapabilities'] = self.client_capabilities.to_wire()
        if self.client_info is not None:
            d['clientInfo'] = self.client_info.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, InitializeRequest):
            return NotImplemented
        return (self.protocol_version, self.client_capabilities, self.client_info, self.meta, self.extra,) == (other.protocol_version, other.client_capabilities, other.client_info, other.meta, other.extra,)


def _fw_InitializeRequest(data: object) -> InitializeRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(InitializeRequest)
    n = 1
    v = data.get('protocolVersion', _MISSING)
    if v is _MISSING:
        raise _missing('protocolVersion')
    if not isinstance(v, int) or v is True or v is False:
        raise _bad('protocolVersion', 'an integer', v)
    _set(self, 'protocol_version', v)
    v = data.get('clientCapabilities')
    if v is not None:
        n += 1
        try:
            v = _fw_ClientCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'client_capabilities', v)
    v = data.get('clientInfo')
    if v is not None:
        n += 1
        try:
            v = _t._fw_Implementation(v)
        except SchemaError:
            v = None
    _set(self, 'client_info', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, InitializeRequest._wire_keys) if len(data) > n else None)
    return self


class ClientCapabilities(_Struct):
    """Capabilities supported by the client."""

    __slots__ = ('fs', 'terminal', 'session', 'subagents', 'plan', 'auth', 'elicitation', 'meta', 'extra')
    __match_args__ = ('fs', 'terminal', 'session', 'subagents', 'plan', 'auth', 'elicitation', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('fs', 'terminal', 'session', 'subagents', 'plan', 'auth', 'elicitation', '_meta'))
    fs: FileSystemCapabilities | None
    terminal: bool | None
    session: ClientSessionCapabilities | None
    subagents: SubagentCapabilities | None
    plan: PlanCapabilities | None
    auth: AuthCapabilities | None
    elicitation: ElicitationCapabilities | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, fs: FileSystemCapabilities | None = None, terminal: bool | None = None, session: ClientSessionCapabilities | None = None, subagents: SubagentCapabilities | None = None, plan: PlanCapabilities | None = None, auth: AuthCapabilities | None = None, elicitation: ElicitationCapabilities | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'fs', fs)
        _set(self, 'terminal', terminal)
        _set(self, 'session', session)
        _set(self, 'subagents', subagents)
        _set(self, 'plan', plan)
        _set(self, 'auth', auth)
        _set(self, 'elicitation', elicitation)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ClientCapabilities:
        """Decode and validate a wire object as :class:`ClientCapabilities`."""
        try:
            return _fw_ClientCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.fs is not None:
            d['fs'] = self.fs.to_wire()
        if self.terminal is not None:
            d['terminal'] = self.terminal
        if self.session is not None:
            d['session'] = self.session.to_wire()
        if self.subagents is not None:
            d['subagents'] = self.subagents.to_wire()
        if self.plan is not None:
            d['plan'] = self.plan.to_wire()
        if self.auth is not None:
            d['auth'] = self.auth.to_wire()
        if self.elicitation is not None:
            d['elicitation'] = self.elicitation.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ClientCapabilities):
            return NotImplemented
        return (self.fs, self.terminal, self.session, self.subagents, self.plan, self.auth, self.elicitation, self.meta, self.extra,) == (other.fs, other.terminal, other.session, other.subagents, other.plan, other.auth, other.elicitation, other.meta, other.extra,)


def _fw_ClientCapabilities(data: object) -> ClientCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ClientCapabilities)
    n = 0
    v = data.get('fs')
    if v is not None:
        n += 1
        try:
            v = _t._fw_FileSystemCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'fs', v)
    v = data.get('terminal')
    if v is not None:
        n += 1
        if v is not True and v is not False:
            v = None
    _set(self, 'terminal', v)
    v = data.get('session')
    if v is not None:
        n += 1
        try:
            v = _t._fw_ClientSessionCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'session', v)
    v = data.get('subagents')
    if v is not None:
        n += 1
        try:
            v = _fw_SubagentCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'subagents', v)
    v = data.get('plan')
    if v is not None:
        n += 1
        try:
            v = _fw_PlanCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'plan', v)
    v = data.get('auth')
    if v is not None:
        n += 1
        try:
            v = _t._fw_AuthCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'auth', v)
    v = data.get('elicitation')
    if v is not None:
        n += 1
        try:
            v = _t._fw_ElicitationCapabilities(v)
        except SchemaError:
            v = None
    _set(self, 'elicitation', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, ClientCapabilities._wire_keys) if len(data) > n else None)
    return self


class SubagentCapabilities(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta',))
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SubagentCapabilities:
        """Decode and validate a wire object as :class:`SubagentCapabilities`."""
        try:
            return _fw_SubagentCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SubagentCapabilities):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_SubagentCapabilities(data: object) -> SubagentCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SubagentCapabilities)
    n = 0
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SubagentCapabilities._wire_keys) if len(data) > n else None)
    return self


class PlanCapabilities(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta',))
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> PlanCapabilities:
        """Decode and validate a wire object as :class:`PlanCapabilities`."""
        try:
            return _fw_PlanCapabilities(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlanCapabilities):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_PlanCapabilities(data: object) -> PlanCapabilities:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(PlanCapabilities)
    n = 0
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, PlanCapabilities._wire_keys) if len(data) > n else None)
    return self


class ListProvidersRequest(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta',))
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ListProvidersRequest:
        """Decode and validate a wire object as :class:`ListProvidersRequest`."""
        try:
            return _fw_ListProvidersRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ListProvidersRequest):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_ListProvidersRequest(data: object) -> ListProvidersRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ListProvidersRequest)
    n = 0
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, ListProvidersRequest._wire_keys) if len(data) > n else None)
    return self


class SetProviderRequest(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('provider_id', 'api_type', 'base_url', 'headers', 'meta', 'extra')
    __match_args__ = ('provider_id', 'api_type', 'base_url', 'headers', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('providerId', 'apiType', 'baseUrl', 'headers', '_meta'))
    provider_id: ProviderId
    api_type: LlmProtocol
    base_url: str
    headers: dict[str, str] | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, provider_id: ProviderId, api_type: LlmProtocol, base_url: str, headers: dict[str, str] | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'provider_id', provider_id)
        _set(self, 'api_type', api_type)
        _set(self, 'base_url', base_url)
        _set(self, 'headers', headers)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SetProviderRequest:
        """Decode and validate a wire object as :class:`SetProviderRequest`."""
        try:
            return _fw_SetProviderRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'providerId': self.provider_id, 'apiType': self.api_type, 'baseUrl': self.base_url}
        if self.headers is not None:
            d['headers'] = dict(self.headers)
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SetProviderRequest):
            return NotImplemented
        return (self.provider_id, self.api_type, self.base_url, self.headers, self.meta, self.extra,) == (other.provider_id, other.api_type, other.base_url, other.headers, other.meta, other.extra,)


def _fw_SetProviderRequest(data: object) -> SetProviderRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SetProviderRequest)
    n = 3
    v = data.get('providerId', _MISSING)
    if v is _MISSING:
        raise _missing('providerId')
    if not isinstance(v, str):
        raise _bad('providerId', 'a string', v)
    _set(self, 'provider_id', v)
    v = data.get('apiType', _MISSING)
    if v is _MISSING:
        raise _missing('apiType')
    if not isinstance(v, str):
        raise _bad('apiType', 'a string', v)
    _set(self, 'api_type', v)
    v = data.get('baseUrl', _MISSING)
    if v is _MISSING:
        raise _missing('baseUrl')
    if not isinstance(v, str):
        raise _bad('baseUrl', 'a string', v)
    _set(self, 'base_url', v)
    v = data.get('headers')
    if v is not None:
        n += 1
        try:
            v = _map(v, _str)
        except SchemaError as exc:
            exc._within('headers')
            raise
    _set(self, 'headers', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SetProviderRequest._wire_keys) if len(data) > n else None)
    return self


class DisableProviderRequest(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('provider_id', 'meta', 'extra')
    __match_args__ = ('provider_id', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('providerId', '_meta'))
    provider_id: ProviderId
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, provider_id: ProviderId, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'provider_id', provider_id)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> DisableProviderRequest:
        """Decode and validate a wire object as :class:`DisableProviderRequest`."""
        try:
            return _fw_DisableProviderRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'providerId': self.provider_id}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, DisableProviderRequest):
            return NotImplemented
        return (self.provider_id, self.meta, self.extra,) == (other.provider_id, other.meta, other.extra,)


def _fw_DisableProviderRequest(data: object) -> DisableProviderRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(DisableProviderRequest)
    n = 1
    v = data.get('providerId', _MISSING)
    if v is _MISSING:
        raise _missing('providerId')
    if not isinstance(v, str):
        raise _bad('providerId', 'a string', v)
    _set(self, 'provider_id', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, DisableProviderRequest._wire_keys) if len(data) > n else None)
    return self


class AuthStatusRequest(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('meta', 'extra')
    __match_args__ = ('meta',)
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('_meta',))
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> AuthStatusRequest:
        """Decode and validate a wire object as :class:`AuthStatusRequest`."""
        try:
            return _fw_AuthStatusRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AuthStatusRequest):
            return NotImplemented
        return (self.meta, self.extra,) == (other.meta, other.extra,)


def _fw_AuthStatusRequest(data: object) -> AuthStatusRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(AuthStatusRequest)
    n = 0
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, AuthStatusRequest._wire_keys) if len(data) > n else None)
    return self


class NewSessionRequest(_Struct):
    """Request parameters for creating a new session."""

    __slots__ = ('cwd', 'additional_directories', 'mcp_servers', 'system_prompt', 'meta', 'extra')
    __match_args__ = ('cwd', 'additional_directories', 'mcp_servers', 'system_prompt', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('cwd', 'additionalDirectories', 'mcpServers', 'systemPrompt', '_meta'))
    cwd: str
    additional_directories: list[str] | None
    mcp_servers: list[McpServer]
    system_prompt: SystemPrompt | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, cwd: str, mcp_servers: list[McpServer], additional_directories: list[str] | None = None, system_prompt: SystemPrompt | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'cwd', cwd)
        _set(self, 'additional_directories', additional_directories)
        _set(self, 'mcp_servers', mcp_servers)
        _set(self, 'system_prompt', system_prompt)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> NewSessionRequest:
        """Decode and validate a wire object as :class:`NewSessionRequest`."""
        try:
            return _fw_NewSessionRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'cwd': self.cwd, 'mcpServers': [x.to_wire() for x in self.mcp_servers]}
        if self.additional_directories is not None:
            d['additionalDirectories'] = list(self.additional_directories)
        if self.system_prompt is not None:
            d['systemPrompt'] = self.system_prompt.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NewSessionRequest):
            return NotImplemented
        return (self.cwd, self.additional_directories, self.mcp_servers, self.system_prompt, self.meta, self.extra,) == (other.cwd, other.additional_directories, other.mcp_servers, other.system_prompt, other.meta, other.extra,)


def _fw_NewSessionRequest(data: object) -> NewSessionRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(NewSessionRequest)
    n = 2
    v = data.get('cwd', _MISSING)
    if v is _MISSING:
        raise _missing('cwd')
    if not isinstance(v, str):
        raise _bad('cwd', 'a string', v)
    _set(self, 'cwd', v)
    v = data.get('additionalDirectories')
    if v is not None:
        n += 1
        try:
            v = _list(v, _str, False)
        except SchemaError as exc:
            exc._within('additionalDirectories')
            raise
    _set(self, 'additional_directories', v)
    v = data.get('mcpServers', _MISSING)
    if v is _MISSING:
        raise _missing('mcpServers')
    if v is None:
        v = []
    else:
        try:
            v = _list(v, _fw_McpServer, False)
        except SchemaError as exc:
            exc._within('mcpServers')
            raise
    _set(self, 'mcp_servers', v)
    v = data.get('systemPrompt')
    if v is not None:
        n += 1
        try:
            v = _fw_SystemPrompt(v)
        except SchemaError as exc:
            exc._within('systemPrompt')
            raise
    _set(self, 'system_prompt', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, NewSessionRequest._wire_keys) if len(data) > n else None)
    return self


class McpServerAcp(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('name', 'server_id', 'meta', 'extra')
    __match_args__ = ('name', 'server_id', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('name', 'serverId', '_meta', 'type'))
    type: Literal["acp"] = "acp"
    name: str
    server_id: McpServerAcpId
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, name: str, server_id: McpServerAcpId, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'name', name)
        _set(self, 'server_id', server_id)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> McpServerAcp:
        """Decode and validate a wire object as :class:`McpServerAcp`."""
        try:
            return _fw_McpServerAcp(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'type': "acp", 'name': self.name, 'serverId': self.server_id}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, McpServerAcp):
            return NotImplemented
        return (self.name, self.server_id, self.meta, self.extra,) == (other.name, other.server_id, other.meta, other.extra,)


def _fw_McpServerAcp(data: object) -> McpServerAcp:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(McpServerAcp)
    n = 2 + ('type' in data)
    v = data.get('name', _MISSING)
    if v is _MISSING:
        raise _missing('name')
    if not isinstance(v, str):
        raise _bad('name', 'a string', v)
    _set(self, 'name', v)
    v = data.get('serverId', _MISSING)
    if v is _MISSING:
        raise _missing('serverId')
    if not isinstance(v, str):
        raise _bad('serverId', 'a string', v)
    _set(self, 'server_id', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, McpServerAcp._wire_keys) if len(data) > n else None)
    return self


class SystemPrompt(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('mode', 'content', 'meta', 'extra')
    __match_args__ = ('mode', 'content', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('mode', 'content', '_meta'))
    mode: SystemPromptMode
    content: list[ContentBlock]
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, mode: SystemPromptMode, content: list[ContentBlock], meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'mode', mode)
        _set(self, 'content', content)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SystemPrompt:
        """Decode and validate a wire object as :class:`SystemPrompt`."""
        try:
            return _fw_SystemPrompt(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'mode': self.mode, 'content': [x.to_wire() for x in self.content]}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SystemPrompt):
            return NotImplemented
        return (self.mode, self.content, self.meta, self.extra,) == (other.mode, other.content, other.meta, other.extra,)


def _fw_SystemPrompt(data: object) -> SystemPrompt:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SystemPrompt)
    n = 2
    v = data.get('mode', _MISSING)
    if v is _MISSING:
        raise _missing('mode')
    if not isinstance(v, str):
        raise _bad('mode', 'a string', v)
    _set(self, 'mode', v)
    v = data.get('content', _MISSING)
    if v is _MISSING:
        raise _missing('content')
    try:
        v = _list(v, _t._fw_ContentBlock, False)
    except SchemaError as exc:
        exc._within('content')
        raise
    _set(self, 'content', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SystemPrompt._wire_keys) if len(data) > n else None)
    return self


class LoadSessionRequest(_Struct):
    """Request parameters for loading an existing session."""

    __slots__ = ('mcp_servers', 'cwd', 'additional_directories', 'session_id', 'system_prompt', 'meta', 'extra')
    __match_args__ = ('mcp_servers', 'cwd', 'additional_directories', 'session_id', 'system_prompt', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('mcpServers', 'cwd', 'additionalDirectories', 'sessionId', 'systemPrompt', '_meta'))
    mcp_servers: list[McpServer]
    cwd: str
    additional_directories: list[str] | None
    session_id: SessionId
    system_prompt: SystemPrompt | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, mcp_servers: list[McpServer], cwd: str, session_id: SessionId, additional_directories: list[str] | None = None, system_prompt: SystemPrompt | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'mcp_servers', mcp_servers)
        _set(self, 'cwd', cwd)
        _set(self, 'additional_directories', additional_directories)
        _set(self, 'session_id', session_id)
        _set(self, 'system_prompt', system_prompt)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> LoadSessionRequest:
        """Decode and validate a wire object as :class:`LoadSessionRequest`."""
        try:
            return _fw_LoadSessionRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'mcpServers': [x.to_wire() for x in self.mcp_servers], 'cwd': self.cwd, 'sessionId': self.session_id}
        if self.additional_directories is not None:
            d['additionalDirectories'] = list(self.additional_directories)
        if self.system_prompt is not None:
            d['systemPrompt'] = self.system_prompt.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LoadSessionRequest):
            return NotImplemented
        return (self.mcp_servers, self.cwd, self.additional_directories, self.session_id, self.system_prompt, self.meta, self.extra,) == (other.mcp_servers, other.cwd, other.additional_directories, other.session_id, other.system_prompt, other.meta, other.extra,)


def _fw_LoadSessionRequest(data: object) -> LoadSessionRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(LoadSessionRequest)
    n = 3
    v = data.get('mcpServers', _MISSING)
    if v is _MISSING:
        raise _missing('mcpServers')
    if v is None:
        v = []
    else:
        try:
            v = _list(v, _fw_McpServer, False)
        except SchemaError as exc:
            exc._within('mcpServers')
            raise
    _set(self, 'mcp_servers', v)
    v = data.get('cwd', _MISSING)
    if v is _MISSING:
        raise _missing('cwd')
    if not isinstance(v, str):
        raise _bad('cwd', 'a string', v)
    _set(self, 'cwd', v)
    v = data.get('additionalDirectories')
    if v is not None:
        n += 1
        try:
            v = _list(v, _str, False)
        except SchemaError as exc:
            exc._within('additionalDirectories')
            raise
    _set(self, 'additional_directories', v)
    v = data.get('sessionId', _MISSING)
    if v is _MISSING:
        raise _missing('sessionId')
    if not isinstance(v, str):
        raise _bad('sessionId', 'a string', v)
    _set(self, 'session_id', v)
    v = data.get('systemPrompt')
    if v is not None:
        n += 1
        try:
            v = _fw_SystemPrompt(v)
        except SchemaError as exc:
            exc._within('systemPrompt')
            raise
    _set(self, 'system_prompt', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, LoadSessionRequest._wire_keys) if len(data) > n else None)
    return self


class ListSessionsRequest(_Struct):
    """Request parameters for listing existing sessions."""

    __slots__ = ('cwd', 'cursor', 'archived', 'meta', 'extra')
    __match_args__ = ('cwd', 'cursor', 'archived', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('cwd', 'cursor', 'archived', '_meta'))
    cwd: str | None
    cursor: str | None
    archived: SessionArchiveFilter | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, cwd: str | None = None, cursor: str | None = None, archived: SessionArchiveFilter | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'cwd', cwd)
        _set(self, 'cursor', cursor)
        _set(self, 'archived', archived)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ListSessionsRequest:
        """Decode and validate a wire object as :class:`ListSessionsRequest`."""
        try:
            return _fw_ListSessionsRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.cwd is not None:
            d['cwd'] = self.cwd
        if self.cursor is not None:
            d['cursor'] = self.cursor
        if self.archived is not None:
            d['archived'] = self.archived
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ListSessionsRequest):
            return NotImplemented
        return (self.cwd, self.cursor, self.archived, self.meta, self.extra,) == (other.cwd, other.cursor, other.archived, other.meta, other.extra,)


def _fw_ListSessionsRequest(data: object) -> ListSessionsRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ListSessionsRequest)
    n = 0
    v = data.get('cwd')
    if v is not None:
        n += 1
        if not isinstance(v, str):
            raise _bad('cwd', 'a string', v)
    _set(self, 'cwd', v)
    v = data.get('cursor')
    if v is not None:
        n += 1
        if not isinstance(v, str):
            raise _bad('cursor', 'a string', v)
    _set(self, 'cursor', v)
    v = data.get('archived')
    if v is not None:
        n += 1
        if not isinstance(v, str):
            raise _bad('archived', 'a string', v)
    _set(self, 'archived', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, ListSessionsRequest._wire_keys) if len(data) > n else None)
    return self


class ForkSessionRequest(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('session_id', 'cwd', 'additional_directories', 'mcp_servers', 'system_prompt', 'meta', 'extra')
    __match_args__ = ('session_id', 'cwd', 'additional_directories', 'mcp_servers', 'system_prompt', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('sessionId', 'cwd', 'additionalDirectories', 'mcpServers', 'systemPrompt', '_meta'))
    session_id: SessionId
    cwd: str
    additional_directories: list[str] | None
    mcp_servers: list[McpServer] | None
    system_prompt: SystemPrompt | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, session_id: SessionId, cwd: str, additional_directories: list[str] | None = None, mcp_servers: list[McpServer] | None = None, system_prompt: SystemPrompt | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'session_id', session_id)
        _set(self, 'cwd', cwd)
        _set(self, 'additional_directories', additional_directories)
        _set(self, 'mcp_servers', mcp_servers)
        _set(self, 'system_prompt', system_prompt)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ForkSessionRequest:
        """Decode and validate a wire object as :class:`ForkSessionRequest`."""
        try:
            return _fw_ForkSessionRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'sessionId': self.session_id, 'cwd': self.cwd}
        if self.additional_directories is not None:
            d['additionalDirectories'] = list(self.additional_directories)
        if self.mcp_servers is not None:
            d['mcpServers'] = [x.to_wire() for x in self.mcp_servers]
        if self.system_prompt is not None:
            d['systemPrompt'] = self.system_prompt.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ForkSessionRequest):
            return NotImplemented
        return (self.session_id, self.cwd, self.additional_directories, self.mcp_servers, self.system_prompt, self.meta, self.extra,) == (other.session_id, other.cwd, other.additional_directories, other.mcp_servers, other.system_prompt, other.meta, other.extra,)


def _fw_ForkSessionRequest(data: object) -> ForkSessionRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ForkSessionRequest)
    n = 2
    v = data.get('sessionId', _MISSING)
    if v is _MISSING:
        raise _missing('sessionId')
    if not isinstance(v, str):
        raise _bad('sessionId', 'a string', v)
    _set(self, 'session_id', v)
    v = data.get('cwd', _MISSING)
    if v is _MISSING:
        raise _missing('cwd')
    if not isinstance(v, str):
        raise _bad('cwd', 'a string', v)
    _set(self, 'cwd', v)
    v = data.get('additionalDirectories')
    if v is not None:
        n += 1
        try:
            v = _list(v, _str, False)
        except SchemaError as exc:
            exc._within('additionalDirectories')
            raise
    _set(self, 'additional_directories', v)
    v = data.get('mcpServers')
    if v is not None:
        n += 1
        try:
            v = _list(v, _fw_McpServer, False)
        except SchemaError as exc:
            exc._within('mcpServers')
            raise
    _set(self, 'mcp_servers', v)
    v = data.get('systemPrompt')
    if v is not None:
        n += 1
        try:
            v = _fw_SystemPrompt(v)
        except SchemaError as exc:
            exc._within('systemPrompt')
            raise
    _set(self, 'system_prompt', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, ForkSessionRequest._wire_keys) if len(data) > n else None)
    return self


class ArchiveSessionRequest(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('session_id', 'meta', 'extra')
    __match_args__ = ('session_id', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('sessionId', '_meta'))
    session_id: SessionId
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, session_id: SessionId, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'session_id', session_id)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ArchiveSessionRequest:
        """Decode and validate a wire object as :class:`ArchiveSessionRequest`."""
        try:
            return _fw_ArchiveSessionRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'sessionId': self.session_id}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ArchiveSessionRequest):
            return NotImplemented
        return (self.session_id, self.meta, self.extra,) == (other.session_id, other.meta, other.extra,)


def _fw_ArchiveSessionRequest(data: object) -> ArchiveSessionRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ArchiveSessionRequest)
    n = 1
    v = data.get('sessionId', _MISSING)
    if v is _MISSING:
        raise _missing('sessionId')
    if not isinstance(v, str):
        raise _bad('sessionId', 'a string', v)
    _set(self, 'session_id', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, ArchiveSessionRequest._wire_keys) if len(data) > n else None)
    return self


class UnarchiveSessionRequest(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('session_id', 'meta', 'extra')
    __match_args__ = ('session_id', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('sessionId', '_meta'))
    session_id: SessionId
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, session_id: SessionId, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'session_id', session_id)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> UnarchiveSessionRequest:
        """Decode and validate a wire object as :class:`UnarchiveSessionRequest`."""
        try:
            return _fw_UnarchiveSessionRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'sessionId': self.session_id}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, UnarchiveSessionRequest):
            return NotImplemented
        return (self.session_id, self.meta, self.extra,) == (other.session_id, other.meta, other.extra,)


def _fw_UnarchiveSessionRequest(data: object) -> UnarchiveSessionRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(UnarchiveSessionRequest)
    n = 1
    v = data.get('sessionId', _MISSING)
    if v is _MISSING:
        raise _missing('sessionId')
    if not isinstance(v, str):
        raise _bad('sessionId', 'a string', v)
    _set(self, 'session_id', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, UnarchiveSessionRequest._wire_keys) if len(data) > n else None)
    return self


class SessionStatusRequest(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('session_id', 'meta', 'extra')
    __match_args__ = ('session_id', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('sessionId', '_meta'))
    session_id: SessionId
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, session_id: SessionId, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'session_id', session_id)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SessionStatusRequest:
        """Decode and validate a wire object as :class:`SessionStatusRequest`."""
        try:
            return _fw_SessionStatusRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'sessionId': self.session_id}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SessionStatusRequest):
            return NotImplemented
        return (self.session_id, self.meta, self.extra,) == (other.session_id, other.meta, other.extra,)


def _fw_SessionStatusRequest(data: object) -> SessionStatusRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SessionStatusRequest)
    n = 1
    v = data.get('sessionId', _MISSING)
    if v is _MISSING:
        raise _missing('sessionId')
    if not isinstance(v, str):
        raise _bad('sessionId', 'a string', v)
    _set(self, 'session_id', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SessionStatusRequest._wire_keys) if len(data) > n else None)
    return self


class SetSessionTitleRequest(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('session_id', 'title', 'meta', 'extra')
    __match_args__ = ('session_id', 'title', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('sessionId', 'title', '_meta'))
    session_id: SessionId
    title: str
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, session_id: SessionId, title: str, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'session_id', session_id)
        _set(self, 'title', title)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> SetSessionTitleRequest:
        """Decode and validate a wire object as :class:`SetSessionTitleRequest`."""
        try:
            return _fw_SetSessionTitleRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'sessionId': self.session_id, 'title': self.title}
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SetSessionTitleRequest):
            return NotImplemented
        return (self.session_id, self.title, self.meta, self.extra,) == (other.session_id, other.title, other.meta, other.extra,)


def _fw_SetSessionTitleRequest(data: object) -> SetSessionTitleRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(SetSessionTitleRequest)
    n = 2
    v = data.get('sessionId', _MISSING)
    if v is _MISSING:
        raise _missing('sessionId')
    if not isinstance(v, str):
        raise _bad('sessionId', 'a string', v)
    _set(self, 'session_id', v)
    v = data.get('title', _MISSING)
    if v is _MISSING:
        raise _missing('title')
    if not isinstance(v, str):
        raise _bad('title', 'a string', v)
    _set(self, 'title', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, SetSessionTitleRequest._wire_keys) if len(data) > n else None)
    return self


class ResumeSessionRequest(_Struct):
    """Request parameters for resuming an existing session."""

    __slots__ = ('session_id', 'cwd', 'additional_directories', 'mcp_servers', 'system_prompt', 'meta', 'extra')
    __match_args__ = ('session_id', 'cwd', 'additional_directories', 'mcp_servers', 'system_prompt', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('sessionId', 'cwd', 'additionalDirectories', 'mcpServers', 'systemPrompt', '_meta'))
    session_id: SessionId
    cwd: str
    additional_directories: list[str] | None
    mcp_servers: list[McpServer] | None
    system_prompt: SystemPrompt | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, session_id: SessionId, cwd: str, additional_directories: list[str] | None = None, mcp_servers: list[McpServer] | None = None, system_prompt: SystemPrompt | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'session_id', session_id)
        _set(self, 'cwd', cwd)
        _set(self, 'additional_directories', additional_directories)
        _set(self, 'mcp_servers', mcp_servers)
        _set(self, 'system_prompt', system_prompt)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ResumeSessionRequest:
        """Decode and validate a wire object as :class:`ResumeSessionRequest`."""
        try:
            return _fw_ResumeSessionRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'sessionId': self.session_id, 'cwd': self.cwd}
        if self.additional_directories is not None:
            d['additionalDirectories'] = list(self.additional_directories)
        if self.mcp_servers is not None:
            d['mcpServers'] = [x.to_wire() for x in self.mcp_servers]
        if self.system_prompt is not None:
            d['systemPrompt'] = self.system_prompt.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ResumeSessionRequest):
            return NotImplemented
        return (self.session_id, self.cwd, self.additional_directories, self.mcp_servers, self.system_prompt, self.meta, self.extra,) == (other.session_id, other.cwd, other.additional_directories, other.mcp_servers, other.system_prompt, other.meta, other.extra,)


def _fw_ResumeSessionRequest(data: object) -> ResumeSessionRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ResumeSessionRequest)
    n = 2
    v = data.get('sessionId', _MISSING)
    if v is _MISSING:
        raise _missing('sessionId')
    if not isinstance(v, str):
        raise _bad('sessionId', 'a string', v)
    _set(self, 'session_id', v)
    v = data.get('cwd', _MISSING)
    if v is _MISSING:
        raise _missing('cwd')
    if not isinstance(v, str):
        raise _bad('cwd', 'a string', v)
    _set(self, 'cwd', v)
    v = data.get('additionalDirectories')
    if v is not None:
        n += 1
        try:
            v = _list(v, _str, False)
        except SchemaError as exc:
            exc._within('additionalDirectories')
            raise
    _set(self, 'additional_directories', v)
    v = data.get('mcpServers')
    if v is not None:
        n += 1
        try:
            v = _list(v, _fw_McpServer, False)
        except SchemaError as exc:
            exc._within('mcpServers')
            raise
    _set(self, 'mcp_servers', v)
    v = data.get('systemPrompt')
    if v is not None:
        n += 1
        try:
            v = _fw_SystemPrompt(v)
        except SchemaError as exc:
            exc._within('systemPrompt')
            raise
    _set(self, 'system_prompt', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, ResumeSessionRequest._wire_keys) if len(data) > n else None)
    return self


class MessageMcpResponse(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('result', 'error', 'meta', 'extra')
    __match_args__ = ('result', 'error', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('result', 'error', '_meta'))
    result: Any | None
    error: McpError | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, result: Any | None = None, error: McpError | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'result', result)
        _set(self, 'error', error)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> MessageMcpResponse:
        """Decode and validate a wire object as :class:`MessageMcpResponse`."""
        try:
            return _fw_MessageMcpResponse(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {}
        if self.result is not None:
            d['result'] = self.result
        if self.error is not None:
            d['error'] = self.error.to_wire()
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MessageMcpResponse):
            return NotImplemented
        return (self.result, self.error, self.meta, self.extra,) == (other.result, other.error, other.meta, other.extra,)


def _fw_MessageMcpResponse(data: object) -> MessageMcpResponse:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(MessageMcpResponse)
    n = 0
    v = data.get('result')
    if v is not None:
        n += 1
    _set(self, 'result', v)
    v = data.get('error')
    if v is not None:
        n += 1
        try:
            v = _fw_McpError(v)
        except SchemaError as exc:
            exc._within('error')
            raise
    _set(self, 'error', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, MessageMcpResponse._wire_keys) if len(data) > n else None)
    return self


class McpError(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('code', 'message', 'data', 'extra')
    __match_args__ = ('code', 'message', 'data')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('code', 'message', 'data'))
    _patch: ClassVar[frozenset[str]] = frozenset(('data',))
    code: int
    message: str
    data: Any | Unset | None
    extra: dict[str, Any] | None

    def __init__(self, *, code: int, message: str, data: Any | Unset | None = UNSET, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'code', code)
        _set(self, 'message', message)
        _set(self, 'data', data)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> McpError:
        """Decode and validate a wire object as :class:`McpError`."""
        try:
            return _fw_McpError(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'code': self.code, 'message': self.message}
        if not isinstance(self.data, Unset):
            d['data'] = self.data
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, McpError):
            return NotImplemented
        return (self.code, self.message, self.data, self.extra,) == (other.code, other.message, other.data, other.extra,)


def _fw_McpError(data: object) -> McpError:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(McpError)
    n = 2
    v = data.get('code', _MISSING)
    if v is _MISSING:
        raise _missing('code')
    if not isinstance(v, int) or v is True or v is False:
        raise _bad('code', 'an integer', v)
    _set(self, 'code', v)
    v = data.get('message', _MISSING)
    if v is _MISSING:
        raise _missing('message')
    if not isinstance(v, str):
        raise _bad('message', 'a string', v)
    _set(self, 'message', v)
    v = data.get('data', UNSET)
    if v is not UNSET:
        n += 1
    _set(self, 'data', v)
    _set(self, 'extra', _extra(data, McpError._wire_keys) if len(data) > n else None)
    return self


class MessageMcpNotification(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('server_id', 'request_id', 'method', 'params', 'meta', 'extra')
    __match_args__ = ('server_id', 'request_id', 'method', 'params', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('serverId', 'requestId', 'method', 'params', '_meta'))
    server_id: McpServerAcpId
    request_id: McpRequestId
    method: str
    params: dict[str, Any] | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, server_id: McpServerAcpId, request_id: McpRequestId, method: str, params: dict[str, Any] | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'server_id', server_id)
        _set(self, 'request_id', request_id)
        _set(self, 'method', method)
        _set(self, 'params', params)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> MessageMcpNotification:
        """Decode and validate a wire object as :class:`MessageMcpNotification`."""
        try:
            return _fw_MessageMcpNotification(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'serverId': self.server_id, 'requestId': self.request_id, 'method': self.method}
        if self.params is not None:
            d['params'] = self.params
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MessageMcpNotification):
            return NotImplemented
        return (self.server_id, self.request_id, self.method, self.params, self.meta, self.extra,) == (other.server_id, other.request_id, other.method, other.params, other.meta, other.extra,)


def _fw_MessageMcpNotification(data: object) -> MessageMcpNotification:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(MessageMcpNotification)
    n = 3
    v = data.get('serverId', _MISSING)
    if v is _MISSING:
        raise _missing('serverId')
    if not isinstance(v, str):
        raise _bad('serverId', 'a string', v)
    _set(self, 'server_id', v)
    v = data.get('requestId', _MISSING)
    if v is _MISSING:
        raise _missing('requestId')
    if not isinstance(v, str):
        raise _bad('requestId', 'a string', v)
    _set(self, 'request_id', v)
    v = data.get('method', _MISSING)
    if v is _MISSING:
        raise _missing('method')
    if not isinstance(v, str):
        raise _bad('method', 'a string', v)
    _set(self, 'method', v)
    v = data.get('params')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            raise _bad('params', 'an object', v)
    _set(self, 'params', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, MessageMcpNotification._wire_keys) if len(data) > n else None)
    return self


class ProxyRequest(_Struct):
    """A JSON-RPC request object."""

    __slots__ = ('id', 'method', 'params', 'extra')
    __match_args__ = ('id', 'method', 'params')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('id', 'method', 'params'))
    id: RequestId
    method: str
    params: Any | None
    extra: dict[str, Any] | None

    def __init__(self, *, id: RequestId, method: str, params: Any | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'id', id)
        _set(self, 'method', method)
        _set(self, 'params', params)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ProxyRequest:
        """Decode and validate a wire object as :class:`ProxyRequest`."""
        try:
            return _fw_ProxyRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'id': self.id, 'method': self.method}
        if self.params is not None:
            d['params'] = self.params
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProxyRequest):
            return NotImplemented
        return (self.id, self.method, self.params, self.extra,) == (other.id, other.method, other.params, other.extra,)


def _fw_ProxyRequest(data: object) -> ProxyRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ProxyRequest)
    n = 2
    v = data.get('id', _MISSING)
    if v is _MISSING:
        raise _missing('id')
    try:
        v = _t._fw_RequestId(v)
    except SchemaError as exc:
        exc._within('id')
        raise
    _set(self, 'id', v)
    v = data.get('method', _MISSING)
    if v is _MISSING:
        raise _missing('method')
    if not isinstance(v, str):
        raise _bad('method', 'a string', v)
    _set(self, 'method', v)
    v = data.get('params')
    if v is not None:
        n += 1
    _set(self, 'params', v)
    _set(self, 'extra', _extra(data, ProxyRequest._wire_keys) if len(data) > n else None)
    return self


class ProxySuccessorRequest(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('method', 'params', 'meta', 'extra')
    __match_args__ = ('method', 'params', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('method', 'params', '_meta'))
    method: str
    params: Any | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, method: str, params: Any | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'method', method)
        _set(self, 'params', params)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ProxySuccessorRequest:
        """Decode and validate a wire object as :class:`ProxySuccessorRequest`."""
        try:
            return _fw_ProxySuccessorRequest(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'method': self.method}
        if self.params is not None:
            d['params'] = self.params
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProxySuccessorRequest):
            return NotImplemented
        return (self.method, self.params, self.meta, self.extra,) == (other.method, other.params, other.meta, other.extra,)


def _fw_ProxySuccessorRequest(data: object) -> ProxySuccessorRequest:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ProxySuccessorRequest)
    n = 1
    v = data.get('method', _MISSING)
    if v is _MISSING:
        raise _missing('method')
    if not isinstance(v, str):
        raise _bad('method', 'a string', v)
    _set(self, 'method', v)
    v = data.get('params')
    if v is not None:
        n += 1
    _set(self, 'params', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, ProxySuccessorRequest._wire_keys) if len(data) > n else None)
    return self


class ProxyResponse(_Struct):
    """A JSON-RPC response object."""

    __slots__ = ('id', 'result', 'error', 'extra')
    __match_args__ = ('id', 'result', 'error')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('id', 'result', 'error'))
    id: RequestId
    result: Any | None
    error: Error | None
    extra: dict[str, Any] | None

    def __init__(self, *, id: RequestId, result: Any | None = None, error: Error | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'id', id)
        _set(self, 'result', result)
        _set(self, 'error', error)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ProxyResponse:
        """Decode and validate a wire object as :class:`ProxyResponse`."""
        try:
            return _fw_ProxyResponse(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'id': self.id}
        if self.result is not None:
            d['result'] = self.result
        if self.error is not None:
            d['error'] = self.error.to_wire()
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProxyResponse):
            return NotImplemented
        return (self.id, self.result, self.error, self.extra,) == (other.id, other.result, other.error, other.extra,)


def _fw_ProxyResponse(data: object) -> ProxyResponse:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ProxyResponse)
    n = 1
    v = data.get('id', _MISSING)
    if v is _MISSING:
        raise _missing('id')
    try:
        v = _t._fw_RequestId(v)
    except SchemaError as exc:
        exc._within('id')
        raise
    _set(self, 'id', v)
    v = data.get('result')
    if v is not None:
        n += 1
    _set(self, 'result', v)
    v = data.get('error')
    if v is not None:
        n += 1
        try:
            v = _t._fw_Error(v)
        except SchemaError as exc:
            exc._within('error')
            raise
    _set(self, 'error', v)
    _set(self, 'extra', _extra(data, ProxyResponse._wire_keys) if len(data) > n else None)
    return self


class ProxyNotification(_Struct):
    """A JSON-RPC notification object."""

    __slots__ = ('method', 'params', 'extra')
    __match_args__ = ('method', 'params')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('method', 'params'))
    method: str
    params: Any | None
    extra: dict[str, Any] | None

    def __init__(self, *, method: str, params: Any | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'method', method)
        _set(self, 'params', params)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ProxyNotification:
        """Decode and validate a wire object as :class:`ProxyNotification`."""
        try:
            return _fw_ProxyNotification(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'method': self.method}
        if self.params is not None:
            d['params'] = self.params
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProxyNotification):
            return NotImplemented
        return (self.method, self.params, self.extra,) == (other.method, other.params, other.extra,)


def _fw_ProxyNotification(data: object) -> ProxyNotification:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ProxyNotification)
    n = 1
    v = data.get('method', _MISSING)
    if v is _MISSING:
        raise _missing('method')
    if not isinstance(v, str):
        raise _bad('method', 'a string', v)
    _set(self, 'method', v)
    v = data.get('params')
    if v is not None:
        n += 1
    _set(self, 'params', v)
    _set(self, 'extra', _extra(data, ProxyNotification._wire_keys) if len(data) > n else None)
    return self


class ProxySuccessorNotification(_Struct):
    """**UNSTABLE**"""

    __slots__ = ('method', 'params', 'meta', 'extra')
    __match_args__ = ('method', 'params', 'meta')
    _wire_keys: ClassVar[frozenset[str]] = frozenset(('method', 'params', '_meta'))
    method: str
    params: Any | None
    meta: dict[str, Any] | None
    extra: dict[str, Any] | None

    def __init__(self, *, method: str, params: Any | None = None, meta: dict[str, Any] | None = None, extra: dict[str, Any] | None = None) -> None:
        _set(self, 'method', method)
        _set(self, 'params', params)
        _set(self, 'meta', meta)
        _set(self, 'extra', extra)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> ProxySuccessorNotification:
        """Decode and validate a wire object as :class:`ProxySuccessorNotification`."""
        try:
            return _fw_ProxySuccessorNotification(data)
        except SchemaError as exc:
            exc._rebase(path)
            raise

    def to_wire(self) -> dict[str, Any]:
        """Return the JSON object (camelCase keys, absent fields omitted)."""
        d: dict[str, Any] = {'method': self.method}
        if self.params is not None:
            d['params'] = self.params
        if self.meta is not None:
            d['_meta'] = self.meta
        if self.extra:
            d.update(self.extra)
        return d

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ProxySuccessorNotification):
            return NotImplemented
        return (self.method, self.params, self.meta, self.extra,) == (other.method, other.params, other.meta, other.extra,)


def _fw_ProxySuccessorNotification(data: object) -> ProxySuccessorNotification:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    self = _new(ProxySuccessorNotification)
    n = 1
    v = data.get('method', _MISSING)
    if v is _MISSING:
        raise _missing('method')
    if not isinstance(v, str):
        raise _bad('method', 'a string', v)
    _set(self, 'method', v)
    v = data.get('params')
    if v is not None:
        n += 1
    _set(self, 'params', v)
    v = data.get('_meta')
    if v is not None:
        n += 1
        if not isinstance(v, dict):
            v = None
    _set(self, 'meta', v)
    _set(self, 'extra', _extra(data, ProxySuccessorNotification._wire_keys) if len(data) > n else None)
    return self


InitializeProxyRequest = InitializeRequest
"""**UNSTABLE**"""


InitializeProxyResponse = InitializeResponse
"""**UNSTABLE**"""


SessionUpdate = UserMessageChunk | AgentMessageChunk | AgentThoughtChunk | ToolCallStart | ToolCallProgress | PlanUpdate | PlanContentUpdate | PlanRemoved | AvailableCommandsUpdate | CurrentModeUpdate | ConfigOptionUpdate | SessionInfoUpdate | UsageUpdate | Notice | CompactionUpdate | CompactionSummaryChunk | SubagentUpdate | SessionMessage | SessionMessageChunk | UnknownSessionUpdate
"""Different types of updates that can be sent during session processing."""

_SESSION_UPDATE_VARIANTS: dict[str, Callable[[object, str], SessionUpdate]] = {
    'user_message_chunk': UserMessageChunk.from_wire,
    'agent_message_chunk': AgentMessageChunk.from_wire,
    'agent_thought_chunk': AgentThoughtChunk.from_wire,
    'tool_call': ToolCallStart.from_wire,
    'tool_call_update': ToolCallProgress.from_wire,
    'plan': PlanUpdate.from_wire,
    'plan_update': PlanContentUpdate.from_wire,
    'plan_removed': PlanRemoved.from_wire,
    'available_commands_update': AvailableCommandsUpdate.from_wire,
    'current_mode_update': CurrentModeUpdate.from_wire,
    'config_option_update': ConfigOptionUpdate.from_wire,
    'session_info_update': SessionInfoUpdate.from_wire,
    'usage_update': UsageUpdate.from_wire,
    'notice': Notice.from_wire,
    'compaction_update': CompactionUpdate.from_wire,
    'compaction_summary_chunk': CompactionSummaryChunk.from_wire,
    'subagent_update': SubagentUpdate.from_wire,
    'session_message': SessionMessage.from_wire,
    'session_message_chunk': SessionMessageChunk.from_wire,
}
_SESSION_UPDATE_VARIANTS_FW: dict[str, Callable[[object], SessionUpdate]] = {
    'user_message_chunk': _t._fw_UserMessageChunk,
    'agent_message_chunk': _t._fw_AgentMessageChunk,
    'agent_thought_chunk': _t._fw_AgentThoughtChunk,
    'tool_call': _t._fw_ToolCallStart,
    'tool_call_update': _t._fw_ToolCallProgress,
    'plan': _t._fw_PlanUpdate,
    'plan_update': _fw_PlanContentUpdate,
    'plan_removed': _fw_PlanRemoved,
    'available_commands_update': _t._fw_AvailableCommandsUpdate,
    'current_mode_update': _t._fw_CurrentModeUpdate,
    'config_option_update': _t._fw_ConfigOptionUpdate,
    'session_info_update': _t._fw_SessionInfoUpdate,
    'usage_update': _t._fw_UsageUpdate,
    'notice': _t._fw_Notice,
    'compaction_update': _t._fw_CompactionUpdate,
    'compaction_summary_chunk': _t._fw_CompactionSummaryChunk,
    'subagent_update': _fw_SubagentUpdate,
    'session_message': _fw_SessionMessage,
    'session_message_chunk': _fw_SessionMessageChunk,
}


def _fw_SessionUpdate(data: object) -> SessionUpdate:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    kind = data.get('sessionUpdate')
    if isinstance(kind, str):
        dec = _SESSION_UPDATE_VARIANTS_FW.get(kind)
        if dec is not None:
            return dec(data)
        return UnknownSessionUpdate(kind=kind, raw=data)
    if kind is None:
        raise _missing('sessionUpdate')
    raise _bad('sessionUpdate', "a string", kind)


def decode_session_update(data: object, path: str = "") -> SessionUpdate:
    """Decode a :data:`SessionUpdate`, dispatching on ``sessionUpdate``.

    An unknown ``sessionUpdate`` value gives :class:`UnknownSessionUpdate` (never an error).

    Raises:
        SchemaError: ``data`` is malformed.
    """
    try:
        kind = data.get('sessionUpdate') if type(data) is dict else None
        dec = _SESSION_UPDATE_VARIANTS_FW.get(kind) if type(kind) is str else None
        return dec(data) if dec is not None else _fw_SessionUpdate(data)
    except SchemaError as exc:
        exc._rebase(path)
        raise


PlanUpdateContent = PlanItems | PlanFile | PlanMarkdown | UnknownPlanUpdateContent
"""**UNSTABLE**"""

_PLAN_UPDATE_CONTENT_VARIANTS: dict[str, Callable[[object, str], PlanUpdateContent]] = {
    'items': PlanItems.from_wire,
    'file': PlanFile.from_wire,
    'markdown': PlanMarkdown.from_wire,
}
_PLAN_UPDATE_CONTENT_VARIANTS_FW: dict[str, Callable[[object], PlanUpdateContent]] = {
    'items': _fw_PlanItems,
    'file': _fw_PlanFile,
    'markdown': _fw_PlanMarkdown,
}


def _fw_PlanUpdateContent(data: object) -> PlanUpdateContent:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    kind = data.get('type')
    if isinstance(kind, str):
        dec = _PLAN_UPDATE_CONTENT_VARIANTS_FW.get(kind)
        if dec is not None:
            return dec(data)
        return UnknownPlanUpdateContent(kind=kind, raw=data)
    if kind is None:
        raise _missing('type')
    raise _bad('type', "a string", kind)


def decode_plan_update_content(data: object, path: str = "") -> PlanUpdateContent:
    """Decode a :data:`PlanUpdateContent`, dispatching on ``type``.

    An unknown ``type`` value gives :class:`UnknownPlanUpdateContent` (never an error).

    Raises:
        SchemaError: ``data`` is malformed.
    """
    try:
        kind = data.get('type') if type(data) is dict else None
        dec = _PLAN_UPDATE_CONTENT_VARIANTS_FW.get(kind) if type(kind) is str else None
        return dec(data) if dec is not None else _fw_PlanUpdateContent(data)
    except SchemaError as exc:
        exc._rebase(path)
        raise


StateUpdate = RunningStateUpdate | IdleStateUpdate | RequiresActionStateUpdate | UnknownStateUpdate | UnrecognizedStateUpdate
"""**UNSTABLE**"""

_STATE_UPDATE_VARIANTS: dict[str, Callable[[object, str], StateUpdate]] = {
    'running': RunningStateUpdate.from_wire,
    'idle': IdleStateUpdate.from_wire,
    'requires_action': RequiresActionStateUpdate.from_wire,
    'unknown': UnknownStateUpdate.from_wire,
}
_STATE_UPDATE_VARIANTS_FW: dict[str, Callable[[object], StateUpdate]] = {
    'running': _fw_RunningStateUpdate,
    'idle': _fw_IdleStateUpdate,
    'requires_action': _fw_RequiresActionStateUpdate,
    'unknown': _fw_UnknownStateUpdate,
}


def _fw_StateUpdate(data: object) -> StateUpdate:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    kind = data.get('state')
    if isinstance(kind, str):
        dec = _STATE_UPDATE_VARIANTS_FW.get(kind)
        if dec is not None:
            return dec(data)
        return UnrecognizedStateUpdate(kind=kind, raw=data)
    if kind is None:
        raise _missing('state')
    raise _bad('state', "a string", kind)


def decode_state_update(data: object, path: str = "") -> StateUpdate:
    """Decode a :data:`StateUpdate`, dispatching on ``state``.

    An unknown ``state`` value gives :class:`UnrecognizedStateUpdate` (never an error).

    Raises:
        SchemaError: ``data`` is malformed.
    """
    try:
        kind = data.get('state') if type(data) is dict else None
        dec = _STATE_UPDATE_VARIANTS_FW.get(kind) if type(kind) is str else None
        return dec(data) if dec is not None else _fw_StateUpdate(data)
    except SchemaError as exc:
        exc._rebase(path)
        raise


McpServer = McpServerHttp | McpServerSse | McpServerAcp | McpServerStdio | UnknownMcpServer
"""Configuration for connecting to an MCP (Model Context Protocol) server."""

_MCP_SERVER_VARIANTS: dict[str, Callable[[object, str], McpServer]] = {
    'http': McpServerHttp.from_wire,
    'sse': McpServerSse.from_wire,
    'acp': McpServerAcp.from_wire,
    'stdio': McpServerStdio.from_wire,
}
_MCP_SERVER_VARIANTS_FW: dict[str, Callable[[object], McpServer]] = {
    'http': _t._fw_McpServerHttp,
    'sse': _t._fw_McpServerSse,
    'acp': _fw_McpServerAcp,
    'stdio': _t._fw_McpServerStdio,
}


def _fw_McpServer(data: object) -> McpServer:
    if not isinstance(data, dict):
        raise _bad("", "an object", data)
    kind = data.get('type')
    if isinstance(kind, str):
        dec = _MCP_SERVER_VARIANTS_FW.get(kind)
        if dec is not None:
            return dec(data)
        return UnknownMcpServer(kind=kind, raw=data)
    if 'type' not in data:
        return _t._fw_McpServerStdio(data)
    raise _bad('type', "a string", kind)


def decode_mcp_server(data: object, path: str = "") -> McpServer:
    """Decode a :data:`McpServer`, dispatching on ``type``.

    An unknown ``type`` value gives :class:`UnknownMcpServer` (never an error).

    Raises:
        SchemaError: ``data`` is malformed.
    """
    try:
        kind = data.get('type') if type(data) is dict else None
        dec = _MCP_SERVER_VARIANTS_FW.get(kind) if type(kind) is str else None
        return dec(data) if dec is not None else _fw_McpServer(data)
    except SchemaError as exc:
        exc._rebase(path)
        raise


def _d0(v: object) -> Any:
    return _first(v, (_str, _null,), 'a string or null')


DECODERS: dict[str, Callable[[object, str], Any]] = {
    'AgentRequest': AgentRequest.from_wire,
    'RequestId': _t.decode_request_id,
    'WriteTextFileRequest': WriteTextFileRequest.from_wire,
    'SessionId': _str,
    'ReadTextFileRequest': ReadTextFileRequest.from_wire,
    'RequestPermissionRequest': RequestPermissionRequest.from_wire,
    'ToolCallUpdate': ToolCallUpdate.from_wire,
    'ToolCallId': _str,
    'ToolKind': _str,
    'ToolCallStatus': _str,
    'ToolCallContent': _t.decode_tool_call_content,
    'ContentBlock': _t.decode_content_block,
    'Annotations': Annotations.from_wire,
    'Role': _str,
    'TextContent': TextContent.from_wire,
    'ImageContent': ImageContent.from_wire,
    'AudioContent': AudioContent.from_wire,
    'ResourceLink': ResourceLink.from_wire,
    'EmbeddedResourceResource': _t.decode_embedded_resource_resource,
    'TextResourceContents': TextResourceContents.from_wire,
    'BlobResourceContents': BlobResourceContents.from_wire,
    'EmbeddedResource': EmbeddedResource.from_wire,
    'Content': Content.from_wire,
    'Diff': Diff.from_wire,
    'TerminalId': _str,
    'Terminal': Terminal.from_wire,
    'ToolCallLocation': ToolCallLocation.from_wire,
    'PermissionOption': PermissionOption.from_wire,
    'PermissionOptionId': _str,
    'PermissionOptionKind': _str,
    'CreateTerminalRequest': CreateTerminalRequest.from_wire,
    'EnvVariable': EnvVariable.from_wire,
    'TerminalOutputRequest': TerminalOutputRequest.from_wire,
    'ReleaseTerminalRequest': ReleaseTerminalRequest.from_wire,
    'WaitForTerminalExitRequest': WaitForTerminalExitRequest.from_wire,
    'KillTerminalRequest': KillTerminalRequest.from_wire,
    'CreateElicitationRequest': CreateElicitationRequest.from_wire,
    'ElicitationSessionScope': ElicitationSessionScope.from_wire,
    'ElicitationRequestScope': ElicitationRequestScope.from_wire,
    'ElicitationSchema': ElicitationSchema.from_wire,
    'ElicitationSchemaType': _str,
    'ElicitationPropertySchema': _t.decode_elicitation_property_schema,
    'StringFormat': _str,
    'EnumOption': EnumOption.from_wire,
    'StringPropertySchema': StringPropertySchema.from_wire,
    'NumberPropertySchema': NumberPropertySchema.from_wire,
    'IntegerPropertySchema': IntegerPropertySchema.from_wire,
    'BooleanPropertySchema': BooleanPropertySchema.from_wire,
    'MultiSelectItems': _t.decode_multi_select_items,
    'StringMultiSelectItems': StringMultiSelectItems.from_wire,
    'TitledMultiSelectItems': TitledMultiSelectItems.from_wire,
    'MultiSelectPropertySchema': MultiSelectPropertySchema.from_wire,
    'ElicitationFormMode': ElicitationFormMode.from_wire,
    'ElicitationId': _str,
    'ElicitationUrlMode': ElicitationUrlMode.from_wire,
    'MessageMcpRequest': MessageMcpRequest.from_wire,
    'McpServerAcpId': _str,
    'McpRequestId': _str,
    'ExtRequest': _any,
    'AgentResponse': AgentResponse.from_wire,
    'InitializeResponse': InitializeResponse.from_wire,
    'ProtocolVersion': _int,
    'AgentCapabilities': AgentCapabilities.from_wire,
    'PromptCapabilities': PromptCapabilities.from_wire,
    'McpCapabilities': McpCapabilities.from_wire,
    'SessionCapabilities': SessionCapabilities.from_wire,
    'SessionListCapabilities': SessionListCapabilities.from_wire,
    'SessionDeleteCapabilities': SessionDeleteCapabilities.from_wire,
    'SessionAdditionalDirectoriesCapabilities': SessionAdditionalDirectoriesCapabilities.from_wire,
    'SessionSystemPromptCapabilities': SessionSystemPromptCapabilities.from_wire,
    'SessionSystemPromptModeCapabilities': SessionSystemPromptModeCapabilities.from_wire,
    'SessionSystemPromptOverrideCapabilities': SessionSystemPromptOverrideCapabilities.from_wire,
    'SessionForkCapabilities': SessionForkCapabilities.from_wire,
    'SessionArchiveCapabilities': SessionArchiveCapabilities.from_wire,
    'SessionStatusCapabilities': SessionStatusCapabilities.from_wire,
    'SessionTitleCapabilities': SessionTitleCapabilities.from_wire,
    'SessionResumeCapabilities': SessionResumeCapabilities.from_wire,
    'SessionCloseCapabilities': SessionCloseCapabilities.from_wire,
    'AgentAuthCapabilities': AgentAuthCapabilities.from_wire,
    'AuthStatusCapabilities': AuthStatusCapabilities.from_wire,
    'LogoutCapabilities': LogoutCapabilities.from_wire,
    'ProvidersCapabilities': ProvidersCapabilities.from_wire,
    'AuthMethod': _t.decode_auth_method,
    'AuthMethodId': _str,
    'AuthMethodTerminal': AuthMethodTerminal.from_wire,
    'AuthMethodAgent': AuthMethodAgent.from_wire,
    'Implementation': Implementation.from_wire,
    'AuthenticateResponse': AuthenticateResponse.from_wire,
    'ListProvidersResponse': ListProvidersResponse.from_wire,
    'ProviderInfo': ProviderInfo.from_wire,
    'ProviderId': _str,
    'LlmProtocol': _str,
    'ProviderCurrentConfig': ProviderCurrentConfig.from_wire,
    'SetProviderResponse': SetProviderResponse.from_wire,
    'DisableProviderResponse': DisableProviderResponse.from_wire,
    'LogoutResponse': LogoutResponse.from_wire,
    'AuthStatusResponse': AuthStatusResponse.from_wire,
    'AuthState': _str,
    'AuthAccount': AuthAccount.from_wire,
    'NewSessionResponse': NewSessionResponse.from_wire,
    'SessionModeState': SessionModeState.from_wire,
    'SessionModeId': _str,
    'SessionMode': SessionMode.from_wire,
    'SessionConfigOption': _t.decode_session_config_option,
    'SessionConfigId': _str,
    'SessionConfigOptionCategory': _str,
    'SessionConfigValueId': _str,
    'SessionConfigSelectOptions': _t.decode_session_config_select_options,
    'SessionConfigSelectOption': SessionConfigSelectOption.from_wire,
    'SessionConfigSelectGroup': SessionConfigSelectGroup.from_wire,
    'SessionConfigGroupId': _str,
    'SessionConfigSelect': SessionConfigSelect.from_wire,
    'SessionConfigBoolean': SessionConfigBoolean.from_wire,
    'LoadSessionResponse': LoadSessionResponse.from_wire,
    'ListSessionsResponse': ListSessionsResponse.from_wire,
    'SessionInfo': SessionInfo.from_wire,
    'DeleteSessionResponse': DeleteSessionResponse.from_wire,
    'ForkSessionResponse': ForkSessionResponse.from_wire,
    'ArchiveSessionResponse': ArchiveSessionResponse.from_wire,
    'UnarchiveSessionResponse': UnarchiveSessionResponse.from_wire,
    'SessionStatusResponse': SessionStatusResponse.from_wire,
    'SessionStatus': _str,
    'SetSessionTitleResponse': SetSessionTitleResponse.from_wire,
    'ResumeSessionResponse': ResumeSessionResponse.from_wire,
    'CloseSessionResponse': CloseSessionResponse.from_wire,
    'SetSessionModeResponse': SetSessionModeResponse.from_wire,
    'SetSessionConfigOptionResponse': SetSessionConfigOptionResponse.from_wire,
    'PromptResponse': PromptResponse.from_wire,
    'StopReason': _str,
    'Usage': Usage.from_wire,
    'ExtResponse': _any,
    'Error': Error.from_wire,
    'ErrorCode': _int,
    'AgentNotification': AgentNotification.from_wire,
    'SessionNotification': SessionNotification.from_wire,
    'SessionUpdate': decode_session_update,
    'MessageId': _str,
    'ContentChunk': ContentChunk.from_wire,
    'ToolCall': ToolCall.from_wire,
    'PlanEntry': PlanEntry.from_wire,
    'PlanEntryPriority': _str,
    'PlanEntryStatus': _str,
    'Plan': Plan.from_wire,
    'PlanUpdateContent': decode_plan_update_content,
    'PlanId': _str,
    'PlanItems': PlanItems.from_wire,
    'PlanFile': PlanFile.from_wire,
    'PlanMarkdown': PlanMarkdown.from_wire,
    'PlanUpdate': PlanContentUpdate.from_wire,
    'PlanRemoved': PlanRemoved.from_wire,
    'AvailableCommand': AvailableCommand.from_wire,
    'AvailableCommandInput': UnstructuredCommandInput.from_wire,
    'UnstructuredCommandInput': UnstructuredCommandInput.from_wire,
    'AvailableCommandsUpdate': AvailableCommandsUpdate.from_wire,
    'CurrentModeUpdate': CurrentModeUpdate.from_wire,
    'ConfigOptionUpdate': ConfigOptionUpdate.from_wire,
    'SessionInfoUpdate': SessionInfoUpdate.from_wire,
    'Cost': Cost.from_wire,
    'UsageUpdate': UsageUpdate.from_wire,
    'NoticeSeverity': _str,
    'Notice': Notice.from_wire,
    'CompactionId': _str,
    'CompactionStatus': _str,
    'CompactionUpdate': CompactionUpdate.from_wire,
    'CompactionSummaryChunk': CompactionSummaryChunk.from_wire,
    'SubagentSessionCapabilities': SubagentSessionCapabilities.from_wire,
    'SessionCancelCapabilities': SessionCancelCapabilities.from_wire,
    'StateUpdate': decode_state_update,
    'RunningStateUpdate': RunningStateUpdate.from_wire,
    'ErrorStopReason': ErrorStopReason.from_wire,
    'IdleStateUpdate': IdleStateUpdate.from_wire,
    'RequiresActionStateUpdate': RequiresActionStateUpdate.from_wire,
    'UnknownStateUpdate': UnknownStateUpdate.from_wire,
    'SubagentUpdate': SubagentUpdate.from_wire,
    'SessionMessage': SessionMessage.from_wire,
    'SessionMessageChunk': SessionMessageChunk.from_wire,
    'CompleteElicitationNotification': CompleteElicitationNotification.from_wire,
    'AuthStatusUpdateNotification': AuthStatusUpdateNotification.from_wire,
    'ExtNotification': _any,
    'ClientRequest': ClientRequest.from_wire,
    'InitializeRequest': InitializeRequest.from_wire,
    'ClientCapabilities': ClientCapabilities.from_wire,
    'FileSystemCapabilities': FileSystemCapabilities.from_wire,
    'ClientSessionCapabilities': ClientSessionCapabilities.from_wire,
    'CompactionCapabilities': CompactionCapabilities.from_wire,
    'SessionConfigOptionsCapabilities': SessionConfigOptionsCapabilities.from_wire,
    'BooleanConfigOptionCapabilities': BooleanConfigOptionCapabilities.from_wire,
    'NoticeCapabilities': NoticeCapabilities.from_wire,
    'SubagentCapabilities': SubagentCapabilities.from_wire,
    'PlanCapabilities': PlanCapabilities.from_wire,
    'AuthCapabilities': AuthCapabilities.from_wire,
    'ElicitationCapabilities': ElicitationCapabilities.from_wire,
    'ElicitationFormCapabilities': ElicitationFormCapabilities.from_wire,
    'ElicitationUrlCapabilities': ElicitationUrlCapabilities.from_wire,
    'AuthenticateRequest': AuthenticateRequest.from_wire,
    'ListProvidersRequest': ListProvidersRequest.from_wire,
    'SetProviderRequest': SetProviderRequest.from_wire,
    'DisableProviderRequest': DisableProviderRequest.from_wire,
    'LogoutRequest': LogoutRequest.from_wire,
    'AuthStatusRequest': AuthStatusRequest.from_wire,
    'NewSessionRequest': NewSessionRequest.from_wire,
    'McpServer': decode_mcp_server,
    'HttpHeader': HttpHeader.from_wire,
    'McpServerHttp': McpServerHttp.from_wire,
    'McpServerSse': McpServerSse.from_wire,
    'McpServerAcp': McpServerAcp.from_wire,
    'McpServerStdio': McpServerStdio.from_wire,
    'SystemPrompt': SystemPrompt.from_wire,
    'SystemPromptMode': _str,
    'LoadSessionRequest': LoadSessionRequest.from_wire,
    'ListSessionsRequest': ListSessionsRequest.from_wire,
    'SessionArchiveFilter': _str,
    'DeleteSessionRequest': DeleteSessionRequest.from_wire,
    'ForkSessionRequest': ForkSessionRequest.from_wire,
    'ArchiveSessionRequest': ArchiveSessionRequest.from_wire,
    'UnarchiveSessionRequest': UnarchiveSessionRequest.from_wire,
    'SessionStatusRequest': SessionStatusRequest.from_wire,
    'SetSessionTitleRequest': SetSessionTitleRequest.from_wire,
    'ResumeSessionRequest': ResumeSessionRequest.from_wire,
    'CloseSessionRequest': CloseSessionRequest.from_wire,
    'SetSessionModeRequest': SetSessionModeRequest.from_wire,
    'SetSessionConfigOptionRequest': SetSessionConfigOptionRequest.from_wire,
    'PromptRequest': PromptRequest.from_wire,
    'ClientResponse': ClientResponse.from_wire,
    'WriteTextFileResponse': WriteTextFileResponse.from_wire,
    'ReadTextFileResponse': ReadTextFileResponse.from_wire,
    'RequestPermissionResponse': RequestPermissionResponse.from_wire,
    'RequestPermissionOutcome': _t.decode_request_permission_outcome,
    'SelectedPermissionOutcome': SelectedPermissionOutcome.from_wire,
    'CreateTerminalResponse': CreateTerminalResponse.from_wire,
    'TerminalOutputResponse': TerminalOutputResponse.from_wire,
    'TerminalExitStatus': TerminalExitStatus.from_wire,
    'ReleaseTerminalResponse': ReleaseTerminalResponse.from_wire,
    'WaitForTerminalExitResponse': WaitForTerminalExitResponse.from_wire,
    'KillTerminalResponse': KillTerminalResponse.from_wire,
    'CreateElicitationResponse': CreateElicitationResponse.from_wire,
    'ElicitationContentValue': _t.decode_elicitation_content_value,
    'ElicitationAcceptAction': ElicitationAcceptAction.from_wire,
    'MessageMcpResponse': MessageMcpResponse.from_wire,
    'McpError': McpError.from_wire,
    'ClientNotification': ClientNotification.from_wire,
    'CancelNotification': CancelNotification.from_wire,
    'MessageMcpNotification': MessageMcpNotification.from_wire,
    'CancelRequestNotification': CancelRequestNotification.from_wire,
    'ProxyRequest': ProxyRequest.from_wire,
    'InitializeProxyRequest': InitializeRequest.from_wire,
    'ProxySuccessorRequest': ProxySuccessorRequest.from_wire,
    'ProxyResponse': ProxyResponse.from_wire,
    'InitializeProxyResponse': InitializeResponse.from_wire,
    'ProxySuccessorResponse': _any,
    'ProxyNotification': ProxyNotification.from_wire,
    'ProxySuccessorNotification': ProxySuccessorNotification.from_wire,
}
"""Schema ``$defs`` name -> ``decode(data, path="")`` for that type."""
