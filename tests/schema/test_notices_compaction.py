"""The types schema 1.25 added to stable v1: tool names, notices, compaction."""

import pickle

import pytest

import acphost.schema as s
from acphost.view import update_text

TEXT = {"type": "text", "text": "kept the plan"}


def test_tool_call_name_on_start_progress_and_permission():
    start = s.decode_session_update(
        {"sessionUpdate": "tool_call", "toolCallId": "c", "title": "ls -la", "name": "Bash"}
    )
    assert isinstance(start, s.ToolCallStart)
    assert start.name == "Bash"
    assert start.to_wire()["name"] == "Bash"
    progress = s.decode_session_update(
        {"sessionUpdate": "tool_call_update", "toolCallId": "c", "name": "Edit"}
    )
    assert isinstance(progress, s.ToolCallProgress)
    assert progress.name == "Edit"
    # omitted or null: no name (for an update: unchanged), never "extra"
    bare = s.ToolCallProgress.from_wire({"toolCallId": "c", "name": None})
    assert bare.name is None
    assert bare.extra is None
    assert "name" not in bare.to_wire()
    # x-deserialize-default-on-error: a malformed name is dropped, not fatal
    assert s.ToolCallStart.from_wire({"toolCallId": "c", "title": "t", "name": 7}).name is None
    perm = s.RequestPermissionRequest.from_wire(
        {"sessionId": "s", "toolCall": {"toolCallId": "c", "name": "Bash"}, "options": []}
    )
    assert perm.tool_call.name == "Bash"
    assert s.ToolCall(tool_call_id="c", title="t", name="Read").to_wire() == {
        "toolCallId": "c", "title": "t", "name": "Read"}


def test_notice_decodes_renders_and_round_trips():
    raw = {"sessionUpdate": "notice", "severity": "warning", "title": "Rate limited",
           "description": "retrying"}
    notice = s.decode_session_update(raw)
    assert isinstance(notice, s.Notice)
    assert notice.session_update == "notice"
    assert (notice.severity, notice.title, notice.description) == (
        "warning", "Rate limited", "retrying")
    assert update_text(notice) == "Rate limited: retrying"
    assert notice.to_wire() == raw
    plain = s.Notice(severity="info", title="Model switched")
    assert update_text(plain) == "Model switched"
    assert plain.to_wire() == {"sessionUpdate": "notice", "severity": "info",
                               "title": "Model switched"}
    # NoticeSeverity is open ("other"): a future severity is kept as a string
    assert s.decode_session_update(
        {"sessionUpdate": "notice", "severity": "_vendor_debug", "title": "x"}
    ).severity == "_vendor_debug"
    # lenient description (x-deserialize-default-on-error), strict title
    assert s.Notice.from_wire({"severity": "info", "title": "t", "description": 3}).description \
        is None
    with pytest.raises(s.SchemaError, match="title: missing required field"):
        s.Notice.from_wire({"severity": "info"})
    match notice:
        case s.Notice(severity="warning", title=title):
            assert title == "Rate limited"
        case _:
            raise AssertionError


def test_compaction_update_patch_fields_omitted_null_and_value():
    started = s.decode_session_update(
        {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "in_progress"}
    )
    assert isinstance(started, s.CompactionUpdate)
    # omitted: UNSET (leave the stored value unchanged)
    assert started.summary is s.UNSET
    assert started.error is s.UNSET
    assert started.meta is s.UNSET
    assert started.extra is None
    assert update_text(started) == "in_progress"
    assert started.to_wire() == {"sessionUpdate": "compaction_update", "compactionId": "c1",
                                 "status": "in_progress"}
    # null: None (clear the stored value), written back as null
    cleared = s.CompactionUpdate.from_wire(
        {"compactionId": "c1", "status": "completed", "summary": None, "error": None,
         "_meta": None}
    )
    assert (cleared.summary, cleared.error, cleared.meta) == (None, None, None)
    assert cleared.extra is None
    assert cleared.to_wire() == {"sessionUpdate": "compaction_update", "compactionId": "c1",
                                 "status": "completed", "summary": None, "error": None,
                                 "_meta": None}
    # a value replaces; `summary: []` stays an empty list (it also clears)
    done = s.CompactionUpdate.from_wire(
        {"compactionId": "c1", "status": "failed", "summary": [TEXT], "error": "boom"}
    )
    assert [b.text for b in done.summary] == ["kept the plan"]
    assert done.error == "boom"
    assert done.meta is s.UNSET
    assert update_text(done) == "failed: boom"
    empty = s.CompactionUpdate.from_wire({"compactionId": "c1", "status": "x", "summary": []})
    assert empty.summary == []
    assert empty.to_wire()["summary"] == []


