"""The host's tools as MCP tools: arguments checked, then translated into ACP client requests.

Each tool call becomes the very requests an ACP v1 agent would send
(``fs/read_text_file``, ``fs/write_text_file``, ``terminal/*``), answered by
the ``call`` the host passes in (the host bridge): the same jail, policy,
permission prompt, audit and history serve both. This module only checks
the arguments (types and bounds: everything is bounded before it reaches
the host), resolves relative paths against the session's working directory
(ACP requests take absolute paths) and shapes the results.

A refusal (:class:`~acphost.errors.RequestError`: the jail, the policy, a
cancelled turn) becomes a tool result with ``isError`` and the host's
message, which is written for agents. Anything else is a bug: the model
reads "internal error" and the log gets the traceback.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import RequestError
from ._mcp import McpTool, tool_error

__all__ = [
    "MAX_CONTENT_BYTES",
    "MCP_OUTPUT_BYTE_LIMIT",
    "ClientCall",
    "ToolRunner",
    "host_tools",
]

logger = logging.getLogger("acphost.host.mcp")

ClientCall = Callable[[str, dict[str, Any]], Awaitable[Any]]
"""Answers one ACP client method (``fs/…``, ``terminal/…``) as an agent's request is answered.

It raises :class:`~acphost.errors.RequestError` to refuse.
"""

#: The most text one ``write_text_file`` may write, in bytes of UTF-8.
MAX_CONTENT_BYTES = 16 << 20
#: The most output one ``run_command`` returns (its terminal's
#: ``outputByteLimit``: the newest output is kept and ``truncated`` set).
MCP_OUTPUT_BYTE_LIMIT = 256 << 10
#: The longest a path, a command or one argument or variable may be, in characters.
_MAX_TEXT = 64 << 10
#: The most arguments, and environment variables, one command may have.
_MAX_ITEMS = 4096
#: The most bytes of all arguments and variables together (Linux's
#: ``execve`` refuses more than its ``ARG_MAX``, 2 MiB by default).
_MAX_ARGV_BYTES = 1 << 20
#: ``line`` and ``limit`` are ``uint32`` in the ACP schema (``ReadTextFileRequest``).
_MAX_UINT32 = (1 << 32) - 1
#: Without ``timeoutSeconds`` a command may run this long; it may ask for up to an hour.
DEFAULT_TIMEOUT = 600.0
_MAX_TIMEOUT = 3600.0

#: How long a killed command's exit is awaited before its output is returned anyway.
_KILL_WAIT = 10.0

_INTERNAL = "internal error: the host could not complete this call (see its log)"


class ToolArgumentError(ValueError):
    """A tool's arguments are unusable; the message says which and why, for the model."""


def _check_text(value: object, label: str) -> str:
    if not isinstance(value, str):
        raise ToolArgumentError(f"{label} must be a string")
    if "\x00" in value:
        raise ToolArgumentError(f"{label} must not contain NUL characters")
    if len(value) > _MAX_TEXT:
        raise ToolArgumentError(f"{label} is longer than {_MAX_TEXT} characters")
    return value


def _text(args: Mapping[str, Any], key: str, *, required: bool = True) -> str | None:
    value = args.get(key)
    if value is None:
        if required:
            raise ToolArgumentError(f"{key!r} is required")
        return None
    return _check_text(value, repr(key))


def _count(args: Mapping[str, Any], key: str, least: int) -> int | None:
    value = args.get(key)
    if value is None:
        return None
    # JSON has one number type: 3.0 is accepted as 3, 3.5 is not.
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ToolArgumentError(f"{key!r} must be an integer")
    if not least <= value <= _MAX_UINT32:
        raise ToolArgumentError(f"{key!r} must be between {least} and {_MAX_UINT32}")
    return value


def _unknown(args: Mapping[str, Any], known: tuple[str, ...]) -> None:
    extra = sorted(str(k)[:40] for k in args if k not in known)
    if extra:
        names = ", ".join(map(repr, extra[:5]))
        raise ToolArgumentError(f"unknown argument {names} (this tool takes {', '.join(known)})")


_PATH = {
    "type": "string",
    "minLength": 1,
    "description": "Absolute, or relative to the session's working directory.",
}

READ_TOOL = McpTool(
    name="read_text_file",
    title="Read a text file",
    description=(
        "Read a UTF-8 text file in the workspace (the editor's current text, unsaved changes "
        "included), or a window of its lines."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "path": _PATH,
            "line": {
                "type": "integer",
                "minimum": 1,
                "description": "First line to read (1-based).",
            },
            "limit": {"type": "integer", "minimum": 0, "description": "Most lines to read."},
        },
        "required": ["path"],
        "additionalProperties": False,
    },
    read_only=True,
)

