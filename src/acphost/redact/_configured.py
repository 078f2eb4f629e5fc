"""Which values the host was configured with count as secrets, and secrets in command lines."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from ._patterns import MIN_SECRET_LENGTH, is_secret_name

__all__ = ["AgentLike", "SettingsLike", "argv_secrets", "configured_secrets", "url_passwords"]

_FLAG = re.compile(r"(?P<flag>--?[A-Za-z0-9][A-Za-z0-9_.-]*)(?:=(?P<value>.*))?", re.DOTALL)
_ASSIGN = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_.-]*)=(?P<value>.*)", re.DOTALL)
# A URL's password (``scheme://user:password@host``). A pattern that starts at
# the scheme tries every word boundary of a long run of scheme characters
# ("a-a-a-...") and scans the rest of the run from each: hours for a
# megabyte-long configured value. So the search starts at "://" (a literal
# the engine scans for), and the scheme is checked in the few characters
# before it (RFC 3986 §3.1: a letter, then letters, digits, "+", "-", ".").
_USERINFO = re.compile(r"://(?<=[A-Za-z0-9+.-]://)[^\s/?#@:]*:(?P<password>[^\s/?#@]+)@")
_SCHEME = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*\Z")
_SCHEME_LONGEST = 64
_PUBLIC_WORDS = frozenset(
    {
        *("true", "false", "yes", "no", "on", "off", "null", "none"),
        *("debug", "info", "warn", "warning", "error", "trace", "verbose"),
        *("production", "development", "staging", "test"),
    }
)


def argv_secrets(argv: Sequence[str]) -> Iterator[tuple[int, str]]:
    """Where a command line holds secrets: ``(index, kept prefix)`` per secret argument.

    ``--api-key V`` gives V's index and ``""``; ``--token=V`` its index and
    ``"--token="``; ``API_KEY=V`` its index and ``"API_KEY="``. A flag
    followed by another ``--flag`` takes no value.
    """
    hide_next = False
    for i, arg in enumerate(argv):
        if hide_next:
            hide_next = False
            if not arg.startswith("--"):
                yield i, ""
                continue
        flag = _FLAG.fullmatch(arg)
        if flag is not None and is_secret_name(flag["flag"]):
            if flag["value"] is None:
                hide_next = True
            elif flag["value"]:
                yield i, flag["flag"] + "="
            continue
        assign = _ASSIGN.fullmatch(arg)
        if assign is not None and assign["value"] and is_secret_name(assign["name"]):
            yield i, assign["name"] + "="


def url_passwords(text: str) -> list[str]:
    """The passwords of the URLs in ``text`` (``scheme://user:password@host``).

    Time linear in the text, whatever it holds: the user information after
    each ``://`` is read up to the first character that ends it (the next
    ``://`` starts with one), the scheme in a bounded window before it.

    Args:
        text: e.g. a configured value or an MCP server's URL.

    Returns:
        The passwords, in order.

    """
    return [
        m["password"]
        for m in _USERINFO.finditer(text)
        if _SCHEME.search(text, max(0, m.start() - _SCHEME_LONGEST), m.start()) is not None
    ]


# What a path in a configured value is made of: base64 (a key, which may
# start with "/") has "+" and "=" too.
_PATH = re.compile(r"[/~][A-Za-z0-9._@%/~-]*")


def _looks_public(value: str) -> bool:
    """A configured value under a neutral name that is plainly not a secret.

    Shorter than 6 characters, a boolean or log level word, a number, or
    paths (``/opt/tools:/usr/bin``) made of path characters only.
    """
    if len(value) < 6 or value.lower() in _PUBLIC_WORDS:
        return True
    try:
        float(value)
    except ValueError:
        pass
    else:
        return True
    return all(_PATH.fullmatch(p) for p in value.split(os.pathsep))


class AgentLike(Protocol):
    """What :func:`configured_secrets` reads of an agent (an ``AgentSpec`` fits)."""

    @property
    def env(self) -> Mapping[str, str]:
        """Variables overlaid on the agent's environment."""

    @property
    def args(self) -> Sequence[str]:
        """The agent's arguments."""


class SettingsLike(Protocol):
    """What :func:`configured_secrets` reads of settings (a ``Settings`` fits)."""

    @property
    def mcp_servers(self) -> list[dict[str, Any]]:
        """MCP servers in ACP wire form."""


def _pairs(items: Any) -> Iterable[tuple[str, str]]:
    if isinstance(items, Mapping):
        yield from ((str(k), v) for k, v in items.items() if isinstance(v, str))
    elif isinstance(items, list):
        for item in items:
            if isinstance(item, Mapping) and isinstance(item.get("value"), str):
                yield str(item.get("name", "")), item["value"]


def _argv_values(argv: Sequence[str]) -> list[str]:
    return [argv[i][len(prefix) :] for i, prefix in argv_secrets(argv)]


def configured_secrets(
    *,
    agent: AgentLike | None = None,
    settings: SettingsLike | None = None,
    mcp_servers: Iterable[Mapping[str, Any]] = (),
    host_env: Mapping[str, str] | None = None,
    extra: Iterable[str] = (),
) -> list[str]:
    """The exact values the host was configured with that must never appear in clear.

    Every value of the agent's ``env`` and of MCP servers' ``env`` and
    ``headers`` counts (the user wrote them into the configuration), unless
    its name is not credential-like and the value is plainly public (shorter
    than 6 characters, a number, a boolean or log level word, a path of
    path characters only). Under a credential-like name (see
    :func:`~acphost.redact._patterns.is_secret_name`) a value counts whatever
    it looks like. Values after secret flags (``--api-key V``) in the
    agent's and MCP servers' arguments, URL passwords, and the host's own
    credential-named variables (``GITHUB_TOKEN``, ``PGPASSWORD``) count too.
    Never counted: values shorter than :data:`MIN_SECRET_LENGTH` and the
    words ``true``, ``null``, ``debug``, ``test``… (masking them everywhere
    would mask ordinary text, and they guard nothing).

    Args:
        agent: the agent launched (its ``env`` and ``args``).
        settings: the settings in use (its ``mcp_servers``).
        mcp_servers: more MCP servers in ACP wire form.
        host_env: the host's environment (e.g. ``os.environ``): only
            credential-named variables are taken, since the agent inherits them.
        extra: values that are secret whatever they look like (auth inputs).

    Returns:
        The values, each at least :data:`MIN_SECRET_LENGTH` characters long.

    """
    found: list[str] = list(extra)
    named: list[tuple[str, str]] = []
    urls: list[str] = []
    if agent is not None:
        named += list(_pairs(agent.env))
        found += _argv_values(agent.args)
    servers = [*(settings.mcp_servers if settings is not None else ()), *mcp_servers]
    for server in servers:
        named += list(_pairs(server.get("env")))
        named += list(_pairs(server.get("headers")))
        args = server.get("args")
        if isinstance(args, list):
            found += _argv_values([a for a in args if isinstance(a, str)])
        if isinstance(server.get("url"), str):
            urls.append(server["url"])
    for name, value in named:
        if is_secret_name(name) or not _looks_public(value):
            found.append(value)
    if host_env is not None:
        # Whatever it looks like (a path, a number): names that hold a path to a
        # credential (``GOOGLE_APPLICATION_CREDENTIALS``, ``*_FILE``) are not
        # credential names (see is_secret_name).
        found += [v for k, v in host_env.items() if is_secret_name(k)]
    for value in [*found, *urls]:
        found += url_passwords(value)
    out: list[str] = []
    for raw in found:
        value = raw.strip()
        if (
            len(value) >= MIN_SECRET_LENGTH
            and value not in out
            and value.lower() not in _PUBLIC_WORDS
        ):
            out.append(value)
    return out
