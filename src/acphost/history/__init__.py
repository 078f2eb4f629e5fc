"""The local history: every session a face runs, its turns, tool calls, decisions and usage.

- :class:`HistoryStore`: the SQLite store (WAL, migrations, owner-only file) at
  :func:`default_path` (``$ACPHOST_HISTORY``, else ``$XDG_DATA_HOME/acphost``);
- :class:`HistoryRecorder`: records sessions as they run (the library records
  only when a host attaches one; :func:`history_enabled` reads ``--no-history``
  and ``ACPHOST_NO_HISTORY``);
- :func:`transcript_text`: a session as the CLI's text output shows it (also
  the context a new session is given when an agent can neither load nor resume);
- conversations: the sessions that go on from each other (a ``--continue``
  chain, a named session, a TUI tab) read as one: ``HistoryStore.list_conversations``,
  ``get_conversation``, :func:`conversation_text`, :func:`export_conversation`;
- :func:`export_session` / :func:`import_file`: md, html, json and jsonl
  (an import streams: its memory is bounded by its largest turn);
- :func:`usage_summary`: the usage ledger by agent, day or directory.

Importing this package is cheap; each part loads on first use.
"""

from __future__ import annotations

from .._lazy import lazy_exports

TYPE_CHECKING = False

__all__ = [
    "DEFAULT_TIMEOUT",
    "ConversationRecord",
    "ConversationSummary",
    "EXPORT_FORMATS",
    "GROUPINGS",
    "HistoryError",
    "HistoryIdError",
    "HistoryRecorder",
    "HistoryStore",
    "Piece",
    "PermissionRecord",
    "SessionRecord",
    "SessionRecording",
    "SessionSummary",
    "StoreInfo",
    "ToolCallRecord",
    "TurnRecord",
    "Usage",
    "UsageRow",
    "conversation_text",
    "conversation_transcript",
    "default_path",
    "export_conversation",
    "export_session",
    "history_enabled",
    "import_file",
    "import_sessions",
    "open_export",
    "local_time",
    "parse_age",
    "parse_when",
    "protocol_record",
    "protocol_text",
    "sandbox_line",
    "sandbox_record",
    "time_before",
    "transcript",
    "transcript_text",
    "usage_summary",
    "usage_text",
]

_LAZY = {
    "HistoryError": "._errors",
    "HistoryIdError": "._errors",
    "DEFAULT_TIMEOUT": "._store",
    "HistoryStore": "._store",
    "StoreInfo": "._reads",
    "default_path": "._config",
    "ConversationRecord": "._conversations",
    "ConversationSummary": "._conversations",
    "conversation_text": "._transcript",
    "conversation_transcript": "._transcript",
    "export_conversation": "._export",
    "history_enabled": "._config",
    "PermissionRecord": "._model",
    "SessionRecord": "._model",
    "SessionSummary": "._model",
    "ToolCallRecord": "._model",
    "TurnRecord": "._model",
    "Usage": "._model",
    "sandbox_record": "._model",
    "protocol_record": "._model",
    "protocol_text": "._transcript",
    "sandbox_line": "._transcript",
    "HistoryRecorder": "._recorder",
    "SessionRecording": "._recording",
    "Piece": "._transcript",
    "local_time": "._transcript",
    "transcript": "._transcript",
    "transcript_text": "._transcript",
    "usage_text": "._transcript",
    "EXPORT_FORMATS": "._export",
    "export_session": "._export",
    "import_file": "._import",
    "import_sessions": "._import",
    "open_export": "._import",
    "GROUPINGS": "._ledger",
    "UsageRow": "._ledger",
    "usage_summary": "._ledger",
    "parse_age": "._when",
    "parse_when": "._when",
    "time_before": "._when",
}

if TYPE_CHECKING:
    from ._config import default_path, history_enabled
    from ._conversations import ConversationRecord, ConversationSummary
    from ._errors import HistoryError, HistoryIdError
    from ._export import EXPORT_FORMATS, export_conversation, export_session
    from ._import import import_file, import_sessions, open_export
    from ._ledger import GROUPINGS, UsageRow, usage_summary
    from ._model import (
        PermissionRecord,
        SessionRecord,
        SessionSummary,
        ToolCallRecord,
        TurnRecord,
        Usage,
        protocol_record,
        sandbox_record,
    )
    from ._reads import StoreInfo
    from ._recorder import HistoryRecorder
    from ._recording import SessionRecording
    from ._store import DEFAULT_TIMEOUT, HistoryStore
    from ._transcript import (
        Piece,
        conversation_text,
        conversation_transcript,
        local_time,
        protocol_text,
        sandbox_line,
        transcript,
        transcript_text,
        usage_text,
    )
    from ._when import parse_age, parse_when, time_before

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
