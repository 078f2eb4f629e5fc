"""``--list-caps``, ``--list-modes``, ``--list-commands`` in text mode.

Each listing is a section: a header line, its lines, and a blank line
before the next section. Values are spelled as in JSON (``true``, not
``True``). The raw capabilities stay available as frames in ``-o jsonl``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..client import AcpClient, SessionState
    from ..config import ProtocolChoice
    from ..schema import unstable as u

__all__ = [
    "auth_status_section",
    "caps_section",
    "commands_section",
    "json_value",
    "modes_section",
]

Clean = Callable[[str], str]


def json_value(value: Any) -> str:
    """A value as JSON spells it, strings bare: ``true``, ``null``, ``3``, ``demo-fast``."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _tree(data: dict[str, Any], clean: Clean, indent: str) -> list[str]:
    """Nested objects as indented ``key: value`` lines; ``{}`` reads as ``yes``."""
    lines = []
    for key, value in data.items():
        label = clean(str(key))
        if isinstance(value, dict) and value:
            lines.append(f"{indent}{label}:")
            lines.extend(_tree(value, clean, indent + "  "))
        elif isinstance(value, dict):
            lines.append(f"{indent}{label}: yes")
        else:
            lines.append(f"{indent}{label}: {clean(json_value(value))}")
    return lines


def caps_section(client: AcpClient, clean: Clean, asked: ProtocolChoice | None = None) -> list[str]:
    """The agent, the protocol version (and what was asked), its capabilities and auth methods.

    Args:
        client: the initialized client.
        clean: cleans agent text for the output (sanitises on a terminal).
        asked: the protocol the run asked for (1, 2 or ``auto``), or None.

    Returns:
        The section's lines.

    """
    from ..client import auth_method_id  # noqa: PLC0415
    from ..config import describe_protocol  # noqa: PLC0415

    lines = ["agent"]
    info = client.agent_info
    if info is not None:
        title = f" ({clean(info.title)})" if info.title else ""
        lines.append(f"  {clean(info.name)} {clean(info.version)}{title}")
    else:
        lines.append("  (the agent sent no agentInfo)")
    lines.append(f"  {describe_protocol(client.protocol_version, asked)}")
    lines += ["", "capabilities"]
    caps = client.agent_capabilities.to_wire()
    lines.extend(_tree(caps, clean, "  ") if caps else ["  (none advertised)"])
    lines += ["", "auth methods"]
    if not client.auth_methods:
        lines.append("  (none: no authentication needed)")
    for m in client.auth_methods:
        name = getattr(m, "name", "") or ""
        desc = getattr(m, "description", None)
        text = f"  {clean(auth_method_id(m))}: {clean(name)}"
        lines.append(text + (f" - {clean(desc)}" if desc else ""))
    return lines


def modes_section(state: SessionState, clean: Clean) -> list[str]:
    """The session's modes (``*`` marks the current one), then its config options.

    Args:
        state: the session state.
        clean: cleans agent text for the output.

    Returns:
        The section's lines.

    """
    from ..client import option_id, option_values  # noqa: PLC0415

    lines = ["modes"]
    modes = state.modes
    if modes is None or not modes.available_modes:
        lines.append("  (the agent offers no modes)")
    else:
        for m in modes.available_modes:
            mark = "*" if m.id == modes.current_mode_id else " "
            desc = f" - {clean(m.description)}" if m.description else ""
            lines.append(f"{mark} {clean(m.id)}: {clean(m.name)}{desc}")
    if state.config_options:
        lines += ["", "config options"]
        for o in state.config_options:
            values = option_values(o)
            current = json_value(getattr(o, "current_value", None))
            choices = ", ".join(clean(v) for v in values) if values else "true, false"
            lines.append(f"  {clean(option_id(o))} = {clean(current)} [{choices}]")
    return lines


def commands_section(state: SessionState, clean: Clean, timeout: float) -> list[str]:
    """The slash commands the agent announced.

    Args:
        state: the session state.
        clean: cleans agent text for the output.
        timeout: how long the run waited for them (for the empty message).

    Returns:
        The section's lines.

    """
    lines = ["commands"]
    if not state.available_commands:
        lines.append(f"  (no commands announced within {timeout:g} s)")
    for c in state.available_commands:
        hint = getattr(c.input, "hint", None) if c.input is not None else None
        shown = f" <{clean(hint)}>" if hint else ""
        lines.append(f"  /{clean(c.name)}{shown} - {clean(c.description)}")
    return lines


def auth_status_section(status: u.AuthStatusResponse, clean: Clean) -> list[str]:
    """``auth status`` (unstable ``auth/status``): the state, then each account.

    Args:
        status: the agent's answer.
        clean: cleans agent text for the output.

    Returns:
        The section's lines.

    """
    lines = ["auth status", f"  {clean(status.state)}"]
    for account in status.accounts or ():
        details = [d for d in (account.name, account.email, account.organization) if d]
        more = f" ({clean(', '.join(details))})" if details else ""
        active = " [active]" if account.active else ""
        lines.append(f"  account {clean(account.label)}{more}{active}")
    return lines
