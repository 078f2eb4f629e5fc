"""How long the TUI transcript takes to show a 10,000-chunk stream.

Headless Textual (``App.run_test``), same machine, same run:

- ``at once``: the whole text mounted as one Markdown widget (the floor);
- ``streamed``: the same text as N ``agent_message_chunk`` updates fed to the
  transcript the way the connection's reader does (synchronously, in bursts of
  ``--burst`` chunks between event-loop turns), until everything is shown;
- ``naive``: ``Markdown.update(text_so_far)`` per chunk, the full re-render the
  transcript avoids; measured on the first ``--naive`` chunks, and N times
  that per-chunk cost given as a lower bound (the cost grows with the text);
- ``end to end``: the real app against the demo agent's ``flood N`` keyword,
  from Enter to the last chunk shown (process, pipes, JSON, state, widgets;
  the demo's own text, not the document above);
- ``quit``: ``acphost tui`` on a real pty, from Ctrl+Q to the process's exit
  (agent closed), idle, in the middle of a ``slow`` turn, and with the
  sessions list (Ctrl+O) open;
- ``history``: with ``--sessions`` recorded sessions in the store, from Ctrl+O
  to the list on screen (read in a thread), and from Enter on a recorded
  session of ``--turns`` turns to its first turns on screen (rendered a few
  turns at a time, the app answering keys in between) and to all of them.

Usage::

    python bench/bench_tui.py                  # N = 10,000, 3 runs each
    python bench/bench_tui.py --n 10000 --runs 5 --burst 50 --naive 500
    python bench/bench_tui.py --quit-only      # quitting (and the history) only

Every run records into a history store in a temporary directory.

"Shown" means: every chunk appended to the Markdown widget and the screen
refreshed once after that.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import pty
import select
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from acphost import SessionState
from acphost import schema as s
from acphost.config import AgentSpec
from acphost.tui import AcpApp
from acphost.tui._terminals import TerminalBuffers
from acphost.tui._transcript import StreamingMarkdown, Transcript

SIZE = (100, 40)


def make_chunks(n: int) -> list[str]:
    """N fragments (~10 chars) of a Markdown document with headings, lists and code."""
    words = "the agent streams markdown to the host while the user waits".split()  # noqa: SIM905
    out: list[str] = []
    i = 0
    while len(out) < n:
        k = len(out)
        if k % 400 == 0:
            out.append(f"\n\n## Section {k // 400}\n\n")
        elif k % 100 == 0:
            out.append("\n\n- item one\n- item two\n\n")
        elif k % 250 == 0:
            out.append("\n\n```python\nprint('hi')\n```\n\n")
        elif k % 20 == 0:
            out.append(".\n\n")
        else:
            out.append(f"{words[i % len(words)]} **{words[(i + 3) % len(words)]}** ")
        i += 1
    return out[:n]


class Harness(App[None]):
    """A transcript alone on a screen."""

    def __init__(self) -> None:
        super().__init__()
        self.state = SessionState(keep_history=False)
        self.transcript = Transcript(self.state, "/", TerminalBuffers())
        self.scroll = VerticalScroll()

    def compose(self) -> ComposeResult:
        yield self.transcript


async def at_once(text: str) -> float:
    app = Harness()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        start = time.perf_counter()
        md = StreamingMarkdown(text)
        await app.transcript.mount(md)
        await md.settled()
        await pilot.pause()
        elapsed = time.perf_counter() - start
        assert md.source == text
    return elapsed


async def streamed(chunks: list[str], burst: int) -> tuple[float, int]:
    app = Harness()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        start = time.perf_counter()
        for i, chunk in enumerate(chunks):
            update = s.AgentMessageChunk(content=s.TextContentBlock(text=chunk), message_id="m1")
            app.transcript.on_update(update)
            if i % burst == burst - 1:
                await asyncio.sleep(0)  # the reader yields between reads
        await app.transcript.settled()
        await pilot.pause()
        elapsed = time.perf_counter() - start
        (md,) = app.transcript.streams()
        assert md.source == "".join(chunks)
        appends = md.appends
    return elapsed, appends


async def naive(chunks: list[str]) -> float:
    app = Harness()
    async with app.run_test(size=SIZE) as pilot:
        md = Markdown()
        await app.transcript.mount(md)
        await pilot.pause()
        start = time.perf_counter()
        text = ""
        for chunk in chunks:
            text += chunk
            await md.update(text)
        await pilot.pause()
        return time.perf_counter() - start


async def end_to_end(n: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        spec = AgentSpec(
            name="demo",
            command=sys.executable,
            args=("-m", "acphost.agents.demo"),
            env={"ACPHOST_DEMO_STEP": "0", "ACPHOST_DEMO_STATE_DIR": tmp},
        )
        app = AcpApp(spec, str(Path.cwd()))
        async with app.run_test(size=SIZE) as pilot:
            while app.active_view is None:
                await pilot.pause(0.01)
            view = app.active_view
            from acphost.tui._composer import PromptArea  # noqa: PLC0415

            area = app.query_one(PromptArea)
            area.load_text(f"flood {n}")
            area.move_cursor(area.document.end)
            area.close_completions()
            start = time.perf_counter()
            await pilot.press("enter")
            while not view.stop_reason:
                await pilot.pause(0.001)
            await view.transcript.settled()
            await pilot.pause()
            elapsed = time.perf_counter() - start
            streams = view.transcript.streams()
            assert streams[-1].chunks + 1 >= n, streams[-1].chunks
    return elapsed


def _read(fd: int, timeout: float = 0.05) -> bytes:
    ready, _, _ = select.select([fd], [], [], timeout)
    if not ready:
        return b""
    try:
        return os.read(fd, 65536)
    except OSError:
        return b""


def quit_latency(state: str) -> float:
    """Seconds from Ctrl+Q to the exit of ``acphost tui`` on a pty (agent closed).

    ``state``: ``idle``, ``mid-turn`` or ``sessions list``.
    """
    with tempfile.TemporaryDirectory() as ws:
        pid, fd = pty.fork()
        if pid == 0:
            os.environ.update(TERM="xterm-256color", COLUMNS="100", LINES="30")
            os.environ.update(ACPHOST_DEMO_STATE_DIR=ws, ACPHOST_HISTORY=f"{ws}/history.db")
            os.execv(sys.executable, [sys.executable, "-m", "acphost", "tui", ws])
        seen = b""
        while b"connected" not in seen or b"new session" not in seen:
            seen += _read(fd)
        if state == "mid-turn":
            os.write(fd, b"slow\r")
            while b"working" not in seen:
                seen += _read(fd)
        elif state == "sessions list":
            os.write(fd, b"\x0f")  # Ctrl+O
            while b"Local history" not in seen:
                seen += _read(fd)
        start = time.perf_counter()
        os.write(fd, b"\x11")
        while not os.waitpid(pid, os.WNOHANG)[0]:
            _read(fd, 0.005)
        elapsed = time.perf_counter() - start
        os.close(fd)
    return elapsed


def _fill_store(path: str, sessions: int, turns: int) -> None:
    """``sessions`` recorded sessions of 3 turns, the newest with ``turns`` turns.

    Each starts a second after the one before (up to 86,400 sessions).
    """
    from acphost.history import (  # noqa: PLC0415
        HistoryStore,
        SessionRecord,
        ToolCallRecord,
        TurnRecord,
        Usage,
    )

    def turn(n: int) -> TurnRecord:
        call = ToolCallRecord(
            f"c{n}",
            title=f"Edit file{n}.py",
            kind="edit",
            status="completed",
            diffs=({"path": f"/w/file{n}.py", "old_text": "a = 1\n", "new_text": "a = 2\n"},),
        )
        text = f"Changed **file{n}.py**: `a` is now 2."
        return TurnRecord(
            seq=n,
            started_at="2025-01-01T00:00:00Z",
            prompt=f"change file{n}.py",
            text=text,
            events=({"kind": "text", "text": text}, {"kind": "tool", "id": f"c{n}"}),
            stop_reason="end_turn",
            complete=True,
            tool_calls=(call,),
            usage=Usage(total=1000, cost_amount=0.01, cost_currency="USD"),
        )

    with HistoryStore.open(path) as store:
        for i in range(sessions):
            count = turns if i == sessions - 1 else 3
            store.add_session(
                SessionRecord(
                    id=f"{i:032x}",
                    agent="demo",
                    command=("demo",),
                    cwd="/w",
                    started_at=f"2025-01-01T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z",
                    agent_session_id=f"s{i}",
                    title=f"session {i}",
                    turns=tuple(turn(n) for n in range(1, count + 1)),
                )
            )


async def _until(predicate: Callable[[], bool]) -> None:
    """Poll what the app shows, letting it run in between."""
    while not predicate():  # noqa: ASYNC110 - no event says a widget was laid out
        await asyncio.sleep(0.001)


async def history(sessions: int, turns: int) -> tuple[float, float, float]:
    """Seconds to show the sessions list, a long recorded session's first turns, all of it."""
    from acphost.tui._history_screen import HistoryScreen  # noqa: PLC0415
    from acphost.tui._past import PastSessionScreen  # noqa: PLC0415
    from acphost.tui._toolcard import ToolCard  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ACPHOST_HISTORY"] = f"{tmp}/history.db"
        _fill_store(f"{tmp}/history.db", sessions, turns)
        spec = AgentSpec(
            name="demo",
            command=sys.executable,
            args=("-m", "acphost.agents.demo"),
            env={"ACPHOST_DEMO_STEP": "0", "ACPHOST_DEMO_STATE_DIR": tmp},
        )
        app = AcpApp(spec, tmp)
        async with app.run_test(size=SIZE) as pilot:
            while app.active_view is None:
                await pilot.pause(0.01)
            start = time.perf_counter()
            await pilot.press("ctrl+o")
            while not isinstance(app.screen, HistoryScreen):
                await pilot.pause(0.001)
            await pilot.pause()
            listed = time.perf_counter() - start
            while app.screen.highlighted is None or app.screen.highlighted.source != "local":
                await pilot.press("down")
            # Enter in a task: ``press`` returns only once the app is idle again,
            # and the first turns are on screen (laid out) well before that.
            start = time.perf_counter()
            pressing = asyncio.create_task(pilot.press("enter"))
            await _until(lambda: isinstance(app.screen, PastSessionScreen))
            past = app.screen
            cards = past.transcript.query
            await _until(lambda: bool(cards(ToolCard)) and cards(ToolCard).first().size.height > 0)
            first = time.perf_counter() - start
            await _until(lambda: len(cards(ToolCard)) >= turns)
            await pressing
            await past.transcript.settled()
            await pilot.pause()
            shown = time.perf_counter() - start
        os.environ.pop("ACPHOST_HISTORY")
    return listed, first, shown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--burst", type=int, default=50)
    parser.add_argument("--naive", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=2000, help="recorded sessions in the store")
    parser.add_argument("--turns", type=int, default=50, help="turns of the session opened")
    parser.add_argument(
        "--quit-only", action="store_true", help="measure quitting and the history only"
    )
    args = parser.parse_args()
    quits = {
        state: [quit_latency(state) for _ in range(args.runs)]
        for state in ("idle", "mid-turn", "sessions list")
    }
    for state, times in quits.items():
        print(
            f"quit ({state}): median {statistics.median(times) * 1000:.0f} ms, "
            f"max {max(times) * 1000:.0f} ms over {args.runs} runs"
        )
    runs = [asyncio.run(history(args.sessions, args.turns)) for _ in range(args.runs)]
    lists, firsts, pasts = ([r[i] for r in runs] for i in range(3))
    print(
        f"history: Ctrl+O with {args.sessions} recorded sessions: median "
        f"{statistics.median(lists) * 1000:.0f} ms; a recorded session of {args.turns} turns "
        f"read-only: first turns after {statistics.median(firsts) * 1000:.0f} ms, all after "
        f"{statistics.median(pasts) * 1000:.0f} ms (medians)"
    )
    if args.quit_only:
        return
    chunks = make_chunks(args.n)
    text = "".join(chunks)
    rows: dict[str, list[float]] = {"at once": [], "streamed": [], "end to end": []}
    for _ in range(args.runs):
        rows["at once"].append(asyncio.run(at_once(text)))
        elapsed, appends = asyncio.run(streamed(chunks, args.burst))
        print(f"streamed: {appends} appends", file=sys.stderr)
        rows["streamed"].append(elapsed)
        rows["end to end"].append(asyncio.run(end_to_end(args.n)))
    naive_t = asyncio.run(naive(make_chunks(args.naive)))
    floor = statistics.median(rows["at once"])
    print(f"{args.n:,} chunks, {len(text):,} characters of Markdown; median of {args.runs} runs\n")
    print("| how | ms | x at once |")
    print("|---|---:|---:|")
    for name, times in rows.items():
        med = statistics.median(times)
        print(f"| {name} | {med * 1000:.0f} | {med / floor:.2f}x |")
    # The naive cost per chunk grows with the text: N x the cost measured on the
    # first --naive chunks is a lower bound.
    bound = naive_t / args.naive * args.n
    print(
        f"| naive update per chunk (first {args.naive}: {naive_t * 1000:.0f} ms; "
        f"lower bound for {args.n:,}) | >{bound * 1000:.0f} | >{bound / floor:.0f}x |"
    )


if __name__ == "__main__":
    main()
