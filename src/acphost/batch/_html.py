"""``report.html``: one self-contained page (inline style, no script, nothing fetched).

Every string that is not this module's own literal goes through :func:`_e`
(:func:`acphost.safetext.html_text`: HTML-escaped, terminal controls made
visible), agent text included, but a run's final text: the agent's Markdown,
rendered by :func:`acphost.view.markdown_html` (raw HTML shown as text, no
link, no image); links to a run's files are percent-encoded
relative paths. The page's Content-Security-Policy
(:data:`acphost.safetext.HTML_CSP`) forbids scripts and fetches even if an
escape were missed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import quote

from ..safetext import HTML_CSP, html_text
from ..view import markdown_html
from ._model import STATUSES
from ._report import protocol_words, subagent_line

if TYPE_CHECKING:
    from ._model import RunOutcome
    from ._report import Report

__all__ = ["render_html"]

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:80em;padding:0 1em;color:#1b1f24}
h1{font-size:1.6em}h2{margin-top:2em}table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #d0d7de;padding:.35em .6em;text-align:left;vertical-align:top}
th{background:#f6f8fa}pre{background:#f6f8fa;padding:.8em;overflow-x:auto;white-space:pre-wrap}
.ok{color:#1a7f37}.error,.timeout{color:#cf222e}.budget,.cancelled{color:#9a6700}
.add{color:#1a7f37}.del{color:#cf222e}.hunk{color:#8250df}.meta{color:#57606a}
details{border:1px solid #d0d7de;border-radius:6px;margin:.6em 0;padding:.4em .8em}
summary{cursor:pointer;font-weight:600}.rate{font-weight:600}
.answer pre{white-space:pre}.href,.image{color:#57606a}
"""


def _e(text: object) -> str:
    return html_text(str(text))


def _diff_html(text: str) -> str:
    lines = []
    for line in text.splitlines():
        if line.startswith(("+++", "---", "diff --git", "index ", "new file", "deleted file")):
            cls = "meta"
        elif line.startswith("+"):
            cls = "add"
        elif line.startswith("-"):
            cls = "del"
        elif line.startswith("@@"):
            cls = "hunk"
        else:
            lines.append(_e(line))
            continue
        lines.append(f'<span class="{cls}">{_e(line)}</span>')
    return "\n".join(lines)


def _table(report: Report) -> list[str]:
    head = "".join(f"<th>{_e(a)}</th>" for a in report.agents)
    rows = [f"<table><tr><th>prompt</th>{head}</tr>"]
    for pid, text in report.prompts:
        cells = []
        for agent in report.agents:
            cell = report.cell(agent, pid)
            rate = cell.success_rate
            cls = "ok" if rate == 1 else "error" if rate is not None and rate < 1 else ""
            cells.append(f'<td class="{cls}">{_e(cell.summary())}</td>')
        rows.append(f'<tr><th title="{_e(text)}">{_e(pid)}</th>{"".join(cells)}</tr>')
    rows.append("</table>")
    return rows


def _run(report: Report, o: RunOutcome) -> list[str]:
    stop = f" ({_e(o.stop_reason)})" if o.stop_reason else ""
    out = [
        f'<details id="run-{_e(o.id)}"><summary>{_e(o.id)}: '
        f'<span class="{_e(o.status)}">{_e(o.status)}</span>{stop}, {o.duration_s:.2f} s</summary>',
        f"<p>Agent {_e(o.agent)}, prompt {_e(o.prompt_id)}, repeat {o.repeat}, on {_e(o.node)}.",
    ]
    links = [
        f'<a href="{_e(quote(rel))}">{name}</a>'
        for name, rel in (("trace", report.own(o.trace)), ("diff", report.own(o.diff)))
        if rel
    ]
    if o.history_id:
        links.append(f"history <code>{_e(o.history_id)}</code>")
    if links:
        out.append(" Files: " + ", ".join(links) + ".")
    out.append("</p>")
    if o.changed_files:
        items = "".join(
            f"<li><code>{_e(f.path)}</code> ({_e(f.change)})</li>" for f in o.changed_files
        )
        out.append(f"<p>Changed:</p><ul>{items}</ul>")
    if o.error is not None:
        tail = f"\n{o.error.stderr_tail}" if o.error.stderr_tail else ""
        out.append(f"<p>Error:</p><pre>{_e(o.error.message + tail)}</pre>")
    if o.final_text:
        out.append(f'<p>Final text:</p><div class="answer">{markdown_html(o.final_text)}</div>')
    if o.subagents:
        items = "".join(f"<li>{_e(subagent_line(c))}</li>" for c in o.subagents)
        out.append(f"<p>Subagents:</p><ul>{items}</ul>")
    if o.protocol is not None or o.protocol_asked is not None:
        out.append(f"<p>Protocol: {_e(protocol_words(o))}</p>")
    diff, cut, refused = report.read_file(o.diff)
    if refused is not None:
        out.append(f'<p class="meta">Diff not shown: {_e(refused)}</p>')
    if diff:
        out.append(f"<p>Diff:</p><pre>{_diff_html(diff)}</pre>")
        if cut:
            link = f'<a href="{_e(quote(o.diff or ""))}">{_e(o.diff)}</a>'
            out.append(f'<p class="meta">Cut here: the whole patch is in {link}.</p>')
    out.append("</details>")
    return out


def render_html(report: Report) -> str:
    """``report.html``."""
    c = report.counts()
    plan = report.plan
    status = ", ".join(f'<span class="{s}">{c[s]} {s}</span>' for s in STATUSES if c[s])
    not_run = f"; {c['not_run']} not run" if c["not_run"] else ""
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta http-equiv="Content-Security-Policy" content="{HTML_CSP}">',
        "<title>acphost batch report</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<h1>acphost batch report</h1>",
        f"<p>{c['finished']} of {c['planned']} runs: {status}{not_run}.</p>",
        f"<p>Repeats: {_e(plan.get('repeat', 1))} · executor: {_e(plan.get('executor', 'local'))}"
        f" · workspace: <code>{_e(plan.get('workspace', ''))}</code></p>",
        *_table(report),
        "<h2>Prompts</h2><dl>",
    ]
    for pid, text in report.prompts:
        parts.append(f"<dt><b>{_e(pid)}</b></dt><dd><pre>{_e(text)}</pre></dd>")
    parts += ["</dl>", "<h2>Runs</h2>"]
    parts += [f'<p class="meta">{_e(line)}</p>' for line in report.unread]
    for o in report.outcomes:
        parts += _run(report, o)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
