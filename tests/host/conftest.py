from __future__ import annotations

import os
from pathlib import Path

import pytest

from acphost.host import Workspace


@pytest.fixture
def ws_dir(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    out.mkdir()
    (out / "secret.txt").write_text("TOP-SECRET\n")
    return out


@pytest.fixture
def workspace(ws_dir: Path) -> Workspace:
    return Workspace([str(ws_dir)])


def _snapshot(root: Path) -> dict[str, tuple[int, bytes | str]]:
    """Every entry below root with its mode and content (or link target)."""
    result: dict[str, tuple[int, bytes | str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            if os.path.islink(p):
                result[p] = (st.st_mode, os.readlink(p))
            elif os.path.isfile(p):
                result[p] = (st.st_mode, Path(p).read_bytes())
            else:
                result[p] = (st.st_mode, b"")
    return result


@pytest.fixture
def guard(outside: Path):
    """Fail the test if anything outside the workspace changed."""
    before = _snapshot(outside)
    yield
    assert _snapshot(outside) == before, "something outside the workspace changed"
