"""The public names of the subpackages faces and users import are pinned."""

from __future__ import annotations

import importlib

import pytest

PINNED = {
    "acphost.client": [
        # a session update from its wire form, as the client reads it (a named run's updates)
        "decode_update",
        "USE_DEFAULT",
        "AcpClient",
        "Budget",
        "BudgetExceeded",
        "ClientContext",
        "ClientOptions",
        "CostStart",
        "Compaction",
        "ElicitationHandler",
        "HostConfig",
        "LifecycleState",
        "Message",
        "Session",
        "SessionMessageState",
        "SessionState",
        "Subagent",
        "SubagentState",
        "ToolCallState",
        "Turn",
        "TurnResult",
        "UpdateListener",
        "UseDefault",
        "auth_method_id",
        "option_id",
        "option_values",
        # The typed event stream and its events.
        "Event",
        "EventStream",
        "Observer",
        "PermissionAsked",
        "PermissionDecided",
        "ProtocolChoice",
        "SessionClosed",
        "SessionOpened",
        "TerminalExited",
        "TerminalStarted",
        "TurnEnded",
        "TurnStarted",
        "UpdatesReceived",
        # The turn lifecycle's states.
        "TurnState",
        # Terminals the agent runs itself, reported in tool call _meta.
        "AgentTerminal",
        "TerminalReport",
        "terminal_report",
        # The client's system prompt: its modes, and what an agent supports.
        "SYSTEM_PROMPT_MODES",
        "SystemPromptMode",
        "describe_system_prompt_support",
        "system_prompt_modes",
    ],
    "acphost.content": [
        "Mention",
        "PromptInput",
        "audio",
        "block_text",
        "embedded_resource",
        "find_mentions",
        "image",
        "path_to_uri",
        "prompt_with_mentions",
        "resource_link",
        "text",
        "to_blocks",
    ],
    "acphost.launch": [
        "DEMO_AGENT",
        "EXIT_BUDGET",
        "EXIT_ERROR",
        "EXIT_INTERRUPTED",
        "EXIT_OK",
        "EXIT_USAGE",
        "AskPolicy",
        "DefaultPolicy",
        "HostChoices",
        "Refusals",
        "UsageProblem",
        "build_broker",
        "build_host_config",
        "fail",
        "resolve",
        "start_agent",
        "with_sandbox_choice",
        # the one assembly, and the synchronous runner built on it (moved from acphost.client)
        "Run",
        "RunOptions",
        "RunResult",
        "SessionChoice",
        "open_run",
        "run",
        # a --system-prompt TEXT|@FILE value, read once for every face
        "read_system_prompt",
        # named sessions: their places, lock, wire and host
        "EXIT_BUSY",
        "WIRE_LIMIT",
        "HostHooks",
        "NamedHost",
        "NamedPlace",
        "NamedUnavailable",
        "check_session_name",
        "connect_named",
        "named_places",
        "options_digest",
        "parse_duration",
        "place_of",
        "receive_message",
        "send_message",
    ],
}


@pytest.mark.parametrize("module", sorted(PINNED))
def test_exports_are_pinned(module):
    mod = importlib.import_module(module)
    assert sorted(mod.__all__) == sorted(PINNED[module])
    for name in mod.__all__:
        assert getattr(mod, name) is not None, name


def test_the_exit_codes_load_without_the_rest_of_launch():
    import subprocess
    import sys

    code = (
        "import sys; from acphost.launch import EXIT_USAGE; "
        "print(sorted(m for m in sys.modules if m.startswith('acphost.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert (
        out.stdout.strip()
        == "['acphost._lazy', 'acphost._version', 'acphost.errors', 'acphost.launch']"
    )


def test_the_exceptions_have_a_public_home_re_exported_at_the_top():
    import acphost
    import acphost.errors

    for name in acphost.errors.__all__:
        assert getattr(acphost, name) is getattr(acphost.errors, name), name
        assert name in acphost.__all__, name


def test_the_event_stream_is_re_exported_at_the_top():
    import acphost
    import acphost.client

    assert "EventStream" in acphost.__all__
    assert acphost.EventStream is acphost.client.EventStream
