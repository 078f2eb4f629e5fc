"""The unstable schema's types (acphost.schema.unstable) and its method names."""

import pytest

import acphost.schema as s
from acphost.schema import unstable as u


def test_shared_types_are_the_stable_classes():
    assert u.AgentMessageChunk is s.AgentMessageChunk
    assert u.TextContentBlock is s.TextContentBlock
    assert u.UnknownSessionUpdate is s.UnknownSessionUpdate
    assert u.Notice is s.Notice
    assert u.SessionModeState is s.SessionModeState
    # extended by the unstable schema: separate classes
    assert u.ClientCapabilities is not s.ClientCapabilities
    assert u.SessionCapabilities is not s.SessionCapabilities
    assert u.NewSessionRequest is not s.NewSessionRequest
    assert u.PromptResponse is not s.PromptResponse


def test_fork_session_request_and_response():
    req = u.ForkSessionRequest(session_id="s1", cwd="/w", mcp_servers=[])
    assert req.to_wire() == {"sessionId": "s1", "cwd": "/w", "mcpServers": []}
    assert s.UNSTABLE_AGENT_METHODS[s.UNSTABLE_SESSION_FORK] == (
        "ForkSessionRequest", "ForkSessionResponse")
    resp = u.ForkSessionResponse.from_wire(
        {"sessionId": "s2", "modes": {"currentModeId": "a", "availableModes": []}}
    )
    assert resp.session_id == "s2"
    assert isinstance(resp.modes, s.SessionModeState)


def test_session_status_title_archive():
    assert u.SessionStatusRequest(session_id="s").to_wire() == {"sessionId": "s"}
    assert u.SessionStatusResponse.from_wire({"status": "saved"}).status == "saved"
    # SessionStatus is open: a future value stays a string
    assert u.SessionStatusResponse.from_wire({"status": "_busy"}).status == "_busy"
    with pytest.raises(s.SchemaError, match="status: missing required field"):
        u.SessionStatusResponse.from_wire({})
    title = u.SetSessionTitleRequest(session_id="s", title="New")
    assert title.to_wire() == {"sessionId": "s", "title": "New"}
    assert u.SetSessionTitleResponse.from_wire({"title": "New"}).title == "New"
    assert u.ArchiveSessionRequest(session_id="s").to_wire() == {"sessionId": "s"}
    assert u.UnarchiveSessionRequest(session_id="s").to_wire() == {"sessionId": "s"}
    assert u.ArchiveSessionResponse.from_wire({}).to_wire() == {}
    assert s.UNSTABLE_SESSION_SET_TITLE == "session/set_title"
    assert s.UNSTABLE_SESSION_ARCHIVE == "session/archive"
    assert s.UNSTABLE_SESSION_UNARCHIVE == "session/unarchive"
    assert s.UNSTABLE_SESSION_STATUS == "session/status"


def test_auth_status_and_its_update_notification():
    resp = u.AuthStatusResponse.from_wire(
        {"state": "authenticated", "accounts": [{"label": "me", "active": True}, {"x": 1}]}
    )
    assert resp.state == "authenticated"
    # x-deserialize-skip-invalid-items: the account without a label is dropped
    assert [a.label for a in resp.accounts] == ["me"]
    note = u.AuthStatusUpdateNotification.from_wire({"state": "unauthenticated"})
    assert note.accounts is None
    assert s.UNSTABLE_AUTH_STATUS == "auth/status"
    assert s.UNSTABLE_AUTH_STATUS_UPDATE == "auth/status_update"


def test_capabilities_advertised_by_an_unstable_agent():
    caps = u.AgentCapabilities.from_wire(
        {"sessionCapabilities": {"fork": {}, "archive": {}, "status": {}, "title": {}},
         "auth": {"status": {}}}
    )
    sc = caps.session_capabilities
    assert sc.fork is not None and sc.archive is not None
    assert sc.status is not None and sc.title is not None
    assert caps.auth.status is not None
    # the stable class keeps the unknown members as extra, and writes them back
    stable = s.AgentCapabilities.from_wire({"sessionCapabilities": {"fork": {}}})
    assert stable.session_capabilities.extra == {"fork": {}}
    assert stable.to_wire() == {"sessionCapabilities": {"fork": {}}}


def test_unstable_session_updates():
    chunk = u.decode_session_update(
        {"sessionUpdate": "session_message_chunk", "messageId": "m",
         "content": {"type": "text", "text": "hi"}}
    )
    assert isinstance(chunk, u.SessionMessageChunk)
    assert chunk.text == "hi"
    removed = u.decode_session_update({"sessionUpdate": "plan_removed", "planId": "p"})
    assert isinstance(removed, u.PlanRemoved)
    plan = u.decode_session_update(
        {"sessionUpdate": "plan_update",
         "plan": {"type": "markdown", "planId": "p", "content": "# Plan"}}
    )
    assert isinstance(plan, u.PlanContentUpdate)
    assert isinstance(plan.plan, u.PlanMarkdown)
    assert plan.plan.content == "# Plan"
    # the stable decoder keeps the unstable variants as Unknown, with their data
    raw = {"sessionUpdate": "plan_removed", "planId": "p"}
    kept = s.decode_session_update(raw)
    assert isinstance(kept, s.UnknownSessionUpdate)
    assert kept.raw == raw
    # and a variant neither schema knows is Unknown in both, as the same class
    future = {"sessionUpdate": "hologram", "x": 1}
    assert isinstance(u.decode_session_update(future), s.UnknownSessionUpdate)
    assert u.decode_session_update(future).raw == future


def test_session_message_patch_fields():
    msg = u.decode_session_update(
        {"sessionUpdate": "session_message", "messageId": "m", "recipientSessionId": None}
    )
    assert msg.sender_session_id is s.UNSET
    assert msg.recipient_session_id is None
    assert msg.content is s.UNSET
    assert msg.to_wire() == {"sessionUpdate": "session_message", "messageId": "m",
                             "recipientSessionId": None}


def test_error_stop_reason():
    # `error` is an unstable stop reason of an idle state (session/status, subagents)
    idle = u.decode_state_update(
        {"state": "idle", "stopReason": "error", "error": {"code": -32603, "message": "boom"}}
    )
    assert isinstance(idle, u.IdleStateUpdate)
    assert idle.stop_reason == "error"
    assert idle.error.code == -32603
    assert idle.error.message == "boom"
    # the `unknown` state is a state of the schema; a state it does not know is not
    assert isinstance(u.decode_state_update({"state": "unknown"}), u.UnknownStateUpdate)
    other = u.decode_state_update({"state": "_paused"})
    assert isinstance(other, u.UnrecognizedStateUpdate)
    assert other.raw == {"state": "_paused"}
    # a prompt turn that ends with a stop reason this schema lacks is kept as sent
    assert s.PromptResponse.from_wire({"stopReason": "error"}).stop_reason == "error"
    assert u.PromptResponse.from_wire({"stopReason": "error"}).stop_reason == "error"
