"""MCP server definitions in settings, checked and turned into ACP wire form.

The schema's ``McpServer`` (``McpServerStdio``, ``McpServerHttp``,
``McpServerSse``) is what ``session/new`` carries; settings may also use the
shorter map form editors use (``{"name": {"command": …, "env": {…}}}``).
Everything the agent will act on is checked here, so a mistake is reported
with the file and the field rather than sent: names and commands are
non-empty strings, ``args`` a list of strings, env names valid and header
names HTTP tokens, no value carries NUL (nor CR/LF in a header), and a URL is
``http://`` or ``https://`` with a host.
"""

from __future__ import annotations

import re
from typing import Any

from ._spec import SettingsError

__all__ = ["check_env_name", "expect", "parse_mcp"]

# RFC 9110 §5.1: a field name is a token.
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def expect(cond: bool, where: str, what: str) -> None:
    """Raise the one-line settings error ``settings file WHERE: WHAT`` unless ``cond``."""
    if not cond:
        raise SettingsError(f"settings file {where}: {what}")


def check_env_name(name: Any, where: str, at: str) -> None:
    """An environment variable name: non-empty, without ``=`` or NUL."""
    expect(
        isinstance(name, str) and name != "" and "=" not in name and "\0" not in name,
        where,
        f"{at} has an invalid variable name {name!r} (non-empty, without '=')",
    )


def _pairs(value: Any, where: str, at: str, *, header: bool) -> list[dict[str, str]]:
    """An ``env``/``headers`` map or ``[{name, value}]`` list, as the wire's list."""
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = []
        for i, item in enumerate(value):
            expect(
                isinstance(item, dict) and "name" in item and "value" in item,
                where,
                f"{at}[{i}] must be an object with 'name' and 'value'",
            )
            items.append((item["name"], item["value"]))
    else:
        expect(False, where, f"{at} must be an object of name → string")
    out = []
    for name, val in items:
        if header:
            expect(
                isinstance(name, str) and _HEADER_NAME.fullmatch(name) is not None,
                where,
                f"{at} has an invalid header name {name!r}",
            )
        else:
            check_env_name(name, where, at)
        bad = "\0\r\n" if header else "\0"
        expect(
            isinstance(val, str) and not any(c in val for c in bad),
            where,
            f"{at}.{name} must be a string"
            + (" without line breaks" if header else "")
            + f" ({at} maps names to strings)",
        )
        out.append({"name": name, "value": val})
    return out


def _check_url(url: Any, where: str, at: str) -> None:
    from urllib.parse import urlsplit  # noqa: PLC0415 - only settings with a URL server need it

    parts = urlsplit(url) if isinstance(url, str) and "\0" not in url else None
    expect(
        parts is not None and parts.scheme in ("http", "https") and bool(parts.hostname),
        where,
        f"{at}.url must be an http:// or https:// URL",
    )


def _one(name: str, spec: Any, where: str) -> dict[str, Any]:
    at = f"mcp_servers.{name}"
    expect(isinstance(spec, dict), where, f"{at} must be an object")
    kind = spec.get("type")
    expect(
        kind is None or kind in ("stdio", "http", "sse"),
        where,
        f"{at}.type must be 'stdio', 'http' or 'sse'",
    )
    if "url" in spec or kind in ("http", "sse"):
        expect("command" not in spec, where, f"{at} has both 'command' and 'url': pick one")
        expect(kind != "stdio", where, f"{at}.type 'stdio' takes a 'command', not a 'url'")
        expect("url" in spec, where, f"{at} of type {kind!r} needs a 'url'")
        _check_url(spec["url"], where, at)
        headers = _pairs(spec.get("headers", []), where, f"{at}.headers", header=True)
        return {"type": kind or "http", "name": name, "url": spec["url"], "headers": headers}
    command = spec.get("command")
    expect(
        isinstance(command, str) and command.strip() != "" and "\0" not in command,
        where,
        f"{at} needs a 'command' (a non-empty string) or a 'url'",
    )
    args = spec.get("args", [])
    expect(
        isinstance(args, list) and all(isinstance(a, str) and "\0" not in a for a in args),
        where,
        f"{at}.args must be a list of strings",
    )
    env = _pairs(spec.get("env", []), where, f"{at}.env", header=False)
    return {"name": name, "command": command, "args": args, "env": env}


def parse_mcp(value: Any, where: str) -> list[dict[str, Any]]:
    """Check ``mcp_servers`` and return it in ACP wire form (``McpServer`` objects).

    Args:
        value: a list of ``McpServer`` objects, or a map name → definition.
        where: the settings file, for messages.

    Raises:
        SettingsError: one line naming the file and the field.

    """
    items: list[tuple[str, Any]]
    if isinstance(value, list):
        items = []
        for i, v in enumerate(value):
            expect(
                isinstance(v, dict) and isinstance(v.get("name"), str),
                where,
                f"mcp_servers[{i}] must be an object with a string 'name'",
            )
            items.append((v["name"], v))
    else:
        expect(isinstance(value, dict), where, "'mcp_servers' must be a list or an object")
        items = list(value.items())
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for name, spec in items:
        expect(name.strip() != "", where, "an MCP server name in 'mcp_servers' is empty")
        expect(name not in seen, where, f"mcp_servers: the name {name!r} is used twice")
        seen.add(name)
        out.append(_one(name, spec, where))
    return out
