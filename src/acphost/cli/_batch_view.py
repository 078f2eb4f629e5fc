"""How ``acphost batch`` shows its progress: a live rich line on a terminal, plain lines otherwise.

Run ids, agent names and error messages can carry agent-controlled text:
they reach the terminal through :func:`acphost.safetext.sanitize_line` and,
with rich, only as ``Text`` (never as markup).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from ..safetext import bounded, sanitize_line
from ._edge import is_styled_terminal

if TYPE_CHECKING:
    from ..batch import Batch, Progress, RunOutcome

__all__ = ["View", "make_view"]


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    s = int(seconds + 0.5)
    return (
        f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
    )


def progress_line(p: Progress) -> str:
    """``12/64 done · 16 running · 2 not ok · 0:05 elapsed · ETA 0:12``."""
    parts = [f"{p.done}/{p.total} done", f"{p.running} running", f"{p.failed} not ok"]
    if p.skipped:
        parts.append(f"{p.skipped} from before")
    parts += [f"{_clock(p.elapsed)} elapsed", f"ETA {_clock(p.eta)}"]
    return " · ".join(parts)


def outcome_line(o: RunOutcome) -> str:
    """One finished run on one line (sanitised)."""
    stop = f" ({o.stop_reason})" if o.stop_reason else ""
    line = f"{o.id} {o.status}{stop} {o.duration_s:.2f} s"
    if o.changed_files:
        line += f", {len(o.changed_files)} file(s) changed"
    if o.error is not None:
        line += f": {bounded(o.error.message.splitlines()[0]) if o.error.message else ''}"
    return sanitize_line(line)


class View(Protocol):
    """What the command tells the user while the batch runs."""

    def start(self, batch: Batch) -> None:
        """The batch is about to start."""

    def finished(self, outcome: RunOutcome) -> None:
        """A run ended."""

    def note(self, text: str) -> None:
        """A message of the host's (warnings, "cancelling")."""

    def stop(self) -> None:
        """The batch ended: stop any live display."""

    def summary(self, batch: Batch) -> None:
        """The last words, on stdout: counts and where the report is."""


class PlainView:
    """Plain lines on a stream (a pipe, a file, a dumb terminal)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.batch: Batch | None = None

    def _print(self, text: str) -> None:
        print(f"acphost batch: {text}", file=self.stream, flush=True)

    def start(self, batch: Batch) -> None:
        self.batch = batch
        n = len(batch.plan.runs)
        self._print(
            f"{n} run{'' if n == 1 else 's'}, {batch.jobs} at a time ({batch.executor.name})"
        )

    def finished(self, outcome: RunOutcome) -> None:
        assert self.batch is not None
        p = self.batch.progress()
        self._print(f"[{p.done}/{p.total}] {outcome_line(outcome)}")

    def note(self, text: str) -> None:
        self._print(sanitize_line(text))

    def stop(self) -> None:
        """Nothing to stop."""

    def summary(self, batch: Batch) -> None:
        print(summary_text(batch), flush=True)


class RichView(PlainView):
    """A live progress line on a terminal, finished runs printed above it."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__(stream)
        from rich.console import Console  # noqa: PLC0415 - only on a terminal

        self.console = Console(file=stream, highlight=False)
        self.live: Any = None

    def _render(self) -> Any:
        from rich.text import Text  # noqa: PLC0415

        if self.batch is None:
            return Text("")
        return Text(f"batch: {progress_line(self.batch.progress())}", style="bold")

    def start(self, batch: Batch) -> None:
        from rich.live import Live  # noqa: PLC0415

        self.batch = batch
        self.live = Live(
            console=self.console, refresh_per_second=4, transient=True, get_renderable=self._render
        )
        self.live.start()

    def finished(self, outcome: RunOutcome) -> None:
        from rich.text import Text  # noqa: PLC0415

        style = "green" if outcome.succeeded else "red" if outcome.status == "error" else "yellow"
        mark = "✓" if outcome.succeeded else "✗"
        self.console.print(Text(f"{mark} {outcome_line(outcome)}", style=style))

    def note(self, text: str) -> None:
        from rich.text import Text  # noqa: PLC0415

        self.console.print(Text(sanitize_line(text), style="yellow"))

    def stop(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None


def summary_text(batch: Batch) -> str:
    """``64 of 64 runs: 60 ok, 4 error; report: OUT/report.html`` (and how to resume)."""
    counts: dict[str, int] = {}
    for o in batch.outcomes.values():
        counts[o.status] = counts.get(o.status, 0) + 1
    text = f"{len(batch.outcomes)} of {len(batch.plan.runs)} runs: " + (
        ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "none finished"
    )
    if batch.skipped:
        text += f" ({batch.skipped} from an earlier batch)"
    html = [p for p in batch.report_paths if p.endswith(".html")]
    if html:
        text += f"; report: {html[0]}"
    text = sanitize_line(text)
    if batch.cancelled:
        text += "\ninterrupted: run the same command again to carry out the rest"
    return text


def make_view(stream: TextIO = sys.stderr, *, verbose: int = 0) -> View:
    """Rich on a terminal that can redraw (unless logging is verbose), plain lines otherwise.

    The plain lines are sanitised wherever they go (:class:`PlainView`).
    """
    styled = is_styled_terminal(stream)
    return RichView(stream) if styled and not verbose else PlainView(stream)
