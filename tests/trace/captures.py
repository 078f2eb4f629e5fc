"""The adapters' captured frames (``tests/trace/adapters/``) as acphost traces."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

ADAPTERS = Path(__file__).parent / "adapters"
_CUT_LIST = re.compile(r"…\(\+\d+ items\)")
_DIRECTIONS = {"->": "outgoing", "<-": "incoming"}


def _uncut(value: Any) -> Any:
    """The value without the capture's ``"…(+N items)"`` list markers (no frame content)."""
    if isinstance(value, list):
        return [_uncut(v) for v in value if not (isinstance(v, str) and _CUT_LIST.fullmatch(v))]
    if isinstance(value, dict):
        return {k: _uncut(v) for k, v in value.items()}
    return value


def frames(name: str) -> list[tuple[str, dict[str, Any]]]:
    """``(direction, frame)`` of every frame in a capture, in order."""
    out = []
    for line in (ADAPTERS / name).read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        direction = _DIRECTIONS.get(record["dir"])
        if direction is not None:
            out.append((direction, _uncut(record["msg"])))
    return out


def write_trace(name: str, folder: Path) -> Path:
    """The capture as a trace file in acphost's format (the recorder's), in ``folder``."""
    path = folder / name
    path.write_text(
        "".join(json.dumps({"direction": d, **f}) + "\n" for d, f in frames(name)),
        encoding="utf-8",
    )
    return path
