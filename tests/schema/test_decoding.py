import pickle

import pytest

import acphost.schema as s
from acphost.errors import RemoteProtocolError
from acphost.view import block_text, update_text


def test_session_update_dispatch_and_text():
    u = s.decode_session_update(
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}
    )
    assert isinstance(u, s.AgentMessageChunk)
    assert u.session_update == "agent_message_chunk"
    assert isinstance(u.content, s.TextContentBlock)
    assert u.text == "hi"
    img = s.decode_session_update(
        {"sessionUpdate": "user_message_chunk",
         "content": {"type": "image", "data": "x", "mimeType": "image/png"}}
    )
    assert img.text == ""


@pytest.mark.parametrize(
    ("update", "text"),
    [
        ({"sessionUpdate": "tool_call", "toolCallId": "c", "title": "Read"}, "Read"),
        ({"sessionUpdate": "tool_call_update", "toolCallId": "c", "status": "failed"}, "failed"),
        ({"sessionUpdate": "plan", "entries": [
            {"content": "a", "priority": "low", "status": "pending"},
            {"content": "b", "priority": "low", "status": "pending"}]}, "a\nb"),
        ({"sessionUpdate": "available_commands_update", "availableCommands": [
            {"name": "web", "description": "d"}, {"name": "test", "description": "d"}]},
         "web, test"),
        ({"sessionUpdate": "current_mode_update", "currentModeId": "code"}, "code"),
        ({"sessionUpdate": "config_option_update", "configOptions": [
            {"type": "boolean", "id": "t", "name": "think", "currentValue": True}]},
         "think=on"),
        ({"sessionUpdate": "session_info_update", "title": "T"}, "T"),
        ({"sessionUpdate": "usage_update", "used": 5, "size": 10}, "5/10"),
        ({"sessionUpdate": "brand_new_thing", "x": 1}, "brand_new_thing"),
    ],
)
def test_update_text(update, text):
    # How an update reads as one line is the view model's (acphost.view), not the wire type's.
    decoded = s.decode_session_update(update)
    assert update_text(decoded) == text
    assert not hasattr(decoded, "text")


def test_content_block_text():
    link = s.decode_content_block({"type": "resource_link", "name": "n", "uri": "file:///a"})
    assert block_text(link) == "file:///a"
    emb = s.decode_content_block(
        {"type": "resource", "resource": {"uri": "file:///b", "text": "body"}}
    )
    assert isinstance(emb.resource, s.TextResourceContents)
    assert block_text(emb) == "file:///b"
    blob = s.decode_content_block({"type": "resource", "resource": {"uri": "u", "blob": "AA=="}})
    assert isinstance(blob.resource, s.BlobResourceContents)


def test_unknown_variant_kept():
    raw = {"sessionUpdate": "compaction", "sessionId": "x", "detail": {"a": 1}}
    u = s.decode_session_update(raw)
    assert isinstance(u, s.UnknownSessionUpdate)
    assert u.kind == "compaction"
    assert u.raw == raw
    assert u.to_wire() == raw
    block = s.decode_content_block({"type": "video", "uri": "x"})
    assert isinstance(block, s.UnknownContentBlock)
    assert block_text(block) == ""
    note = s.SessionNotification.from_wire({"sessionId": "s", "update": raw})
    assert note.to_wire() == {"sessionId": "s", "update": raw}


def test_untagged_variants():
    stdio = s.decode_mcp_server({"name": "a", "command": "c", "args": [], "env": []})
    assert isinstance(stdio, s.McpServerStdio)
    tagged = s.decode_mcp_server(
        {"type": "stdio", "name": "a", "command": "c", "args": [], "env": []}
    )
    assert isinstance(tagged, s.McpServerStdio)
    assert tagged.to_wire()["type"] == "stdio"
    agent = s.decode_auth_method({"id": "a", "name": "A"})
    assert isinstance(agent, s.AuthMethodAgent)
    term = s.decode_auth_method({"type": "terminal", "id": "t", "name": "T"})
    assert isinstance(term, s.AuthMethodTerminal)
    assert term.type == "terminal"


def test_extra_fields_kept():
    data = {"type": "text", "text": "hi", "futureField": {"x": 1}, "_meta": {"k": "v"}}
    block = s.decode_content_block(data)
    assert block.extra == {"futureField": {"x": 1}}
    assert block.meta == {"k": "v"}
    assert block.to_wire() == data
    assert s.decode_content_block({"type": "text", "text": "hi"}).extra is None
    # an explicit null for an optional field is not "extra"
    with_null = {"type": "text", "text": "x", "annotations": None}
    assert s.TextContentBlock.from_wire(with_null).extra is None


def test_invalid_required_field_path():
    bad = {
        "sessionId": "s",
        "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": 42}},
    }
    with pytest.raises(s.SchemaError) as info:
        s.SessionNotification.from_wire(bad, "params")
    err = info.value
    assert err.path == "params.update.content.text"
    assert err.reason == "expected a string, got 42"
    assert str(err) == "params.update.content.text: expected a string, got 42"
    assert isinstance(err, RemoteProtocolError)
    assert isinstance(err, ValueError)


