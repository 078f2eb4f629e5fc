"""``settings.json``: which agents exist and how to launch them.

The file is strict JSON with the ``agent_servers`` shape Zed and JetBrains
use (name → ``command``, optional ``args`` list, optional ``env`` map), plus
optional ``mcp_servers`` forwarded to ``session/new`` and ``session/load``
(schema ``NewSessionRequest.mcpServers``). An agent entry may also set a
budget for each turn: ``max_tokens`` (a whole number) and ``max_cost`` (an
amount, or a string with a currency: ``"1.50 USD"``); the command line's
``--max-tokens`` and ``--max-cost`` win. It may set the system prompt its
sessions get, ``system_prompt`` (text) and ``system_prompt_mode`` (``append``
or ``override``); ``--system-prompt`` and ``--system-prompt-mode`` win.
It may widen or narrow the OS sandbox the agent runs in, ``sandbox``:
``false`` (unconfined), ``true`` (refuse to run it unconfined), or
``{"write": [paths], "deny": [paths]}``. It may choose the ACP protocol
version its runs ask for, ``protocol`` (``1``, ``2`` or ``"auto"``), and
offer it the host's tools as an MCP server, ``mcp_tools`` (``true``); the
same two keys at the top level apply to every agent whose entry does not set
them, and ``--protocol`` and ``--mcp-tools`` win over both.
Unknown top-level keys are ignored, so an editor's whole settings file can
be passed with ``--settings``; a file without ``agent_servers`` is an error,
never a silent fallback to the demo agent.

Lookup order (first found wins): ``--settings PATH``, ``$ACPHOST_SETTINGS``,
``./.acphost/settings.json``, ``$XDG_CONFIG_HOME/acphost/settings.json``
(default ``~/.config/acphost/settings.json``). A path given explicitly must
exist; the implicit ones are skipped when missing. The project file
(``./.acphost/settings.json``) comes with the checkout, so it is honoured only
once the user trusted it (``acphost trust``, see :mod:`._trust`); an untrusted
or changed one is skipped with one warning naming the command that trusts it,
and one reached through a symbolic link (the file or its ``.acphost``
folder) with one warning naming the link: trust is for the project's own file.
The project folder is resolved once and the file read once, never through a
link (:mod:`._project`); :func:`settings_for` checks the trust of the very
bytes it parses.
"""

from __future__ import annotations

import logging
import os
import shlex
from pathlib import Path
from typing import Any

from ..safetext import sanitize_line
from ._budget import parse_cost, parse_tokens
from ._dirs import config_dir
from ._files import InputFileError, loads_strict, read_input
from ._mcp import check_env_name, expect, parse_mcp
from ._presets import presets
from ._project import ProjectFile, project_dir, read_project_file
from ._protocol import parse_protocol
from ._registry import is_registry_name
from ._spec import AgentSpec, Settings, SettingsError
from ._trust import TrustStatus, stored_status

__all__ = [
    "SettingsError",
    "decode_settings",
    "find_settings",
    "load_settings",
    "parse_settings",
    "project_settings_path",
    "read_project_settings",
    "read_settings",
    "settings_for",
    "user_settings_path",
]

logger = logging.getLogger("acphost.config")

_warned: set[str] = set()  # project files already reported untrusted in this process


def project_settings_path(cwd: str | os.PathLike[str]) -> Path:
    """The project settings file of a workspace: ``CWD/.acphost/settings.json``."""
    return Path(cwd) / ".acphost" / "settings.json"


def user_settings_path() -> Path:
    """The user's own settings file (no trust needed): ``<config dir>/settings.json``."""
    return config_dir() / "settings.json"


def _warn_once(path: Path, why: str, *, fix: str | None = None) -> None:
    key = os.path.abspath(path)
    if key in _warned:
        return
    _warned.add(key)
    shown = sanitize_line(str(path))
    if fix is None:
        fix = f"review it, then run: acphost trust {shlex.quote(str(path))}"
    logger.warning("ignoring %s: %s (%s)", shown, why, sanitize_line(fix))


def _linked_reason(link: str) -> str:
    return f"it is reached through a symbolic link ({sanitize_line(link)})"


_LINKED_FIX = "only a project's own settings file can be trusted: replace the link with a copy"


def _project_file(project: str) -> ProjectFile | None:
    try:
        return read_project_file(project)
    except InputFileError as exc:
        raise SettingsError(str(exc)) from None


def _project_status(found: ProjectFile) -> TrustStatus:
    """``trusted``, ``untrusted``, ``changed`` or ``linked``, judged on the bytes read."""
    if found.data is None:
        return "linked"
    return stored_status(str(found.path), found.data)