def test_compaction_update_malformed_patch_value_changes_nothing():
    # x-deserialize-default-on-error on a patch field: treated as not sent (UNSET),
    # so a malformed value never clears what the client stored
    bad = s.CompactionUpdate.from_wire(
        {"compactionId": "c1", "status": "completed", "summary": "nope", "error": 5,
         "_meta": []}
    )
    assert bad.summary is s.UNSET
    assert bad.error is s.UNSET
    assert bad.meta is s.UNSET
    assert bad.extra is None
    # skip-invalid-items inside the summary
    some = s.CompactionUpdate.from_wire(
        {"compactionId": "c1", "status": "completed", "summary": [TEXT, {"type": "text"}]}
    )
    assert len(some.summary) == 1
    with pytest.raises(s.SchemaError, match="compactionId: missing required field"):
        s.CompactionUpdate.from_wire({"status": "completed"})


def test_compaction_update_built_in_code():
    update = s.CompactionUpdate(compaction_id="c2", status="in_progress")
    assert update.summary is s.UNSET
    assert repr(update) == "CompactionUpdate(compaction_id='c2', status='in_progress')"
    cleared = update.replace(error=None)
    assert repr(cleared) == (
        "CompactionUpdate(compaction_id='c2', status='in_progress', error=None)"
    )
    assert cleared.to_wire()["error"] is None
    assert pickle.loads(pickle.dumps(cleared)) == cleared
    assert pickle.loads(pickle.dumps(update)).summary is s.UNSET
    assert update != cleared


def test_compaction_summary_chunk():
    chunk = s.decode_session_update(
        {"sessionUpdate": "compaction_summary_chunk", "compactionId": "c1", "content": TEXT}
    )
    assert isinstance(chunk, s.CompactionSummaryChunk)
    assert chunk.compaction_id == "c1"
    assert chunk.text == "kept the plan"
    with pytest.raises(s.SchemaError, match="content: missing required field"):
        s.CompactionSummaryChunk.from_wire({"compactionId": "c1"})


def test_unset_sentinel():
    assert s.Unset() is s.UNSET
    assert not s.UNSET
    assert repr(s.UNSET) == "UNSET"
    assert pickle.loads(pickle.dumps(s.UNSET)) is s.UNSET
    assert isinstance(s.UNSET, s.Unset)


def test_client_session_capabilities_notices_and_compaction():
    caps = s.ClientCapabilities(
        session=s.ClientSessionCapabilities(
            notices=s.NoticeCapabilities(), compaction=s.CompactionCapabilities()
        )
    )
    assert caps.to_wire() == {"session": {"notices": {}, "compaction": {}}}
    back = s.ClientCapabilities.from_wire({"session": {"notices": {}, "compaction": {}}})
    assert back == caps
    # not advertised: absent, and malformed values fall back to "not advertised"
    assert s.ClientSessionCapabilities.from_wire({}).notices is None
    assert s.ClientSessionCapabilities.from_wire({"compaction": True}).compaction is None


def test_stricter_values_the_host_acts_on():
    # terminal/create: args, env, cwd and outputByteLimit are no longer lenient
    with pytest.raises(s.SchemaError) as info:
        s.CreateTerminalRequest.from_wire(
            {"sessionId": "s", "command": "ls", "args": ["-l", 3]}
        )
    assert str(info.value) == "args[1]: expected a string, got 3"
    with pytest.raises(s.SchemaError, match="env"):
        s.CreateTerminalRequest.from_wire({"sessionId": "s", "command": "ls", "env": [{}]})
    with pytest.raises(s.SchemaError, match="cwd: expected a string"):
        s.CreateTerminalRequest.from_wire({"sessionId": "s", "command": "ls", "cwd": 1})
    with pytest.raises(s.SchemaError, match="outputByteLimit"):
        s.CreateTerminalRequest.from_wire(
            {"sessionId": "s", "command": "ls", "outputByteLimit": "big"}
        )
    # x-deserialize-default-on-null: null is the empty default, not an error
    req = s.CreateTerminalRequest.from_wire(
        {"sessionId": "s", "command": "ls", "args": None, "env": None}
    )
    assert req.args is None
    assert req.env is None
    stdio = s.decode_mcp_server({"name": "m", "command": "c", "args": None, "env": None})
    assert stdio.args == []
    assert stdio.env == []
    http = s.decode_mcp_server({"type": "http", "name": "h", "url": "u", "headers": None})
    assert http.headers == []
    with pytest.raises(s.SchemaError, match="args: missing required field"):
        s.decode_mcp_server({"name": "m", "command": "c", "env": []})
    with pytest.raises(s.SchemaError, match=r"env\[0\]"):
        s.decode_mcp_server({"name": "m", "command": "c", "args": [], "env": [{"name": 1}]})
