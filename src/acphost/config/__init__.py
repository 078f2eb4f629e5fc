"""Agent configuration: settings.json, presets from the ACP registry, the demo agent.

Also the one safe way to read a file the user named or an agent could have
written, and its strict JSON (:func:`read_input`, :func:`loads_strict`); the
user's folders (:func:`config_dir`, :func:`state_dir`,
:func:`data_dir`) and the store of trusted project settings (:func:`trust`).
"""

from ._budget import parse_cost, parse_tokens
from ._dirs import config_dir, data_dir, state_dir
from ._files import (
    MAX_IMPORT_BYTES,
    MAX_INPUT_BYTES,
    InputFileError,
    decode_text,
    loads_strict,
    open_input,
    read_input,
    read_stream,
    read_text_input,
)
from ._presets import DEMO, agent_state_dirs, all_agents, command_found, presets, resolve_agent
from ._project import project_dir
from ._protocol import (
    PROTOCOL_CHOICES,
    ProtocolChoice,
    describe_protocol,
    parse_protocol,
    protocol_options,
    with_protocol_choice,
)
from ._settings import (
    find_settings,
    load_settings,
    parse_settings,
    project_settings_path,
    read_project_settings,
    read_settings,
    settings_for,
    user_settings_path,
)
from ._spec import AgentSpec, Settings, SettingsError, agent_from_command
from ._trust import TrustEntry, revoke, trust, trust_status, trust_store_path, trusted_files

__all__ = [
    "DEMO",
    "MAX_IMPORT_BYTES",
    "MAX_INPUT_BYTES",
    "PROTOCOL_CHOICES",
    "AgentSpec",
    "InputFileError",
    "ProtocolChoice",
    "Settings",
    "SettingsError",
    "TrustEntry",
    "agent_from_command",
    "agent_state_dirs",
    "all_agents",
    "command_found",
    "config_dir",
    "data_dir",
    "decode_text",
    "describe_protocol",
    "find_settings",
    "loads_strict",
    "open_input",
    "read_input",
    "read_stream",
    "read_text_input",
    "load_settings",
    "parse_cost",
    "parse_protocol",
    "parse_settings",
    "parse_tokens",
    "presets",
    "project_dir",
    "project_settings_path",
    "protocol_options",
    "read_project_settings",
    "read_settings",
    "resolve_agent",
    "revoke",
    "settings_for",
    "state_dir",
    "trust",
    "trust_status",
    "trust_store_path",
    "trusted_files",
    "user_settings_path",
    "with_protocol_choice",
]
