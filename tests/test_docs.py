"""The documents keep telling the truth about the tests they cite."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CITED = re.compile(r"`(tests/[\w/]+\.py)::(\w+)")


def test_every_test_the_docs_cite_exists():
    stale = []
    for doc in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]:
        for path, name in CITED.findall(doc.read_text(encoding="utf-8")):
            source = ROOT / path
            if not source.exists() or not re.search(
                rf"def {re.escape(name)}\b", source.read_text(encoding="utf-8")
            ):
                stale.append(f"{doc.name}: {path}::{name}")
    assert not stale, "docs cite tests that do not exist:\n" + "\n".join(stale)
