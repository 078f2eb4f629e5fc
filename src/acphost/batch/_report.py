"""The batch report: ``report.json`` for scripts, ``report.md`` and ``report.html`` for people.

All three come from the same :class:`Report`: the plan kept in ``batch.json``
and the outcomes in ``runs/*/result.json``, so ``acphost batch report OUT``
renders them again at any time. The table is prompts (rows) x agents
(columns); a cell aggregates the repetitions: success rate (the turn ended
with ``end_turn``), median duration, mean tokens and cost per run.

What the agent wrote (final text, diffs, error messages) is untrusted: in
Markdown it only appears inside code fences longer than any backtick run in
it or behind backslash escapes (:func:`acphost.safetext.markdown_fence`,
:func:`~acphost.safetext.markdown_inline`), its final text as its own
Markdown made inert, inside a block quote it cannot leave
(:func:`acphost.view.inert_markdown`, as a history export shows an answer);
in HTML only escaped
(:func:`~acphost.safetext.html_text`, under a Content-Security-Policy that
runs no script), its final text rendered without links, images or raw HTML
(:func:`acphost.view.markdown_html`); and in all its terminal controls are
made visible.

A results folder is data (copied from elsewhere, or crafted): a file a
``result.json`` names is read, or linked to, only when it is the folder's
own (:meth:`~acphost.batch._out.OutDir.open_file`: relative, no ``..``,
opened component by component with no link followed, a regular file), and
only its first bytes. A run whose files cannot be read is shown as such; it
never stops the report.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any
from urllib.parse import quote

from ..history import sandbox_line
from ..safetext import bounded, markdown_fence, markdown_inline, sanitize_line
from ..view import inert_markdown
from ._model import STATUSES, OutcomeError, RunOutcome
from ._out import FORMAT, VERSION, BatchError, OutDir, check_run_id

__all__ = ["Cell", "Report", "load_report", "protocol_words", "render_markdown"]

#: A diff longer than this is cut in report.md and report.html (the patch file has it all).
MAX_INLINE_DIFF = 64 * 1024


def tokens_of(usage: dict[str, Any] | None) -> int | None:
    """A run's tokens: ``total_tokens`` if reported, else the sum of the kinds reported."""
    if not usage:
        return None
    total = usage.get("total_tokens")
    if isinstance(total, int):
        return total
    parts = [usage.get(k) for k in ("input_tokens", "output_tokens", "thought_tokens")]
    known = [p for p in parts if isinstance(p, int)]
    return sum(known) if known else None