WRITE_TOOL = McpTool(
    name="write_text_file",
    title="Write a text file",
    description="Create or replace a text file in the workspace with the given content.",
    input_schema={
        "type": "object",
        "properties": {
            "path": _PATH,
            "content": {"type": "string", "description": "The file's whole new content."},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    },
)

_EXIT_STATUS = {
    "type": "object",
    "properties": {
        "exitCode": {"type": ["integer", "null"]},
        "signal": {"type": ["string", "null"]},
    },
    "required": ["exitCode", "signal"],
}

RUN_TOOL = McpTool(
    name="run_command",
    title="Run a command",
    description=(
        "Run a command in the workspace and return its output (stdout and stderr together), "
        "its exit status, and whether the output was cut to its newest part. Without args, "
        "command is a shell line run by sh -c; with args, command is the program."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "command": {"type": "string", "minLength": 1},
            "args": {"type": "array", "items": {"type": "string"}},
            "cwd": {
                "type": "string",
                "description": "Working directory: absolute, or relative to the session's.",
            },
            "env": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "description": "Environment variables to set, name to value.",
            },
            "timeoutSeconds": {
                "type": "number",
                "exclusiveMinimum": 0,
                "maximum": _MAX_TIMEOUT,
                "description": f"Kill the command after this long (default {DEFAULT_TIMEOUT:g}).",
            },
        },
        "required": ["command"],
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "properties": {
            "output": {"type": "string"},
            "exitStatus": _EXIT_STATUS,
            "truncated": {"type": "boolean"},
            "timedOut": {"type": "boolean"},
        },
        "required": ["output", "exitStatus", "truncated", "timedOut"],
    },
)


def host_tools(*, fs_read: bool, fs_write: bool, terminal: bool) -> tuple[McpTool, ...]:
    """The tools offered for the capabilities the host grants (``--no-fs``, ``--no-terminal``)."""
    chosen = ((fs_read, READ_TOOL), (fs_write, WRITE_TOOL), (terminal, RUN_TOOL))
    return tuple(tool for on, tool in chosen if on)


