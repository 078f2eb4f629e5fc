"""``session_info_update`` is a patch: omitted fields stay, ``null`` clears (schema SessionInfoUpdate)."""

from __future__ import annotations

from acphost import schema as s
from acphost.client import SessionState


def _info(**fields):
    return s.decode_session_update({"sessionUpdate": "session_info_update", **fields})


def test_omitted_keeps_null_clears_and_meta_alone_changes_nothing():
    state = SessionState()
    state.apply(_info(title="First", updatedAt="2026-11-28T00:00:00Z"))
    state.apply(_info(_meta={"codex": {"threadStatus": {"type": "idle"}}}))
    assert (state.title, state.updated_at) == ("First", "2026-11-28T00:00:00Z")
    state.apply(_info(updatedAt="2026-11-28T01:00:00Z"))
    assert state.title == "First"
    state.apply(_info(title=None))
    assert (state.title, state.updated_at) == (None, "2026-11-28T01:00:00Z")
