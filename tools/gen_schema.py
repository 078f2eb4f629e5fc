#!/usr/bin/env python3
"""Generate ``acphost.schema._types``, ``_unstable`` and ``_methods`` from the vendored schema.

Usage::

    .venv/bin/python tools/gen_schema.py          # rewrite the generated modules
    .venv/bin/python tools/gen_schema.py --check  # exit 1 if they are stale

Input, in ``src/acphost/schema/v1/``: ``schema.json`` (stable: ``_types.py``),
``schema.unstable.json`` (``_unstable.py``: only the types it defines differently,
the rest are the stable classes, imported), ``meta.json`` (stable method constant
names, checked against the ``x-method`` annotations; unstable method names come from
``x-method`` alone) and the ``Schema version:`` line of ``SOURCE.md``.

How ``$defs`` map to Python (see the module docstring of the output too):

* object defs -> a frozen, slotted class with ``from_wire``/``to_wire``; properties
  of ``anyOf`` alternatives (e.g. ``CreateElicitationRequest``'s modes and scopes)
  are merged into one class, each optional unless every alternative requires it;
* ``oneOf``/``anyOf`` whose alternatives carry a ``const`` discriminator -> one
  class per variant (payload fields flattened in, plus the discriminator as a
  fixed class attribute), an ``Unknown<Union>`` class, a ``<Union>`` alias and a
  ``decode_<union>`` function.  A variant with no discriminator (``McpServerStdio``,
  ``AuthMethodAgent``, ``TitledMultiSelectItems``) is chosen when the key is absent.
  Open "any other value" alternatives (``not: ...``) become the Unknown class;
* string enums -> ``Literal`` aliases (values are not enforced when decoding);
* other ``anyOf`` -> a union alias decoded by trying each alternative in order;
* primitive defs -> aliases (``SessionId = str``).

Lenient annotations are honoured: ``x-deserialize-default-on-error`` (a malformed
value becomes the default), ``x-deserialize-skip-invalid-items`` (a malformed array
item is dropped) and ``x-deserialize-default-on-null`` (``null`` is the default, for
a required array the empty list). Fields with patch semantics (named by the def's
description, "`a`, `b` have patch semantics", or by their own, "Omitted leaves ...
unchanged") hold ``UNSET`` when omitted and ``None`` when sent as ``null``.

Variant class names come from ``VARIANT_NAMES``; a variant not listed there takes
its payload's name when the payload is referenced nowhere else (the variant class
replaces it), else ``<Payload><Union>``.
"""

from __future__ import annotations

import argparse
import json
import keyword
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "src" / "acphost" / "schema" / "v1"
TYPES_OUT = ROOT / "src" / "acphost" / "schema" / "_types.py"
METHODS_OUT = ROOT / "src" / "acphost" / "schema" / "_methods.py"
UNSTABLE_OUT = ROOT / "src" / "acphost" / "schema" / "_unstable.py"
STRICT_OUT = ROOT / "src" / "acphost" / "schema" / "_strict.py"

# ---------------------------------------------------------------------------
# Tables

#: (union def, discriminator value) -> variant class name.
VARIANT_NAMES: dict[tuple[str, str], str] = {
    ("SessionUpdate", "user_message_chunk"): "UserMessageChunk",
    ("SessionUpdate", "agent_message_chunk"): "AgentMessageChunk",
    ("SessionUpdate", "agent_thought_chunk"): "AgentThoughtChunk",
    ("SessionUpdate", "tool_call"): "ToolCallStart",
    ("SessionUpdate", "tool_call_update"): "ToolCallProgress",
    ("SessionUpdate", "plan"): "PlanUpdate",
    ("SessionUpdate", "available_commands_update"): "AvailableCommandsUpdate",
    ("SessionUpdate", "current_mode_update"): "CurrentModeUpdate",
    ("SessionUpdate", "config_option_update"): "ConfigOptionUpdate",
    ("SessionUpdate", "session_info_update"): "SessionInfoUpdate",
    ("SessionUpdate", "usage_update"): "UsageUpdate",
    ("ContentBlock", "text"): "TextContentBlock",
    ("ContentBlock", "image"): "ImageContentBlock",
    ("ContentBlock", "audio"): "AudioContentBlock",
    ("ContentBlock", "resource_link"): "ResourceLinkContentBlock",
    ("ContentBlock", "resource"): "EmbeddedResourceContentBlock",
    ("ToolCallContent", "content"): "ContentToolCallContent",
    ("ToolCallContent", "diff"): "DiffToolCallContent",
    ("ToolCallContent", "terminal"): "TerminalToolCallContent",
    ("RequestPermissionOutcome", "cancelled"): "CancelledPermissionOutcome",
    ("RequestPermissionOutcome", "selected"): "SelectedPermissionOutcome",
    # unstable schema: the payload ``PlanUpdate`` would clash with the ``plan`` variant
    ("SessionUpdate", "plan_update"): "PlanContentUpdate",
}

#: Union -> the class for variant values this schema does not know, where the
#: usual ``Unknown<Union>`` is a schema def (the unstable ``unknown`` state).
UNKNOWN_NAMES: dict[str, str] = {"StateUpdate": "UnrecognizedStateUpdate"}

#: Variant class names that a payload def of the same name must not take.
TAKEN_NAMES = frozenset(VARIANT_NAMES.values())

#: Discriminator values that also select a union's untagged variant.  The schema
#: says "when no `type` is present, the method is treated as `agent`"; peers also
#: send the explicit value.  The key then stays in ``extra`` and round-trips.
UNTAGGED_VALUES: dict[str, str] = {"AuthMethod": "agent", "McpServer": "stdio"}

#: Chunk classes whose ``content`` is one content block: they get a ``.text``
#: property (the block's text, else ``""``). It is data, the text the peer sent
#: (``print(update.text)``); how any other update looks is decided by the view
#: model (``acphost.view``), not by the wire types.
CHUNKS: frozenset[str] = frozenset({
    "UserMessageChunk",
    "AgentMessageChunk",
    "AgentThoughtChunk",
    "CompactionSummaryChunk",
    # unstable session updates (acphost.schema.unstable)
    "SessionMessageChunk",
})

#: The ``.text`` property of a chunk class (see ``CHUNKS``).
CHUNK_TEXT = """
    @property
    def text(self) -> str:
        \"\"\"The chunk's text: its text block's ``text``; ``""`` when the block is not text.\"\"\"
        # Only TextContentBlock has ``type == "text"`` (its fixed discriminator).
        block = self.content
        return block.text if getattr(block, "type", None) == "text" else ""  # type: ignore[union-attr]
"""  # noqa: E501 - generated code keeps its ignore on one line

#: Defs whose decoding is hot (every streamed update): the classes reachable from
#: them are built through a mutable twin (plain attribute stores, then a
#: ``__class__`` switch), three times cheaper than ``object.__setattr__`` per
#: field. Not every class gets a twin, to keep the import fast.
HOT_ROOTS = ("SessionNotification",)

#: Envelope fields decoded later, by method (they are not self-describing).
RAW_FIELDS = {"params", "result"}

# ---------------------------------------------------------------------------
# Type model: tuples
#   ("str",) ("int",) ("float",) ("bool",) ("dict",) ("any",) ("null",)
#   ("ref", name) ("list", T, skip_invalid) ("map", T) ("opt", T) ("union", (T, ...))

T = tuple[Any, ...]
PRIMS = {"string": ("str",), "integer": ("int",), "number": ("float",),
         "boolean": ("bool",), "null": ("null",)}
WHAT = {"str": "a string", "int": "an integer", "float": "a number", "bool": "a boolean",
        "dict": "an object", "null": "null", "list": "an array", "map": "an object"}
BAD = {
    "str": "not isinstance(v, str)",
    "int": "not isinstance(v, int) or v is True or v is False",
    "float": "not isinstance(v, (int, float)) or v is True or v is False",
    "bool": "v is not True and v is not False",
    "dict": "not isinstance(v, dict)",
    "null": "v is not None",
}


@dataclass
class Field:
    json: str
    name: str
    t: T
    required: bool
    doe: bool  # x-deserialize-default-on-error
    don: bool = False  # x-deserialize-default-on-null
    patch: bool = False  # omitted (UNSET) differs from null (None)


@dataclass
class ClassDef:
    name: str
    doc: str
    fields: list[Field]
    disc: tuple[str, str, str] | None = None  # (json key, attribute, value)
    unknown_of: str | None = None  # set for Unknown<Union> classes


@dataclass
class UnionDef:
    name: str
    doc: str
    key: str
    variants: list[tuple[str, str]]  # (value, class)
    untagged: str | None
    unknown: str


@dataclass
class AliasDef:
    name: str
    doc: str
    t: T  # what to decode
    ann: str  # typing annotation (TYPE_CHECKING)
    runtime: str  # runtime value
    decoder: bool = False  # needs a decode_<name> function
    literal: bool = False


@dataclass
class Model:
    defs: dict[str, Any]
    classes: dict[str, ClassDef] = field(default_factory=dict)
    unions: dict[str, UnionDef] = field(default_factory=dict)
    aliases: dict[str, AliasDef] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)  # names in $defs order (+ variants)
    #: payload def -> the variant class that replaced it under another name
    renamed: dict[str, str] = field(default_factory=dict)


def snake(name: str) -> str:
    if name == "_meta":
        return "meta"
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    if keyword.iskeyword(s):
        s += "_"
    return s


def first_paragraph(text: str) -> str:
    para = text.strip().split("\n\n")[0]
    return " ".join(line.strip() for line in para.splitlines())


def ref_name(s: dict[str, Any]) -> str:
    return str(s["$ref"]).rsplit("/", 1)[1]


def refd(s: dict[str, Any]) -> str | None:
    """The def named by ``{$ref}`` or ``{allOf: [{$ref}]}``, else None."""
    if "$ref" in s:
        return ref_name(s)
    all_of = s.get("allOf")
    if all_of and len(all_of) == 1 and "$ref" in all_of[0]:
        return ref_name(all_of[0])
    return None


