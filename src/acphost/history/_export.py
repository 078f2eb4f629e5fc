"""Exporting a conversation or a session (md, html, json, jsonl); ``_import`` reads json/jsonl back.

A conversation exports whole (:func:`export_conversation`); one of a single
session is exactly that session's export, laid out as below. One of several
sessions holds each of them in order (json: ``"sessions"``; jsonl: each
session's line, then its turns; md and html: a section per session).

- ``json``: one object, ``{"format": "acphost-history", "version": 1, "session": {...}}``
  with the turns inside; ``jsonl``: a ``{"type": "session", ...}`` line, then one
  ``{"type": "turn", ...}`` line per turn (several sessions may follow each other).
  Both hold everything the store keeps, so an import gives back the same session.
- ``md``: for people; the agent's answers stay Markdown, made inert
  (:func:`acphost.view.inert_markdown`: headings, emphasis, lists, code and
  tables kept; links, images, raw HTML and bare URLs literal text; an open
  fence closed), each in a block quote of its own: the host's lines (tool
  calls, decisions, stop reasons, a subagent's label and status) are items
  at the top level, where nothing the agent wrote can be (a subagent's
  answer is a block quote inside its item); prompts, plans and diffs go in
  fenced code blocks and every inline value is escaped
  (:func:`acphost.safetext.markdown_fence`,
  :func:`~acphost.safetext.markdown_inline`): an agent cannot put a link, an
  image or raw HTML into the document.
- ``html``: one self-contained page (inline style, no script, nothing fetched,
  and a Content-Security-Policy that forbids both), diffs rendered, the
  agent's answers rendered from their Markdown (:func:`acphost.view.markdown_html`:
  no raw HTML, no link, no image); every other string from the record goes
  through :func:`acphost.safetext.html_text`.
"""

from __future__ import annotations

import dataclasses
import json

from ..safetext import HTML_CSP, html_text, markdown_fence, markdown_inline
from ..view import inert_markdown, markdown_html
from ._conversations import ConversationRecord
from ._model import FORMAT, FORMAT_VERSION, SessionRecord
from ._transcript import local_time, protocol_text, transcript, usage_text

__all__ = [
    "EXPORT_FORMATS",
    "export_conversation",
    "export_session",
    "import_sessions",
    "parse_sessions",
]

#: The formats :func:`export_session` writes.
EXPORT_FORMATS = ("md", "html", "json", "jsonl")


def export_session(record: SessionRecord, fmt: str) -> str:
    """A session in one of :data:`EXPORT_FORMATS`.

    Args:
        record: the session (``HistoryStore.get(id)``).
        fmt: ``md``, ``html``, ``json`` or ``jsonl``.

    Returns:
        The text of the export.

    Raises:
        ValueError: an unknown format.

    """
    return export_conversation(ConversationRecord(record.id, (record,)), fmt)


def export_conversation(conversation: ConversationRecord, fmt: str) -> str:
    """A whole conversation in one of :data:`EXPORT_FORMATS`, every session of it.

    A conversation of one session exports exactly as :func:`export_session`.
    With several, ``json`` holds them as ``{"sessions": [...]}``, ``jsonl``
    has each session's line followed by its turns' lines (both import back,
    each session a conversation of its own), and ``md`` and ``html`` give each
    session a section of its own, its turns under it.

    Args:
        conversation: the conversation (``HistoryStore.get_conversation(id)``).
        fmt: ``md``, ``html``, ``json`` or ``jsonl``.

    Returns:
        The text of the export.

    Raises:
        ValueError: an unknown format.

    """
    if fmt == "json":
        return json.dumps(conversation.to_json(), indent=2, ensure_ascii=False) + "\n"
    if fmt == "jsonl":
        head = {"type": "session", "format": FORMAT, "version": FORMAT_VERSION}
        lines = []
        for record in conversation.sessions:
            lines.append({**head, **record.header_json()})
            lines += [{"type": "turn", **turn.to_json()} for turn in record.turns]
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    if fmt == "md":
        return _markdown(conversation)
    if fmt == "html":
        return _html(conversation)
    raise ValueError(f"unknown export format {fmt!r}: use one of {', '.join(EXPORT_FORMATS)}")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _first_prompt(conversation: ConversationRecord) -> str:
    return next((s.turns[0].prompt for s in conversation.sessions if s.turns), "")