def test_missing_required_and_array_index_path():
    with pytest.raises(s.SchemaError) as info:
        s.PromptRequest.from_wire({"sessionId": "s", "prompt": [{"type": "text", "text": "a"},
                                                               {"type": "text"}]})
    assert info.value.path == "prompt[1].text"
    assert info.value.reason == "missing required field"
    with pytest.raises(s.SchemaError) as info:
        s.RequestPermissionRequest.from_wire(
            {"sessionId": "s", "toolCall": {"toolCallId": 3}, "options": []}
        )
    assert str(info.value) == "toolCall.toolCallId: expected a string, got 3"
    with pytest.raises(s.SchemaError, match="expected an object, got an array"):
        s.InitializeResponse.from_wire([])


def test_integer_is_not_bool():
    with pytest.raises(s.SchemaError):
        s.InitializeRequest.from_wire({"protocolVersion": True})
    with pytest.raises(s.SchemaError):
        s.UsageUpdate.from_wire({"used": 1.5, "size": 2})


def test_default_on_error():
    tc = s.ToolCallProgress.from_wire(
        {"toolCallId": "c", "title": 5, "kind": ["x"], "content": "nope", "locations": [{}]}
    )
    assert tc.title is None
    assert tc.kind is None
    assert tc.content is None
    assert tc.locations == []
    init = s.InitializeRequest.from_wire({"protocolVersion": 1, "clientCapabilities": "all"})
    assert init.client_capabilities is None
    caps = s.ClientCapabilities.from_wire({"terminal": "yes"})
    assert caps.terminal is None


def test_skip_invalid_items():
    tc = s.ToolCallStart.from_wire(
        {
            "toolCallId": "c",
            "title": "t",
            "content": [
                {"type": "content", "content": {"type": "text", "text": "ok"}},
                {"type": "diff", "path": "/a"},  # newText missing: dropped
                {"type": "mystery"},  # unknown variant: kept
            ],
        }
    )
    assert [type(c).__name__ for c in tc.content] == [
        "ContentToolCallContent",
        "UnknownToolCallContent",
    ]
    # MCP server definitions are acted on: since schema 1.25 a malformed one is
    # refused (no x-deserialize-skip-invalid-items on mcpServers any more)
    with pytest.raises(s.SchemaError) as info:
        s.NewSessionRequest.from_wire({"cwd": "/", "mcpServers": [{"name": 1}, 5]})
    assert info.value.path == "mcpServers[0].name"


def test_required_array_default_on_error():
    plan = s.PlanUpdate.from_wire({"sessionUpdate": "plan", "entries": "garbage"})
    assert plan.entries == []


def test_unknown_enum_value_kept_as_str():
    tc = s.ToolCallStart.from_wire(
        {"toolCallId": "c", "title": "t", "kind": "teleport", "status": "exploded"}
    )
    assert tc.kind == "teleport"
    assert tc.status == "exploded"
    assert s.PromptResponse.from_wire({"stopReason": "bored"}).stop_reason == "bored"


def test_request_id_union():
    assert s.CancelRequestNotification.from_wire({"requestId": None}).request_id is None
    assert s.CancelRequestNotification.from_wire({"requestId": "a"}).request_id == "a"
    with pytest.raises(s.SchemaError, match="requestId"):
        s.CancelRequestNotification.from_wire({"requestId": 1.5})
    with pytest.raises(s.SchemaError, match="missing"):
        s.CancelRequestNotification.from_wire({})


def test_frozen_eq_repr_replace_pickle():
    a = s.TextContentBlock(text="hi")
    b = s.TextContentBlock(text="hi")
    assert a == b
    assert a != s.TextContentBlock(text="ho")
    with pytest.raises(AttributeError):
        a.text = "x"
    with pytest.raises(AttributeError):
        del a.text
    with pytest.raises(TypeError):
        hash(a)
    assert repr(a) == "TextContentBlock(text='hi')"
    c = a.replace(text="new")
    assert c.text == "new"
    assert a.text == "hi"
    assert pickle.loads(pickle.dumps(a)) == a
    match s.decode_session_update({"sessionUpdate": "current_mode_update", "currentModeId": "m"}):
        case s.CurrentModeUpdate(current_mode_id=mode):
            assert mode == "m"
        case _:
            raise AssertionError


def test_methods_table():
    assert s.SESSION_NEW == "session/new"
    assert s.CANCEL_REQUEST == "$/cancel_request"
    assert s.AGENT_METHODS[s.SESSION_PROMPT] == ("PromptRequest", "PromptResponse")
    assert s.CLIENT_METHODS[s.SESSION_UPDATE] == ("SessionNotification", None)
    assert "session/fork" in s.UNSTABLE_AGENT_METHODS
    assert s.PROTOCOL_VERSION == 1
    for table in (s.AGENT_METHODS, s.CLIENT_METHODS, s.PROTOCOL_METHODS):
        for params, result in table.values():
            assert params in s.DECODERS
            assert result is None or result in s.DECODERS


def test_null_optional_is_absent():
    resp = s.WaitForTerminalExitResponse.from_wire({"exitCode": 1, "signal": None})
    assert resp.signal is None
    assert resp.extra is None
    assert resp.to_wire() == {"exitCode": 1}
