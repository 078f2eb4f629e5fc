"""Scripts for what happens around a model: notices, compaction, usage, waiting.

``notice`` and ``compact`` send their updates only to a client that opted in
(``clientCapabilities.session.notices`` / ``.compaction``; schema, Notice and
CompactionUpdate: agents MUST NOT send them otherwise) and say so in the reply
when it did not. ``spend`` reports usage as it goes, ``wait`` is a turn bound
by its pretend model, and ``stop`` ends a turn with any stop reason.
"""

from __future__ import annotations

from ._turn import MICROS_PER_TOKEN, Cancelled

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._turn import Turn

    Json = dict[str, Any]

SEVERITIES = ("info", "warning", "error")
DEFAULT_TITLES = {
    "info": "The demo agent has a notice for you",
    "warning": "Disk space is running low (demo)",
    "error": "The pretend build failed (demo)",
}
STEP_TOKENS = (800, 200)  # input, output tokens per `spend` step


def notice(turn: Turn, arg: str) -> str:
    """Send a notice: `notice [info|warning|error|_custom] [TEXT]`."""
    words = arg.split(None, 1)
    severity, title = "info", arg.strip()
    if words and (words[0].lower() in SEVERITIES or words[0].startswith("_")):
        severity = words[0] if words[0].startswith("_") else words[0].lower()
        title = words[1].strip() if len(words) > 1 else ""
    title = title or DEFAULT_TITLES.get(severity, "A notice of a custom severity")
    if not turn.session_capability("notices"):
        turn.say(
            "The client did not opt in to notices (clientCapabilities.session.notices), "
            f"so here it is as a message: [{severity}] {title}"
        )
        return "end_turn"
    turn.update(
        {
            "sessionUpdate": "notice",
            "severity": severity,
            "title": title,
            "description": "Sent by the demo agent's `notice` keyword.",
        }
    )
    turn.say(f"Sent a {severity} notice.")
    return "end_turn"


def compact(turn: Turn, arg: str) -> str:
    """Compact the context: started, a streamed summary, then completed (`compact fail`: failed)."""
    fail = arg.strip().lower() == "fail"
    told = turn.session_capability("compaction")
    compaction_id = f"{turn.message_id}-compaction"
    earlier = sum(1 for entry in turn.session.history if "role" in entry)
    entry: Json = {"kind": "compaction", "compactionId": compaction_id, "status": "in_progress"}
    turn.events.append(entry)  # its place in the history: after the prompt, before the reply

    def send(**fields: Any) -> None:
        if told:
            update = {"sessionUpdate": "compaction_update", "compactionId": compaction_id}
            turn.update({**update, **fields})

    try:
        # The first update fixes the compaction's place in the timeline; its
        # placeholder summary is cleared with `null` once the real one streams.
        placeholder = [{"type": "text", "text": "Summarising the conversation…"}]
        send(status="in_progress", summary=placeholder, _meta={"demo": {"trigger": "keyword"}})
        turn.pause()
        send(status="in_progress", summary=None)
        chunks = [
            "Summary: ",
            f"{earlier} earlier messages in this session",
            " were about trying the demo agent's keywords.",
        ]
        summary: list[Json] = []
        entry["summary"] = summary
        for text in chunks[: 1 if fail else len(chunks)]:
            turn.pause()
            block = {"type": "text", "text": text}
            if told:
                turn.update(
                    {
                        "sessionUpdate": "compaction_summary_chunk",
                        "compactionId": compaction_id,
                        "content": block,
                    }
                )
            summary.append(block)
        turn.pause()
        if fail:
            error = "The pretend model could not summarise the context (demo)."
            entry.update(status="failed", error=error, summary=[])
            send(status="failed", error=error, summary=[])  # `summary: []` clears it too
            turn.say("The compaction failed; the context is unchanged.")
        else:
            entry["status"] = "completed"
            send(status="completed")  # omitted fields keep their values
            turn.session.tokens = sum(len(b["text"]) for b in summary) // 4 + 50
            turn.say(f"Compacted {earlier} earlier messages into a summary.")
    except Cancelled:
        entry["status"] = "cancelled"
        if told:
            update = {"sessionUpdate": "compaction_update", "compactionId": compaction_id}
            turn.update_after_cancel({**update, "status": "cancelled"})
        raise
    if not told:
        turn.say(
            " The client did not opt in to compaction updates "
            "(clientCapabilities.session.compaction), so none were sent."
        )
    return "end_turn"


def spend(turn: Turn, arg: str) -> str:
    """Stream N steps (default 5), each with a usage update: `spend N [SECONDS]`."""
    words = arg.split()
    steps = int(words[0]) if words and words[0].isdigit() else 5
    delay: float | None = None
    if len(words) > 1:
        try:
            delay = max(0.0, float(words[1]))
        except ValueError:
            turn.say("Usage: `spend N [SECONDS per step]`")
            return "end_turn"
    session = turn.session
    used_in = used_out = 0
    for index in range(1, steps + 1):
        turn.say(f"Step {index}/{steps}: working.\n")
        used_in += STEP_TOKENS[0]
        used_out += STEP_TOKENS[1]
        session.tokens += sum(STEP_TOKENS)
        session.cost_micros += sum(STEP_TOKENS) * MICROS_PER_TOKEN
        # PromptResponse.usage counts this turn; a cancelled turn reports what it spent.
        turn.usage = {
            "totalTokens": used_in + used_out,
            "inputTokens": used_in,
            "outputTokens": used_out,
        }
        turn.usage_update()
        turn.pause(delay)
    cost = (used_in + used_out) * MICROS_PER_TOKEN / 1_000_000
    turn.say(f"Spent {used_in + used_out} tokens (USD {cost:.2f}).")
    return "end_turn"


def wait(turn: Turn, arg: str) -> str:
    """Wait SECONDS (default 1) like a slow model, stopping at once on cancel."""
    word = arg.split(maxsplit=1)[0] if arg.strip() else "1"
    try:
        seconds = float(word)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 3600:
        turn.say("Usage: `wait SECONDS` (0 to 3600)")
        return "end_turn"
    turn.pause(seconds)
    turn.say(f"Waited {word} s.")
    return "end_turn"


def stop(turn: Turn, arg: str) -> str:
    """End the turn with the stop reason given (`stop error`, `stop max_turn_requests`)."""
    reason = arg.split(maxsplit=1)[0] if arg.strip() else "end_turn"
    turn.say(f"Stopping with stopReason {reason!r}.")
    return reason