def is_open_fallback(alt: dict[str, Any]) -> bool:
    return "not" in alt


#: A def's description naming its patch fields ("`summary`, `error`, and `_meta` have
#: patch semantics"), or a property's own description ("Omitted leaves the stored
#: value unchanged", "Omitted means unchanged"): for those, an omitted member
#: (UNSET) differs from ``null``.
PATCH_DEF = re.compile(r"((?:`\w+`(?:,? and |, )?)+) have patch semantics")
PATCH_PROP = re.compile(
    r"\bOmitted (?:leaves [\w ]*unchanged|means unchanged)|\bSet to null to clear"
    r"|\bExplicit `?null`? is (?:retained|preserved)")


def patch_keys(s: dict[str, Any]) -> set[str]:
    keys: set[str] = set()
    m = PATCH_DEF.search(s.get("description", ""))
    if m:
        keys |= set(re.findall(r"`(\w+)`", m.group(1)))
    for key, prop in s.get("properties", {}).items():
        if isinstance(prop, dict) and PATCH_PROP.search(prop.get("description", "")):
            keys.add(key)
    return keys


def disc_of(alt: dict[str, Any]) -> tuple[str, str] | None:
    for key, prop in alt.get("properties", {}).items():
        if isinstance(prop, dict) and "const" in prop and isinstance(prop["const"], str):
            return key, prop["const"]
    return None


class Builder:
    def __init__(self, schema: dict[str, Any]) -> None:
        self.defs: dict[str, Any] = schema["$defs"]
        self.model = Model(self.defs)
        self.refcount = Counter(re.findall(r'#/\$defs/(\w+)"', json.dumps(schema)))
        self.replaced: set[str] = set()

    # -- types -------------------------------------------------------------
    def resolve(self, s: dict[str, Any]) -> T:
        if not isinstance(s, dict):
            return ("any",)
        name = refd(s)
        if name is not None:
            return ("ref", name)
        alts = s.get("anyOf") or s.get("oneOf")
        if alts:
            nullable = any(a.get("type") == "null" for a in alts)
            rest = [a for a in alts if a.get("type") != "null"]
            ts: list[T] = []
            for a in rest:
                t = self.resolve(a)
                if t not in ts:
                    ts.append(t)
            t = ts[0] if len(ts) == 1 else ("union", tuple(ts))
            return ("opt", t) if nullable else t
        typ = s.get("type")
        if isinstance(typ, list):
            non_null = [x for x in typ if x != "null"]
            inner = self.resolve({**s, "type": non_null[0]}) if len(non_null) == 1 else ("any",)
            return ("opt", inner) if "null" in typ else inner
        if typ == "array":
            return ("list", self.resolve(s.get("items", {})),
                    bool(s.get("x-deserialize-skip-invalid-items")))
        if typ == "object":
            ap = s.get("additionalProperties")
            if isinstance(ap, dict) and ap:
                return ("map", self.resolve(ap))
            return ("dict",)
        if typ in PRIMS:
            return PRIMS[typ]
        if "const" in s:
            c = s["const"]
            return ("str",) if isinstance(c, str) else ("int",) if isinstance(c, int) else ("any",)
        return ("any",)

    def base(self, t: T) -> T:
        """Dereference primitive aliases (for merging property types)."""
        if t[0] == "ref" and t[1] in self.model.aliases:
            a = self.model.aliases[t[1]]
            if a.t[0] in ("str", "int", "float", "bool", "any"):
                return a.t
        return t

    # -- property collection ----------------------------------------------------
    def collect(self, s: dict[str, Any], skip: str | None = None
                ) -> tuple[dict[str, list[dict[str, Any]]], set[str]]:
        props: dict[str, list[dict[str, Any]]] = {}
        req: set[str] = set(s.get("required", []))

        def merge(p: dict[str, list[dict[str, Any]]]) -> None:
            for k, v in p.items():
                props.setdefault(k, []).extend(v)

        for k, v in s.get("properties", {}).items():
            props.setdefault(k, []).append(v)
        subs = list(s.get("allOf", []))
        if "$ref" in s:
            subs.append({"$ref": s["$ref"]})
        for sub in subs:
            target = self.defs[ref_name(sub)] if "$ref" in sub else sub
            p, r = self.collect(target)
            merge(p)
            req |= r
        alts = s.get("anyOf") or s.get("oneOf")
        if alts:  # merged: a property is required only if every alternative requires it
            results = [self.collect(a) for a in alts]
            for p, _ in results:
                merge(p)
            req |= set.intersection(*(r for _, r in results))
        if skip:
            props.pop(skip, None)
            req.discard(skip)
        return props, req

    def fields_of(self, owner: str, props: dict[str, list[dict[str, Any]]],
                  req: set[str], patch: set[str] | None = None) -> list[Field]:
        out: list[Field] = []
        for key, schemas in props.items():
            ts: list[T] = []
            for sch in schemas:
                t = self.resolve(sch)
                if t not in ts:
                    ts.append(t)
            if len(ts) > 1:
                bases: list[T] = []
                for t in ts:
                    b = self.base(t[1] if t[0] == "opt" else t)
                    if b not in bases:
                        bases.append(b)
                t = bases[0] if len(bases) == 1 else ("union", tuple(bases))
            else:
                t = ts[0]
            if key in RAW_FIELDS and self.defs[owner].get("x-docs-ignore"):
                t = ("any",)
            doe = any(sch.get("x-deserialize-default-on-error") for sch in schemas)
            don = any(sch.get("x-deserialize-default-on-null") for sch in schemas)
            required = key in req
            is_patch = key in (patch or ())
            if is_patch and required:
                raise SystemExit(f"{owner}.{key}: a required field cannot have patch semantics")
            if not required and t[0] == "opt":
                t = t[1]
            name = snake(key)
            if name in ("extra", "to_wire", "from_wire", "replace"):
                raise SystemExit(f"{owner}.{key}: field name {name!r} clashes with a method")
            out.append(Field(key, name, t, required, doe, don, is_patch))
        # `_meta` last, for readability of reprs and signatures.
        out.sort(key=lambda f: f.json == "_meta")
        return out

    # -- defs ------------------------------------------------------------------
    def build(self) -> Model:
        m = self.model
        # aliases first: merging property types needs them
        for name, s in self.defs.items():
            self.classify_alias(name, s)
        for name, s in self.defs.items():  # which payloads become variant classes
            if name not in m.aliases and self.is_dunion(s):
                for alt in s.get("oneOf") or s.get("anyOf"):
                    d = disc_of(alt)
                    if d and not is_open_fallback(alt):
                        self.variant_name(name, d[1], refd(alt))
        for name, s in self.defs.items():
            if name in m.aliases:
                m.order.append(name)
                continue
            if self.is_dunion(s):
                self.build_union(name, s)
            elif self.is_merged_object(s):
                if name in self.replaced:
                    continue
                props, req = self.collect(s)
                m.classes[name] = ClassDef(name, first_paragraph(s.get("description", "")),
                                           self.fields_of(name, props, req, patch_keys(s)))
                m.order.append(name)
            else:
                raise SystemExit(f"unhandled def {name}")
        # a payload replaced by a variant, seen before its union
        for name in self.replaced:
            if name in m.classes and m.classes[name].disc is None:
                del m.classes[name]
                m.order.remove(name)
        return m

    def is_merged_object(self, s: dict[str, Any]) -> bool:
        """An object type, or an ``anyOf`` of inline objects (the response envelopes)."""
        if s.get("type") == "object":
            return True
        alts = s.get("anyOf") or s.get("oneOf") or []
        return bool(alts) and all(a.get("type") == "object" and "properties" in a
                                  and "allOf" not in a for a in alts)

    def is_dunion(self, s: dict[str, Any]) -> bool:
        alts = s.get("oneOf") or s.get("anyOf")
        if not alts:
            return False
        if s.get("type") == "object" and "discriminator" not in s:
            return False  # merged object (anyOf of scopes/modes)
        return any(disc_of(a) and not is_open_fallback(a) for a in alts)

    def classify_alias(self, name: str, s: dict[str, Any]) -> None:
        m = self.model
        doc = first_paragraph(s.get("description", ""))
        if self.is_dunion(s) or self.is_merged_object(s):
            return
        alts = s.get("oneOf") or s.get("anyOf")
        if {k for k in s if not k.startswith("x-")} <= {"description", "title"}:  # any value
            m.aliases[name] = AliasDef(name, doc, ("any",), "Any", "object")
            return
        if s.get("type") in PRIMS:
            t = PRIMS[s["type"]]
            m.aliases[name] = AliasDef(name, doc, t, ann_prim(t), ann_prim(t))
            return
        target = refd(s)
        if not alts and target and not s.get("properties"):  # a renamed type
            m.aliases[name] = AliasDef(name, doc, ("ref", target), target, target)
            return
        assert alts, name
        consts = [a["const"] for a in alts if "const" in a]
        open_ = [a for a in alts if "const" not in a]
        if consts and all(isinstance(c, str) for c in consts) and not open_:
            lit = "Literal[" + ", ".join(json.dumps(c) for c in consts) + "]"
            m.aliases[name] = AliasDef(name, doc, ("str",), lit, "str", literal=True)
            return
        if consts and len(open_) == 1 and open_[0].get("type") in PRIMS:
            t = PRIMS[open_[0]["type"]]
            m.aliases[name] = AliasDef(name, doc, t, ann_prim(t), ann_prim(t))
            return
        t = self.resolve(s)
        if t[0] == "ref":
            m.aliases[name] = AliasDef(name, doc, t, t[1], t[1])
            return
        ann = ann_of(t)
        m.aliases[name] = AliasDef(name, doc, t, ann, ann, decoder=True)

    def variant_name(self, union: str, value: str, payload: str | None) -> str:
        """The class name of a variant; marks the payload def it replaces."""
        cname = VARIANT_NAMES.get((union, value))
        if cname is None:
            if payload and self.refcount[payload] == 1:
                cname = payload
            else:
                cname = f"{payload or snake_to_camel(value)}{union}"
        if payload and cname == payload:
            assert self.refcount[payload] == 1, (union, payload)
            self.replaced.add(payload)
        elif payload and payload in TAKEN_NAMES:
            # The payload's own name is another union's variant class: this
            # variant replaces the payload, and decodes it (DECODERS).
            assert self.refcount[payload] == 1, (union, payload)
            self.replaced.add(payload)
            self.model.renamed[payload] = cname
        return cname

    def build_union(self, name: str, s: dict[str, Any]) -> None:
        m = self.model
        alts = s.get("oneOf") or s.get("anyOf")
        doc = first_paragraph(s.get("description", ""))
        key = next(disc_of(a)[0] for a in alts if disc_of(a))  # type: ignore[index]
        common_props, common_req = ({}, set())
        if s.get("type") == "object":
            common_props = {k: [v] for k, v in s.get("properties", {}).items()}
            common_req = set(s.get("required", []))
        variants: list[tuple[str, str]] = []
        untagged = None
        for alt in alts:
            if is_open_fallback(alt):
                continue
            d = disc_of(alt)
            payload = refd(alt)
            if d is None:
                assert payload, (name, alt)
                untagged = payload  # generated as an ordinary class
                continue
            value = d[1]
            cname = self.variant_name(name, value, payload)
            if cname in m.classes:
                raise SystemExit(f"{name}.{value}: class name {cname} is taken; add VARIANT_NAMES")
            props: dict[str, list[dict[str, Any]]] = {k: list(v) for k, v in common_props.items()}
            req = set(common_req)
            if payload:
                p, r = self.collect(self.defs[payload], skip=key)
                for k, v in p.items():
                    props.setdefault(k, []).extend(v)
                req |= r
            vdoc = first_paragraph(alt.get("description", "")) or (
                first_paragraph(self.defs[payload].get("description", "")) if payload else "")
            if not vdoc:
                vdoc = f"The ``{value}`` variant of :data:`{name}`."
            fields = self.fields_of(name, props, req,
                                    patch_keys(self.defs[payload]) if payload else set())
            m.classes[cname] = ClassDef(cname, vdoc, fields, disc=(key, snake(key), value))
            m.order.append(cname)
            variants.append((value, cname))
        unknown = UNKNOWN_NAMES.get(name, f"Unknown{name}")
        if unknown in m.classes or unknown in self.defs:
            raise SystemExit(f"{name}: {unknown} is a schema def; add UNKNOWN_NAMES")
        m.classes[unknown] = ClassDef(
            unknown,
            f"A :data:`{name}` whose ``{key}`` value this schema version does not know.",
            [], unknown_of=name)
        m.order.append(unknown)
        m.unions[name] = UnionDef(name, doc, key, variants, untagged, unknown)
        m.order.append(name)


