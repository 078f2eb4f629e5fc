"""The ACP registry's agents, and how to launch one (``-a acp:ID[@VERSION]``).

``data/registry.json`` holds the registry's entries in its own format
(``registry.schema.json``, ``agent.schema.json`` of
https://github.com/agentclientprotocol/registry): an id, a version and one
or more distributions. Three kinds exist, and each launches differently:

- ``npx``: ``npx -y PACKAGE ARGS`` (``npx -y -p PACKAGE CMD ARGS`` when the
  entry names its ``cmd``); a version pins ``PACKAGE@VERSION``.
- ``uvx``: ``uvx PACKAGE ARGS`` (``uvx --from PACKAGE CMD ARGS``); a version
  pins ``PACKAGE==VERSION``.
- ``binary``: an archive per platform. acphost never downloads one: the
  entry's program must already be on PATH, so its version is whatever is
  installed, and asking for a version of a binary-only agent is refused.

Every problem is one :class:`~acphost.config.SettingsError` line saying what
to do instead.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import sys
from dataclasses import dataclass
from functools import cache
from typing import Any

from ._spec import SettingsError

__all__ = [
    "PREFIX",
    "Launch",
    "is_registry_name",
    "launch",
    "parse_name",
    "registry_entries",
    "registry_entry",
    "unknown",
]

#: ``-a acp:ID[@VERSION]`` names a registry agent by its id.
PREFIX = "acp:"
# agent.schema.json: "id" is ^[a-z][a-z0-9-]*$; "version" starts with a
# semantic version. A version is one argv word appended to a package name:
# letters, digits and . + - only (no spaces, no range operators, no tags).
_ID = re.compile(r"[a-z][a-z0-9-]*\Z")
_VERSION = re.compile(r"[0-9][0-9A-Za-z.+-]{0,63}\Z")
# Where a PyPI requirement's name (and extras) ends: its version specifier.
_PYPI_SPEC = re.compile(r"\s*(?:===?|~=|!=|<=?|>=?|@).*\Z", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Launch:
    """How one registry agent starts.

    Attributes:
        command: the program (``npx``, ``uvx``, or the binary's name).
        args: its arguments.
        env: the environment the entry asks for.
        version: the version that runs: the pinned one, else the one the
            package names; None for a binary found on PATH (unknown).

    """

    command: str
    args: tuple[str, ...]
    env: dict[str, str]
    version: str | None


@cache
def registry_entries() -> tuple[dict[str, Any], ...]:
    """The vendored registry's agent entries, in file order (read once)."""
    # A plain file beside this module (package data, installed with it):
    # importlib.resources would cost more at start-up than reading it.
    path = os.path.join(os.path.dirname(__file__), "data", "registry.json")
    with open(path, "rb") as f:
        agents: list[dict[str, Any]] = json.loads(f.read())["agents"]
    return tuple(agents)


def registry_entry(ident: str) -> dict[str, Any] | None:
    """The registry entry with this id, or None."""
    return next((e for e in registry_entries() if e.get("id") == ident), None)


def parse_name(name: str) -> tuple[str, str | None]:
    """Split ``acp:ID[@VERSION]`` into the id and the version (None: the registry's).

    Raises:
        SettingsError: not of that form (the message shows the form).

    """
    ident, at, version = name[len(PREFIX) :].partition("@")
    if not _ID.match(ident):
        raise SettingsError(
            f"agent {name!r}: expected acp:ID or acp:ID@VERSION with a registry id "
            "such as acp:gemini or acp:codex-acp@2.6.0 (`acphost agents` lists them)"
        )
    if at and not _VERSION.match(version):
        raise SettingsError(
            f"agent {name!r}: the version must be a version number such as 2.6.0 "
            "(digits, letters, '.', '+' and '-'), not a range or a tag"
        )
    return ident, (version if at else None)


def launch(
    entry: dict[str, Any], version: str | None = None, args: list[str] | None = None
) -> Launch:
    """How to start a registry entry, pinned to ``version`` when given.

    The first distribution acphost can run wins, in the order ``npx``,
    ``uvx``, ``binary``: a package can be pinned, a binary cannot.

    Args:
        entry: the registry entry.
        version: the version to run (None: the entry's).
        args: the agent's arguments in place of the entry's (a preset that
            knows the flags of the version it pins).

    Raises:
        SettingsError: no distribution acphost can run, or a version asked
            of an agent distributed only as binaries.

    """
    ident = entry.get("id", "?")
    dist = entry.get("distribution") or {}
    if "npx" in dist:
        spec = dist["npx"]
        package, pinned = _pin(spec["package"], _npm_name(spec["package"]), "@", version)
        cmd = spec.get("cmd")
        head = ["-y", "-p", package, cmd] if cmd else ["-y", package]
        return _made("npx", head, spec, pinned, args)
    if "uvx" in dist:
        spec = dist["uvx"]
        name = _PYPI_SPEC.sub("", spec["package"])
        package, pinned = _pin(spec["package"], name, "==", version)
        cmd = spec.get("cmd")
        head = ["--from", package, cmd] if cmd else [package]
        return _made("uvx", head, spec, pinned, args)
    if "binary" in dist:
        if version is not None:
            raise SettingsError(
                f"acp:{ident}@{version}: the registry has {ident} only as binary archives, "
                "which acphost does not download, so it cannot run a chosen version: "
                f"install that version yourself and use -a acp:{ident} (the {ident} on "
                "PATH) or --agent-command"
            )
        target = _target(dist["binary"])
        if target is None:
            raise SettingsError(f"acp:{ident}: its registry entry lists no binary")
        # The archive's program, by name: it must be installed on PATH.
        command = os.path.basename(target["cmd"].replace("\\", "/"))
        chosen = target.get("args", ()) if args is None else args
        return Launch(command, tuple(chosen), dict(target.get("env", {})), None)
    kinds = ", ".join(sorted(dist)) or "nothing"
    raise SettingsError(
        f"acp:{ident}: the registry distributes it as {kinds}, which acphost cannot run "
        "(it runs npx and uvx packages, and binaries on PATH); use --agent-command"
    )


def _made(
    command: str,
    head: list[str],
    spec: dict[str, Any],
    version: str | None,
    args: list[str] | None,
) -> Launch:
    chosen = spec.get("args", ()) if args is None else args
    return Launch(command, (*head, *chosen), dict(spec.get("env", {})), version)


def _npm_name(package: str) -> str:
    """``@scope/name@1.2.3`` -> ``@scope/name``; ``name@1.2.3`` -> ``name``."""
    at = package.rfind("@")
    return package[:at] if at > 0 else package


def _pin(package: str, name: str, sep: str, version: str | None) -> tuple[str, str | None]:
    """The package to run and its version: ``name`` pinned to ``version`` if given.

    Unpinned, the entry's own package runs; its version is the one it names
    (``pkg@1.2.3``, ``pkg==1.2.3``), or None when it names none (whatever
    npx or uvx picks, unknown here).
    """
    if version is not None:
        return f"{name}{sep}{version}", version
    named = package[len(name) :].lstrip("=@ ")
    return package, (named if _VERSION.match(named) else None)


def _platform() -> str:
    """The machine we run on, as the registry names platforms (``linux-x86_64``...)."""
    import platform  # noqa: PLC0415 - only for a binary distribution

    system = {"darwin": "darwin", "win32": "windows"}.get(sys.platform, "linux")
    arch = "aarch64" if platform.machine().lower() in ("arm64", "aarch64") else "x86_64"
    return f"{system}-{arch}"


def _target(targets: dict[str, Any]) -> dict[str, Any] | None:
    """The binary of the platform we run on, else any: only the program's name is used."""
    if not targets:
        return None
    found: dict[str, Any] | None = targets.get(_platform())
    return found if found is not None else next(iter(targets.values()))


def is_registry_name(name: str) -> bool:
    """Whether ``name`` is ``acp:ID[@VERSION]`` with an id the registry has."""
    if not name.startswith(PREFIX):
        return False
    try:
        ident, _ = parse_name(name)
    except SettingsError:
        return False
    return registry_entry(ident) is not None


def unknown(ident: str, aliases: dict[str, str]) -> SettingsError:
    """The error for an id the registry does not have, naming the close ones.

    Args:
        ident: the id asked for.
        aliases: other names users type (``claude``) -> the registry id.

    """
    entries = registry_entries()
    ids = [str(e.get("id")) for e in entries]
    near: list[str] = []
    if ident in aliases:
        near.append(aliases[ident])
    for entry in entries:
        words = f"{entry.get('id', '')} {entry.get('name', '')}".lower()
        if ident in words or entry.get("id", "") in ident:
            near.append(str(entry["id"]))
    near += difflib.get_close_matches(ident, ids, n=3, cutoff=0.7)
    names = ", ".join(f"acp:{i}" for i in dict.fromkeys(near))
    hint = f"close matches: {names}" if names else "`acphost agents` lists the registry's ids"
    return SettingsError(f"no agent 'acp:{ident}' in acphost's copy of the ACP registry; {hint}")