def _usable_bytes(found: ProjectFile) -> bytes | None:
    """The project file's bytes when they are trusted as read; else None, warned once."""
    try:
        status = _project_status(found)
    except SettingsError as exc:
        _warn_once(found.path, f"project settings need trust, and {exc}")
        return None
    if status == "trusted":
        return found.data
    if status == "linked":
        _warn_once(found.path, _linked_reason(found.link or str(found.path)), fix=_LINKED_FIX)
        return None
    _warn_once(
        found.path,
        "it changed since you trusted it"
        if status == "changed"
        else "project settings take effect only once you trust them",
    )
    return None


def _explicit() -> Path | None:
    """The file ``--settings`` or ``$ACPHOST_SETTINGS`` names, if either does."""
    env = os.environ.get("ACPHOST_SETTINGS")
    return Path(os.path.expanduser(env)) if env else None


def settings_for(explicit: str | None, project: str) -> Settings:
    """The settings of a run: found, read once, trust-checked and parsed from the same bytes.

    The lookup of :func:`find_settings`, without its second read: a project
    file is read by :func:`~._project.read_project_file` and, when trusted
    with exactly those bytes, those bytes are parsed. An untrusted, changed
    or linked one is skipped with one warning, as there.

    Args:
        explicit: the ``--settings`` value, if given.
        project: the real project folder (:func:`~._project.project_dir`),
            the very string the agent will be started in.

    Returns:
        The settings (empty when no file applies).

    Raises:
        SettingsError: a named file is missing, a file is unreadable or
            malformed; one line naming the file and the key.

    """
    named = Path(os.path.expanduser(explicit)) if explicit else _explicit()
    if named is not None:
        return load_settings(named, explicit=True)
    found = _project_file(project)
    data = _usable_bytes(found) if found is not None else None
    if found is not None and data is not None:
        return parse_settings(decode_settings(data, f"settings file {found.path}"), found.path)
    user = user_settings_path()
    return load_settings(user, explicit=False) if user.is_file() else Settings(None, {}, [])


def find_settings(explicit: str | None, cwd: str) -> tuple[Path | None, bool]:
    """Return the settings path to use and whether it was named explicitly.

    An untrusted (or changed) project file is skipped with one warning on the
    ``acphost.config`` logger, and the lookup goes on to the user's file. A
    run reads the file a second time with :func:`load_settings`;
    :func:`settings_for` does both with one read.

    Args:
        explicit: the ``--settings`` value, if given.
        cwd: the workspace whose ``.acphost/settings.json`` is looked at;
            links are resolved here (:func:`~._project.project_dir`), and the
            path returned is in the resolved folder: start the agent there.

    Returns:
        ``(path, explicit)``: ``path`` is None when no file applies.

    """
    if explicit:
        return Path(os.path.expanduser(explicit)), True
    named = _explicit()
    if named is not None:
        return named, True
    project = project_dir(cwd)
    try:
        found = _project_file(project)
    except SettingsError:
        return project_settings_path(project), False  # load_settings reports it, naming it
    if found is not None and _usable_bytes(found) is not None:
        return found.path, False
    user = user_settings_path()
    if user.is_file():
        return user, False
    return None, False


def load_settings(path: Path | None, *, explicit: bool = True) -> Settings:
    """Read and validate a settings file.

    Args:
        path: the file, or None for "no settings".
        explicit: the user named this file, so it must exist and needs no
            trust. A file found implicitly, other than the user's own
            settings, must be a project's ``.acphost/settings.json``; it is
            read as :func:`settings_for` reads it (its project folder
            resolved, never through a link) and used only when trusted with
            exactly the bytes parsed.

    Raises:
        SettingsError: missing (when explicit), unreadable, not JSON, with a
            wrong type or a missing key, or no longer trusted; the message is
            one line naming the file and the key.

    """
    if path is None:
        return Settings(None, {}, [])
    if not explicit and not os.path.lexists(path):
        return Settings(None, {}, [])
    if explicit or path == user_settings_path():
        return read_settings(path, what=_label(path) if explicit else "settings file")[1]
    if path.name != "settings.json" or path.parent.name != ".acphost":
        raise SettingsError(
            f"settings file {path} is not a project's .acphost/settings.json; "
            "name it with --settings to use it"
        )
    found = _project_file(project_dir(path.parent.parent))
    if found is None:
        return Settings(None, {}, [])
    status = _project_status(found)
    if status == "linked":
        raise SettingsError(
            f"settings file {path} is reached through a symbolic link; {_LINKED_FIX}"
        )
    if status != "trusted" or found.data is None:
        # Checked on the very bytes parsed: a swap after the lookup's check is caught.
        raise SettingsError(
            f"settings file {path} is not trusted as it is now "
            f"(review it, then run: acphost trust {shlex.quote(str(path))})"
        )
    return parse_settings(decode_settings(found.data, f"settings file {found.path}"), found.path)


