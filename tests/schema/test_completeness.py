import hashlib
import importlib.util
import json
import os
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

import acphost.schema as s
from acphost.errors import RequestError
from acphost.schema import unstable


def _load(name):
    text = resources.files("acphost.schema").joinpath(f"v1/{name}").read_text(encoding="utf-8")
    return json.loads(text)


SCHEMA = _load("schema.json")
UNSTABLE = _load("schema.unstable.json")
DEFS = SCHEMA["$defs"]
UDEFS = UNSTABLE["$defs"]
SRC = Path(s.__file__).resolve().parents[1]
V1 = Path(s.__file__).resolve().parent / "v1"


def _variants(defs, union):
    alts = defs[union].get("oneOf") or defs[union]["anyOf"]
    return [a["properties"]["sessionUpdate"]["const"] for a in alts if "not" not in a]


def test_every_session_update_maps_to_a_class():
    values = _variants(DEFS, "SessionUpdate")
    for value in values:
        cls = s._types._SESSION_UPDATE_VARIANTS[value].__self__
        assert cls.session_update == value
        assert cls.__name__ in s.__all__
        # A chunk's text is data (``print(update.text)``); how the others read is
        # the view model's (acphost.view.update_text), not the wire type's.
        assert isinstance(getattr(cls, "text", None), property) == value.endswith("_chunk"), cls
    assert set(values) == set(s._types._SESSION_UPDATE_VARIANTS)
    assert {"notice", "compaction_update", "compaction_summary_chunk"} <= set(values)


def test_every_unstable_session_update_maps_to_a_class():
    values = _variants(UDEFS, "SessionUpdate")
    table = unstable._unstable._SESSION_UPDATE_VARIANTS
    assert set(values) == set(table)
    for value in values:
        cls = table[value].__self__
        assert cls.session_update == value
        assert getattr(unstable, cls.__name__) is cls
        assert isinstance(getattr(cls, "text", None), property) == value.endswith("_chunk"), cls
    # the variants both schemas define are the stable classes themselves
    for value in _variants(DEFS, "SessionUpdate"):
        assert table[value].__self__ is s._types._SESSION_UPDATE_VARIANTS[value].__self__


def test_every_error_code_maps_to_a_class():
    codes = [a["const"] for a in DEFS["ErrorCode"]["anyOf"] if "const" in a]
    assert list(s.ERROR_CODES) == codes
    assert [a["const"] for a in UDEFS["ErrorCode"]["anyOf"] if "const" in a] == codes
    for code in codes:
        err = RequestError.from_wire({"code": code, "message": "m"})
        assert type(err) is not RequestError, code
        assert err.code == code


def test_every_def_has_a_generated_name():
    missing = [name for name in DEFS if not hasattr(s, name)]
    assert missing == []
    assert set(DEFS) <= set(s.__all__)
    assert set(DEFS) == set(s.DECODERS)


def test_every_unstable_def_has_a_decoder():
    assert set(UDEFS) == set(unstable.DECODERS)
    # a def is a name of the unstable module, except a payload a variant replaced
    renamed = {"PlanUpdate": unstable.PlanContentUpdate}
    for name in UDEFS:
        if name in renamed:
            assert unstable.DECODERS[name].__self__ is renamed[name]
        else:
            assert hasattr(unstable, name), name


def _x_methods(defs):
    out = set()
    for name, d in defs.items():
        if "x-method" in d:
            out.add((d["x-side"], d["x-method"], name))
    return out


def test_method_tables_match_the_x_method_annotations():
    tables = {"agent": s.AGENT_METHODS, "client": s.CLIENT_METHODS,
              "protocol": s.PROTOCOL_METHODS}
    for side, wire, name in _x_methods(DEFS):
        assert name in tables[side][wire], (side, wire, name)
    stable_wires = {wire for _, wire, _ in _x_methods(DEFS)}
    utables = {"agent": s.UNSTABLE_AGENT_METHODS, "client": s.UNSTABLE_CLIENT_METHODS,
               "protocol": s.UNSTABLE_PROTOCOL_METHODS, "proxy": s.UNSTABLE_PROXY_METHODS}
    for side, wire, name in _x_methods(UDEFS):
        if wire in stable_wires:
            assert wire not in utables[side]
            continue
        entry = utables[side][wire]
        assert name in entry or s.UNSTABLE_NOTIFICATION_FORMS.get(wire) == name, (wire, name)
        for cls in entry:
            assert cls is None or cls in unstable.DECODERS
        # the constant names the wire method, marked unstable
        const = "UNSTABLE_" + re.sub(r"[^A-Za-z0-9]+", "_", wire).upper()
        assert getattr(s, const) == wire
    for wire in ("session/fork", "session/set_title", "session/status", "session/archive",
                 "session/unarchive", "auth/status"):
        assert wire in s.UNSTABLE_AGENT_METHODS
    assert s.UNSTABLE_AUTH_STATUS_UPDATE in s.UNSTABLE_CLIENT_METHODS
    assert s.UNSTABLE_CLIENT_METHODS[s.UNSTABLE_AUTH_STATUS_UPDATE] == (
        "AuthStatusUpdateNotification", None)
    # no unstable method hides in a stable table
    for table in tables.values():
        assert set(table) <= stable_wires


