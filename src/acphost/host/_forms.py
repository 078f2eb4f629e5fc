"""Elicitation forms as plain data: fields from the requested schema, values checked.

ACP ``elicitation/create`` in form mode carries a restricted JSON Schema: an
object of primitive properties (strings, with formats and single-select
enums, numbers, integers, booleans, multi-select arrays), some required, some
with defaults. :func:`form_fields` turns it into :class:`FormField` rows;
:func:`check_form` turns what the user entered into the response ``content`` or
into one message per field saying what to fix. Both faces ask with them:
the TUI as a dialog, the CLI's ``--ask`` line by line on the terminal.

A ``pattern`` is shown as a hint but not evaluated here: it is the agent's
regular expression, and one built to backtrack would freeze the interface.
The agent checks the answer it receives anyway.
"""

from __future__ import annotations

import datetime
import math
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

from .. import schema as s

__all__ = ["FormField", "check_form", "form_fields", "parse_field"]

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


@dataclass(slots=True)
class FormField:
    """One field of an elicitation form.

    Attributes:
        name: the property name (the key in the response content).
        kind: ``string``, ``number``, ``integer``, ``boolean``, ``choice``
            (single select), ``multi`` (multi select) or ``unsupported``.
        title: what to call it (the title, else the name).
        description: help text.
        required: whether the form cannot be accepted without it.
        default: the default value, if any.
        choices: ``(value, label)`` pairs for ``choice`` and ``multi``.
        limits: the constraints to check: ``min_length``, ``max_length``,
            ``format``, ``pattern``, ``minimum``, ``maximum``, ``min_items``,
            ``max_items`` (those that are set).

    """

    name: str
    kind: str
    title: str
    description: str = ""
    required: bool = False
    default: Any = None
    choices: list[tuple[str, str]] = field(default_factory=list)
    limits: dict[str, Any] = field(default_factory=dict)

    def hint(self) -> str:
        """The constraints in words, for under the field."""
        lim = self.limits
        parts = []
        if "format" in lim:
            parts.append(str(lim["format"]))
        if "min_length" in lim or "max_length" in lim:
            parts.append(_range("characters", lim.get("min_length"), lim.get("max_length")))
        if "minimum" in lim or "maximum" in lim:
            parts.append(_range("value", lim.get("minimum"), lim.get("maximum")))
        if "min_items" in lim or "max_items" in lim:
            parts.append(_range("choices", lim.get("min_items"), lim.get("max_items")))
        if "pattern" in lim:
            parts.append(f"matching {lim['pattern']}")
        return ", ".join(parts)


def _range(what: str, low: Any, high: Any) -> str:
    if low is not None and high is not None:
        return f"{what} {low} to {high}"
    if low is not None:
        return f"{what} ≥ {low}"
    return f"{what} ≤ {high}"


def _set_limits(prop: Any, names: tuple[str, ...]) -> dict[str, Any]:
    return {n: getattr(prop, n) for n in names if getattr(prop, n, None) is not None}


def form_fields(schema: s.ElicitationSchema | None) -> list[FormField]:
    """The fields of a requested schema, in the schema's order."""
    if schema is None or not schema.properties:
        return []
    required = set(schema.required or ())
    out: list[FormField] = []
    for name, prop in schema.properties.items():
        title = getattr(prop, "title", None) or name
        desc = getattr(prop, "description", None) or ""
        base = FormField(name, "unsupported", title, desc, name in required)
        if isinstance(prop, s.StringPropertySchema):
            base.default = prop.default
            if prop.one_of:
                base.kind = "choice"
                base.choices = [(o.const, o.title or o.const) for o in prop.one_of]
            elif prop.enum:
                base.kind = "choice"
                base.choices = [(v, v) for v in prop.enum]
            else:
                base.kind = "string"
                base.limits = _set_limits(prop, ("min_length", "max_length", "format", "pattern"))
        elif isinstance(prop, (s.NumberPropertySchema, s.IntegerPropertySchema)):
            base.kind = "integer" if isinstance(prop, s.IntegerPropertySchema) else "number"
            base.default = prop.default
            base.limits = _set_limits(prop, ("minimum", "maximum"))
        elif isinstance(prop, s.BooleanPropertySchema):
            base.kind = "boolean"
            base.default = prop.default
        elif isinstance(prop, s.MultiSelectPropertySchema):
            items = prop.items
            if isinstance(items, s.StringMultiSelectItems):
                base.kind, base.choices = "multi", [(v, v) for v in items.enum]
            elif isinstance(items, s.TitledMultiSelectItems):
                base.kind = "multi"
                base.choices = [(o.const, o.title or o.const) for o in items.any_of]
            base.default = list(prop.default or [])
            base.limits = _set_limits(prop, ("min_items", "max_items"))
        out.append(base)
    return out


