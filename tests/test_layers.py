"""The package keeps its layering: no import cycles, no import from a higher layer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_layers_hold():
    out = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "check_layers.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no cycles, no upward imports" in out.stdout


def test_the_checker_finds_a_cycle_and_an_upward_import(tmp_path):
    """The checker itself can fail: run it on a copy of the tree with both defects."""
    import shutil

    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "acphost", src / "acphost")
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "check_layers.py", tmp_path / "tools" / "check_layers.py")
    host = src / "acphost" / "host" / "_audit.py"
    host.write_text(host.read_text() + "\nfrom ..cli import main as _oops\n")
    jail = src / "acphost" / "host" / "_jail.py"
    jail.write_text(jail.read_text() + "\nfrom . import _fs as _loop\n")
    out = subprocess.run(
        [sys.executable, str(tmp_path / "tools" / "check_layers.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 1
    assert "acphost.host._audit imports acphost.cli" in out.stdout
    assert "import cycle:" in out.stdout and "acphost.host._jail" in out.stdout


def test_the_checker_sees_a_cycle_through_the_generated_schema(tmp_path):
    """A hand-written schema helper that the generated types import, and that imports them."""
    import shutil

    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "acphost", src / "acphost")
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "check_layers.py", tmp_path / "tools" / "check_layers.py")
    schema = src / "acphost" / "schema"
    (schema / "_helpers.py").write_text(
        "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from acphost.schema._types import Unset\n"
    )
    types = schema / "_types.py"
    types.write_text(types.read_text() + "\nfrom acphost.schema import _helpers\n")
    out = subprocess.run(
        [sys.executable, str(tmp_path / "tools" / "check_layers.py")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 1, out.stdout
    assert "import cycle:" in out.stdout
    assert "acphost.schema._types" in out.stdout and "acphost.schema._helpers" in out.stdout
