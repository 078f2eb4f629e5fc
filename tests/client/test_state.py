"""The session state rules, one by one, without an agent (decoded wire updates in, state out)."""

from __future__ import annotations

from acphost import SessionState
from acphost import schema as s


def up(raw: dict) -> s.SessionUpdate:
    return s.decode_session_update(raw, "update")


def text(kind: str, value: str, mid: str | None = None) -> s.SessionUpdate:
    raw: dict = {"sessionUpdate": kind, "content": {"type": "text", "text": value}}
    if mid is not None:
        raw["messageId"] = mid
    return up(raw)


def fold(*updates: s.SessionUpdate, keep_history: bool = True) -> SessionState:
    state = SessionState(keep_history=keep_history)
    for u in updates:
        state.apply(u)
    return state


def test_chunks_coalesce_and_split_on_role_and_message_id():
    state = fold(
        text("agent_message_chunk", "Hel"),
        text("agent_message_chunk", "lo"),
        text("agent_thought_chunk", "hmm"),
        text("agent_message_chunk", "A", "m1"),
        text("agent_message_chunk", "B", "m1"),
        text("agent_message_chunk", "C", "m2"),
    )
    assert [(m.role, m.message_id, m.text) for m in state.messages] == [
        ("agent", None, "Hello"),
        ("thought", None, "hmm"),
        ("agent", "m1", "AB"),
        ("agent", "m2", "C"),
    ]
    assert state.last_agent_text() == "HelloABC"


def test_without_history_no_message_is_kept():
    state = fold(text("agent_message_chunk", "x"), keep_history=False)
    state.add_user_prompt([s.TextContentBlock(text="q")])
    assert state.messages == []


def test_the_chunks_are_inert_exactly_while_no_history_is_kept():
    state = SessionState(keep_history=False)
    chunks = {
        type(text(k, "x"))
        for k in ("user_message_chunk", "agent_message_chunk", "agent_thought_chunk")
    }
    assert state.inert == chunks
    state.apply(text("agent_message_chunk", "dropped"))
    state.keep_history = True
    assert state.inert == frozenset()
    state.apply(text("agent_message_chunk", "kept"))
    assert [m.text for m in state.messages] == ["kept"]
    state.keep_history = False
    assert state.inert == chunks


def test_tool_calls_merge_field_by_field_and_keep_their_name():
    state = fold(
        up(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "t",
                "title": "Read a.py",
                "name": "Read",
                "kind": "read",
                "status": "pending",
                "locations": [{"path": "/w/a.py"}],
            }
        ),
        up({"sessionUpdate": "tool_call_update", "toolCallId": "t", "status": "completed"}),
    )
    call = state.tool_calls["t"]
    assert (call.title, call.name, call.kind, call.status) == (
        "Read a.py",
        "Read",
        "read",
        "completed",
    )
    assert [loc.path for loc in call.locations] == ["/w/a.py"] and call.done and call.announced


def test_an_update_for_an_unannounced_tool_call_creates_it():
    state = fold(
        up(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "x",
                "name": "Bash",
                "status": "in_progress",
            }
        )
    )
    call = state.tool_calls["x"]
    assert call.name == "Bash" and not call.announced and not call.done
    assert state.cancel_pending_tool_calls() == [call] and call.cancelled and call.done


def test_a_new_tool_call_with_the_same_id_replaces_the_old_one():
    state = fold(
        up({"sessionUpdate": "tool_call", "toolCallId": "t", "title": "one", "name": "A"}),
        up({"sessionUpdate": "tool_call", "toolCallId": "t", "title": "two"}),
    )
    assert state.tool_calls["t"].title == "two" and state.tool_calls["t"].name is None


def test_the_plan_is_replaced_whole():
    entry = {"content": "step", "priority": "high", "status": "pending"}
    state = fold(
        up({"sessionUpdate": "plan", "entries": [entry, entry]}),
        up({"sessionUpdate": "plan", "entries": [{**entry, "content": "only"}]}),
    )
    assert [e.content for e in state.plan] == ["only"]