def _property_names(node):
    """Every member name declared anywhere in a schema."""
    out = set()
    if isinstance(node, dict):
        props = node.get("properties")
        if isinstance(props, dict):
            out |= set(props)
        for value in node.values():
            out |= _property_names(value)
    elif isinstance(node, list):
        for value in node:
            out |= _property_names(value)
    return out


def test_stable_classes_carry_only_stable_fields():
    # The stable classes read and write only members schema.json declares: the
    # members only schema.unstable.json has never leak into them.
    stable = _property_names(SCHEMA)
    unstable_only = _property_names(UNSTABLE) - stable
    assert {"systemPrompt", "archived", "subagents", "usage"} <= unstable_only
    for name in s.__all__:
        cls = getattr(s, name)
        if isinstance(cls, type) and hasattr(cls, "_wire_keys"):
            assert cls._wire_keys <= stable, name
            assert not cls._wire_keys & unstable_only, name
    assert "plan" not in s.ClientCapabilities._wire_keys
    assert "systemPrompt" not in s.NewSessionRequest._wire_keys
    assert "usage" not in s.PromptResponse._wire_keys
    assert "fork" not in s.SessionCapabilities._wire_keys
    assert {"plan", "subagents"} <= unstable.ClientCapabilities._wire_keys
    assert {"fork", "archive", "status", "title"} <= unstable.SessionCapabilities._wire_keys


def test_patch_fields_follow_the_schema():
    assert s.CompactionUpdate._patch == {"summary", "error", "meta"}
    assert "patch semantics" in DEFS["CompactionUpdate"]["description"]
    assert s.Notice._patch == frozenset()
    assert unstable.SessionMessage._patch == {
        "sender_session_id", "recipient_session_id", "sender_message_id",
        "recipient_message_id", "content", "meta"}


def test_all_is_exported():
    for name in s.__all__:
        assert hasattr(s, name), name
    for name in unstable.__all__:
        assert hasattr(unstable, name), name


def test_chunks_are_slotted_and_the_schema_has_no_presentation_module():
    assert not hasattr(s.AgentMessageChunk(content=s.TextContentBlock(text="x")), "__dict__")
    assert importlib.util.find_spec("acphost.schema._mixins") is None


def test_vendored_files_match_their_recorded_digests():
    source = (V1 / "SOURCE.md").read_text(encoding="utf-8")
    recorded = dict(
        (name, digest) for digest, name in re.findall(r"^([0-9a-f]{64})  (\S+)$", source, re.M)
    )
    shipped = {p.name for p in V1.glob("*.json")}
    assert set(recorded) == shipped == {"schema.json", "schema.unstable.json", "meta.json"}
    for name, digest in recorded.items():
        assert hashlib.sha256((V1 / name).read_bytes()).hexdigest() == digest, name
    assert re.search(r"^Schema version: 1\.25\.0$", source, re.M)
    assert "@agentclientprotocol/sdk@2.4.0" in source


@pytest.mark.parametrize("module", ["acphost.schema", "acphost.schema.unstable"])
def test_import_loads_only_the_generated_modules(module):
    # What `import acphost.schema` costs is measured in bench/bench_import.py; here we
    # pin what it loads, which does not depend on the machine: the generated modules
    # and their two hand-written helpers, no JSON parser, no asyncio, no regex
    # engine, no typing machinery, and not the unstable schema unless asked for.
    code = (
        f"import sys; before = set(sys.modules); import {module}; "
        "print('\\n'.join(sorted(set(sys.modules) - before)))"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env
    ).stdout.split()
    ours = {m for m in out if m.split(".")[0] == "acphost"}
    expected = {
        "acphost",
        "acphost.errors",
        "acphost._lazy",
        "acphost._version",
        "acphost.schema",
        "acphost.schema._errors",
        "acphost.schema._methods",
        "acphost.schema._types",
    }
    if module.endswith("unstable"):
        expected |= {"acphost.schema._unstable", "acphost.schema.unstable"}
    assert ours == expected
    heavy = {"asyncio", "json", "re", "typing", "enum", "dataclasses", "inspect", "orjson"}
    assert heavy.isdisjoint(out), sorted(heavy & set(out))
