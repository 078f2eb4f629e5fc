import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import acphost.schema as s
from acphost.schema import _mixins

SCHEMA = json.loads(
    resources.files("acphost.schema").joinpath("v1/schema.json").read_text(encoding="utf-8")
)
DEFS = SCHEMA["$defs"]
SRC = Path(s.__file__).resolve().parents[1]


def test_every_session_update_maps_to_a_class():
    values = [
        alt["properties"]["sessionUpdate"]["const"] for alt in DEFS["SessionUpdate"]["oneOf"]
    ]
    for value in values:
        cls = s._types._SESSION_UPDATE_VARIANTS[value].__self__
        assert cls.session_update == value
        assert cls.__name__ in s.__all__
    assert len(values) == 11


def test_every_def_has_a_generated_name():
    missing = [name for name in DEFS if not hasattr(s, name)]
    assert missing == []
    assert set(DEFS) <= set(s.__all__)
    assert set(DEFS) == set(s.DECODERS)


def test_all_is_exported():
    for name in s.__all__:
        assert hasattr(s, name), name


def test_mixins_are_slotted():
    for name in _mixins.__all__:
        assert getattr(_mixins, name).__slots__ == ()
    assert not hasattr(s.AgentMessageChunk(content=s.TextContentBlock(text="x")), "__dict__")


def test_import_loads_only_the_generated_modules():
    # What `import acphost.schema` costs is measured in bench/bench_import.py; here we
    # pin what it loads, which does not depend on the machine: the generated modules
    # and their two hand-written helpers, no JSON parser, no asyncio, no regex
    # engine, no typing machinery, and not the unstable schema (loaded on use).
    code = (
        "import sys; before = set(sys.modules); import acphost.schema; "
        "print('\\n'.join(sorted(set(sys.modules) - before)))"
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env
    ).stdout.split()
    ours = {m for m in out if m.split(".")[0] == "acphost"}
    assert ours == {
        "acphost",
        "acphost._errors",
        "acphost._version",
        "acphost.schema",
        "acphost.schema._errors",
        "acphost.schema._methods",
        "acphost.schema._mixins",
        "acphost.schema._types",
    }
    heavy = {"asyncio", "json", "re", "typing", "enum", "dataclasses", "inspect", "orjson"}
    assert heavy.isdisjoint(out), sorted(heavy & set(out))
