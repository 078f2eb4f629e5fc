"""Checking a frame's shape against the vendored schema, by method and role.

The schema files ship in ``acphost.schema`` (``v1/schema.json`` and, for
methods only the unstable schema has, ``v1/schema.unstable.json``). Each
request, notification and response maps to its ``$defs`` entry through the
``x-method`` and ``x-side`` annotations. ``jsonschema`` is imported on first use.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

__all__ = ["first_error", "method_types"]

_UNSTABLE = "unstable:"


@cache
def _schema(unstable: bool = False) -> dict[str, Any]:
    from importlib import resources  # noqa: PLC0415 - only a schema check reads the schema

    name = "v1/schema.unstable.json" if unstable else "v1/schema.json"
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
def method_types() -> dict[tuple[str, str, str], str]:
    """(method, handling side, role) → the ``$defs`` name.

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
    unstable = name.startswith(_UNSTABLE)
    ref = name.removeprefix(_UNSTABLE)
    return jsonschema.Draft202012Validator(
        {"$ref": f"#/$defs/{ref}", "$defs": _schema(unstable)["$defs"]}
    )


def first_error(name: str, value: Any) -> str | None:
    """The first way ``value`` breaks the schema's ``$defs[name]``, or None when it fits.

    Args:
        name: a ``$defs`` name, ``unstable:`` prefixed for the unstable schema.
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
    err = errors[0]
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
    return f"{name}{where}: {err.message[:300]}"
