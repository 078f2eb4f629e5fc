"""``--system-prompt TEXT|@FILE`` and ``--system-prompt-mode``, and the settings entry's.

The demo agent runs as a real subprocess; its ``system`` keyword answers with
the system prompt it received. ``-o jsonl`` mirrors every frame, each checked
against the vendored schema (a ``systemPrompt`` against the unstable one,
which holds its shape).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from acphost.history import HistoryStore
from tests.cli.runner import run
from tests.cli.test_cli import check_jsonl


def sent(lines: list[dict], method: str) -> list[dict]:
    return [m for m in lines if m.get("method") == method]


@pytest.mark.parametrize("mode", ["append", "override"])
def test_the_flag_sends_the_prompt_on_session_new(tmp_path, mode):
    args = ["--no-history", "--system-prompt", "be brief", "--system-prompt-mode", mode]
    r = run([*args, "system"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"system prompt ({mode}): be brief"
    r = run(["-o", "jsonl", *args, "system"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    (new,) = sent(check_jsonl(r.stdout), "session/new")
    assert new["params"]["systemPrompt"] == {
        "mode": mode,
        "content": [{"type": "text", "text": "be brief"}],
    }


def test_the_prompt_is_read_from_a_file(tmp_path):
    (tmp_path / "prompt.md").write_text("Answer in French.\n", encoding="utf-8")
    r = run(["--no-history", "--system-prompt", "@prompt.md", "system"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "system prompt (append): Answer in French."


@pytest.mark.parametrize(
    ("setup", "arg", "says"),
    [
        (None, "@missing.md", "the --system-prompt file missing.md does not exist"),
        ("dir", "@adir", "the --system-prompt file adir"),
        ("latin1", "@latin1.md", "is not UTF-8"),
        (None, "", "the system prompt is empty"),
        (None, " \n", "the system prompt is empty"),
    ],
    ids=["missing", "directory", "not-utf8", "empty", "blank"],
)
def test_a_bad_prompt_is_one_line_and_exit_2(tmp_path, setup, arg, says):
    if setup == "dir":
        (tmp_path / "adir").mkdir()
    if setup == "latin1":
        (tmp_path / "latin1.md").write_bytes(b"caf\xe9")
    r = run(["--no-history", "--system-prompt", arg, "system"], cwd=tmp_path)
    assert r.returncode == 2
    assert says in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stdout == ""


def test_a_mode_without_a_prompt_is_a_usage_error(tmp_path):
    r = run(["--no-history", "--system-prompt-mode", "override", "system"], cwd=tmp_path)
    assert r.returncode == 2 and "--system-prompt-mode needs a system prompt" in r.stderr


@pytest.mark.parametrize(
    ("advertised", "mode", "supports"),
    [
        ("none", "append", "it supports no system prompt"),
        ("append", "override", "it supports a system prompt in append mode only"),
    ],
)
def test_an_agent_that_cannot_take_it_exits_2_before_any_session_or_prompt(
    tmp_path, advertised, mode, supports
):
    env = {"ACPHOST_DEMO_SYSTEM_PROMPT": advertised}
    args = ["--no-history", "--system-prompt", "x", "--system-prompt-mode", mode, "system"]
    r = run(["-o", "jsonl", *args], cwd=tmp_path, env=env)
    assert r.returncode == 2
    (line,) = r.stderr.strip().splitlines()
    assert "agent 'demo' cannot take a system prompt" in line and supports in line
    frames = [json.loads(line) for line in r.stdout.splitlines()]
    assert frames[0]["method"] == "client/selected_agent"
    # Only initialize went out, and was answered: no session/new, no prompt.
    assert [m.get("method") for m in frames[1:]] == ["initialize", None]


def _settings(tmp_path, entry) -> dict:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"agent_servers": {"demo": entry}}))
    return {"ACPHOST_SETTINGS": str(path)}


def test_the_settings_entry_gives_the_prompt_and_the_flags_win(tmp_path):
    env = _settings(tmp_path, {"system_prompt": "from settings", "system_prompt_mode": "override"})
    r = run(["--no-history", "system"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "system prompt (override): from settings"
    r = run(["--no-history", "--system-prompt", "flag", "system"], cwd=tmp_path, env=env)
    assert r.stdout.strip() == "system prompt (override): flag"
    r = run(["--no-history", "--system-prompt-mode", "append", "system"], cwd=tmp_path, env=env)
    assert r.stdout.strip() == "system prompt (append): from settings"


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ({"system_prompt": 42}, "agent_servers.demo.system_prompt must be a non-empty string"),
        ({"system_prompt": "  "}, "agent_servers.demo.system_prompt must be a non-empty string"),
        (
            {"system_prompt": "x", "system_prompt_mode": "replace"},
            "agent_servers.demo.system_prompt_mode must be 'append' or 'override', got 'replace'",
        ),
    ],
)
def test_a_bad_settings_entry_is_one_clear_line(tmp_path, entry, says):
    r = run(["--no-history", "system"], cwd=tmp_path, env=_settings(tmp_path, entry))
    assert r.returncode == 2
    assert says in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_continue_sends_the_prompt_again(tmp_path):
    env = {"ACPHOST_DEMO_MEMORY": "", "ACPHOST_DEMO_STATE_DIR": str(tmp_path / "state")}
    r = run(["--system-prompt", "first", "echo hi"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    r = run(["-o", "jsonl", "--continue", "--system-prompt", "again", "system"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    lines = check_jsonl(r.stdout)
    reopened = sent(lines, "session/resume") + sent(lines, "session/load")
    assert [m["params"]["systemPrompt"]["content"][0]["text"] for m in reopened] == ["again"]


def _history_path() -> Path:
    return Path(os.environ["XDG_DATA_HOME"]) / "acphost" / "history.sqlite3"


def test_the_history_records_the_system_prompt_redacted_and_export_import_keep_it(tmp_path):
    secret = "sk-demo-0123456789abcdef"
    env = _settings(tmp_path, {"env": {"DEMO_API_KEY": secret}})
    r = run(["--system-prompt", f"be brief; key {secret}", "echo hi"], cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    r = run(["echo plain"], cwd=tmp_path, env=env)
    with HistoryStore.open(str(_history_path())) as store:
        records = [store.get(s.id) for s in store.list_sessions()]
    prompts = sorted((rec.system_prompt or "") for rec in records)
    assert prompts[0] == "" and prompts[1].startswith("be brief; key ")
    assert secret not in prompts[1]
    (with_prompt,) = [rec for rec in records if rec.system_prompt]
    out = tmp_path / "s.json"
    r = run(["history", "export", with_prompt.id, "-f", "json", "-O", str(out)], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())["session"]["system_prompt"] == with_prompt.system_prompt
    other = tmp_path / "other.sqlite3"
    r = run(["history", "import", str(out)], cwd=tmp_path, env={"ACPHOST_HISTORY": str(other)})
    assert r.returncode == 0, r.stderr
    with HistoryStore.open(str(other)) as store:
        assert store.get(with_prompt.id).system_prompt == with_prompt.system_prompt