def test_modes_commands_config_usage_and_info():
    state = SessionState()
    state.modes = s.SessionModeState(current_mode_id="ask", available_modes=[])
    for raw in (
        {"sessionUpdate": "current_mode_update", "currentModeId": "code"},
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [{"name": "test", "description": "run tests"}],
        },
        {
            "sessionUpdate": "usage_update",
            "used": 5,
            "size": 10,
            "cost": {"amount": 0.5, "currency": "USD"},
        },
        {"sessionUpdate": "session_info_update", "title": "T", "updatedAt": "2026-11-24T00:00:00Z"},
        {"sessionUpdate": "session_info_update", "updatedAt": "2026-11-25T00:00:00Z"},
    ):
        state.apply(up(raw))
    assert state.current_mode_id == "code"
    assert [c.name for c in state.available_commands] == ["test"]
    assert (
        state.usage is not None and state.usage.cost is not None and state.usage.cost.amount == 0.5
    )
    assert state.title == "T" and state.updated_at == "2026-11-25T00:00:00Z"


def test_compaction_is_an_upsert_with_patch_semantics():
    cid = {"compactionId": "c1"}
    state = fold(text("agent_message_chunk", "before"))
    state.apply(
        up(
            {
                "sessionUpdate": "compaction_update",
                **cid,
                "status": "in_progress",
                "_meta": {"k": 1},
            }
        )
    )
    for part in ("Sum", "mary"):
        state.apply(
            up(
                {
                    "sessionUpdate": "compaction_summary_chunk",
                    **cid,
                    "content": {"type": "text", "text": part},
                }
            )
        )
    state.apply(text("agent_message_chunk", "after"))
    c = state.compactions["c1"]
    assert (c.status, c.summary_text, c.meta, c.position) == ("in_progress", "Summary", {"k": 1}, 1)
    # omitted fields are unchanged
    state.apply(up({"sessionUpdate": "compaction_update", **cid, "status": "completed"}))
    assert (c.status, c.summary_text, c.meta) == ("completed", "Summary", {"k": 1})
    # null clears, a value replaces
    state.apply(
        up(
            {
                "sessionUpdate": "compaction_update",
                **cid,
                "status": "failed",
                "error": "too big",
                "_meta": None,
                "summary": [{"type": "text", "text": "New"}],
            }
        )
    )
    assert (c.status, c.error, c.meta, c.summary_text) == ("failed", "too big", None, "New")
    state.apply(
        up({"sessionUpdate": "compaction_update", **cid, "status": "failed", "error": None})
    )
    assert c.error is None and c.summary_text == "New"
    # summary: [] clears the summary, as null does
    state.apply(
        up({"sessionUpdate": "compaction_update", **cid, "status": "failed", "summary": []})
    )
    assert c.summary == []
    state.apply(
        up(
            {
                "sessionUpdate": "compaction_update",
                **cid,
                "status": "failed",
                "summary": [{"type": "text", "text": "x"}],
            }
        )
    )
    state.apply(
        up({"sessionUpdate": "compaction_update", **cid, "status": "failed", "summary": None})
    )
    assert c.summary == [] and c.position == 1  # the first update fixed its place


def test_a_summary_chunk_for_an_unknown_compaction_starts_one():
    state = fold(
        up(
            {
                "sessionUpdate": "compaction_summary_chunk",
                "compactionId": "c9",
                "content": {"type": "text", "text": "s"},
            }
        )
    )
    assert state.compactions["c9"].status is None and state.compactions["c9"].summary_text == "s"


def test_notices_and_unknown_variants_change_no_state():
    before = fold(text("agent_message_chunk", "x"))
    after = fold(
        text("agent_message_chunk", "x"),
        up({"sessionUpdate": "notice", "severity": "warning", "title": "Rate limited"}),
        up({"sessionUpdate": "some_future_update", "whatever": 1}),
    )
    assert [m.text for m in after.messages] == [m.text for m in before.messages]
    assert after.compactions == {} and after.tool_calls == {}


def test_a_tool_name_is_shown_only_where_it_adds_information():
    def call(name, title, kind):
        state = fold(
            up(
                {
                    "sessionUpdate": "tool_call",
                    "toolCallId": "t",
                    "title": title,
                    "name": name,
                    "kind": kind,
                }
            )
        )
        return state.tool_calls["t"].shown_name

    assert call("Bash", "Run the tests", "execute") == "Bash"
    assert call("Edit", "hello.py", "edit") is None  # the kind says it
    assert call("Read", "Read hello.py", "read") is None  # the title says it
    assert call(None, "x", "read") is None