def subagent_line(child: dict[str, Any], limit: int = 300) -> str:
    """One line for a subagent of a run: ``helper 1 · idle (end_turn): its text``.

    The text is the agent's: whitespace runs (line breaks too) become one
    space, and it is cut at ``limit`` characters; escape the line for the
    report's format.
    """
    status = child.get("activity") or "announced"
    if child.get("stop_reason"):
        status += f" ({child['stop_reason']})"
    text = " ".join(str(child.get("text") or "").split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    label = child.get("label") or child.get("id") or "subagent"
    return f"{label} · {status}" + (f": {text}" if text else "")


def cost_of(usage: dict[str, Any] | None) -> tuple[float, str] | None:
    """A run's cost and currency, if the agent reported one."""
    cost = (usage or {}).get("cost")
    if isinstance(cost, dict) and isinstance(cost.get("amount"), (int, float)):
        return float(cost["amount"]), str(cost.get("currency", ""))
    return None


def money(amount: float) -> str:
    """An amount readable at any scale: ``12.30``, ``0.0123``, ``4.2e-06``."""
    if amount == 0 or abs(amount) >= 1:
        return f"{amount:.2f}"
    return f"{amount:.4f}" if abs(amount) >= 0.0001 else f"{amount:.2g}"


def _costs(outcomes: Sequence[RunOutcome]) -> dict[str, float]:
    sums: dict[str, float] = {}
    for o in outcomes:
        cost = cost_of(o.usage)
        if cost is not None:
            sums[cost[1]] = sums.get(cost[1], 0.0) + cost[0]
    return sums


@dataclass(frozen=True, slots=True)
class Cell:
    """One agent on one prompt, its repetitions aggregated."""

    agent: str
    prompt_id: str
    outcomes: tuple[RunOutcome, ...]

    @property
    def succeeded(self) -> int:
        """How many runs ended with ``end_turn``."""
        return sum(o.succeeded for o in self.outcomes)

    @property
    def success_rate(self) -> float | None:
        """Succeeded / finished runs (None without any)."""
        return self.succeeded / len(self.outcomes) if self.outcomes else None

    @property
    def median_duration(self) -> float | None:
        """The median duration in seconds."""
        return statistics.median(o.duration_s for o in self.outcomes) if self.outcomes else None

    @property
    def mean_tokens(self) -> float | None:
        """Mean tokens per run, over the runs that reported them."""
        known = [t for o in self.outcomes if (t := tokens_of(o.usage)) is not None]
        return sum(known) / len(known) if known else None

    @property
    def mean_cost(self) -> dict[str, float]:
        """Mean cost per run by currency, over the runs that reported one."""
        sums = _costs(self.outcomes)
        counts = {
            c: sum(1 for o in self.outcomes if (k := cost_of(o.usage)) and k[1] == c) for c in sums
        }
        return {c: sums[c] / counts[c] for c in sums}

    def to_json(self) -> dict[str, Any]:
        """The cell in ``report.json``'s ``cells``."""
        return {
            "agent": self.agent,
            "prompt_id": self.prompt_id,
            "runs": len(self.outcomes),
            "succeeded": self.succeeded,
            "success_rate": self.success_rate,
            "median_duration_s": self.median_duration,
            "mean_tokens": self.mean_tokens,
            "mean_cost": self.mean_cost or None,
            "statuses": {
                s: n for s in STATUSES if (n := sum(o.status == s for o in self.outcomes))
            },
        }

    def summary(self) -> str:
        """One line: ``2/3 ok · 1.2 s · 1,234 tok · 0.0100 USD``."""
        if not self.outcomes:
            return "not run"
        parts = [f"{self.succeeded}/{len(self.outcomes)} ok"]
        if self.median_duration is not None:
            parts.append(f"{self.median_duration:.1f} s")
        if self.mean_tokens is not None:
            parts.append(f"{self.mean_tokens:,.0f} tok")
        parts += [
            f"{money(amount)} {currency}".strip() for currency, amount in self.mean_cost.items()
        ]
        return " · ".join(parts)


@dataclass(frozen=True, slots=True)
class Report:
    """A batch's plan with the outcomes it has so far.

    Attributes:
        out: the output directory.
        plan: ``batch.json``.
        outcomes: the outcomes of the plan's runs that have one, in plan order.
        unread: one line per run whose ``result.json`` could not be read
            (malformed, a FIFO, a link...): that run is left out, the report
            is still made.

    """

    out: str
    plan: dict[str, Any]
    outcomes: tuple[RunOutcome, ...]
    unread: tuple[str, ...] = ()

    @property
    def agents(self) -> list[str]:
        """The agents' names."""
        return [str(a) for a in self.plan.get("agents", [])]

    @property
    def prompts(self) -> list[tuple[str, str]]:
        """``(id, text)`` of every prompt."""
        return [(str(p.get("id")), str(p.get("prompt"))) for p in self.plan.get("prompts", [])]

    def cell(self, agent: str, prompt_id: str) -> Cell:
        """The runs of one agent on one prompt."""
        runs = tuple(o for o in self.outcomes if o.agent == agent and o.prompt_id == prompt_id)
        return Cell(agent, prompt_id, runs)

    def counts(self) -> dict[str, int]:
        """Runs planned, run, and by status."""
        counts = {"planned": len(self.plan.get("runs", [])), "finished": len(self.outcomes)}
        counts.update({s: sum(o.status == s for o in self.outcomes) for s in STATUSES})
        counts["not_run"] = counts["planned"] - counts["finished"]
        return counts

    def to_json(self) -> dict[str, Any]:
        """``report.json``: ``runs`` (the contract), with the plan, summary and cells."""
        meta = {k: v for k, v in self.plan.items() if k not in ("runs", "format", "version")}
        versions = self.agent_versions()
        return {
            "format": f"{FORMAT}-report",
            "version": VERSION,
            "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "batch": meta,
            "summary": {**self.counts(), "cost": _costs(self.outcomes) or None},
            "cells": [self.cell(a, p).to_json() for p, _ in self.prompts for a in self.agents],
            "runs": [{**o.to_json(), "agent_version": versions.get(o.id)} for o in self.outcomes],
            "unread": list(self.unread),
        }

    def agent_versions(self) -> dict[str, str]:
        """Run id -> the version of the agent it started, as its plan resolved it.

        A registry agent run through npx or uvx pins one (``acp:ID@VERSION``
        or the preset's); a run of a settings command or of a binary on PATH
        has none and is left out. ``batch.json`` is data: only strings count.
        """
        out: dict[str, str] = {}
        for entry in self.plan.get("runs", []):
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                version = entry.get("agent_version")
                if isinstance(version, str):
                    out[entry["id"]] = version
        return out

    def own(self, rel: str | None) -> str | None:
        """``rel`` when it names a file of the results folder's own, else None (not linked)."""
        if rel is None:
            return None
        try:
            with OutDir(self.out).open_file(rel, "the run file"):
                pass
        except (BatchError, OSError):
            return None
        return rel

    def read_file(
        self, rel: str | None, limit: int = MAX_INLINE_DIFF
    ) -> tuple[str, bool, str | None]:
        """A run file's text (at most ``limit`` characters), whether it was cut, and why not.

        Returns:
            ``(text, cut, refused)``: ``refused`` is one line saying why the
            file is not shown (outside the folder, a link, a FIFO...), else None.

        """
        if rel is None:
            return "", False, None
        try:
            with OutDir(self.out).open_file(rel, "the run file") as f:
                # At most 4 bytes a character: the read is bounded whatever the file's size.
                data = f.read(4 * limit + 4)
        except (BatchError, OSError) as exc:
            return "", False, bounded(str(exc), 400)  # it quotes the crafted path
        text = data.decode("utf-8", "replace")
        return text[:limit], len(text) > limit, None


def load_report(out: str) -> Report:
    """Read a batch's output directory.

    A run whose ``result.json`` cannot be read is named in
    :attr:`Report.unread`, never a reason to stop.

    Raises:
        BatchError: not a batch's output directory.

    """
    out_dir = OutDir(out)
    plan = out_dir.read_plan()
    outcomes = []
    unread = []
    for entry in plan["runs"]:
        run_id = entry.get("id") if isinstance(entry, dict) else None
        if run_id is not None:
            # A path in place of an id would read a result.json outside the folder.
            run_id = check_run_id(run_id, f"{out_dir.path}/batch.json")
            try:
                outcome = out_dir.load_outcome(run_id)
            except (OutcomeError, OSError) as exc:
                # One run's file never stops the report of the others.
                unread.append(bounded(f"run {run_id} not shown: {exc}", 400))
                continue
            if outcome is not None:
                outcomes.append(outcome)
    return Report(out_dir.path, plan, tuple(outcomes), tuple(unread))


# -- Markdown ------------------------------------------------------------------------------


def md_inline(text: str, limit: int = 200) -> str:
    """Untrusted text as inert Markdown on one line (markdown_inline), cut at ``limit``."""
    one = sanitize_line(text)
    if len(one) > limit:
        one = one[: limit - 1] + "…"
    return markdown_inline(one)


def md_fence(text: str, info: str = "") -> str:
    """Untrusted text in a code fence no backtick run inside can close, then a newline."""
    return markdown_fence(text, info) + "\n"


def md_link(name: str, rel: str) -> str:
    """A link to a run's file: the target percent-encoded, so it stays a relative path."""
    return f"[{name}](<{quote(rel)}>)"


def render_markdown(report: Report) -> str:
    """``report.md``."""
    c = report.counts()
    plan = report.plan
    lines = [
        "# acphost batch report",
        "",
        f"{c['finished']} of {c['planned']} runs: "
        + ", ".join(f"{c[s]} {s}" for s in STATUSES if c[s])
        + (f"; {c['not_run']} not run" if c["not_run"] else "")
        + ".",
        "",
        f"Agents: {', '.join(md_inline(a) for a in report.agents)} · "
        f"repeats: {plan.get('repeat', 1)} · "
        f"executor: {md_inline(str(plan.get('executor', 'local')))} · "
        f"workspace: {md_inline(str(plan.get('workspace', '')))}",
        "",
        "| prompt | " + " | ".join(md_inline(a, 40) for a in report.agents) + " |",
        "|---|" + "---|" * len(report.agents),
    ]
    for pid, _ in report.prompts:
        cells = [report.cell(a, pid).summary() for a in report.agents]
        lines.append(f"| {md_inline(pid, 40)} | " + " | ".join(md_inline(x) for x in cells) + " |")
    lines += ["", "## Prompts", ""]
    lines += [f"- **{md_inline(pid)}**: {md_inline(text, 300)}" for pid, text in report.prompts]
    lines += ["", "## Runs", ""]
    lines += [f"- {md_inline(line, 400)}" for line in report.unread]
    if report.unread:
        lines.append("")
    versions = report.agent_versions()
    for o in report.outcomes:
        lines += _md_run(report, o, versions)
    return "\n".join(lines) + "\n"


def _md_run(report: Report, o: RunOutcome, versions: dict[str, str]) -> list[str]:
    stop = f" ({md_inline(o.stop_reason)})" if o.stop_reason else ""
    out = [f"### {md_inline(o.id)}: {md_inline(o.status)}{stop}, {o.duration_s:.2f} s", ""]
    version = versions.get(o.id)
    at = f" (version {md_inline(version, 64)})" if version else ""
    out.append(
        f"Agent {md_inline(o.agent)}{at}, prompt {md_inline(o.prompt_id)}, repeat {o.repeat}, "
        f"on {md_inline(o.node)}."
    )
    links = [
        md_link(name, rel)
        for name, rel in (("trace", report.own(o.trace)), ("diff", report.own(o.diff)))
        if rel
    ]
    if o.history_id:
        links.append(f"history {md_inline(o.history_id)}")
    if links:
        out.append("Files: " + ", ".join(links) + ".")
    if o.changed_files:
        changed = ", ".join(
            f"{md_inline(f.path, 120)} ({md_inline(f.change)})" for f in o.changed_files[:50]
        )
        more = f" and {len(o.changed_files) - 50} more" if len(o.changed_files) > 50 else ""
        out.append(f"Changed: {changed}{more}.")
    out.append("")
    if o.error is not None:
        out += [
            "Error:",
            "",
            md_fence(o.error.message + ("\n" + o.error.stderr_tail if o.error.stderr_tail else "")),
        ]
    if o.final_text:
        out += ["Final text:", "", inert_markdown(o.final_text, quoted=True), ""]
    if o.subagents:
        out += ["Subagents:", "", *(f"- {md_inline(subagent_line(c), 400)}" for c in o.subagents)]
        out.append("")
    if o.sandbox:
        out += [md_inline(sandbox_line(o.sandbox), 2000).replace("sandbox:", "Sandbox:", 1), ""]
    if o.protocol is not None or o.protocol_asked is not None:
        out += [md_inline(f"Protocol: {protocol_words(o)}"), ""]
    diff, cut, refused = report.read_file(o.diff)
    if refused is not None:
        out += [f"Diff not shown: {md_inline(refused, 400)}", ""]
    if diff:
        out += ["Diff:", "", md_fence(diff, "diff")]
        if cut:
            where = md_inline(o.diff or "")
            out += [f"(cut at {MAX_INLINE_DIFF // 1024} KB: the whole patch is in {where})", ""]
    return out


def protocol_words(o: RunOutcome) -> str:
    """A run's protocol as its report says it: ``2 (asked: auto)``, or only what was asked."""
    asked = f"asked: {o.protocol_asked}" if o.protocol_asked is not None else ""
    if o.protocol is None:
        return f"none agreed ({asked})" if asked else "not said"
    return f"{o.protocol} ({asked})" if asked else str(o.protocol)