def read_project_settings(project: str) -> tuple[Path, bytes, Settings]:
    """Read a project's settings file for review, as a run would read it (``acphost trust``).

    Args:
        project: the real project folder (:func:`~._project.project_dir`).

    Returns:
        The path to trust it by, its bytes (what a trust records the digest
        of) and the settings.

    Raises:
        SettingsError: missing, reached through a symbolic link, unreadable
            or malformed; one line naming the file.

    """
    found = _project_file(project)
    path = project_settings_path(project)
    if found is None:
        raise SettingsError(f"project settings file {path} does not exist")
    if found.data is None:
        raise SettingsError(
            f"{path} is reached through a symbolic link ({found.link}); only a project's "
            "own settings file can be trusted: replace the link with a copy, review it, "
            "then trust it"
        )
    where = f"project settings file {path}"
    return path, found.data, parse_settings(decode_settings(found.data, where), path)


def read_settings(path: Path, *, what: str = "settings file") -> tuple[bytes, Settings]:
    """Read and validate a settings file, trusted or not (``acphost trust`` shows it first).

    Args:
        path: the file.
        what: how messages name it (``--settings file`` when the user named it).

    Returns:
        The file's bytes (what a trust records the digest of) and the settings.

    Raises:
        SettingsError: missing, unreadable, not a regular file, too large, not
            strict JSON, or malformed; one line naming the file and the key.

    """
    try:
        data = read_input(path, what=what)
    except InputFileError as exc:
        raise SettingsError(str(exc)) from None
    return data, parse_settings(decode_settings(data, f"{what} {path}"), path)


def decode_settings(data: bytes, where: str) -> Any:
    """Decode a settings file's bytes as strict JSON (:func:`~._files.loads_strict`).

    Raises:
        SettingsError: not UTF-8, not JSON, NaN, a duplicate key, or nested beyond reason.

    """
    try:
        return loads_strict(
            data,
            where=where,
            fix="settings are strict JSON: no comments, trailing commas or repeated keys",
        )
    except InputFileError as exc:
        raise SettingsError(str(exc)) from None


def _label(path: Path) -> str:
    """How an explicitly named settings file is named in errors: by the flag or variable."""
    env = os.environ.get("ACPHOST_SETTINGS")
    if env and Path(os.path.expanduser(env)) == path:
        return "$ACPHOST_SETTINGS file"
    return "--settings file"


def _str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and "\0" not in v for v in value)


def parse_settings(data: Any, path: Path) -> Settings:
    """Validate decoded settings JSON (see :func:`load_settings`).

    Raises:
        SettingsError: one line naming the file and the offending key.

    """
    where = str(path)
    expect(isinstance(data, dict), where, "the top level must be a JSON object")
    expect(
        "agent_servers" in data,
        where,
        "no 'agent_servers' (the object naming the agents acphost can run: "
        'e.g. {"agent_servers": {"mine": {"command": "my-agent", "args": ["--acp"]}}})',
    )
    servers = data["agent_servers"]
    expect(isinstance(servers, dict), where, "'agent_servers' must be an object of name → agent")
    agents: dict[str, AgentSpec] = {}
    partial: dict[str, dict[str, Any]] = {}
    for name, entry in servers.items():
        at = f"agent_servers.{name}"
        expect(bool(name.strip()), where, "an agent name in 'agent_servers' is empty")
        expect(isinstance(entry, dict), where, f"{at} must be an object")
        command = entry.get("command")
        args = entry.get("args", [])
        env = entry.get("env", {})
        expect(
            command is None or (isinstance(command, str) and command.strip() != ""),
            where,
            f"{at}.command must be a non-empty string",
        )
        expect(command is None or "\0" not in command, where, f"{at}.command contains NUL")
        expect(_str_list(args), where, f"{at}.args must be a list of strings")
        expect(isinstance(env, dict), where, f"{at}.env must be an object of string values")
        for key, value in env.items():
            check_env_name(key, where, f"{at}.env")
            expect(
                isinstance(value, str) and "\0" not in value,
                where,
                f"{at}.env.{key} must be a string (env must be an object of string values)",
            )
        quirk = entry.get("missing_file_returns_empty", False)
        expect(isinstance(quirk, bool), where, f"{at}.missing_file_returns_empty must be a boolean")
        budget = {**_budget(entry, where, at), **_system_prompt(entry, where, at)}
        budget.update(_sandbox(entry, where, at))
        budget.update(_protocol(entry, where, f"{at}."))
        if command is None:
            _expect_preset(name, where, at)
            # Zed lets an entry adjust a built-in agent (e.g. only its env).
            partial[name] = {"args": tuple(args), "env": dict(env), **budget}
            continue
        agents[name] = AgentSpec(
            name=name,
            command=command,
            args=tuple(args),
            env=dict(env),
            source=where,
            missing_file_returns_empty=quirk,
            **budget,
        )
    mcp = parse_mcp(data.get("mcp_servers", []), where)
    return Settings(path, agents, mcp, partial, **_protocol(data, where, ""))