def snake_to_camel(s: str) -> str:
    return "".join(p.capitalize() for p in s.split("_"))


def ann_prim(t: T) -> str:
    return {"str": "str", "int": "int", "float": "float", "bool": "bool",
            "dict": "dict[str, Any]", "any": "Any", "null": "None"}[t[0]]


def ann_of(t: T) -> str:
    k = t[0]
    if k == "ref":
        return str(t[1])
    if k == "list":
        return f"list[{ann_of(t[1])}]"
    if k == "map":
        return f"dict[str, {ann_of(t[1])}]"
    if k == "opt":
        return f"{ann_of(t[1])} | None"
    if k == "union":
        parts = [ann_of(x) for x in t[1] if x[0] != "null"]
        if any(x[0] == "null" for x in t[1]):
            parts.append("None")
        return " | ".join(parts)
    return ann_prim(t)


# ---------------------------------------------------------------------------
# Code emission


class Emitter:
    def __init__(self, model: Model, hot_roots: tuple[str, ...] = HOT_ROOTS,
                 ext: frozenset[str] = frozenset()) -> None:
        self.m = model
        self.helpers: dict[T, str] = {}
        self.helper_code: list[str] = []
        self.hot = self.reachable(hot_roots)
        #: names defined by the stable module and imported (the unstable module)
        self.ext = ext

    def fw(self, name: str) -> str:
        """The path-less decoder of a class, union or decoder alias."""
        return f"_t._fw_{name}" if name in self.ext else f"_fw_{name}"

    def reachable(self, roots: tuple[str, ...]) -> set[str]:
        """The class names decoded under the given defs (for ``HOT_ROOTS``)."""
        seen: set[str] = set()
        todo: list[T] = [("ref", r) for r in roots]
        while todo:
            t = todo.pop()
            k = t[0]
            if k in ("list", "map", "opt"):
                todo.append(t[1])
            elif k == "union":
                todo.extend(t[1])
            elif k == "ref" and t[1] not in seen:
                name = t[1]
                seen.add(name)
                if name in self.m.classes:
                    todo.extend(f.t for f in self.m.classes[name].fields)
                elif name in self.m.unions:
                    u = self.m.unions[name]
                    todo.extend(("ref", c) for c in
                                [c for _, c in u.variants] + [u.untagged or u.unknown])
                else:
                    todo.append(self.m.aliases[name].t)
        return {n for n in seen if n in self.m.classes}

    # callable(v) -> value, for fields, items, map values and union alternatives;
    # it raises SchemaError with a path relative to v (see PREAMBLE).
    def dec_fn(self, t: T) -> str:
        k = t[0]
        if k in ("str", "int", "float", "bool", "dict", "null", "any"):
            return f"_{k}"
        if k == "ref":
            name = t[1]
            if name in self.m.classes or name in self.m.unions:
                return self.fw(name)
            a = self.m.aliases[name]
            return self.fw(name) if a.decoder else self.dec_fn(a.t)
        if t in self.helpers:
            return self.helpers[t]
        hname = f"_d{len(self.helpers)}"
        self.helpers[t] = hname
        body = [f"def {hname}(v: object) -> Any:"]
        if k in ("list", "map"):
            body.append(f"    return {self.call(t)}")
        elif k == "opt":
            body.append("    if v is None:")
            body.append("        return None")
            body.append(f"    return {self.dec_fn(t[1])}(v)")
        elif k == "union":
            fns = ", ".join(self.dec_fn(x) for x in t[1])
            what = " or ".join(what_of(x) for x in t[1])
            body.append(f"    return _first(v, ({fns},), {what!r})")
        self.helper_code.append("\n".join(body))
        return hname

    def call(self, t: T) -> str:
        """An expression decoding ``v`` as ``t`` (lists and maps without a helper)."""
        if t[0] == "list":
            return f"_list(v, {self.dec_fn(t[1])}, {t[2]})"
        if t[0] == "map":
            return f"_map(v, {self.dec_fn(t[1])})"
        return f"{self.dec_fn(t)}(v)"

    def pub_fn(self, name: str) -> str:
        """callable(data, path) decoding the def ``name`` (the DECODERS table)."""
        if name in self.m.renamed:
            return f"{self.m.renamed[name]}.from_wire"
        if name in self.m.classes:
            return f"{name}.from_wire"
        if name in self.m.unions or self.m.aliases[name].decoder:
            return f"{'_t.' if name in self.ext else ''}decode_{snake(name)}"
        t = self.m.aliases[name].t
        if t[0] == "ref":
            return self.pub_fn(t[1])
        return self.dec_fn(t)

    def leaf(self, t: T) -> T:
        """Follow primitive/literal aliases to what is checked inline."""
        while t[0] == "ref" and t[1] in self.m.aliases and not self.m.aliases[t[1]].decoder:
            t = self.m.aliases[t[1]].t
        return t

    def check_lines(self, t: T, key: str, doe: bool, default: str, ind: str,
                    hot: bool = False) -> list[str]:
        """Lines validating/decoding `v` (the member ``key``) in place."""
        t = self.leaf(t)
        k = t[0]
        if k == "any":
            return []
        if k in BAD:
            fix = f"v = {default}" if doe else f"raise _bad({key!r}, {WHAT[k]!r}, v)"
            return [f"{ind}if {BAD[k]}:", f"{ind}    {fix}"]
        if k == "opt":
            inner = self.check_lines(t[1], key, doe, default, ind + "    ", hot)
            return [f"{ind}if v is not None:", *inner] if inner else []
        calls = [f"v = {self.call(t)}"]
        if hot and k == "ref" and t[1] in self.m.unions:
            # A union member of a hot class: its variant table is looked up
            # here, saving the call to the union's own decoder.
            u = self.m.unions[t[1]]
            table = f"{'_t.' if u.name in self.ext else ''}_{snake(u.name).upper()}_VARIANTS_FW"
            calls = [f"kind = v.get({u.key!r}) if type(v) is dict else None",
                     f"dec = {table}.get(kind) if type(kind) is str else None",
                     f"v = dec(v) if dec is not None else {self.fw(u.name)}(v)"]
        body = [f"{ind}    {line}" for line in calls]
        if doe:
            return [f"{ind}try:", *body, f"{ind}except SchemaError:", f"{ind}    v = {default}"]
        return [f"{ind}try:", *body, f"{ind}except SchemaError as exc:",
                f"{ind}    exc._within({key!r})", f"{ind}    raise"]

    def enc(self, t: T, expr: str) -> str | None:
        """Expression converting `expr` to JSON, or None when it is JSON already."""
        t = self.leaf(t)
        k = t[0]
        if k == "ref":
            name = t[1]
            if name in self.m.aliases:  # decoder alias (untagged union)
                return self.enc(self.m.aliases[name].t, expr)
            return f"{expr}.to_wire()"
        if k == "list":
            inner = self.enc(t[1], "x")
            return f"[{inner} for x in {expr}]" if inner else f"list({expr})"
        if k == "map":
            inner = self.enc(t[1], "x")
            return f"{{k: {inner} for k, x in {expr}.items()}}" if inner else f"dict({expr})"
        if k == "opt":
            inner = self.enc(t[1], expr)
            return f"(None if {expr} is None else {inner})" if inner else None
        if k == "union":
            encs = [self.enc(x, expr) for x in t[1]]
            if all(e is None for e in encs):
                return None
            return f"_to_json({expr})"
        return None

    # -- classes ---------------------------------------------------------------
    def emit_class(self, c: ClassDef) -> str:
        bases = ["_Struct"]
        out = [f"class {c.name}({', '.join(bases)}):", f"    {doc_literal(c.doc)}", ""]
        if c.unknown_of:
            return "\n".join(out) + UNKNOWN_BODY.replace("NAME", c.name)
        fields = c.fields
        names = [f.name for f in fields]
        if c.name in CHUNKS and "text" in names:
            raise SystemExit(f"{c.name}: field 'text' clashes with the chunk's text property")
        slots = [*names, "extra"]
        out.append(f"    __slots__ = {tuple_lit(slots)}")
        out.append(f"    __match_args__ = {tuple_lit(names)}")
        keys = [f.json for f in fields] + ([c.disc[0]] if c.disc else [])
        out.append(f"    _wire_keys: ClassVar[frozenset[str]] = frozenset({tuple_lit(keys)})")
        patch = [f.name for f in fields if f.patch]
        if patch:
            out.append(f"    _patch: ClassVar[frozenset[str]] = frozenset({tuple_lit(patch)})")
        if c.disc:
            lit = json.dumps(c.disc[2])
            out.append(f"    {c.disc[1]}: Literal[{lit}] = {lit}")
        anns: dict[str, str] = {}
        for f in fields:
            a = ann_of(f.t)
            if f.patch:
                a = a.removesuffix(" | None") + " | Unset | None"
            elif not f.required and not a.endswith("| None"):
                a += " | None"
            anns[f.name] = a
            out.append(f"    {f.name}: {a}")
        out.append("    extra: dict[str, Any] | None")
        if c.name in CHUNKS:
            out.append(CHUNK_TEXT.rstrip("\n"))
        for n in names:
            for a in anns.values():
                if re.search(rf"\b{n}\b", a) and n in ("list", "dict", "str", "int", "float",
                                                       "bool", "type", "None", "Any"):
                    raise SystemExit(f"{c.name}: field {n!r} shadows a name in annotations")
        # __init__
        req = [f for f in fields if f.required]
        opt = [f for f in fields if not f.required]
        params = [f"{f.name}: {anns[f.name]}" for f in req]
        params += [f"{f.name}: {anns[f.name]} = {'UNSET' if f.patch else 'None'}" for f in opt]
        params.append("extra: dict[str, Any] | None = None")
        out.append("")
        out.append(f"    def __init__(self, *, {', '.join(params)}) -> None:")
        for n in slots:
            out.append(f"        _set(self, {n!r}, {n})")
        # from_wire: a public wrapper that adds the base path to errors
        out.append("")
        out.append("    @classmethod")
        out.append(f"    def from_wire(cls, data: object, path: str = \"\") -> {c.name}:")
        out.append(f"        \"\"\"Decode and validate a wire object as :class:`{c.name}`.\"\"\"")
        out.append("        try:")
        out.append(f"            return _fw_{c.name}(data)")
        out.append("        except SchemaError as exc:")
        out.append("            exc._rebase(path)")
        out.append("            raise")
        after = self.emit_decoder(c, req)
        # to_wire
        out.append("")
        out.append("    def to_wire(self) -> dict[str, Any]:")
        out.append('        """Return the JSON object (camelCase keys, absent fields omitted)."""')
        items = []
        if c.disc:
            items.append(f"{c.disc[0]!r}: {json.dumps(c.disc[2])}")
        for f in req:
            e = self.enc(f.t, f"self.{f.name}") or f"self.{f.name}"
            items.append(f"{f.json!r}: {e}")
        out.append(f"        d: dict[str, Any] = {{{', '.join(items)}}}")
        for f in opt:
            e = self.enc(f.t, f"self.{f.name}") or f"self.{f.name}"
            if f.patch:  # UNSET: omitted; None: sent as null
                out.append(f"        if not isinstance(self.{f.name}, Unset):")
                if e != f"self.{f.name}":
                    e = f"None if self.{f.name} is None else {e}"
            else:
                out.append(f"        if self.{f.name} is not None:")
            out.append(f"            d[{f.json!r}] = {e}")
        out.append("        if self.extra:")
        out.append("            d.update(self.extra)")
        out.append("        return d")
        # __eq__
        out.append("")
        out.append("    def __eq__(self, other: object) -> bool:")
        out.append(f"        if not isinstance(other, {c.name}):")
        out.append("            return NotImplemented")
        mine = "".join(f"self.{n}, " for n in slots)
        theirs = "".join(f"other.{n}, " for n in slots)
        out.append(f"        return ({mine.rstrip()}) == ({theirs.rstrip()})")
        return "\n".join(out) + "\n\n\n" + after

    def emit_decoder(self, c: ClassDef, req: list[Field]) -> str:
        """The path-less decoder ``_fw_<Class>`` (and the twin class of a hot class)."""
        out: list[str] = []
        hot = c.name in self.hot
        if hot:
            # Built as the twin (generic attribute stores), then switched to the
            # frozen class: same slots, so the __class__ assignment is allowed.
            twin = f"_{c.name}W"
            out.append(f"class {twin}({c.name}):")
            out.append("    __slots__ = ()")
            out.append("    __setattr__ = object.__setattr__  # type: ignore[assignment]")
            out.append("    __delattr__ = object.__delattr__")
            out.append("")
            out.append("")
        out.append(f"def _fw_{c.name}(data: object) -> {c.name}:")
        out.append("    if not isinstance(data, dict):")
        out.append("        raise _bad(\"\", \"an object\", data)")
        if hot:
            out.append(f"    self = _new({twin})")
        else:
            out.append(f"    self = _new({c.name})")

        def store(name: str, expr: str, t: T | None = None) -> str:
            if not hot:
                return f"    _set(self, {name!r}, {expr})"
            # Enum values are not enforced: a Literal field may hold any string.
            lit = t is not None and t[0] == "ref" and t[1] in self.m.aliases and \
                self.m.aliases[t[1]].literal
            ignore = "  # type: ignore[assignment, unused-ignore]" if lit else ""
            return f"    self.{name} = {expr}{ignore}"

        n0 = str(len(req))
        if c.disc:
            n0 = f"{n0} + ({c.disc[0]!r} in data)"
        out.append(f"    n = {n0}")

        def field_lines(f: Field, ind: str) -> list[str]:
            """Decode member ``f`` into ``v`` and store it (indented by ``ind``)."""
            lines: list[str] = []
            if f.required:
                lines.append(f"v = data.get({f.json!r}, _MISSING)")
                lines.append("if v is _MISSING:")
                lines.append(f"    raise _missing({f.json!r})")
                default = {"list": "[]", "map": "{}"}.get(f.t[0], "None")
                check = self.check_lines(f.t, f.json, f.doe and f.t[0] == "list", default,
                                         "    " if f.don else "", hot)
                if f.don and check:  # x-deserialize-default-on-null
                    lines += ["if v is None:", f"    v = {default}", "else:", *check]
                else:
                    lines += check
            elif f.patch:
                # Patch semantics: absent stays UNSET, null is None, a malformed
                # value (default-on-error) counts as absent: it changes nothing.
                check = self.check_lines(f.t, f.json, f.doe, "UNSET", "        ", hot)
                lines.append(f"v = data.get({f.json!r}, UNSET)")
                lines.append("if v is not UNSET:")
                lines.append("    n += 1")
                if check:
                    lines.append("    if v is not None:")
                    lines += check
            else:
                lines.append(f"v = data.get({f.json!r})")
                lines.append("if v is not None:")
                lines.append("    n += 1")
                lines += self.check_lines(f.t, f.json, f.doe, "None", "    ", hot)
            lines.append(store(f.name, "v", f.t).strip())
            return [ind + line for line in lines]

        extra = f"_extra(data, {c.name}._wire_keys) if len(data) > n else None"
        opt = [f for f in c.fields if not f.required]
        if hot and opt:
            # Hot classes decode their required members first; when the object
            # has no other member (the streaming common case), the optional
            # fields are stored without a lookup each.
            for f in req:
                out += field_lines(f, "    ")
            out.append("    if len(data) == n:")
            for f in opt:
                out.append("    " + store(f.name, "UNSET" if f.patch else "None", f.t))
            out.append("    " + store("extra", "None"))
            out.append("    else:")
            for f in opt:
                out += field_lines(f, "        ")
            out.append("    " + store("extra", extra))
        else:
            for f in c.fields:
                out += field_lines(f, "    ")
            out.append(store("extra", extra))
        if hot:
            out.append(f"    self.__class__ = {c.name}  # type: ignore[assignment]")
        out.append("    return self")
        return "\n".join(out) + "\n"

    def emit_union(self, u: UnionDef) -> str:
        sn = snake(u.name)
        table = f"_{sn.upper()}_VARIANTS"
        members = [c for _, c in u.variants]
        if u.untagged:
            members.append(u.untagged)
        members.append(u.unknown)
        out = [f"{u.name} = {' | '.join(members)}", f"{doc_literal(u.doc)}", ""]
        pairs = list(u.variants)
        if u.untagged and u.name in UNTAGGED_VALUES:
            pairs.append((UNTAGGED_VALUES[u.name], u.untagged))
        # The public table maps to ``from_wire``; the decoder uses the path-less twin table.
        out.append(f"{table}: dict[str, Callable[[object, str], {u.name}]] = {{")
        out += [f"    {v!r}: {c}.from_wire," for v, c in pairs]
        out.append("}")
        out.append(f"{table}_FW: dict[str, Callable[[object], {u.name}]] = {{")
        out += [f"    {v!r}: {self.fw(c)}," for v, c in pairs]
        out.append("}")
        out.append("")
        out.append("")
        out.append(f"def _fw_{u.name}(data: object) -> {u.name}:")
        out.append("    if not isinstance(data, dict):")
        out.append("        raise _bad(\"\", \"an object\", data)")
        out.append(f"    kind = data.get({u.key!r})")
        out.append("    if isinstance(kind, str):")
        out.append(f"        dec = {table}_FW.get(kind)")
        out.append("        if dec is not None:")
        out.append("            return dec(data)")
        out.append(f"        return {u.unknown}(kind=kind, raw=data)")
        if u.untagged:
            out.append(f"    if {u.key!r} not in data:")
            out.append(f"        return {self.fw(u.untagged)}(data)")
        else:
            out.append("    if kind is None:")
            out.append(f"        raise _missing({u.key!r})")
        out.append(f"    raise _bad({u.key!r}, \"a string\", kind)")
        out.append("")
        out.append("")
        out.append(f"def decode_{sn}(data: object, path: str = \"\") -> {u.name}:")
        out.append(f"    \"\"\"Decode a :data:`{u.name}`, dispatching on ``{u.key}``.")
        out.append("")
        out.append(f"    An unknown ``{u.key}`` value gives :class:`{u.unknown}` (never an error).")
        out.append("")
        out.append("    Raises:")
        out.append("        SchemaError: ``data`` is malformed.")
        out.append("    \"\"\"")
        # The variant table first (one call less on the hot path), the union's
        # decoder for everything else (unknown, untagged and malformed data).
        out += ["    try:",
                f"        kind = data.get({u.key!r}) if type(data) is dict else None",
                f"        dec = {table}_FW.get(kind) if type(kind) is str else None",
                f"        return dec(data) if dec is not None else _fw_{u.name}(data)",
                "    except SchemaError as exc:",
                "        exc._rebase(path)",
                "        raise"]
        return "\n".join(out) + "\n"

    def emit_alias_decoder(self, a: AliasDef) -> str:
        sn = snake(a.name)
        t = a.t
        lines = [f"def _fw_{a.name}(data: object) -> {a.name}:", "    v = data"]
        if t[0] == "union" and all(x[0] in BAD for x in t[1]):
            bad = " and ".join(f"({BAD[x[0]]})" for x in t[1])
            lines.append(f"    if {bad}:")
            lines.append(f"        raise _bad(\"\", {what_of(t)!r}, v)")
            lines.append("    return v  # type: ignore[return-value]")
        else:
            lines.append(f"    value: {a.name} = {self.call(t)}")
            lines.append("    return value")
        lines += ["", "",
                  f"def decode_{sn}(data: object, path: str = \"\") -> {a.name}:",
                  f"    \"\"\"Decode a :data:`{a.name}` ({what_of(t)}).\"\"\""]
        lines += PUBLIC_TRY.replace("NAME", a.name).splitlines()
        return "\n".join(lines) + "\n"


