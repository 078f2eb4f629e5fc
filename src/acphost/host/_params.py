"""Strict checks of the request parameters the host acts on.

Schema v1.25 asks receivers to "reject malformed values that receivers act
on" with -32602 (Invalid params) instead of falling back to a default: a
``terminal/create`` whose ``args`` is a string must not quietly become a
shell line, an ``env`` entry named ``A=B`` must not set another variable.
Lenient parsing stays where the schema marks a field
``x-deserialize-default-on-error`` (``_meta`` here); ``null`` stays "absent"
(``x-deserialize-default-on-null``).
"""

from __future__ import annotations

import os
from typing import Any

from ..errors import InvalidParams
from ._jail import _shown

__all__ = ["check_terminal_params"]

_METHOD = "terminal/create"


def _what(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "null" if value is None else type(value).__name__


def _fail(field: str, problem: str) -> InvalidParams:
    return InvalidParams(f"Invalid params: {_METHOD} {field!r} {problem}")


def _text(value: object, field: str) -> str:
    if not isinstance(value, str):
        raise _fail(field, f"must be a string, got {_what(value)}")
    if "\x00" in value:
        raise _fail(field, "must not contain NUL bytes")
    return value


def check_terminal_params(params: Any) -> None:
    """Refuse a ``terminal/create`` whose fields the host would act on wrongly.

    Args:
        params: the request's ``params`` as decoded from JSON.

    Raises:
        InvalidParams: -32602, naming the field: ``command`` empty or with
            NUL; ``args`` not a list of strings (or with NUL); ``env`` not a
            list of ``{name, value}`` strings, a name empty, holding ``=`` or
            NUL, or given twice; ``cwd`` not an absolute path or with NUL;
            ``outputByteLimit`` not an integer >= 0.

    """
    if not isinstance(params, dict):
        raise InvalidParams(f"Invalid params: {_METHOD} params must be an object")
    command = params.get("command")
    if command is not None and not _text(command, "command").strip():
        raise _fail("command", "must not be empty")
    args = params.get("args")
    if args is not None:
        if not isinstance(args, list):
            raise _fail("args", f"must be a list of strings, got {_what(args)}")
        for index, arg in enumerate(args):
            _text(arg, f"args[{index}]")
    env = params.get("env")
    if env is not None:
        if not isinstance(env, list):
            raise _fail("env", f"must be a list of {{name, value}} objects, got {_what(env)}")
        seen: set[str] = set()
        for index, item in enumerate(env):
            where = f"env[{index}]"
            if not isinstance(item, dict):
                raise _fail(where, f"must be a {{name, value}} object, got {_what(item)}")
            name = _text(item.get("name"), f"{where}.name")
            _text(item.get("value"), f"{where}.value")
            if not name or "=" in name:
                raise _fail(f"{where}.name", f"is not a valid variable name: {_shown(name)}")
            if name in seen:
                raise _fail(f"{where}.name", f"sets {_shown(name)} a second time")
            seen.add(name)
    cwd = params.get("cwd")
    if cwd is not None and not os.path.isabs(_text(cwd, "cwd")):
        raise _fail("cwd", f"must be an absolute path, got {_shown(cwd)}")
    limit = params.get("outputByteLimit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise _fail("outputByteLimit", f"must be an integer >= 0, got {_shown(str(limit))}")
