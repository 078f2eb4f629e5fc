"""Writing a batch's three reports (report.json, report.md, report.html) next to its runs."""

from __future__ import annotations

import json
import os

from ._html import render_html
from ._out import write_atomic
from ._report import Report, render_markdown

__all__ = ["write_reports"]


def write_reports(report: Report) -> list[str]:
    """Write report.json, report.md and report.html (each atomically); return their paths."""
    files = {
        "report.json": json.dumps(report.to_json(), indent=2, ensure_ascii=False) + "\n",
        "report.md": render_markdown(report),
        "report.html": render_html(report),
    }
    paths = []
    for name, text in files.items():
        path = os.path.join(report.out, name)
        write_atomic(path, text)
        paths.append(path)
    return paths
