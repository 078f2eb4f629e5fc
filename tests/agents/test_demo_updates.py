"""The demo agent's schema-v1.25 keywords over real pipes: tool names, notices,
compaction, content kinds, usage, waiting, stop reasons and elicitation."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from _raw_client import RawClient, chunks, kinds, texts

# -- tool names --------------------------------------------------------------------


def _names(updates: list[dict[str, Any]]) -> list[str]:
    return [u["name"] for u in updates if u["sessionUpdate"] == "tool_call"]


def test_tool_calls_carry_names(client: RawClient) -> None:
    sid = client.new_session("/proj")
    expected = {
        "tool": ["Search"],
        "diff": ["Edit"],
        "read /proj/a.txt": ["Read"],
        "write /proj/b.txt hi": ["Write"],
        "terminal ls -l": ["Bash"],
        "permission": ["Bash"],
        "Show me around": ["Search", "Edit"],
    }
    for prompt, names in expected.items():
        updates, response = client.prompt(sid, prompt)
        assert _names(updates) == names, prompt
        # Updates leave the name out: omitted means unchanged (schema, ToolCallUpdate).
        assert all("name" not in u for u in updates if u["sessionUpdate"] == "tool_call_update")
        assert response["result"]["stopReason"] == "end_turn"
    asked = next(f for f in client.answered if f["method"] == "session/request_permission")
    assert asked["params"]["toolCall"]["name"] == "Write"
    last = [f for f in client.answered if f["method"] == "session/request_permission"][-1]
    assert last["params"]["toolCall"] == {
        "toolCallId": last["params"]["toolCall"]["toolCallId"],
        "title": "Delete build/ (demo)",
        "kind": "delete",
        "name": "Bash",
    }


# -- notices -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prompt", "severity", "title"),
    [
        ("notice", "info", "The demo agent has a notice for you"),
        ("notice Indexing finished", "info", "Indexing finished"),
        ("notice warning Disk almost full", "warning", "Disk almost full"),
        ("notice ERROR Build broke", "error", "Build broke"),
        ("notice error", "error", "The pretend build failed (demo)"),
        ("notice _vendor Custom thing", "_vendor", "Custom thing"),
    ],
)
def test_notice(client: RawClient, prompt: str, severity: str, title: str) -> None:
    updates, response = client.prompt(client.new_session(), prompt)
    notices = [u for u in updates if u["sessionUpdate"] == "notice"]
    assert [(n["severity"], n["title"]) for n in notices] == [(severity, title)]
    assert notices[0]["description"]
    assert f"Sent a {severity} notice." in texts(updates)
    assert response["result"]["stopReason"] == "end_turn"


def test_notice_only_to_clients_that_opt_in(make_client: Any) -> None:
    c = make_client()
    c.initialize({"session": {"compaction": {}}})
    updates, _ = c.prompt(c.new_session(), "notice warning Disk almost full")
    assert "notice" not in kinds(updates)
    text = texts(updates)
    assert "did not opt in to notices" in text and "[warning] Disk almost full" in text


# -- compaction ----------------------------------------------------------------------


def apply_compaction(state: dict[str, dict[str, Any]], update: dict[str, Any]) -> None:
    """Apply one update the way the schema says a client must (CompactionUpdate)."""
    entry = state.setdefault(update["compactionId"], {"status": "in_progress", "summary": []})
    if update["sessionUpdate"] == "compaction_summary_chunk":
        entry["summary"] = [*entry["summary"], update["content"]]
        return
    entry["status"] = update["status"]
    for key in ("summary", "error", "_meta"):
        if key in update:  # omitted: unchanged; null (or summary []): cleared
            entry[key] = (
                update[key] if update[key] is not None else ([] if key == "summary" else None)
            )


def compactions(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [u for u in updates if u["sessionUpdate"].startswith("compaction_")]


def test_compact_streams_a_summary_with_patch_semantics(client: RawClient) -> None:
    sid = client.new_session()
    client.prompt(sid, "echo one")
    updates, response = client.prompt(sid, "compact")
    seen = compactions(updates)
    assert kinds(seen) == ["compaction_update"] * 2 + ["compaction_summary_chunk"] * 3 + [
        "compaction_update"
    ]
    assert len({u["compactionId"] for u in seen}) == 1
    first, cleared, *_streamed, done = seen
    assert first["status"] == "in_progress" and first["summary"]  # a placeholder...
    assert cleared["summary"] is None  # ...cleared with null
    assert done == {
        "sessionUpdate": "compaction_update",
        "compactionId": first["compactionId"],
        "status": "completed",
    }  # omits summary: the streamed one stays
    state: dict[str, dict[str, Any]] = {}
    for update in seen:
        apply_compaction(state, update)
    (final,) = state.values()
    assert final["status"] == "completed"
    assert "".join(b["text"] for b in final["summary"]) == (
        "Summary: 2 earlier messages in this session were about trying the demo agent's keywords."
    )
    assert kinds(updates).index("agent_message_chunk") > kinds(updates).index("compaction_update")
    assert response["result"]["stopReason"] == "end_turn"
    # The context shrank: the next usage update reports less than before.
    usage, _ = client.prompt(sid, "usage")
    assert next(u for u in usage if u["sessionUpdate"] == "usage_update")["used"] < 100


def test_compact_fail_clears_the_summary_and_reports_an_error(client: RawClient) -> None:
    updates, _ = client.prompt(client.new_session(), "compact fail")
    state: dict[str, dict[str, Any]] = {}
    for update in compactions(updates):
        apply_compaction(state, update)
    (final,) = state.values()
    assert final["status"] == "failed" and final["summary"] == []
    assert "could not summarise" in final["error"]
    assert compactions(updates)[-1]["summary"] == []
    assert "The compaction failed" in texts(updates)


def test_compact_only_to_clients_that_opt_in(make_client: Any) -> None:
    c = make_client()
    c.initialize({"session": {"notices": {}}})
    updates, _ = c.prompt(c.new_session(), "compact")
    assert compactions(updates) == []
    assert "did not opt in to compaction updates" in texts(updates)


def test_compact_cancelled_midway_says_so_before_answering(make_client: Any) -> None:
    c = make_client(ACPHOST_DEMO_STEP="0.2")
    c.initialize()
    sid = c.new_session()
    request_id = c.start_prompt(sid, "compact")
    frame = c.next_frame()
    assert frame is not None and frame["params"]["update"]["sessionUpdate"] == "compaction_update"
    c.notify("session/cancel", {"sessionId": sid})
    frames, response = c.until_response(request_id)
    assert response["result"] == {"stopReason": "cancelled"}
    last = frames[-1]["params"]["update"]
    assert last["sessionUpdate"] == "compaction_update" and last["status"] == "cancelled"


def test_load_replays_a_compacted_session(make_client: Any) -> None:
    first = make_client()
    first.initialize()
    sid = first.new_session("/proj")
    first.prompt(sid, "echo before")
    first.prompt(sid, "compact")
    first.prompt(sid, "echo after")
    assert first.close() == 0

    second = make_client()
    second.initialize()
    frames, _ = second.until_response(
        second.request("session/load", {"sessionId": sid, "cwd": "/proj", "mcpServers": []})
    )
    replay = [f["params"]["update"] for f in frames]
    assert kinds(replay) == [
        "user_message_chunk",
        "agent_message_chunk",
        "user_message_chunk",
        "compaction_update",
        "agent_message_chunk",
        "user_message_chunk",
        "agent_message_chunk",
    ]
    compaction = replay[3]
    assert compaction["status"] == "completed"
    assert "".join(b["text"] for b in compaction["summary"]).startswith("Summary: 2 earlier")
    assert replay[4]["content"]["text"].startswith("Compacted 2 earlier messages")

    # A client that did not opt in gets the messages only.
    third = make_client()
    third.initialize({})
    frames, _ = third.until_response(
        third.request("session/load", {"sessionId": sid, "cwd": "/proj", "mcpServers": []})
    )
    assert "compaction_update" not in kinds([f["params"]["update"] for f in frames])


# -- content kinds ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("keyword", "types"),
    [
        ("image", ["image"]),
        ("audio", ["audio"]),
        ("resource", ["resource", "resource"]),
        ("link", ["resource_link"]),
    ],
)
def test_content_kinds_in_messages_and_tool_calls(
    client: RawClient, keyword: str, types: list[str]
) -> None:
    updates, response = client.prompt(client.new_session("/proj"), keyword)
    blocks = [b for b in chunks(updates) if b["type"] != "text"]
    assert [b["type"] for b in blocks] == types
    for block in blocks:
        annotations = block["annotations"]
        assert annotations["audience"] and 0 <= annotations["priority"] <= 1
        assert annotations["lastModified"].endswith("Z")
    done = next(u for u in updates if u.get("status") == "completed")
    assert [c["content"] for c in done["content"]] == blocks
    assert response["result"]["stopReason"] == "end_turn"
    block = blocks[0]
    if keyword == "image":
        data = base64.b64decode(block["data"], validate=True)
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and block["mimeType"] == "image/png"
    elif keyword == "audio":
        data = base64.b64decode(block["data"], validate=True)
        assert data[:4] == b"RIFF" and data[8:12] == b"WAVE" and block["mimeType"] == "audio/wav"
    elif keyword == "resource":
        assert block["resource"]["text"].startswith("# Notes")
        assert block["resource"]["uri"] == "file:///proj/NOTES.md"
        assert base64.b64decode(blocks[1]["resource"]["blob"]) == bytes(range(64))
    else:
        assert block["uri"] == "file:///proj/docs/guide.pdf"
        assert (block["name"], block["mimeType"], block["size"]) == (
            "guide.pdf",
            "application/pdf",
            48213,
        )


def test_media_sends_every_kind(client: RawClient) -> None:
    updates, _ = client.prompt(client.new_session(), "media")
    types = [b["type"] for b in chunks(updates) if b["type"] != "text"]
    assert types == ["image", "audio", "resource", "resource", "resource_link"]


# -- usage as it goes, waiting, stop reasons ---------------------------------------------


def test_spend_reports_usage_after_every_step(client: RawClient) -> None:
    sid = client.new_session()
    updates, response = client.prompt(sid, "spend 3")
    seen = kinds(updates)
    assert seen == ["agent_message_chunk", "usage_update"] * 3 + ["agent_message_chunk"]
    usage = [u for u in updates if u["sessionUpdate"] == "usage_update"]
    prompt = len("spend 3") // 4  # the prompt is in the context too
    assert [u["used"] for u in usage] == [1000 + prompt, 2000 + prompt, 3000 + prompt]
    assert [u["cost"] for u in usage] == [
        {"amount": 0.01, "currency": "USD"},
        {"amount": 0.02, "currency": "USD"},
        {"amount": 0.03, "currency": "USD"},
    ]
    assert {u["size"] for u in usage} == {200_000}
    assert response["result"] == {
        "stopReason": "end_turn",
        "usage": {"totalTokens": 3000, "inputTokens": 2400, "outputTokens": 600},
    }
    # The session's cost keeps adding up; the turn's usage counts this turn only.
    _, again = client.prompt(sid, "spend 1")
    assert again["result"]["usage"]["totalTokens"] == 1000


def test_spend_cancelled_mid_turn_reports_what_it_spent(make_client: Any) -> None:
    c = make_client()
    c.initialize()
    sid = c.new_session()
    request_id = c.start_prompt(sid, "spend 1000 0.05")
    usage_seen = 0
    while usage_seen < 2:
        frame = c.next_frame()
        assert frame is not None
        if frame["params"]["update"]["sessionUpdate"] == "usage_update":
            usage_seen += 1
    c.notify("session/cancel", {"sessionId": sid})
    frames, response = c.until_response(request_id)
    assert response["result"]["stopReason"] == "cancelled"
    spent = response["result"]["usage"]["totalTokens"]
    assert spent % 1000 == 0 and 2000 <= spent < 1_000_000
    later = [
        f["params"]["update"]
        for f in frames
        if f["params"]["update"]["sessionUpdate"] == "usage_update"
    ]
    assert spent == 2000 + 1000 * len(later)


def test_wait_finishes_and_honours_cancel(make_client: Any) -> None:
    c = make_client()
    c.initialize()
    sid = c.new_session()
    updates, response = c.prompt(sid, "wait 0.05")
    assert texts(updates) == "Waited 0.05 s." and response["result"]["stopReason"] == "end_turn"
    updates, _ = c.prompt(sid, "wait forever")
    assert texts(updates).startswith("Usage: `wait SECONDS`")
    # A 10-minute wait answers within until_response's deadline only because it
    # stops on session/cancel.
    request_id = c.start_prompt(sid, "wait 600")
    c.notify("session/cancel", {"sessionId": sid})
    frames, response = c.until_response(request_id)
    assert response["result"] == {"stopReason": "cancelled"} and frames == []


def test_stop_reasons(client: RawClient) -> None:
    sid = client.new_session()
    _, response = client.prompt(sid, "stop max_turn_requests")
    assert response["result"]["stopReason"] == "max_turn_requests"
    _, response = client.prompt(sid, "stop error")
    # `error` is a stop reason only in schema.unstable.json's subagent states: a
    # PromptResponse carrying it is off-schema, which is what it is for.
    assert response["result"]["stopReason"] == "error"
    assert [f for f, _ in client.invalid] == [response]
    client.expected_invalid.append(response)


# -- elicitation ------------------------------------------------------------------------


def test_ask_form_offers_every_field_type(client: RawClient) -> None:
    sid = client.new_session()
    answer = {
        "action": "accept",
        "content": {
            "name": "Ada",
            "temperature": 0.25,
            "retries": 3,
            "tests": False,
            "language": "rust",
            "tools": ["read", "bash"],
        },
    }
    client.responses["elicitation/create"] = answer
    updates, _ = client.prompt(sid, "ask form")
    asked = client.answered[-1]["params"]
    assert asked["mode"] == "form" and asked["sessionId"] == sid
    props = asked["requestedSchema"]["properties"]
    assert {p["type"] for p in props.values()} == {
        "string",
        "number",
        "integer",
        "boolean",
        "array",
    }
    assert props["language"]["oneOf"] and props["tone"]["enum"] and props["tools"]["items"]["anyOf"]
    assert props["email"]["format"] == "email"
    assert {k for k, p in props.items() if "default" in p} == {
        "temperature",
        "retries",
        "tests",
        "language",
        "tools",
    }
    assert asked["requestedSchema"]["required"] == ["name", "language", "tools"]
    assert texts(updates) == (
        "You accepted the form with language=rust, name=Ada, retries=3, temperature=0.25, "
        "tests=false, tools=[read, bash]."
    )
    client.responses["elicitation/create"] = {"action": "accept", "content": {"name": "Ada"}}
    updates, _ = client.prompt(sid, "ask form")
    assert "lacks the required field(s) language, tools" in texts(updates)
    for action, said in (
        ("decline", "You declined the form."),
        ("cancel", "You cancelled the form."),
    ):
        client.responses["elicitation/create"] = {"action": action}
        updates, _ = client.prompt(sid, "ask form")
        assert texts(updates) == said


def test_ask_url_completes_after_acceptance(client: RawClient) -> None:
    sid = client.new_session()
    client.responses["elicitation/create"] = {"action": "accept"}
    request_id = client.start_prompt(sid, "ask url")
    frames, response = client.until_response(request_id)
    asked = client.answered[-1]["params"]
    assert asked["mode"] == "url" and asked["url"].startswith("https://")
    complete = [f for f in frames if f.get("method") == "elicitation/complete"]
    assert [f["params"] for f in complete] == [{"elicitationId": asked["elicitationId"]}]
    updates = [f["params"]["update"] for f in frames if f.get("method") == "session/update"]
    assert texts(updates) == "You accepted the URL request. The URL flow is complete."
    assert response["result"]["stopReason"] == "end_turn"

    client.responses["elicitation/create"] = {"action": "decline"}
    frames, _ = client.until_response(client.start_prompt(sid, "ask url"))
    assert not [f for f in frames if f.get("method") == "elicitation/complete"]
    assert "You declined the URL request." in texts(
        [f["params"]["update"] for f in frames if f.get("method") == "session/update"]
    )


def test_ask_needs_the_mode_advertised(make_client: Any) -> None:
    c = make_client()
    c.initialize({"elicitation": {"form": {}}})
    sid = c.new_session()
    updates, _ = c.prompt(sid, "ask url")
    assert texts(updates) == "The client did not advertise elicitation.url, so I cannot ask."
    updates, _ = c.prompt(sid, "ask")
    assert texts(updates) == "Usage: `ask form` or `ask url`."
    assert c.answered == []