def _markdown(conversation: ConversationRecord) -> str:
    # Everything from the record is the agent's or the user's text: inline
    # values are escaped (markdown_inline), answers made inert Markdown
    # (inert_markdown), other blocks fenced (markdown_fence), so the document
    # has no link, image or raw HTML that the agent wrote.
    md = markdown_inline
    sessions = conversation.sessions
    heading = _one_line(conversation.title or _first_prompt(conversation)) or "Session"
    out = [f"# {md(heading)}", ""]
    if len(sessions) == 1:
        out += _markdown_session(sessions[0], "##")
        return "\n".join(out).rstrip("\n") + "\n"
    out.append(
        f"- **Conversation** {md(conversation.id)}: {len(sessions)} sessions, "
        f"{conversation.turns} turns"
    )
    for number, record in enumerate(sessions, 1):
        out += ["", f"## Session {number} of {len(sessions)} · {md(record.id)}", ""]
        out += _markdown_session(record, "###")
    return "\n".join(out).rstrip("\n") + "\n"


def _markdown_session(record: SessionRecord, level: str) -> list[str]:
    """A session's facts and its turns (each under a ``level`` heading), as lines."""
    md = markdown_inline
    out = [f"- **Session** {md(record.id)} ({md(record.origin)})"]
    out.append(f"- **Agent** {md(record.agent)}: {md(_one_line(' '.join(record.command)))}")
    out.append(f"- **Directory** {md(record.cwd)}")
    out.append(
        f"- **Started** {md(local_time(record.started_at))}, "
        f"ended {md(local_time(record.ended_at))}"
    )
    totals = usage_text(
        dataclasses.replace(
            record.token_totals(),
            cost_amount=record.usage.cost_amount,
            cost_currency=record.usage.cost_currency,
        )
    )
    if record.protocol is not None:
        out.append(f"- **Protocol** {md(protocol_text(record.protocol))}")
    if totals:
        out.append(f"- **Usage** {md(totals)}")
    for turn in record.turns:
        out += ["", f"{level} Turn {turn.seq} · {md(local_time(turn.started_at))}", ""]
        listing = False
        for piece in transcript(dataclasses.replace(record, turns=(turn,)))[1:]:
            item = piece.tag not in ("prompt", "text", "diff", "plan", "subagent_text")
            if listing and not item:
                out.append("")
            listing = item
            if item:
                out.append(f"- {md(piece.text)}")
            elif piece.tag == "diff":
                head, _, body = piece.text.partition("\n")
                out += [md(head), "", markdown_fence(body, "diff"), ""]
            elif piece.tag == "text":
                # The agent's answer: its Markdown, inert, in a block quote it
                # cannot leave, so no line of it passes for the host's own
                # ("- [stop] ..." items are at the top, never in a quote).
                out += [inert_markdown(piece.text, quoted=True), ""]
            elif piece.tag == "subagent_text":
                # A subagent's answer: the same quote, inside its "[subagent]"
                # item (indented as the item's content).
                quoted = inert_markdown(piece.text, quoted=True).split("\n")
                out += [*("  " + line if line else line for line in quoted), ""]
            else:  # the prompt, a plan: as written, inert
                out += [markdown_fence(piece.text), ""]
    return out