PUBLIC_TRY = """    try:
        return _fw_NAME(data)
    except SchemaError as exc:
        exc._rebase(path)
        raise
"""


def what_of(t: T) -> str:
    k = t[0]
    if k in WHAT:
        return WHAT[k]
    if k == "ref":
        return str(t[1])
    if k == "opt":
        return f"{what_of(t[1])} or null"
    if k == "union":
        return " or ".join(what_of(x) for x in t[1])
    return "a value"


def tuple_lit(items: list[str]) -> str:
    if not items:
        return "()"
    return "(" + ", ".join(repr(i) for i in items) + ("," if len(items) == 1 else "") + ")"


def doc_literal(text: str) -> str:
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').strip() or "(No description.)"
    if text.endswith('"'):
        text += " "
    return f'"""{text}"""'


UNKNOWN_BODY = '''    __slots__ = ("kind", "raw")
    __match_args__ = ("kind", "raw")
    kind: str
    raw: dict[str, Any]

    def __init__(self, *, kind: str, raw: dict[str, Any]) -> None:
        _set(self, "kind", kind)
        _set(self, "raw", raw)

    @classmethod
    def from_wire(cls, data: object, path: str = "") -> NAME:
        """Keep a wire object whose variant is unknown, as it came."""
        if not isinstance(data, dict):
            raise _bad(path, "an object", data)
        self = _new(cls)
        _set(self, "kind", str(data.get(cls._key, "")))
        _set(self, "raw", data)
        return self

    def to_wire(self) -> dict[str, Any]:
        """Return the object as it came."""
        return dict(self.raw)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, NAME):
            return NotImplemented
        return (self.kind, self.raw) == (other.kind, other.raw)
'''

