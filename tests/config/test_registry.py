"""Registry agents: the presets and ``acp:ID[@VERSION]``, over the vendored registry file."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

import acphost.config
from acphost.config import Settings, SettingsError, _registry, load_settings, presets, resolve_agent

REGISTRY = Path(acphost.config.__file__).parent / "data" / "registry.json"
NO_SETTINGS = Settings(None, {}, [])


def _entry(ident: str) -> dict:
    (entry,) = [e for e in json.loads(REGISTRY.read_text())["agents"] if e["id"] == ident]
    return entry


def test_the_vendored_registry_is_in_the_registrys_format():
    """Ids and versions as agent.schema.json writes them; only the three distribution kinds."""
    data = json.loads(REGISTRY.read_text())
    ids = [e["id"] for e in data["agents"]]
    assert len(ids) == len(set(ids))
    for entry in data["agents"]:
        assert re.fullmatch(r"[a-z][a-z0-9-]*", entry["id"]), entry["id"]
        assert re.match(r"[0-9]+\.[0-9]+\.[0-9]+", entry["version"]), entry["id"]
        assert entry["name"] and entry["description"], entry["id"]
        assert entry["distribution"] and set(entry["distribution"]) <= {"npx", "uvx", "binary"}


@pytest.mark.parametrize(
    ("name", "argv"),
    [
        ("claude", ["npx", "-y", "@agentclientprotocol/claude-agent-acp@0.101.0"]),
        ("codex", ["npx", "-y", "@agentclientprotocol/codex-acp@2.6.0"]),
        ("copilot", ["npx", "-y", "@github/copilot@1.0.80", "--acp"]),
        ("github-copilot", ["npx", "-y", "@github/copilot@1.0.80", "--acp"]),
        ("opencode", ["npx", "-y", "@opencode/cli@2.0.23", "acp"]),
        ("auggie", ["npx", "-y", "@augmentcode/auggie@0.21.0", "--acp"]),
        ("kilo", ["npx", "-y", "@kilocode/cli@7.5.5", "acp"]),
        ("kimi-code", ["kimi", "acp"]),
        ("cursor", ["cursor-agent", "acp"]),
        ("goose", ["goose", "acp"]),
        ("fast-agent", ["uvx", "fast-agent-acp==0.10.1", "-x"]),
    ],
)
def test_the_agents_users_ask_for_are_presets_that_start_in_acp_mode(name, argv):
    spec = presets()[name]
    assert spec.argv == argv and spec.source == "registry"


def test_a_preset_records_the_version_it_pins_and_a_binary_none():
    known = presets()
    assert known["codex"].version == "2.6.0" and known["gemini"].version == "0.61.0"
    assert known["auggie"].env["AUGMENT_DISABLE_AUTO_UPDATE"] == "1"  # the registry's env
    assert known["goose"].version is None  # whatever goose is on PATH
    assert known["goose"].description == "goose 1.50.1"


def test_acp_id_at_version_pins_an_npm_package():
    spec = resolve_agent("acp:codex-acp@2.6.0", NO_SETTINGS)
    assert spec.name == "acp:codex-acp@2.6.0" and spec.source == "registry"
    assert spec.argv == ["npx", "-y", "@agentclientprotocol/codex-acp@2.6.0"]
    assert spec.version == "2.6.0"
    # The registry's launch, not the preset's choices: no read-only mode forced.
    assert "INITIAL_AGENT_MODE" not in spec.env


def test_acp_id_alone_runs_the_registrys_own_package_and_version():
    entry = _entry("codex-acp")
    spec = resolve_agent("acp:codex-acp", NO_SETTINGS)
    assert spec.argv == ["npx", "-y", entry["distribution"]["npx"]["package"]]
    assert spec.version == entry["version"]


def test_a_scoped_package_and_its_arguments_keep_their_place_when_pinned():
    spec = resolve_agent("acp:qwen-code@0.30.0", NO_SETTINGS)
    assert spec.argv == [
        "npx",
        "-y",
        "@qwen-code/qwen-code@0.30.0",
        "--acp",
        "--experimental-skills",
    ]


def test_acp_id_at_version_pins_a_pypi_package_with_the_registrys_env():
    spec = resolve_agent("acp:fast-agent@0.10.48", NO_SETTINGS)
    assert spec.argv == ["uvx", "fast-agent-acp==0.10.48", "-x"]
    assert spec.env == {"FAST_AGENT_MODEL": "codexplan"} and spec.version == "0.10.48"


def test_an_agent_with_npx_and_binaries_runs_the_package():
    spec = resolve_agent("acp:kilo@7.6.0", NO_SETTINGS)
    assert spec.argv == ["npx", "-y", "@kilocode/cli@7.6.0", "acp"]


def test_a_binary_only_agent_runs_from_path_unpinned_and_refuses_a_version():
    spec = resolve_agent("acp:goose", NO_SETTINGS)
    assert spec.argv == ["goose", "acp"] and spec.version is None
    with pytest.raises(SettingsError) as info:
        resolve_agent("acp:goose@1.50.1", NO_SETTINGS)
    message = str(info.value)
    assert "binary archives" in message and "does not download" in message
    assert "--agent-command" in message and "\n" not in message


def test_the_wire_quirks_of_an_agent_follow_it_under_its_registry_id():
    assert resolve_agent("acp:gemini@0.61.0", NO_SETTINGS).missing_file_returns_empty


@pytest.mark.parametrize(
    ("name", "near"),
    [
        ("acp:kimi-code", "acp:kimi"),
        ("acp:copilot", "acp:github-copilot-cli"),
        ("acp:claude", "acp:claude-acp"),
        ("acp:gemeni", "acp:gemini"),
        ("acp:codex", "acp:codex-acp"),
    ],
)
def test_an_unknown_id_names_the_close_ones(name, near):
    with pytest.raises(SettingsError) as info:
        resolve_agent(name, NO_SETTINGS)
    message = str(info.value)
    assert f"no agent {name!r}" in message and f"close matches: {near}" in message
    assert "\n" not in message


def test_an_id_with_nothing_close_says_where_the_ids_are():
    with pytest.raises(SettingsError, match="`acphost agents` lists the registry's ids"):
        resolve_agent("acp:zzz", NO_SETTINGS)


@pytest.mark.parametrize(
    "name",
    [
        "acp:",
        "acp:Goose",
        "acp:-x",
        "acp:x y",
        "acp:gemini@",
        "acp:gemini@latest",
        "acp:gemini@^1.0",
        "acp:gemini@1.0 --yolo",
        "acp:gemini@1;rm",
        "acp:gemini@1@2",
    ],
)
def test_a_malformed_registry_name_is_one_line(name):
    with pytest.raises(SettingsError) as info:
        resolve_agent(name, NO_SETTINGS)
    message = str(info.value)
    assert "\n" not in message and ("acp:ID@VERSION" in message or "version number" in message)


@pytest.mark.parametrize(
    ("distribution", "argv"),
    [
        (
            {"npx": {"package": "@x/tool@1.0.0", "cmd": "tool-acp", "args": ["--acp"]}},
            ["npx", "-y", "-p", "@x/tool@2.0.0", "tool-acp", "--acp"],
        ),
        (
            {"uvx": {"package": "tool[acp]>=1.0", "cmd": "tool-acp"}},
            ["uvx", "--from", "tool[acp]==2.0.0", "tool-acp"],
        ),
        ({"npx": {"package": "plain"}}, ["npx", "-y", "plain@2.0.0"]),
    ],
)
def test_a_package_that_names_its_command_runs_it_from_the_pinned_package(
    monkeypatch, distribution, argv
):
    entry = {"id": "tool", "name": "Tool", "version": "1.0.0", "distribution": distribution}
    monkeypatch.setattr(_registry, "registry_entries", lambda: (entry,))
    spec = resolve_agent("acp:tool@2.0.0", NO_SETTINGS)
    assert spec.argv == argv and spec.version == "2.0.0"


def test_an_unpinned_package_without_a_version_has_none(monkeypatch):
    entry = {
        "id": "tool",
        "name": "Tool",
        "version": "1.0.0",
        "distribution": {"npx": {"package": "@x/tool"}},
    }
    monkeypatch.setattr(_registry, "registry_entries", lambda: (entry,))
    spec = resolve_agent("acp:tool", NO_SETTINGS)
    assert spec.argv == ["npx", "-y", "@x/tool"] and spec.version is None


def test_a_distribution_acphost_cannot_run_says_so(monkeypatch):
    entry = {
        "id": "boxed",
        "name": "Boxed",
        "version": "1.0.0",
        "distribution": {"docker": {"image": "boxed:1"}},
    }
    monkeypatch.setattr(_registry, "registry_entries", lambda: (entry,))
    with pytest.raises(SettingsError) as info:
        resolve_agent("acp:boxed", NO_SETTINGS)
    message = str(info.value)
    assert "docker" in message and "cannot run" in message and "\n" not in message
    assert "boxed" not in presets()  # nothing to run: no preset either


def test_a_settings_entry_adjusts_a_registry_agent_and_one_named_like_it_wins(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(
        json.dumps(
            {
                "agent_servers": {
                    "acp:goose": {"env": {"GOOSE_PROVIDER": "ollama"}},
                    "acp:codex-acp@2.6.0": {"args": ["--verbose"], "max_tokens": 1000},
                    "acp:kilo": {"command": "my-kilo", "args": ["acp"]},
                }
            }
        )
    )
    settings = load_settings(path)
    goose = resolve_agent("acp:goose", settings)
    assert goose.env["GOOSE_PROVIDER"] == "ollama" and goose.source == f"registry + {path}"
    codex = resolve_agent("acp:codex-acp@2.6.0", settings)
    assert codex.args[-1] == "--verbose" and codex.max_tokens == 1000
    assert resolve_agent("acp:kilo", settings).argv == ["my-kilo", "acp"]


def test_settings_refuse_an_entry_without_command_for_an_id_the_registry_lacks(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"agent_servers": {"acp:zzz": {"env": {"A": "b"}}}}))
    with pytest.raises(SettingsError, match="has no 'command'"):
        load_settings(path)


def test_the_agents_doc_lists_every_preset_with_its_command():
    """docs/AGENTS.md's table is the presets as they are: a changed pin changes it too."""
    doc = (Path(__file__).parents[2] / "docs" / "AGENTS.md").read_text(encoding="utf-8")
    known = presets()
    for entry in json.loads(REGISTRY.read_text())["agents"]:
        spec = known[entry["id"]]
        assert f"| `{spec.name}` |" in doc, spec.name
        assert f"| `{shlex.join(spec.argv)}`" in doc, spec.name


def test_a_settings_command_named_by_registry_id_keeps_the_agents_wire_quirks(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"agent_servers": {"acp:gemini@0.61.0": {"command": "gem"}}}))
    spec = resolve_agent("acp:gemini@0.61.0", load_settings(path))
    assert spec.argv == ["gem"] and spec.missing_file_returns_empty