_STYLE = """
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
header dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}
dt{font-weight:600}dd{margin:0}code,pre{font:13px/1.4 ui-monospace,monospace}
section{border-top:1px solid #ddd;margin-top:1.5rem;padding-top:.5rem}
.prompt{background:#eef4ff;border-left:4px solid #5b8def;padding:.5rem .8rem;white-space:pre-wrap}
.thought{white-space:pre-wrap;color:#777;font-style:italic}
.answer{border-left:4px solid #d0d7de;padding-left:.8rem}
.answer pre{background:#f6f8fa;padding:.5rem;overflow-x:auto}
.answer table{border-collapse:collapse}
.answer th,.answer td{border:1px solid #ddd;padding:.2rem .5rem}
.href,.image{color:#57606a}
.subagent{margin-left:1.5rem}
.tag{font:13px ui-monospace,monospace;margin:.2rem 0}.completed,.allow{color:#1a7f37}
.failed,.reject,.cancelled,.error{color:#cf222e}
pre.diff{background:#f6f8fa;padding:.5rem;overflow-x:auto}
.add{background:#e6ffec;display:block}.del{background:#ffebe9;display:block}
.hunk{color:#0550ae;display:block}.ctx{display:block}
""".strip()


def _diff_html(text: str) -> str:
    head, _, body = text.partition("\n")
    lines = []
    for line in body.splitlines():
        cls = (
            "hunk"
            if line.startswith("@@")
            else "add"
            if line.startswith("+")
            else "del"
            if line.startswith("-")
            else "ctx"
        )
        lines.append(f'<span class="{cls}">{html_text(line) or " "}</span>')
    return f'<p class="tag">{html_text(head)}</p><pre class="diff">{"".join(lines)}</pre>'


def _html(conversation: ConversationRecord) -> str:
    e = html_text
    title = conversation.title or _first_prompt(conversation) or "Session"
    sessions = conversation.sessions
    body = ["<header>", f"<h1>{e(_one_line(title))}</h1>"]
    if len(sessions) == 1:
        body += _html_session(sessions[0], "h2")
    else:
        body += [
            f"<p>Conversation <code>{e(conversation.id)}</code>: {len(sessions)} sessions, "
            f"{conversation.turns} turns</p>",
            "</header>",
        ]
        for number, record in enumerate(sessions, 1):
            body.append(
                f'<article class="session"><header><h2>Session {number} of {len(sessions)}'
                f" · <code>{e(record.id)}</code></h2>"
            )
            body += _html_session(record, "h3")
            body.append("</article>")
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="Content-Security-Policy" content="{HTML_CSP}">'
        f"<title>{e(_one_line(title))}</title><style>{_STYLE}</style></head>\n<body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def _html_session(record: SessionRecord, level: str) -> list[str]:
    """A session's facts (closing the header the caller opened) and its turns."""
    e = html_text
    facts = [
        ("Session", f"<code>{e(record.id)}</code> ({e(record.origin)})"),
        ("Agent", f"{e(record.agent)}: <code>{e(' '.join(record.command))}</code>"),
        ("Directory", f"<code>{e(record.cwd)}</code>"),
        ("Started", e(local_time(record.started_at))),
        ("Ended", e(local_time(record.ended_at))),
    ]
    if record.protocol is not None:
        facts.append(("Protocol", e(protocol_text(record.protocol))))
    body = [
        "<dl>" + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts) + "</dl>",
        "</header>",
    ]
    for turn in record.turns:
        body.append(
            f"<section><{level}>Turn {turn.seq} · {e(local_time(turn.started_at))}</{level}>"
        )
        for piece in transcript(dataclasses.replace(record, turns=(turn,)), thoughts=True)[1:]:
            if piece.tag == "prompt":
                body.append(f'<div class="prompt">{e(turn.prompt)}</div>')
            elif piece.tag == "text":
                body.append(f'<div class="answer">{markdown_html(piece.text)}</div>')
            elif piece.tag == "thought":
                body.append(f'<div class="thought">{e(piece.text)}</div>')
            elif piece.tag == "subagent_text":
                body.append(f'<div class="answer subagent">{markdown_html(piece.text)}</div>')
            elif piece.tag == "diff":
                body.append(_diff_html(piece.text))
            elif piece.tag == "plan":
                body.append(f'<pre class="tag">{e(piece.text)}</pre>')
            else:
                cls = e(piece.status or "")
                body.append(f'<p class="tag {cls}">{e(piece.text)}</p>')
        body.append("</section>")
    return body


# Importing lives in ``_import`` (it streams); its names stay importable from here.
from ._import import import_sessions, parse_sessions  # noqa: E402