PREAMBLE = '''"""The ACP schema as Python classes (GENERATED by tools/gen_schema.py; do not edit).

Source: ``schema/v1/schema.json`` (ACP schema v{version}). Regenerate with
``python tools/gen_schema.py``; ``--check`` fails when this file is stale.

Every object type is a frozen, slotted class with a keyword-only constructor,
``from_wire(data, path="")`` (validate and decode; raises :class:`SchemaError`)
and ``to_wire()`` (camelCase JSON, ``None`` fields omitted). ``None`` means
"absent or null". Unknown JSON keys are kept in ``extra`` and written back.
Discriminated unions have one class per variant, an ``Unknown<Union>`` class for
values this version does not know, and a ``decode_<union>()`` function. Enum
values are not enforced (an unknown value stays a plain ``str``). A field with
patch semantics is the exception to "None means absent": it holds :data:`UNSET`
when omitted and ``None`` when sent as ``null`` (see :class:`Unset`).
"""

from __future__ import annotations

from acphost.schema._errors import SchemaError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ClassVar, Literal, TypeVar

    _S = TypeVar("_S", bound="_Struct")
    _R = TypeVar("_R")

_MISSING = object()
_set = object.__setattr__
_new = object.__new__


class Unset:
    """The type of :data:`UNSET`: a patch field that was omitted from the wire.

    Some fields have patch semantics (the schema says so, e.g. ``CompactionUpdate``'s
    ``summary``, ``error`` and ``_meta``): omitted leaves the stored value
    unchanged, ``null`` clears it, a value replaces it. Such a field holds
    :data:`UNSET` when omitted and ``None`` when sent as ``null``; ``to_wire()``
    omits it when UNSET and writes ``null`` for None. Test with ``x is UNSET``,
    or ``isinstance(x, Unset)`` to narrow the type. UNSET is falsy.
    """

    __slots__ = ()
    _it: ClassVar[Unset | None] = None

    def __new__(cls) -> Unset:
        if cls._it is None:
            cls._it = object.__new__(cls)
        return cls._it

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "UNSET"


UNSET = Unset()
"""A patch field that was not sent (see :class:`Unset`)."""


def _show(v: object) -> str:
    if v is None:
        return "null"
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, dict):
        return "an object"
    if isinstance(v, list):
        return "an array"
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _bad(path: str, what: str, v: object) -> SchemaError:
    return SchemaError(path, f"expected {what}, got {_show(v)}")


def _missing(key: str) -> SchemaError:
    return SchemaError(key, "missing required field")


def _extra(data: dict[str, Any], known: frozenset[str]) -> dict[str, Any] | None:
    return {k: v for k, v in data.items() if k not in known} or None


# Decoders take the value alone and build no path while it is valid: an error
# is raised with the path relative to that value, and each enclosing level
# prefixes its key or index on the way up (SchemaError._within). The public
# ``from_wire``/``decode_*`` functions add the caller's base path at the end.
# The primitive checks also serve DECODERS, which passes a path.

def _str(v: object, path: str = "") -> str:
    if not isinstance(v, str):
        raise _bad(path, "a string", v)
    return v


def _int(v: object, path: str = "") -> int:
    if not isinstance(v, int) or v is True or v is False:
        raise _bad(path, "an integer", v)
    return v


def _float(v: object, path: str = "") -> float:
    if not isinstance(v, (int, float)) or v is True or v is False:
        raise _bad(path, "a number", v)
    return v


def _bool(v: object, path: str = "") -> bool:
    if v is not True and v is not False:
        raise _bad(path, "a boolean", v)
    return v


def _dict(v: object, path: str = "") -> dict[str, Any]:
    if not isinstance(v, dict):
        raise _bad(path, "an object", v)
    return v


def _null(v: object, path: str = "") -> None:
    if v is not None:
        raise _bad(path, "null", v)


def _any(v: Any, path: str = "") -> Any:
    return v


def _list(v: object, item: Callable[[object], _R], skip: bool) -> list[_R]:
    # x-deserialize-skip-invalid-items: an invalid item is dropped, not an error.
    if not isinstance(v, list):
        raise _bad("", "an array", v)
    out: list[_R] = []
    for i, x in enumerate(v):
        try:
            out.append(item(x))
        except SchemaError as exc:
            if not skip:
                exc._within(i)
                raise
    return out


def _map(v: object, item: Callable[[object], _R]) -> dict[str, _R]:
    if not isinstance(v, dict):
        raise _bad("", "an object", v)
    out: dict[str, _R] = {}
    for k, x in v.items():
        try:
            out[k] = item(x)
        except SchemaError as exc:
            exc._within(k)
            raise
    return out


def _first(v: object, decoders: tuple[Callable[[object], Any], ...], what: str) -> Any:
    # Untagged union: the first alternative that decodes wins, in schema order.
    for dec in decoders:
        try:
            return dec(v)
        except SchemaError:
            pass
    raise _bad("", what, v)


def _to_json(v: Any) -> Any:
    if isinstance(v, _Struct):
        return v.to_wire()  # type: ignore[attr-defined]
    if isinstance(v, list):
        return [_to_json(x) for x in v]
    return v


class _Struct:
    """Base of the generated classes: frozen, compared by value, unhashable."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()
    __hash__ = None  # type: ignore[assignment]
    _patch: ClassVar[frozenset[str]] = frozenset()  # fields where None means "sent as null"

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(
            f"{self.__class__.__name__} is immutable; use .replace({name}=...) for a changed copy"
        )

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{self.__class__.__name__} is immutable")

    def __repr__(self) -> str:
        parts = []
        for name in (*self.__match_args__, "extra"):
            value = getattr(self, name, None)
            if value is not UNSET and (value is not None or name in self._patch):
                parts.append(f"{name}={value!r}")
        return f"{self.__class__.__name__}({', '.join(parts)})"

    def __reduce__(self) -> tuple[Any, ...]:
        names = (*self.__match_args__, "extra")
        return (_restore, (self.__class__, {n: getattr(self, n, None) for n in names}))

    def replace(self: _S, **changes: Any) -> _S:
        """Return a copy with the given fields (Python names) changed."""
        kwargs = {n: getattr(self, n) for n in self.__match_args__}
        if hasattr(self, "extra"):
            kwargs["extra"] = getattr(self, "extra")
        kwargs.update(changes)
        cls: Any = self.__class__
        return cls(**kwargs)  # type: ignore[no-any-return]


def _restore(cls: Any, state: dict[str, Any]) -> Any:
    obj = _new(cls)
    for name, value in state.items():
        if name in cls.__slots__:
            _set(obj, name, value)
    return obj
'''