def _budget(entry: dict[str, Any], where: str, at: str) -> dict[str, Any]:
    """An entry's ``max_tokens`` and ``max_cost`` (``1.5`` or ``"1.5 USD"``), checked."""
    out: dict[str, Any] = {}
    if "max_tokens" in entry:
        value = entry["max_tokens"]
        try:
            if not isinstance(value, int):
                raise ValueError("not an integer")
            out["max_tokens"] = parse_tokens(value)
        except ValueError:
            expect(False, where, f"{at}.max_tokens must be a whole number >= 0, got {value!r}")
    if "max_cost" in entry:
        value = entry["max_cost"]
        try:
            if not isinstance(value, (int, float, str)):
                raise ValueError("not a number")
            out["max_cost"], out["cost_currency"] = parse_cost(value)
        except ValueError:
            expect(
                False,
                where,
                f"{at}.max_cost must be an amount >= 0, optionally with a currency "
                f"('2.5 USD'), got {value!r}",
            )
    return out


def _system_prompt(entry: dict[str, Any], where: str, at: str) -> dict[str, Any]:
    """An entry's ``system_prompt`` (a non-empty string) and ``system_prompt_mode``, checked."""
    out: dict[str, Any] = {}
    if entry.get("system_prompt") is not None:
        value = entry["system_prompt"]
        expect(
            isinstance(value, str) and value.strip() != "" and "\0" not in value,
            where,
            f"{at}.system_prompt must be a non-empty string (the session's system prompt), "
            f"got {_short(value)}",
        )
        out["system_prompt"] = value
    if entry.get("system_prompt_mode") is not None:
        mode = entry["system_prompt_mode"]
        expect(
            mode in ("append", "override"),
            where,
            f"{at}.system_prompt_mode must be 'append' or 'override', got {_short(mode)}",
        )
        out["system_prompt_mode"] = mode
    return out


def _sandbox(entry: dict[str, Any], where: str, at: str) -> dict[str, Any]:
    """An entry's ``sandbox``: ``false`` (off for this agent), ``true`` (insist), or its widening.

    ``{"write": [...], "deny": [...]}``: more paths the agent may write, and
    more it may not read (``~`` and ``$XDG_*_HOME`` expand).
    """
    if "sandbox" not in entry:
        return {}
    value = entry["sandbox"]
    if isinstance(value, bool):
        return {"sandbox": value}
    shape = 'true (insist), false (off), or an object {"write": [paths], "deny": [paths]}'
    expect(isinstance(value, dict), where, f"{at}.sandbox must be {shape}")
    unknown = sorted(set(value) - {"write", "deny"})
    expect(not unknown, where, f"{at}.sandbox has unknown keys {unknown}: it takes {shape}")
    out: dict[str, Any] = {}
    for key in ("write", "deny"):
        paths = value.get(key, [])
        expect(
            _str_list(paths) and all(p.strip() for p in paths),
            where,
            f"{at}.sandbox.{key} must be a list of paths",
        )
        if paths:
            out[f"sandbox_{key}"] = tuple(paths)
    return out


def _protocol(entry: dict[str, Any], where: str, at: str) -> dict[str, Any]:
    """An entry's (or the top level's) ``protocol`` (1, 2 or "auto") and ``mcp_tools``, checked.

    ``at`` names the entry in messages (``agent_servers.NAME.``); empty for the top level.
    """
    out: dict[str, Any] = {}
    if entry.get("protocol") is not None:
        value = entry["protocol"]
        try:
            # JSON numbers or "auto"; the string "2" is a typo for 2 in a file, not a choice.
            if isinstance(value, str) and value != "auto":
                raise ValueError
            out["protocol"] = parse_protocol(value)
        except ValueError:
            expect(False, where, f'{at}protocol must be 1, 2 or "auto", got {_short(value)}')
    if entry.get("mcp_tools") is not None:
        value = entry["mcp_tools"]
        expect(
            isinstance(value, bool),
            where,
            f"{at}mcp_tools must be true or false, got {_short(value)}",
        )
        out["mcp_tools"] = value
    return out


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _expect_preset(name: str, where: str, at: str) -> None:
    expect(
        name in presets() or is_registry_name(name),
        where,
        f"{at} has no 'command' (only a built-in or registry agent, such as 'gemini' "
        "or 'acp:goose', can be adjusted without one; see `acphost agents`)",
    )
