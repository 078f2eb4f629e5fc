"""A separate process that records demo sessions into a history store (for the reliability tests).

    python writer.py STORE CWD [--sessions N] [--forever] PROMPT...
    python writer.py STORE CWD --direct

Each session runs the prompts against the demo agent through the library and
records them with a HistoryRecorder; ``--forever`` repeats the prompts in one
session until the process is killed. Prints the recorded history ids.
``--direct`` writes turns of 50 tool calls each straight to the store, as fast
as it can, until it is killed (most of its time is spent inside transactions).
"""

import argparse
import asyncio
import sys

from acphost import AcpClient
from acphost.history import HistoryRecorder, HistoryStore, SessionRecord, ToolCallRecord, TurnRecord
from acphost.history._model import now

DEMO = [sys.executable, "-m", "acphost.agents.demo"]


async def main(args):
    recorder = HistoryRecorder.open(args.store)
    ids = []
    async with AcpClient.start(DEMO) as client:
        for _ in range(args.sessions):
            session = await client.new_session(args.cwd)
            recording = recorder.open_session("demo", DEMO, args.cwd, session)
            while True:
                for prompt in args.prompts:
                    await session.prompt(prompt)  # recorded from the client's events
                if not args.forever:
                    break
            recording.close()
            ids.append(recording.id)
    recorder.close()
    print(" ".join(ids), flush=True)


def direct(args):
    store = HistoryStore.open(args.store)
    sid = f"{abs(hash(now())):032x}"[-32:]
    store.add_session(SessionRecord(sid, "direct", (), args.cwd, now()))
    seq = 0
    while True:
        seq += 1
        turn = TurnRecord(seq, now(), f"turn {seq}")
        store.begin_turn(sid, turn)
        calls = tuple(ToolCallRecord(f"c{i}", "x" * 200, "read", status="completed") for i in range(50))
        store.save_turn(sid, TurnRecord(seq, turn.started_at, turn.prompt, now(), text="y" * 5000,
                                        complete=True, tool_calls=calls))


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("store")
    p.add_argument("cwd")
    p.add_argument("--sessions", type=int, default=1)
    p.add_argument("--forever", action="store_true")
    p.add_argument("--direct", action="store_true")
    p.add_argument("prompts", nargs="*")
    parsed = p.parse_intermixed_args()
    if parsed.direct:
        direct(parsed)
    else:
        asyncio.run(main(parsed))
