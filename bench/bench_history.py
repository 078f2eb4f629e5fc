"""The history's cost: write cost per update, and the store's size per 1,000 turns.

Three measures, on a store in a temporary directory:

1. **Listener**: the recorder's per-update work, inline in the connection's
   reader (decoded updates fed as ``Session._receive_update`` does: state
   first, then listeners). Reported in µs per update.
2. **Turn write**: the turn's start and end (``TurnStarted``, ``TurnEnded``) of a turn of U updates
   (text chunks, two tool calls, one with a diff, a plan, a usage update):
   redaction, two transactions. Reported in ms per turn and, amortised with
   the listener, in µs per update.
3. **Size**: 1,000 realistic turns (a 200-character prompt, a 2,000-character
   answer, two tool calls with locations, a 40-line diff, usage), in sessions
   of 20 turns; bytes on disk after a WAL checkpoint.

Usage::

    python bench/bench_history.py [--turns 300] [--updates 100]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from typing import Any

from acphost import schema as s
from acphost.client import (
    EventStream,
    SessionState,
    TurnEnded,
    TurnResult,
    TurnStarted,
    UpdatesReceived,
)
from acphost.history import HistoryRecorder, HistoryStore


class BenchSession:
    """What the recorder uses of a Session: id, state, its client's event stream.

    Updates are applied to the state in order and told one at a time (a block
    of one: the recorder's slowest way to get them).
    """

    def __init__(self, sid: str) -> None:
        self.id = sid
        self.state = SessionState()
        self._events = EventStream()
        self._prompt: list[s.ContentBlock] = []
        self.turn_cost = s.Cost(amount=0.01, currency="USD")  # what the turn's usage added

    def receive(self, update: s.SessionUpdate) -> None:
        self.state.apply(update)
        self._events.emit(UpdatesReceived(self, (update,)))  # type: ignore[arg-type]

    def start(self, prompt: str) -> None:
        self._prompt = [s.TextContentBlock(text=prompt)]
        self._events.emit(TurnStarted(self, None, self._prompt))  # type: ignore[arg-type]

    def end(self, result: TurnResult) -> None:
        self._events.emit(TurnEnded(self, None, self._prompt, result))  # type: ignore[arg-type]


def decode(wire: dict[str, Any]) -> s.SessionUpdate:
    return s.SessionNotification.from_wire({"sessionId": "b", "update": wire}).update


def turn_updates(n: int, turn: int) -> list[s.SessionUpdate]:
    """``n`` updates: text chunks around two tool calls, a plan and a usage update."""
    old = "".join(f"line {i}\n" for i in range(40))
    new = old.replace("line 7\n", "line seven\n")
    fixed = [
        {"sessionUpdate": "plan", "entries": [
            {"content": "Read", "priority": "high", "status": "completed"},
            {"content": "Edit", "priority": "medium", "status": "in_progress"}]},
        {"sessionUpdate": "tool_call", "toolCallId": f"r{turn}", "title": "Read src/app.py",
         "kind": "read", "status": "pending", "locations": [{"path": "/w/src/app.py"}]},
        {"sessionUpdate": "tool_call_update", "toolCallId": f"r{turn}", "status": "completed"},
        {"sessionUpdate": "tool_call", "toolCallId": f"e{turn}", "title": "Edit src/app.py",
         "kind": "edit", "status": "in_progress",
         "locations": [{"path": "/w/src/app.py", "line": 7}]},
        {"sessionUpdate": "tool_call_update", "toolCallId": f"e{turn}", "status": "completed",
         "content": [{"type": "diff", "path": "/w/src/app.py", "oldText": old, "newText": new}]},
        {"sessionUpdate": "usage_update", "used": 1000 * turn, "size": 200000,
         "cost": {"amount": 0.01 * turn, "currency": "USD"}},
    ]  # fmt: skip
    chunks = max(n - len(fixed), 1)
    text = [
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x" * 20}}
        for _ in range(chunks)
    ]
    half = chunks // 2
    return [decode(u) for u in (*text[:half], *fixed, *text[half:])]


def run_turns(path: str, turns: int, updates: int, per_session: int = 20) -> dict[str, float]:
    recorder = HistoryRecorder.open(path)
    assert recorder.enabled, "the bench store could not be opened"
    listener_s = write_s = 0.0
    count = 0
    session = BenchSession("b0")
    recording = recorder.open_session("bench", ["bench-agent"], "/w", session)
    prompt = "p" * 200
    for turn in range(1, turns + 1):
        if turn % per_session == 1 and turn > 1:
            recording.close()
            session = BenchSession(f"b{turn}")
            recording = recorder.open_session("bench", ["bench-agent"], "/w", session)
        batch = turn_updates(updates, turn)
        start = time.perf_counter()
        session.start(prompt)
        write_s += time.perf_counter() - start
        start = time.perf_counter()
        for update in batch:
            session.receive(update)
        listener_s += time.perf_counter() - start
        count += len(batch)
        calls = tuple(session.state.tool_calls.values())[-2:]
        usage = {"inputTokens": 900, "outputTokens": 500, "totalTokens": 1400}
        result = TurnResult("end_turn", "x" * 2000, calls, usage)
        start = time.perf_counter()
        session.end(result)
        write_s += time.perf_counter() - start
    recording.close()
    recorder.close()
    return {"listener_s": listener_s, "write_s": write_s, "updates": count, "turns": turns}


def baseline(turns: int, updates: int) -> float:
    """The same updates applied to session state with no recorder: what recording adds to."""
    session = BenchSession("b")
    total = 0.0
    for turn in range(1, turns + 1):
        batch = turn_updates(updates, turn)
        start = time.perf_counter()
        for update in batch:
            session.receive(update)
        total += time.perf_counter() - start
    return total


def store_size(path: str) -> int:
    with HistoryStore.open(path) as store:
        store._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return store.size()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--turns", type=int, default=300, help="turns for the timing (default 300)")
    p.add_argument("--updates", type=int, default=100, help="updates per turn (default 100)")
    p.add_argument("--repeat", type=int, default=3, help="timing runs; the median is shown")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        runs = [
            run_turns(os.path.join(tmp, f"t{i}.sqlite3"), args.turns, args.updates)
            for i in range(args.repeat)
        ]
        base = statistics.median(baseline(args.turns, args.updates) for _ in range(args.repeat))
        updates = runs[0]["updates"]
        listener = statistics.median(r["listener_s"] for r in runs) - base
        write = statistics.median(r["write_s"] for r in runs)
        size_path = os.path.join(tmp, "size.sqlite3")
        run_turns(size_path, 1000, args.updates)
        size = store_size(size_path)
    print(f"turns {args.turns} x {args.updates} updates, median of {args.repeat} runs")
    print(f"  listener (recorder only)  {listener / updates * 1e6:8.2f} µs per update")
    print(f"  turn write (begin+record) {write / args.turns * 1e3:8.2f} ms per turn")
    print(f"  amortised                 {(listener + write) / updates * 1e6:8.2f} µs per update")
    print(f"  state apply (no recorder) {base / updates * 1e6:8.2f} µs per update, for scale")
    per_turn = size / 1000 / 1024
    print(f"store size per 1,000 turns  {size / 2**20:8.2f} MiB ({per_turn:.1f} KiB per turn)")


if __name__ == "__main__":
    main()