UNSTABLE_PREAMBLE = '''"""The unstable ACP schema as Python classes (GENERATED; do not edit).

Source: ``schema/v1/schema.unstable.json`` (ACP schema v{version}), through
``tools/gen_schema.py``; ``--check`` fails when this file is stale. These types are
**unstable**: the protocol may change or drop them in any release, and a client
uses them only when it opted in (``unstable=True``). A type the unstable schema
defines exactly as the stable one is the stable class itself (imported from
:mod:`acphost.schema`), so ``isinstance`` checks work across both; a type it
extends (``ClientCapabilities``, ``SessionUpdate``, ``NewSessionRequest``, ...) is
a separate class here, and the stable class never carries its unstable fields.
The classes follow the rules of :mod:`acphost.schema._types`.
"""

# ruff: noqa
from __future__ import annotations

from acphost.schema import _types as _t
from acphost.schema._errors import SchemaError
from acphost.schema._types import (
    _MISSING,
    UNSET,
    Unset,
    _any,
    _bad,
    _bool,
    _dict,
    _extra,
    _first,
    _float,
    _int,
    _list,
    _map,
    _missing,
    _new,
    _null,
    _set,
    _str,
    _Struct,
    _to_json,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, ClassVar, Literal
'''


def signature(m: Model, name: str) -> tuple[Any, ...] | None:
    """What makes two models define ``name`` the same way (descriptions aside)."""
    if name in m.classes:
        c = m.classes[name]
        return ("class", tuple((f.json, f.name, f.t, f.required, f.doe, f.don, f.patch)
                               for f in c.fields), c.disc, c.unknown_of)
    if name in m.unions:
        u = m.unions[name]
        return ("union", u.key, tuple(u.variants), u.untagged, u.unknown)
    if name in m.aliases:
        a = m.aliases[name]
        return ("alias", a.t, a.ann, a.runtime, a.decoder, a.literal)
    return None


def refs_of(m: Model, name: str) -> set[str]:
    """The names ``name`` refers to (field types, union members, alias targets)."""
    out: set[str] = set()

    def walk(t: T) -> None:
        if t[0] == "ref":
            out.add(t[1])
        elif t[0] in ("list", "map", "opt"):
            walk(t[1])
        elif t[0] == "union":
            for x in t[1]:
                walk(x)

    if name in m.classes:
        for f in m.classes[name].fields:
            walk(f.t)
    elif name in m.unions:
        u = m.unions[name]
        out |= {c for _, c in u.variants} | {u.unknown} | ({u.untagged} if u.untagged else set())
    elif name in m.aliases:
        walk(m.aliases[name].t)
    return out


def shared_names(stable: Model, unstable: Model) -> frozenset[str]:
    """Names the unstable model defines exactly as the stable one, with all they use."""
    names = {n for n in (*unstable.classes, *unstable.unions, *unstable.aliases)
             if signature(stable, n) is not None
             and signature(stable, n) == signature(unstable, n)}
    changed = True
    while changed:  # greatest fixpoint: drop a name that uses a changed one
        changed = False
        for n in sorted(names):
            if not refs_of(unstable, n) <= names:
                names.discard(n)
                changed = True
    return frozenset(names)


def generate_types(model: Model, version: str, *, shared: frozenset[str] = frozenset(),
                   unstable: bool = False) -> str:
    em = Emitter(model, () if unstable else HOT_ROOTS, shared)
    preamble = UNSTABLE_PREAMBLE if unstable else PREAMBLE
    parts: list[str] = [preamble.replace("{version}", version)]
    if shared:
        imported = set(shared)
        imported |= {f"decode_{snake(n)}" for n in shared if n in model.unions
                     or (n in model.aliases and model.aliases[n].decoder)}
        parts.append("from acphost.schema._types import (\n"
                     + "".join(f"    {n},\n" for n in sorted(imported)) + ")\n")
    # aliases: runtime-simple ones now, typing-only forms under TYPE_CHECKING
    aliases = [model.aliases[n] for n in model.order if n in model.aliases and n not in shared]
    tc = ["if TYPE_CHECKING:"]
    rt = ["else:"]
    plain: list[str] = []
    late: list[str] = []  # aliases naming classes: after the classes
    for a in aliases:
        if a.literal or a.ann == "Any":
            tc.append(f"    {a.name} = {a.ann}")
            rt.append(f"    {a.name} = {a.runtime}")
        elif a.t[0] in ("str", "int", "float", "bool"):
            plain.append(f"{a.name} = {a.runtime}\n{doc_literal(a.doc)}")
        else:
            late.append(f"{a.name} = {a.runtime}\n{doc_literal(a.doc)}\n")
    if len(tc) > 1:
        parts.append("\n".join(tc) + "\n" + "\n".join(rt) + "\n")
    if plain:
        parts.append("\n".join(plain) + "\n")
    body: list[str] = []
    unions: list[str] = []
    for name in model.order:
        if name in shared:
            continue
        if name in model.classes:
            c = model.classes[name]
            code = em.emit_class(c)
            if c.unknown_of:
                key = model.unions[c.unknown_of].key
                code = code.replace("cls._key", repr(key))
            body.append(code)
        elif name in model.unions:
            unions.append(em.emit_union(model.unions[name]))
    decoders = [em.emit_alias_decoder(a) for a in aliases if a.decoder]
    parts += body
    parts += late
    parts += unions
    parts += decoders
    # DECODERS: def name -> callable(data, path)
    rows = []
    for name in model.defs:
        rows.append(f"    {name!r}: {em.pub_fn(name)},")
    parts += [h + "\n" for h in em.helper_code]
    parts.append("DECODERS: dict[str, Callable[[object, str], Any]] = {\n"
                 + "\n".join(rows) + "\n}\n"
                 '"""Schema ``$defs`` name -> ``decode(data, path="")`` for that type."""\n')
    every = [a.name for a in model.aliases.values()]
    names = [n for n in model.order
             if n in model.classes or n in model.unions or n in model.aliases]
    names += [f"decode_{snake(n)}" for n in model.order if n in model.unions]
    names += [f"decode_{snake(n)}" for n in every if model.aliases[n].decoder]
    names += ["DECODERS", "UNSET", "Unset"]
    all_ = "__all__ = [\n" + "".join(f"    {n!r},\n" for n in sorted(set(names))) + "]\n"
    head, rest = parts[0], parts[1:]
    text = head + "\n" + all_ + "\n\n" + "\n\n".join(p.rstrip("\n") + "\n" for p in rest)
    return text