def parse_field(f: FormField, raw: Any) -> tuple[Any, str]:
    """Check one entered value; return ``(value, "")`` or ``(None, what is wrong)``.

    ``raw`` is the text typed for strings and numbers, a bool for booleans,
    the chosen value (or None) for a choice, a list of values for a multi
    select. An empty optional field gives ``(None, "")``: left out.
    """
    empty = raw is None or (isinstance(raw, (str, list)) and not raw)
    if empty and f.kind != "boolean":
        return None, "required" if f.required else ""
    lim = f.limits
    if f.kind == "string":
        text = str(raw)
        if "min_length" in lim and len(text) < lim["min_length"]:
            return None, f"at least {lim['min_length']} characters"
        if "max_length" in lim and len(text) > lim["max_length"]:
            return None, f"at most {lim['max_length']} characters"
        problem = _format_problem(str(lim.get("format", "")), text)
        return (None, problem) if problem else (text, "")
    if f.kind in ("number", "integer"):
        try:
            value: float | int = int(str(raw)) if f.kind == "integer" else float(str(raw))
        except ValueError:
            return None, "a whole number" if f.kind == "integer" else "a number"
        if not math.isfinite(value):
            return None, "a finite number"
        if "minimum" in lim and value < lim["minimum"]:
            return None, f"at least {lim['minimum']}"
        if "maximum" in lim and value > lim["maximum"]:
            return None, f"at most {lim['maximum']}"
        return value, ""
    if f.kind == "boolean":
        return bool(raw), ""
    if f.kind == "choice":
        allowed = {v for v, _ in f.choices}
        return (raw, "") if raw in allowed else (None, "pick one of the choices")
    if f.kind == "multi":
        allowed = {v for v, _ in f.choices}
        values = [v for v in raw if v in allowed]
        if "min_items" in lim and len(values) < lim["min_items"]:
            return None, f"pick at least {lim['min_items']}"
        if "max_items" in lim and len(values) > lim["max_items"]:
            return None, f"pick at most {lim['max_items']}"
        return values, ""
    return None, "this kind of field is not supported" if f.required else ""


def _format_problem(fmt: str, text: str) -> str:
    if fmt == "email" and not _EMAIL.fullmatch(text):
        return "an email address"
    if fmt == "uri":
        parsed = urlparse(text)
        if not parsed.scheme or not (parsed.netloc or parsed.path):
            return "a URI (e.g. https://example.com)"
    if fmt == "date":
        try:
            datetime.date.fromisoformat(text)
        except ValueError:
            return "a date as YYYY-MM-DD"
    if fmt == "date-time":
        try:
            datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return "a date and time (ISO 8601)"
    return ""


def check_form(
    fields: list[FormField], raw: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The response ``content`` for what was entered, and the problems by field name.

    Accept only when the problems are empty.
    """
    content: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for f in fields:
        value, problem = parse_field(f, raw.get(f.name))
        if problem:
            problems[f.name] = problem
        elif value is not None:
            content[f.name] = value
    return content, problems
