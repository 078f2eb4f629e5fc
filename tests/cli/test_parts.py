"""Unit tests of the command line's parts: argument scanning, checks, descriptions."""

from __future__ import annotations

import argparse
import os

import pytest

from acphost.cli._ask import question_lines
from acphost.cli._commands import run_redactor, shown_argv, tsv_cell
from acphost.cli._listing import json_value
from acphost.cli._main import build_parser, subcommand_at
from acphost.cli._prepare import check_output_paths
from acphost.config import AgentSpec, Settings, SettingsError, agent_from_command
from acphost.host import PermissionRequest
from acphost.launch import UsageProblem


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["doctor"], 0),
        (["-a", "demo", "doctor"], 2),
        (["-ademo", "doctor"], 1),
        (["--agent=demo", "sessions", "list"], 1),
        (["-vv", "--settings", "s.json", "agents"], 3),
        (["--sett", "s.json", "agents"], 2),  # an abbreviation argparse accepts
        (["-a", "doctor", "hello"], None),  # the option's value, not a subcommand
        (["-o", "simple", "hello", "doctor"], None),  # the first word is the prompt
        (["--", "doctor"], None),
        (["-v", "--", "doctor"], None),
        (["--write", "tui"], 1),
    ],
)
def test_subcommand_at(argv, expected):
    assert subcommand_at(argv, build_parser()) == expected


def args(**values):
    return argparse.Namespace(**{"trace": None, "save_session": None, "audit_log": None, **values})


def test_output_paths_checked(tmp_path):
    check_output_paths(args(trace=str(tmp_path / "new.jsonl")))  # a new file: fine
    with pytest.raises(UsageProblem, match=r"^--trace .*does not exist"):
        check_output_paths(args(trace=str(tmp_path / "missing" / "t.jsonl")))
    with pytest.raises(UsageProblem, match=r"^--save-session .*is a directory"):
        check_output_paths(args(save_session=str(tmp_path)))
    if os.geteuid() != 0:  # root may write anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        with pytest.raises(UsageProblem, match=r"^--audit-log .*cannot create"):
            check_output_paths(args(audit_log=str(locked / "a.jsonl")))


def test_permission_question_shows_what_would_run():
    request = PermissionRequest.for_terminal(
        "s1", "git", ["status", "\x1b]52;c;x\x07"], cwd="/ws", env={"GIT_DIR": "/evil"}
    )
    lines = question_lines(request)
    assert "argv: git status '\\x1b]52;c;x\\x07'" in lines
    assert "cwd: /ws" in lines and "env: GIT_DIR=/evil" in lines
    tool = PermissionRequest(
        "s1", title="Edit\u202e", tool_kind="edit", paths=("/a\n/b",), raw_input={"k": "v"}
    )
    assert question_lines(tool) == [
        "action: tool call",
        "path: /a\\n/b",
        "kind: edit",
        'input: {"k":"v"}',
        "title: Edit<U+202E>",
    ]


def test_tsv_cell_keeps_rows_and_columns():
    assert tsv_cell("a\tb\nc\\d\re") == "a\\tb\\nc\\\\d\\re"


def test_shown_argv_redacts_secret_flags():
    spec = AgentSpec(
        name="x",
        command="agent",
        args=("--api-key", "k-123456", "--token=abc", "--model", "m", "ghp_" + "a" * 30),
    )
    assert shown_argv(spec, run_redactor(spec, Settings(None, {}, []))) == (
        "agent --api-key [REDACTED] --token=[REDACTED] --model m [REDACTED]"
    )


def test_shown_argv_redacts_the_configured_env_values_too():
    secret = "plain-looking-value-42"
    spec = AgentSpec(
        name="x", command="agent", args=("--flag", secret), env={"SERVICE_PASSWORD": secret}
    )
    assert shown_argv(spec, run_redactor(spec, Settings(None, {}, []))) == (
        "agent --flag [REDACTED]"
    )


def test_agent_from_command_splits_like_a_shell():
    spec = agent_from_command("node 'my agent.js' --flag \"a b\"")
    assert spec.argv == ["node", "my agent.js", "--flag", "a b"]
    assert spec.name == "node" and spec.source == "--agent-command"
    with pytest.raises(SettingsError, match="empty"):
        agent_from_command("   ")


def test_json_value():
    assert [json_value(v) for v in (True, False, None, 3, "x", [1])] == [
        "true", "false", "null", "3", "x", "[1]",
    ]
