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


def test_import_is_fast(tmp_path):
    # typing comes with acphost._errors; time what the schema package itself costs
    code = (
        "import typing, time; t = time.perf_counter(); import acphost.schema; "
        "print(time.perf_counter() - t)"
    )
    env = dict(os.environ, PYTHONPYCACHEPREFIX=str(tmp_path))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), env.get("PYTHONPATH", "")])
    run = [sys.executable, "-c", code]
    subprocess.run(run, check=True, capture_output=True, env=env)  # write the .pyc files
    best = min(
        float(subprocess.run(run, check=True, capture_output=True, text=True, env=env).stdout)
        for _ in range(5)
    )
    # about 4-7 ms on the reference machine; the bound leaves room for slow CI
    assert best < 0.03, f"import acphost.schema took {best * 1000:.1f} ms"