def methods_of(schema: dict[str, Any]) -> dict[tuple[str, str], dict[str, str]]:
    """(x-side, x-method) -> {"params" | "result" | "notification": def name}."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for name, s in schema["$defs"].items():
        wire = s.get("x-method")
        if not wire:
            continue
        role = ("result" if name.endswith("Response") else
                "notification" if name.endswith("Notification") else "params")
        slot = out.setdefault((s["x-side"], wire), {})
        if role in slot:
            raise SystemExit(f"{wire}: two {role} types ({slot[role]}, {name})")
        slot[role] = name
    return out


def const_name(wire: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", wire).strip("_").upper()


SIDES = (("agent", "AGENT", "Methods the agent handles (the client calls them)."),
         ("client", "CLIENT", "Methods the client handles (the agent calls them)."),
         ("protocol", "PROTOCOL", "Protocol-level methods either side may send."),
         ("proxy", "PROXY", "Methods between a conductor and its proxies."))


def generate_methods(schema: dict[str, Any], schema_unstable: dict[str, Any],
                     meta: dict[str, Any]) -> str:
    stable = methods_of(schema)
    unstable = methods_of(schema_unstable)
    group_side = {"agentMethods": "agent", "clientMethods": "client",
                  "protocolMethods": "protocol"}
    # meta.json gives the stable constant names; x-method is authoritative: both must agree
    meta_wires = {(group_side[g], w) for g in group_side for w in meta[g].values()}
    if meta_wires != set(stable):
        raise SystemExit(f"meta.json and x-method disagree: {sorted(meta_wires ^ set(stable))}")
    out = ['"""ACP wire method names (GENERATED by tools/gen_schema.py; do not edit).',
           "",
           "Stable names come from ``meta.json`` (checked against the ``x-method`` annotations of",
           "``schema.json``); unstable names from the ``x-method`` annotations of",
           "``schema.unstable.json``. Regenerate with ``python tools/gen_schema.py``.",
           "",
           "Each table maps a wire name to (params class name, result class name or None for a",
           "notification). Stable names are attributes of :mod:`acphost.schema`. The",
           "``UNSTABLE_*`` names and tables are **unstable** methods: send or answer them only",
           "when the user opted in; their classes are in :mod:`acphost.schema.unstable`.",
           '"""', "", "from __future__ import annotations", ""]
    consts: list[tuple[str, str]] = []
    for group in ("agentMethods", "clientMethods", "protocolMethods"):
        for key, wire in meta[group].items():
            consts.append((key.upper(), wire))
    stable_wires = {w for _, w in stable}
    ustable_wires = sorted({w for _, w in unstable if w not in stable_wires})
    uconsts = [(f"UNSTABLE_{const_name(w)}", w) for w in ustable_wires]
    tables = [f"{tag}_METHODS" for side, tag, _ in SIDES if side != "proxy"]
    utables = [f"UNSTABLE_{tag}_METHODS" for _, tag, _ in SIDES]
    names = [c for c, _ in consts] + [c for c, _ in uconsts] + tables + utables + [
        "ERROR_CODES", "PROTOCOL_VERSION", "UNSTABLE_NOTIFICATION_FORMS"]
    out.append("__all__ = [")
    out += [f"    {n!r}," for n in sorted(names)]
    out.append("]")
    out.append("")
    out.append(f"PROTOCOL_VERSION = {int(meta['version'])}")
    out.append('"""The protocol version this schema describes (``initialize.protocolVersion``)."""')
    out.append("")
    for c, wire in consts:
        out.append(f"{c} = {wire!r}")
    const_of = {wire: c for c, wire in consts}
    for side, tag, doc in SIDES:
        if side == "proxy":
            continue
        out.append("")
        out.append(f"{tag}_METHODS: dict[str, tuple[str, str | None]] = {{")
        group = next(g for g, sd in group_side.items() if sd == side)
        for wire in meta[group].values():
            entry = stable[(side, wire)]
            params = entry.get("params") or entry.get("notification")
            if params is None:
                raise SystemExit(f"no params type for method {wire}")
            out.append(f"    {const_of[wire]}: ({params!r}, {entry.get('result')!r}),")
        out.append("}")
        out.append(f'"""{doc}"""')
    out.append("")
    out.append("# Unstable methods (schema.unstable.json): opt-in only.")
    for c, wire in uconsts:
        out.append(f"{c} = {wire!r}")
        out.append('"""Unstable: only with the user\'s opt-in."""')
    uconst_of = {wire: c for c, wire in uconsts}
    forms: dict[str, str] = {}
    for side, tag, doc in SIDES:
        out.append("")
        out.append(f"UNSTABLE_{tag}_METHODS: dict[str, tuple[str, str | None]] = {{")
        for (sd, wire), entry in unstable.items():
            if sd != side or wire in stable_wires:
                continue
            params = entry.get("params") or entry.get("notification")
            if params is None:
                raise SystemExit(f"no params type for method {wire}")
            if "params" in entry and "notification" in entry:
                forms[wire] = entry["notification"]
            out.append(f"    {uconst_of[wire]}: ({params!r}, {entry.get('result')!r}),")
        out.append("}")
        out.append(f'"""Unstable: {doc[0].lower()}{doc[1:]}"""')
    out.append("")
    out.append("UNSTABLE_NOTIFICATION_FORMS: dict[str, str] = {")
    out += [f"    {uconst_of[w]}: {n!r}," for w, n in sorted(forms.items())]
    out.append("}")
    out.append('"""Unstable methods that also travel as a notification -> its params class."""')
    out.append("")
    codes = [(a["const"], a.get("title", "")) for a in schema["$defs"]["ErrorCode"]["anyOf"]
             if "const" in a]
    out.append("ERROR_CODES: dict[int, str] = {")
    out += [f"    {code}: {title!r}," for code, title in codes]
    out.append("}")
    out.append('"""The error codes the schema defines (``ErrorCode``) -> their titles."""')
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# The strict decoder (``_strict.py``): msgspec mirrors of the classes under
# STRICT_ROOT, which decode a whole notification line from bytes. It accepts
# only what the Python decoders accept *and* decode to the same value with no
# leniency used: unknown members are forbidden (no ``extra``), unknown variants
# and malformed values raise, and the caller then takes the Python path, which
# keeps ``extra``, ``Unknown*`` variants and the lenient fields exactly.

#: The notification decoded from bytes, and the classes under it that get mirrors.
STRICT_ROOT = "SessionNotification"
#: Union -> the variant whose conversion is written out inline where a required
#: field holds the union (the streaming common case: a chunk's text block).
STRICT_INLINE = {"ContentBlock": "TextContentBlock", "SessionUpdate": "AgentMessageChunk"}

STRICT_PREAMBLE = '''"""Strict decoding of ``session/update`` lines (GENERATED; do not edit).

Generated by ``tools/gen_schema.py`` from ``schema/v1/schema.json`` (ACP schema
v{version}); ``--check`` fails when this file is stale.

:func:`decode_update_line` reads one JSON-RPC ``session/update`` notification
frame (the bytes of one line) straight into the classes of
:mod:`acphost.schema`, through msgspec mirrors of them (``_M*`` below). It is
strict: an unknown member anywhere, an unknown variant, a ``null`` or a value
of the wrong type (even where the schema is lenient), a field with patch
semantics, an integer beyond 64 bits: each makes it raise, and the caller
decodes the frame the general way (``orjson`` and the generated decoders),
which keeps unknown members in ``extra``, unknown variants as ``Unknown*`` and
the lenient fields' defaults. Whatever it returns equals what that way gives.

Members holding arbitrary JSON (``_meta``, ``rawInput``...) are kept as raw
bytes by msgspec and parsed by orjson, so their numbers come out exactly as
the general way's (orjson reads integers beyond 64 bits as floats; msgspec
would keep them whole). Types msgspec cannot tell apart by their JSON (an
untagged union of objects) are decoded from their raw bytes by the generated
decoder. Nesting: msgspec gives up at Python's recursion limit, before
orjson's 1024 levels with the default limit, so a frame too deep for one path
is too deep for both.

This module imports msgspec: only the client loads it, never
``import acphost.schema``.
"""

# ruff: noqa
# No ``from __future__ import annotations``: msgspec would resolve every
# annotation string when the decoder is built; the mirrors are defined each
# after those it uses, so the annotations are plain objects (half the import).
from typing import Annotated, Any, Literal, Optional, Union

import msgspec
import orjson

from acphost.schema import _types as _t

__all__ = ["STRICT_VARIANTS", "decode_update_line", "decode_update_lines"]

_Raw = msgspec.Raw
_NO_RAW = msgspec.Raw()
_Int = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
# int first: a JSON integer stays an int, as the generated decoders keep it.
_Num = Union[_Int, float]
_new = object.__new__
_loads = orjson.loads


def _opt(raw: Any, dec: Any) -> Any:
    # A present optional member: null is None, anything else must decode.
    v = _loads(memoryview(raw))
    return None if v is None else dec(v)


def _req(raw: Any, dec: Any) -> Any:
    return dec(_loads(memoryview(raw)))


def _obj(v: Any) -> dict[str, Any]:
    if type(v) is not dict:
        raise ValueError("expected an object")
    return v
'''