def _text_result(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


@dataclass(frozen=True, slots=True)
class _Command:
    params: dict[str, Any]
    timeout: float


class ToolRunner:
    """Runs the host's tools for one ACP session through ``call``.

    Args:
        call: answers ACP client methods as an agent's requests are answered.
        session_id: the ACP session the calls are made for.
        cwd: the session's working directory (absolute): relative paths start there.
        output_byte_limit: the most output ``run_command`` returns.

    """

    def __init__(
        self,
        call: ClientCall,
        session_id: str,
        cwd: str,
        *,
        output_byte_limit: int = MCP_OUTPUT_BYTE_LIMIT,
    ) -> None:
        self._call = call
        self.session_id = session_id
        self._cwd = cwd
        self._output_limit = output_byte_limit
        self._run: dict[str, Callable[[Mapping[str, Any]], Awaitable[dict[str, Any]]]] = {
            READ_TOOL.name: self._read,
            WRITE_TOOL.name: self._write,
            RUN_TOOL.name: self._run_command,
        }

    async def run(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """Run one tool call and return its ``CallToolResult``; never raises but on cancellation.

        Args:
            name: a tool's name (one of :func:`host_tools`).
            arguments: the call's arguments, as the client sent them.

        Returns:
            The result; ``isError`` set when the arguments were bad or the host refused.

        """
        try:
            return await self._run[name](arguments)
        except ToolArgumentError as exc:
            return tool_error(f"{name}: {exc}")
        except RequestError as exc:
            # The host's own message, written for agents (the jail, the policy).
            return tool_error(exc.message)
        except Exception:
            logger.exception("MCP tool %s failed", name)
            return tool_error(_INTERNAL)

    def _path(self, args: Mapping[str, Any]) -> str:
        path = _text(args, "path")
        assert path is not None
        if not path:
            raise ToolArgumentError("'path' must not be empty")
        # ACP fs requests take absolute paths; the jail resolves ".." and links.
        return os.path.join(self._cwd, path)

    async def _read(self, args: Mapping[str, Any]) -> dict[str, Any]:
        _unknown(args, ("path", "line", "limit"))
        params: dict[str, Any] = {"sessionId": self.session_id, "path": self._path(args)}
        line = _count(args, "line", 1)
        limit = _count(args, "limit", 0)
        if line is not None:
            params["line"] = line
        if limit is not None:
            params["limit"] = limit
        answer = await self._call("fs/read_text_file", params)
        content = answer.get("content") if isinstance(answer, dict) else None
        if not isinstance(content, str):
            raise TypeError(f"fs/read_text_file answered {type(answer).__name__}")
        return _text_result(content)

    async def _write(self, args: Mapping[str, Any]) -> dict[str, Any]:
        _unknown(args, ("path", "content"))
        path = self._path(args)
        content = args.get("content")
        if not isinstance(content, str):
            raise ToolArgumentError("'content' is required and must be a string")
        # A cheap bound first (a UTF-8 character is at most 4 bytes), then the exact one.
        if (
            len(content) > MAX_CONTENT_BYTES
            or len(content.encode("utf-8", "surrogatepass")) > MAX_CONTENT_BYTES
        ):
            raise ToolArgumentError(f"'content' is larger than {MAX_CONTENT_BYTES >> 20} MiB")
        await self._call(
            "fs/write_text_file", {"sessionId": self.session_id, "path": path, "content": content}
        )
        return _text_result(f"wrote {path}")

    def _command(self, args: Mapping[str, Any]) -> _Command:
        _unknown(args, ("command", "args", "cwd", "env", "timeoutSeconds"))
        command = _text(args, "command")
        assert command is not None
        if not command.strip():
            raise ToolArgumentError("'command' must not be empty")
        params: dict[str, Any] = {"sessionId": self.session_id, "command": command}
        size = len(command)
        argv = args.get("args")
        if argv is not None:
            if not isinstance(argv, list) or len(argv) > _MAX_ITEMS:
                raise ToolArgumentError(f"'args' must be a list of at most {_MAX_ITEMS} strings")
            for index, arg in enumerate(argv):
                size += len(_check_text(arg, f"'args[{index}]'"))
            params["args"] = list(argv)
        env = args.get("env")
        if env is not None:
            if not isinstance(env, dict) or len(env) > _MAX_ITEMS:
                raise ToolArgumentError(
                    f"'env' must be an object of at most {_MAX_ITEMS} names to string values"
                )
            pairs = []
            for name, value in env.items():
                _check_text(name, "an 'env' name")
                if not name or "=" in name:
                    raise ToolArgumentError(f"{name[:40]!r} is not a variable name")
                size += len(name) + len(_check_text(value, f"'env' value of {name[:40]!r}"))
                pairs.append({"name": name, "value": value})
            params["env"] = pairs
        if size > _MAX_ARGV_BYTES:
            raise ToolArgumentError(
                f"the command, its args and env exceed {_MAX_ARGV_BYTES >> 20} MiB"
            )
        cwd = _text(args, "cwd", required=False)
        if cwd is not None:
            params["cwd"] = os.path.join(self._cwd, cwd) if cwd else self._cwd
        params["outputByteLimit"] = self._output_limit
        timeout = args.get("timeoutSeconds", DEFAULT_TIMEOUT)
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, (int, float))
            or not math.isfinite(timeout)
            or not 0 < timeout <= _MAX_TIMEOUT
        ):
            raise ToolArgumentError(
                f"'timeoutSeconds' must be a number above 0 and at most {_MAX_TIMEOUT:g}"
            )
        return _Command(params, float(timeout))

    async def _run_command(self, args: Mapping[str, Any]) -> dict[str, Any]:
        command = self._command(args)
        created = await self._call("terminal/create", command.params)
        terminal_id = created.get("terminalId") if isinstance(created, dict) else None
        if not isinstance(terminal_id, str):
            raise TypeError(f"terminal/create answered {type(created).__name__}")
        ids = {"sessionId": self.session_id, "terminalId": terminal_id}
        try:
            timed_out = False
            try:
                await asyncio.wait_for(
                    self._call("terminal/wait_for_exit", dict(ids)), command.timeout
                )
            except asyncio.TimeoutError:
                timed_out = True
                await self._call("terminal/kill", dict(ids))
                # The kill ends the process group; its status comes with the exit.
                try:
                    await asyncio.wait_for(
                        self._call("terminal/wait_for_exit", dict(ids)), _KILL_WAIT
                    )
                except asyncio.TimeoutError:
                    logger.warning("MCP run_command: terminal %s outlived its kill", terminal_id)
            output = await self._call("terminal/output", dict(ids))
        finally:
            # Always released, even when cancelled: a release kills a command
            # still running and frees its output (ACP "Terminals", "Releasing").
            await self._release(ids)
        return _command_result(output, timed_out, command.timeout)

    async def _release(self, ids: dict[str, Any]) -> None:
        try:
            await asyncio.shield(self._call("terminal/release", dict(ids)))
        except RequestError as exc:
            logger.info("MCP run_command: terminal %s not released: %s", ids["terminalId"], exc)


def _command_result(output: Any, timed_out: bool, timeout: float) -> dict[str, Any]:
    if not isinstance(output, dict) or not isinstance(output.get("output"), str):
        raise TypeError(f"terminal/output answered {type(output).__name__}")
    text: str = output["output"]
    truncated = output.get("truncated") is True
    status = output.get("exitStatus")
    status = status if isinstance(status, dict) else {}
    exit_code = status.get("exitCode")
    signal = status.get("signal")
    exit_status = {
        "exitCode": exit_code if isinstance(exit_code, int) else None,
        "signal": signal if isinstance(signal, str) else None,
    }
    notes = []
    if truncated:
        notes.append("output cut to its newest part")
    if timed_out:
        notes.append(f"timed out after {timeout:g} s and was killed")
    if exit_status["exitCode"] is not None:
        notes.append(f"exit code {exit_status['exitCode']}")
    elif exit_status["signal"] is not None:
        notes.append(f"killed by {exit_status['signal']}")
    summary = "[" + "; ".join(notes) + "]" if notes else ""
    shown = text + ("\n" if text and not text.endswith("\n") else "") + summary
    return {
        "content": [{"type": "text", "text": shown}],
        "structuredContent": {
            "output": text,
            "exitStatus": exit_status,
            "truncated": truncated,
            "timedOut": timed_out,
        },
    }
