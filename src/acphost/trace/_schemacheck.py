"""Checking a frame's shape against the vendored schema, by method and role.

The schema files ship in ``acphost.schema``: ``v1/schema.json`` and, for
methods only the unstable schema has, ``v1/schema.unstable.json``; for a
connection that negotiated protocol version 2, ``v2/schema.json`` and
``v2/schema.unstable.json``. Each request, notification and response maps to
its ``$defs`` entry through the ``x-method`` and ``x-side`` annotations
(:func:`method_types`). A ``$defs`` name is prefixed ``unstable:`` for the
unstable schema and ``v2:`` for version 2 (``v2:unstable:SubagentUpdate``).
``jsonschema`` is imported on first use.

Some shapes the protocol has stabilised since the vendored stable schema
(v1.25) are defined only in its unstable schema so far: the system prompt
(schema 1.30) and the session tree of subagents (``subagent_update``,
``session_message``, ``session_message_chunk``, ``clientCapabilities.subagents``).
A frame that carries one is checked against the unstable definition
(:func:`shapes_of`), as the newest adapters send it.

Version 2 is checked the same way, found generically: a frame is checked
against the stable v2 definition, and against the unstable one too when the
two schemas define its shape differently (an idle ``state_update`` with
``usage``, a ``systemPrompt``, the agent's ``providers`` capability); a
``sessionUpdate`` kind only the unstable schema has (``subagent_update``,
``session_message``, ``plan_removed``) is checked against the unstable
schema alone, since the stable one accepts any unknown kind.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

__all__ = ["TREE_UPDATES", "first_error", "method_types", "shapes_of"]

_UNSTABLE = "unstable:"
_V2 = "v2:"

#: The session tree's ``sessionUpdate`` kinds and their unstable ``$defs`` (schema
#: ``SubagentUpdate``, ``SessionMessage``, ``SessionMessageChunk``).
TREE_UPDATES = {
    "subagent_update": "SubagentUpdate",
    "session_message": "SessionMessage",
    "session_message_chunk": "SessionMessageChunk",
}
#: Where a message carries a shape only the unstable schema defines: the
#: ``$defs`` name of the message, and the path to the member (schema
#: ``SystemPrompt``, ``SessionSystemPromptCapabilities``, ``SubagentCapabilities``).
_NEWER_MEMBERS: dict[str, tuple[str, ...]] = {
    "NewSessionRequest": ("systemPrompt",),
    "LoadSessionRequest": ("systemPrompt",),
    "ResumeSessionRequest": ("systemPrompt",),
    "InitializeRequest": ("clientCapabilities", "subagents"),
    "InitializeResponse": ("agentCapabilities", "sessionCapabilities", "systemPrompt"),
}


def _member(value: Any, keys: tuple[str, ...]) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def shapes_of(name: str, value: Any) -> tuple[str, ...]:
    """The ``$defs`` to check ``value`` (of the stable ``$defs[name]``) against.

    The stable definition, and the unstable one where the value carries a
    shape only the unstable schema defines (see the module docstring). The
    stable schema's objects allow unknown members, so a ``systemPrompt`` or
    ``clientCapabilities.subagents`` passes it unchecked: the unstable
    definition checks it too. A session-tree update is no variant of the
    stable ``SessionUpdate``: the unstable ``SessionNotification`` replaces it.
    A ``v2:`` name is looked up in the v2 schemas (see the module docstring).
    """
    if name.startswith(_V2):
        return _v2_shapes(name, value)
    if name == "SessionNotification":
        kind = _member(value, ("update", "sessionUpdate"))
        if isinstance(kind, str) and kind in TREE_UPDATES:
            return (_UNSTABLE + name,)
        return (name,)
    path = _NEWER_MEMBERS.get(name)
    if path is not None and _member(value, path) is not None:
        return (name, _UNSTABLE + name)
    return (name,)


def _v2_shapes(name: str, value: Any) -> tuple[str, ...]:
    base = name.removeprefix(_V2)
    if base.startswith(_UNSTABLE):
        return (name,)
    unstable = _V2 + _UNSTABLE + base
    if base == "UpdateSessionNotification":
        kind = _member(value, ("update", "sessionUpdate"))
        if not isinstance(kind, str):
            return (name,)
        variant = _v2_update_variants(False).get(kind)
        if variant is None:
            # A kind the stable schema does not know passes its open "other"
            # variant: the unstable schema, when it defines the kind, checks it.
            return (unstable,) if kind in _v2_update_variants(True) else (name,)
        return (name, unstable) if _v2_differs(variant) else (name,)
    return (name, unstable) if _v2_differs(base) else (name,)


@cache
def _v2_update_variants(unstable: bool) -> dict[str, str]:
    """``sessionUpdate`` kind → the ``$defs`` name of its payload, in a v2 schema."""
    out: dict[str, str] = {}
    union = _schema(2, unstable)["$defs"]["SessionUpdate"]
    for variant in union.get("anyOf", union.get("oneOf", ())):
        kind = _member(variant, ("properties", "sessionUpdate", "const"))
        refs = [r.get("$ref", "") for r in variant.get("allOf", ()) if isinstance(r, dict)]
        if isinstance(kind, str) and refs:
            out[kind] = refs[0].rsplit("/", 1)[-1]
    return out


def _refs(value: Any, found: set[str]) -> None:
    if isinstance(value, dict):
        ref = value.get("$ref")
        if isinstance(ref, str):
            found.add(ref.rsplit("/", 1)[-1])
        for member in value.values():
            _refs(member, found)
    elif isinstance(value, list):
        for member in value:
            _refs(member, found)


def _shape(value: Any) -> Any:
    """A definition without its prose (the two schemas' descriptions link different pages)."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items() if k not in ("description", "title")}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return value


@cache
def _v2_differs(name: str) -> bool:
    """Whether the two v2 schemas define ``$defs[name]``, or anything it refers to, differently."""
    stable, unstable = _schema(2, False)["$defs"], _schema(2, True)["$defs"]
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        if _shape(stable.get(current)) != _shape(unstable.get(current)):
            return True
        found: set[str] = set()
        _refs(stable.get(current), found)
        todo.extend(found - seen)
    return False


@cache
def _schema(version: int = 1, unstable: bool = False) -> dict[str, Any]:
    from importlib import resources  # noqa: PLC0415 - only a schema check reads the schema

    name = f"v{version}/schema.unstable.json" if unstable else f"v{version}/schema.json"
    schema: dict[str, Any] = json.loads(
        resources.files("acphost.schema").joinpath(name).read_text("utf-8")
    )
    return schema


def _methods_of(
    tables: tuple[tuple[str, dict[str, tuple[str, str | None]]], ...], prefix: str
) -> dict[tuple[str, str, str], str]:
    out: dict[tuple[str, str, str], str] = {}
    for side, table in tables:
        for method, (params, result) in table.items():
            if result is None:
                out[(method, side, "notification")] = prefix + params
            else:
                out[(method, side, "request")] = prefix + params
                out[(method, side, "response")] = prefix + result
    return out


@cache
def method_types(version: int = 1) -> dict[tuple[str, str, str], str]:
    """(method, handling side, role) → the ``$defs`` name, for protocol ``version``.

    Version 2 (and any later one a trace names: no other is vendored) maps to
    the ``v2:`` names of :data:`~._v2methods.V2_METHODS`.
    """
    return _v2_method_types() if version >= 2 else _v1_method_types()


def _v2_method_types() -> dict[tuple[str, str, str], str]:
    from ._v2methods import V2_METHODS  # noqa: PLC0415 - only a v2 connection needs it

    return {key: _V2 + name for key, name in V2_METHODS.items()}


def _v1_method_types() -> dict[tuple[str, str, str], str]:
    """(method, handling side, role) → the ``$defs`` name of protocol version 1.

    Methods only the unstable schema has (``session/fork``, used behind the
    client's ``unstable=True``) map to ``unstable:Name``, validated against
    that schema.

    The table is the generated one (``acphost.schema``'s method tables, written by
    ``tools/gen_schema.py`` from the schemas' ``x-method`` and ``x-side``
    annotations): a run that checks only the ordering rules never reads the
    schema files, whose 640 KB cost every run's start-up ~10 ms.
    """
    from .. import schema as m  # noqa: PLC0415 - its generated method tables

    out = _methods_of(
        (
            ("agent", m.AGENT_METHODS),
            ("client", m.CLIENT_METHODS),
            ("protocol", m.PROTOCOL_METHODS),
        ),
        "",
    )
    unstable = _methods_of(
        (
            ("agent", m.UNSTABLE_AGENT_METHODS),
            ("client", m.UNSTABLE_CLIENT_METHODS),
            ("protocol", m.UNSTABLE_PROTOCOL_METHODS),
            ("proxy", m.UNSTABLE_PROXY_METHODS),
        ),
        _UNSTABLE,
    )
    for method, params in m.UNSTABLE_NOTIFICATION_FORMS.items():
        unstable[(method, "proxy", "notification")] = _UNSTABLE + params
    for key, name in unstable.items():
        out.setdefault(key, name)
    return out


@cache
def _validator(name: str) -> Any:
    try:
        import jsonschema  # type: ignore[import-untyped]  # noqa: PLC0415 - only validation needs it
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise RuntimeError(
            "schema validation needs jsonschema: pip install 'acphost[trace]'"
        ) from exc
    version = 2 if name.startswith(_V2) else 1
    rest = name.removeprefix(_V2)
    unstable = rest.startswith(_UNSTABLE)
    ref = rest.removeprefix(_UNSTABLE)
    return jsonschema.Draft202012Validator(
        {"$ref": f"#/$defs/{ref}", "$defs": _schema(version, unstable)["$defs"]}
    )


def first_error(name: str, value: Any) -> str | None:
    """The first way ``value`` breaks the schema's ``$defs[name]``, or None when it fits.

    Args:
        name: a ``$defs`` name, ``unstable:`` prefixed for the unstable
            schema, ``v2:`` for protocol version 2's.
        value: the decoded member (params, result, error).

    Returns:
        ``Name.path: message`` (cut to a readable length), or None.

    Raises:
        RuntimeError: jsonschema is not installed.

    """
    try:
        errors = sorted(
            _validator(name).iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path]
        )
    except RecursionError:
        return f"{name}: nested too deeply to check against the schema"
    if not errors:
        return None
    err = _variant_error(errors[0])
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
    return f"{name}{where}: {err.message[:300]}"


def _variant_error(err: Any) -> Any:
    """For a union (``oneOf``/``anyOf``), the error of the one variant the value is meant as.

    jsonschema says only that the value fits no variant. Variants told apart
    by a tag (``sessionUpdate: subagent_update``: a ``const``) or by the
    value's own type (an object, or ``null``) that the value does not have
    are ruled out, and so is the open "any other kind" variant (a ``not``
    of the known tags) for a value of a known kind; when one remains, its error says what is wrong
    (``'sessionId' is a required property``).
    """
    if err.validator not in ("oneOf", "anyOf") or not err.context:
        return err
    by_variant: dict[Any, list[Any]] = {}
    for sub in err.context:
        by_variant.setdefault(sub.relative_schema_path[0], []).append(sub)
    here = list(err.absolute_path)
    meant = [
        subs
        for subs in by_variant.values()
        if not any(
            e.validator == "const"
            or (e.validator in ("type", "not") and list(e.absolute_path) == here)
            for e in subs
        )
    ]
    if len(meant) != 1 or len(by_variant) < 2:
        return err
    return _variant_error(min(meant[0], key=lambda e: [str(p) for p in e.absolute_path]))