class StrictEmitter:
    """Mirror structs and their converters, for ``_strict.py``."""

    def __init__(self, em: Emitter) -> None:
        self.em = em
        self.m = em.m
        self.ok: dict[str, bool] = {}
        self.order: list[str] = []  # mirrored classes, each after those it uses
        self.visiting: set[str] = set()

    # -- what can be mirrored -------------------------------------------------
    def mirrored(self, name: str) -> bool:
        """Whether class ``name`` gets a mirror (its fields all map; no patch fields)."""
        if name in self.ok:
            return self.ok[name]
        if name in self.visiting:
            raise SystemExit(f"{name}: recursive types are not mirrored; exclude them")
        c = self.m.classes[name]
        self.visiting.add(name)
        ok = (c.unknown_of is None and not any(f.patch for f in c.fields)
              and all(self.ann(f.t) is not None for f in c.fields))
        self.visiting.discard(name)
        self.ok[name] = ok
        if ok:
            self.order.append(name)
        return ok

    def variants(self, union: str) -> list[tuple[str, str]]:
        u = self.m.unions[union]
        return [(v, c) for v, c in u.variants if self.mirrored(c)]

    # -- mirror annotations and conversions ----------------------------------------
    def ann(self, t: T) -> str | None:
        """The msgspec annotation of ``t``; ``_Raw`` for raw JSON; None: cannot map."""
        t = self.em.leaf(t)
        k = t[0]
        simple = {"str": "str", "int": "_Int", "float": "_Num", "bool": "bool", "null": "None",
                  "any": "_Raw", "dict": "_Raw"}
        if k in simple:
            return simple[k]
        if k == "opt":
            inner = self.ann(t[1])
            return None if inner is None else inner if inner == "_Raw" else f"Optional[{inner}]"
        if k in ("list", "map"):
            inner = self.ann(t[1])
            if inner is None:
                return None
            return f"list[{inner}]" if k == "list" else f"dict[str, {inner}]"
        if k == "ref":
            name = t[1]
            if name in self.m.classes:
                return f"_M{name}" if self.mirrored(name) else "_Raw"
            if name in self.m.unions:
                vs = self.variants(name)
                if not vs:
                    return "_Raw"
                return f"_M{vs[0][1]}" if len(vs) == 1 else \
                    "Union[" + ", ".join(f"_M{c}" for _, c in vs) + "]"
            return "_Raw"  # a decoder alias (an untagged union): the generated decoder
        return None  # an inline untagged union: the class is not mirrored

    def raw_dec(self, t: T) -> str | None:
        """For a raw member of type ``t``: the decoder of its parsed JSON (None: as is)."""
        t = self.em.leaf(t)
        if t[0] == "opt":
            t = self.em.leaf(t[1])
        if t[0] == "any":
            return None
        if t[0] == "dict":
            return "_obj"
        return f"_t._fw_{t[1]}"

    def conv(self, t: T, e: str) -> str | None:
        """Converting the mirror value ``e`` (never raw) to the public one; None: as is."""
        t = self.em.leaf(t)
        k = t[0]
        if k == "opt":
            inner = self.conv(t[1], e)
            if self.ann(t[1]) == "_Raw":
                return self.raw_conv(t[1], e, optional=True)
            return None if inner is None else f"(None if {e} is None else {inner})"
        if self.ann(t) == "_Raw":
            return self.raw_conv(t, e, optional=False)
        if k in ("list", "map"):
            inner = self.conv(t[1], "x")
            if inner is None:
                return None
            return (f"[{inner} for x in {e}]" if k == "list"
                    else f"{{k: {inner} for k, x in {e}.items()}}")
        if k == "ref" and t[1] in self.m.classes:
            return f"_cv_{t[1]}({e})"
        if k == "ref" and t[1] in self.m.unions:
            return f"_CONVERT[type({e})]({e})"
        return None

    def raw_conv(self, t: T, e: str, *, optional: bool) -> str:
        # An absent optional member is an empty Raw: tested inline, no call.
        dec = self.raw_dec(t)
        if dec is None:
            return f"(_loads(memoryview({e})) if {e} else None)"
        return f"(_opt({e}, {dec}) if {e} else None)" if optional else f"_req({e}, {dec})"

    # -- code -------------------------------------------------------------------
    def emit_mirror(self, name: str) -> str:
        c = self.m.classes[name]
        opts = "forbid_unknown_fields=True, kw_only=True, gc=False"
        if c.disc:
            opts += f", tag_field={c.disc[0]!r}, tag={c.disc[2]!r}"
        out = [f"class _M{name}(msgspec.Struct, {opts}):"]
        for f in c.fields:
            a = self.ann(f.t)
            assert a is not None
            rename = "" if f.json == f.name else f", name={f.json!r}"
            if f.required:
                line = f"    {f.name}: {a}" + (f" = msgspec.field(name={f.json!r})"
                                                if rename else "")
            elif a == "_Raw":
                line = f"    {f.name}: _Raw = msgspec.field(default=_NO_RAW{rename})"
            else:
                ann = a if a.startswith("Optional[") else f"Optional[{a}]"
                line = f"    {f.name}: {ann} = " + (f"msgspec.field(default=None{rename})"
                                                   if rename else "None")
            out.append(line)
        if not c.fields:
            out.append("    pass")
        return "\n".join(out) + "\n"

    def build(self, name: str, m: str, o: str, ind: str) -> list[str]:
        """Lines building the public ``name`` as ``o`` from its mirror ``m``."""
        c = self.m.classes[name]
        out = [f"{ind}{o}: Any = _new(_t._{name}W)"]
        for f in c.fields:
            t: T = f.t if f.required else ("opt", f.t)
            leaf = self.em.leaf(f.t)
            inline = STRICT_INLINE.get(leaf[1]) if leaf[0] == "ref" else None
            if f.required and inline is not None and self.mirrored(inline):
                # The streaming common case of a union, built here: no call.
                v = f"v_{f.name}"
                out.append(f"{ind}{v} = {m}.{f.name}")
                out.append(f"{ind}if type({v}) is _M{inline}:")
                out += self.build(inline, v, f"{o}_{f.name}", ind + "    ")
                out.append(f"{ind}    {o}.{f.name} = {o}_{f.name}")
                out.append(f"{ind}else:")
                out.append(f"{ind}    {o}.{f.name} = _CONVERT[type({v})]({v})")
                continue
            e = self.conv(t, f"{m}.{f.name}")
            out.append(f"{ind}{o}.{f.name} = {e or f'{m}.{f.name}'}")
        out.append(f"{ind}{o}.extra = None")
        out.append(f"{ind}{o}.__class__ = _t.{name}")
        return out

    def emit_converter(self, name: str) -> str:
        out = [f"def _cv_{name}(m: Any) -> _t.{name}:",
               *self.build(name, "m", "o", "    "),
               "    return o  # type: ignore[no-any-return]"]
        return "\n".join(out) + "\n"


def generate_strict(model: Model, schema: dict[str, Any], version: str) -> str:
    em = Emitter(model)
    se = StrictEmitter(em)
    root = model.classes[STRICT_ROOT]
    method = schema["$defs"][STRICT_ROOT]["x-method"]
    update = next(f for f in root.fields if f.json == "update")
    union = model.unions[update.t[1]]
    if not se.mirrored(STRICT_ROOT):
        raise SystemExit(f"{STRICT_ROOT} cannot be mirrored")
    missing = [c for c in se.order if c not in em.hot]
    if missing:  # the converters build through the hot classes' twins
        raise SystemExit(f"mirrored classes without a twin: {missing}")
    parts = [STRICT_PREAMBLE.replace("{version}", version)]
    parts += [se.emit_mirror(n) for n in se.order]
    parts.append(
        "class _MFrame(msgspec.Struct, forbid_unknown_fields=True, kw_only=True, gc=False):\n"
        f"    \"\"\"A ``{method}`` notification (no ``id``).\n\n"
        "    The core does not read ``jsonrpc``; another value than 2.0 (or none) is left\n"
        "    to the general way all the same: a string compared in place is cheaper than\n"
        "    a raw value made for every frame.\n"
        "    \"\"\"\n\n"
        f"    method: Literal[{method!r}]\n"
        f"    params: _M{STRICT_ROOT}\n"
        "    jsonrpc: Literal['2.0']\n")
    parts += [se.emit_converter(n) for n in se.order if n != STRICT_ROOT]
    rows = "".join(f"    _M{n}: _cv_{n},\n" for n in se.order if n != STRICT_ROOT)
    parts.append("_CONVERT: dict[type, Any] = {\n" + rows + "}\n")
    # The loop of decode_update_lines builds the streaming common case inline.
    hot = STRICT_INLINE[union.name]
    hot_update = "".join(
        f"{line}\n" for line in [
            f"        if type(m) is _M{hot}:",
            *se.build(hot, "m", "o", "            "),
            "            append((params.session_id, o))",
            "        else:",
            "            append((params.session_id, _CONVERT[type(m)](m)))"])
    covered = sorted(v for v, _ in se.variants(union.name))
    parts.append(
        "#: The ``" + union.key + "`` values :func:`decode_update_line` decodes (others raise).\n"
        "STRICT_VARIANTS = frozenset(" + tuple_lit(covered) + ")\n")
    parts.append(
        "_decoder = msgspec.json.Decoder(_MFrame)\n"
        "_decode = _decoder.decode\n"
        "_decode_lines = _decoder.decode_lines\n\n\n"
        "def decode_update_line(line: bytes | memoryview) -> tuple[str, _t." + union.name + "]:\n"
        f"    \"\"\"Decode one ``{method}`` frame strictly: ``(sessionId, update)``.\n\n"
        "    Raises:\n"
        "        Exception: anything else, or anything the general decoding would treat\n"
        "            leniently (a ValueError from msgspec, orjson or a check; a\n"
        "            SchemaError; a RecursionError for deep nesting).\n"
        "    \"\"\"\n"
        "    params = _decode(line).params\n"
        "    update = params.update\n"
        "    return params.session_id, _CONVERT[type(update)](update)\n\n\n"
        "def decode_update_lines(block: bytes | memoryview) -> list[tuple[str, _t."
        + union.name + "]]:\n"
        f"    \"\"\"Decode a block of ``{method}`` lines (blank ones skipped), all or nothing.\n\n"
        "    Returns:\n"
        "        ``(sessionId, update)`` for each line, in order.\n\n"
        "    Raises:\n"
        "        Exception: a line :func:`decode_update_line` would refuse.\n"
        "    \"\"\"\n"
        "    out: list[tuple[str, _t." + union.name + "]] = []\n"
        "    append = out.append\n"
        "    for frame in _decode_lines(block):\n"
        "        params = frame.params\n"
        "        m = params.update\n"
        + hot_update +
        "    return out\n")
    return "\n\n".join(p.rstrip("\n") + "\n" for p in parts)


def schema_version() -> str:
    text = (SCHEMA_DIR / "SOURCE.md").read_text(encoding="utf-8")
    m = re.search(r"^Schema version: (\d+\.\d+\.\d+)$", text, re.M)
    if not m:
        raise SystemExit("SOURCE.md has no 'Schema version: X.Y.Z' line")
    return m.group(1)


def render() -> dict[Path, str]:
    schema = json.loads((SCHEMA_DIR / "schema.json").read_text(encoding="utf-8"))
    unstable = json.loads((SCHEMA_DIR / "schema.unstable.json").read_text(encoding="utf-8"))
    meta = json.loads((SCHEMA_DIR / "meta.json").read_text(encoding="utf-8"))
    model = Builder(schema).build()
    umodel = Builder(unstable).build()
    version = schema_version()
    return {
        TYPES_OUT: generate_types(model, version),
        UNSTABLE_OUT: generate_types(umodel, version, shared=shared_names(model, umodel),
                                     unstable=True),
        METHODS_OUT: generate_methods(schema, unstable, meta),
        STRICT_OUT: generate_strict(model, schema, version),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the generated files are out of date")
    args = parser.parse_args(argv)
    stale = []
    for path, text in render().items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            stale.append(path)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    if args.check and stale:
        for path in stale:
            print(f"stale: {path.relative_to(ROOT)} (run tools/gen_schema.py)", file=sys.stderr)
        return 1
    for path in stale:
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
