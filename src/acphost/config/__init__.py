"""Agent configuration: settings.json, presets from the ACP registry, the demo agent."""

from ._presets import DEMO, all_agents, command_found, presets, resolve_agent
from ._settings import AgentSpec, Settings, SettingsError, find_settings, load_settings

__all__ = [
    "DEMO",
    "AgentSpec",
    "Settings",
    "SettingsError",
    "all_agents",
    "command_found",
    "find_settings",
    "load_settings",
    "presets",
    "resolve_agent",
]
