"""Hand-written wire examples: (schema $defs name, JSON object)."""

TEXT = {"type": "text", "text": "hello"}

CONTENT_BLOCKS = [
    {"type": "text", "text": "hello", "annotations": {"audience": ["user"], "priority": 0.5}},
    {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "uri": "file:///a.png"},
    {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
    {
        "type": "resource_link",
        "name": "main.py",
        "uri": "file:///src/main.py",
        "mimeType": "text/x-python",
        "size": 1234,
        "title": "Main",
        "description": "entry point",
    },
    {
        "type": "resource",
        "resource": {"uri": "file:///notes.md", "text": "# Notes", "mimeType": "text/markdown"},
    },
    {"type": "resource", "resource": {"uri": "file:///x.bin", "blob": "AAEC"}},
]

SELECT_OPTION = {
    "type": "select",
    "id": "model",
    "name": "Model",
    "category": "model",
    "description": "Which model to use",
    "currentValue": "fast",
    "options": [
        {"value": "fast", "name": "Fast"},
        {"value": "smart", "name": "Smart", "description": "slower"},
    ],
}
GROUPED_SELECT_OPTION = {
    "type": "select",
    "id": "mode",
    "name": "Mode",
    "currentValue": "ask",
    "options": [
        {"group": "safe", "name": "Safe", "options": [{"value": "ask", "name": "Ask"}]},
        {"group": "yolo", "name": "YOLO", "options": [{"value": "auto", "name": "Auto"}]},
    ],
}
BOOLEAN_OPTION = {"type": "boolean", "id": "think", "name": "Thinking", "currentValue": True}

SESSION_UPDATES = [
    {"sessionUpdate": "user_message_chunk", "content": TEXT},
    {"sessionUpdate": "agent_message_chunk", "content": TEXT, "messageId": "m1"},
    {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hmm"}},
    {
        "sessionUpdate": "tool_call",
        "toolCallId": "call_1",
        "title": "Read main.py",
        "name": "Read",
        "kind": "read",
        "status": "pending",
        "locations": [{"path": "/src/main.py", "line": 3}],
        "rawInput": {"path": "/src/main.py"},
    },
    {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "call_1",
        "status": "completed",
        "name": "Edit",
        "content": [
            {"type": "content", "content": TEXT},
            {"type": "diff", "path": "/src/main.py", "oldText": "a", "newText": "b"},
            {"type": "diff", "path": "/src/new.py", "newText": "new"},
            {"type": "terminal", "terminalId": "term_1"},
        ],
        "rawOutput": {"ok": True},
    },
    {
        "sessionUpdate": "plan",
        "entries": [
            {"content": "Read the code", "priority": "high", "status": "completed"},
            {"content": "Fix the bug", "priority": "medium", "status": "in_progress"},
        ],
    },
    {
        "sessionUpdate": "available_commands_update",
        "availableCommands": [
            {"name": "web", "description": "Search the web", "input": {"hint": "query"}},
            {"name": "test", "description": "Run tests"},
        ],
    },
    {"sessionUpdate": "current_mode_update", "currentModeId": "code"},
    {
        "sessionUpdate": "config_option_update",
        "configOptions": [SELECT_OPTION, GROUPED_SELECT_OPTION, BOOLEAN_OPTION],
    },
    {"sessionUpdate": "session_info_update", "title": "Fix bug",
     "updatedAt": "2025-01-01T00:00:00Z"},
    {"sessionUpdate": "usage_update", "used": 1200, "size": 200000,
     "cost": {"amount": 0.12, "currency": "USD"}},
    {"sessionUpdate": "notice", "severity": "warning", "title": "Rate limited",
     "description": "Retrying in 10 s", "_meta": {"k": 1}},
    {"sessionUpdate": "notice", "severity": "info", "title": "Model switched"},
    {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "in_progress"},
    {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "completed",
     "summary": [TEXT], "error": None, "_meta": None},
    {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "failed",
     "summary": [], "error": "out of tokens", "_meta": {"attempt": 2}},
    {"sessionUpdate": "compaction_summary_chunk", "compactionId": "c1", "content": TEXT},
]

EXAMPLES: list[tuple[str, dict]] = [
    *[("ContentBlock", b) for b in CONTENT_BLOCKS],
    *[("SessionUpdate", u) for u in SESSION_UPDATES],
    *[("SessionNotification", {"sessionId": "sess_1", "update": u}) for u in SESSION_UPDATES],
    ("SessionConfigOption", SELECT_OPTION),
    ("SessionConfigOption", GROUPED_SELECT_OPTION),
    ("SessionConfigOption", BOOLEAN_OPTION),
    (
        "InitializeRequest",
        {
            "protocolVersion": 1,
            "clientCapabilities": {
                "fs": {"readTextFile": True, "writeTextFile": True},
                "terminal": True,
                "auth": {"terminal": True},
                "session": {"notices": {}, "compaction": {}, "configOptions": {"boolean": {}}},
            },
            "clientInfo": {"name": "acphost", "title": "acphost", "version": "0.1.0"},
        },
    ),
    ("InitializeRequest", {"protocolVersion": 1}),
    (
        "InitializeResponse",
        {
            "protocolVersion": 1,
            "agentCapabilities": {
                "loadSession": True,
                "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
                "mcpCapabilities": {"http": True, "sse": False},
                "sessionCapabilities": {"list": {}, "resume": {}, "close": {}},
                "auth": {"logout": {}},
            },
            "authMethods": [
                {"id": "oauth", "name": "Log in", "description": "Browser login"},
                {"type": "terminal", "id": "cli", "name": "CLI login", "args": ["login"],
                 "env": {"MODE": "1"}},
            ],
            "agentInfo": {"name": "demo-agent", "version": "1.0.0"},
        },
    ),
    (
        "NewSessionRequest",
        {
            "cwd": "/work",
            "mcpServers": [
                {"name": "fs", "command": "mcp-fs", "args": ["--root", "/"],
                 "env": [{"name": "DEBUG", "value": "1"}]},
                {"type": "http", "name": "web", "url": "https://x.test/mcp",
                 "headers": [{"name": "Authorization", "value": "Bearer t"}]},
                {"type": "sse", "name": "old", "url": "https://x.test/sse", "headers": []},
            ],
        },
    ),
    (
        "NewSessionResponse",
        {
            "sessionId": "sess_1",
            "modes": {
                "currentModeId": "ask",
                "availableModes": [
                    {"id": "ask", "name": "Ask"},
                    {"id": "code", "name": "Code", "description": "Edits files"},
                ],
            },
            "configOptions": [SELECT_OPTION, BOOLEAN_OPTION],
        },
    ),
    ("PromptRequest", {"sessionId": "sess_1", "prompt": CONTENT_BLOCKS}),
    ("PromptResponse", {"stopReason": "end_turn"}),
    ("RequestPermissionRequest",
     {"sessionId": "sess_1", "toolCall": {"toolCallId": "call_2", "name": "Bash"},
      "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}]}),
    (
        "RequestPermissionRequest",
        {
            "sessionId": "sess_1",
            "toolCall": {"toolCallId": "call_1", "title": "Write main.py", "kind": "edit",
                         "status": "pending"},
            "options": [
                {"optionId": "allow", "name": "Allow once", "kind": "allow_once"},
                {"optionId": "always", "name": "Always", "kind": "allow_always"},
                {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
            ],
        },
    ),
    ("RequestPermissionResponse", {"outcome": {"outcome": "selected", "optionId": "allow"}}),
    ("RequestPermissionResponse", {"outcome": {"outcome": "cancelled"}}),
    ("ReadTextFileRequest", {"sessionId": "sess_1", "path": "/a.py", "line": 1, "limit": 10}),
    ("ReadTextFileResponse", {"content": "print(1)\n"}),
    ("WriteTextFileRequest", {"sessionId": "sess_1", "path": "/a.py", "content": "x = 1\n"}),
    ("WriteTextFileResponse", {}),
    (
        "CreateTerminalRequest",
        {"sessionId": "sess_1", "command": "pytest", "args": ["-q"],
         "env": [{"name": "CI", "value": "1"}], "cwd": "/work", "outputByteLimit": 65536},
    ),
    ("CreateTerminalResponse", {"terminalId": "term_1"}),
    ("TerminalOutputRequest", {"sessionId": "sess_1", "terminalId": "term_1"}),
    ("TerminalOutputResponse", {"output": "ok\n", "truncated": False,
                                "exitStatus": {"exitCode": 0}}),
    ("WaitForTerminalExitRequest", {"sessionId": "sess_1", "terminalId": "term_1"}),
    ("WaitForTerminalExitResponse", {"exitCode": 1}),
    ("WaitForTerminalExitResponse", {"signal": "SIGKILL"}),
    ("KillTerminalRequest", {"sessionId": "sess_1", "terminalId": "term_1"}),
    ("ReleaseTerminalRequest", {"sessionId": "sess_1", "terminalId": "term_1"}),
    ("SetSessionConfigOptionRequest",
     {"sessionId": "sess_1", "configId": "think", "type": "boolean", "value": True}),
    ("SetSessionConfigOptionRequest",
     {"sessionId": "sess_1", "configId": "model", "value": "fast"}),
    ("CancelNotification", {"sessionId": "sess_1"}),
    ("CancelRequestNotification", {"requestId": 7}),
    ("AuthenticateRequest", {"methodId": "oauth"}),
    ("ListSessionsResponse", {"sessions": [{"sessionId": "s", "cwd": "/w", "title": "t"}],
                              "nextCursor": "c2"}),
    ("CreateElicitationRequest",
     {"message": "Name?", "mode": "form", "sessionId": "sess_1",
      "requestedSchema": {"type": "object", "properties": {
          "name": {"type": "string", "title": "Name"},
          "n": {"type": "integer", "minimum": 1},
          "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
      }, "required": ["name"]}}),
    ("CreateElicitationResponse", {"action": "accept", "content": {"name": "Ada", "n": 3}}),
    ("CreateElicitationResponse", {"action": "decline"}),
]

#: Examples of the unstable schema: (schema.unstable.json $defs name, JSON object).
UNSTABLE_EXAMPLES: list[tuple[str, dict]] = [
    ("ForkSessionRequest", {"sessionId": "sess_1", "cwd": "/work", "mcpServers": [],
                            "systemPrompt": {"mode": "append", "content": [TEXT]}}),
    ("ForkSessionResponse", {"sessionId": "sess_2", "configOptions": [BOOLEAN_OPTION]}),
    ("SessionStatusRequest", {"sessionId": "sess_1"}),
    ("SessionStatusResponse", {"status": "open"}),
    ("SetSessionTitleRequest", {"sessionId": "sess_1", "title": "Fix the bug"}),
    ("SetSessionTitleResponse", {"title": "Fix the bug"}),
    ("ArchiveSessionRequest", {"sessionId": "sess_1"}),
    ("ArchiveSessionResponse", {}),
    ("UnarchiveSessionRequest", {"sessionId": "sess_1"}),
    ("UnarchiveSessionResponse", {}),
    ("AuthStatusRequest", {}),
    ("AuthStatusResponse", {"state": "authenticated",
                            "accounts": [{"label": "work", "active": True,
                                          "email": "a@example.test"}]}),
    ("AuthStatusUpdateNotification", {"state": "unauthenticated", "accounts": []}),
    ("ListSessionsRequest", {"archived": "include"}),
    ("PromptResponse", {"stopReason": "end_turn",
                        "usage": {"totalTokens": 30, "inputTokens": 20, "outputTokens": 10}}),
    ("ClientCapabilities", {"session": {"notices": {}, "compaction": {}}, "plan": {},
                            "subagents": {}}),
    ("SessionUpdate", {"sessionUpdate": "session_message_chunk", "messageId": "m1",
                       "content": TEXT}),
    ("SessionUpdate", {"sessionUpdate": "session_message", "messageId": "m1",
                       "senderSessionId": None, "content": [TEXT]}),
    ("SessionUpdate", {"sessionUpdate": "plan_removed", "planId": "p1"}),
    ("SessionUpdate", {"sessionUpdate": "notice", "severity": "error", "title": "Quota"}),
    ("StateUpdate", {"state": "idle", "stopReason": "error",
                     "error": {"code": -32603, "message": "model crashed"}}),
    ("StateUpdate", {"state": "running"}),
]
