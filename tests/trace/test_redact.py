"""The one redactor: configured values, credential names and known token formats."""

from __future__ import annotations

import json

import orjson
import pytest

from acphost.config import AgentSpec, Settings
from acphost.redact import REDACTED, Redactor

R = Redactor()


def _tok(prefix: str, n: int, alphabet: str = "a1B2c3D4e5") -> str:
    """A fake token (built, so no token-shaped literal sits in the source)."""
    return prefix + (alphabet * (n // len(alphabet) + 1))[:n]


FORMATS = [
    ("github classic", _tok("ghp_", 36)),
    ("github oauth", _tok("gho_", 36)),
    ("github user-to-server", _tok("ghu_", 36)),
    ("github server-to-server", _tok("ghs_", 36)),
    ("github fine-grained", _tok("github_pat_", 82, "a1B2_c3D4")),
    ("gitlab", _tok("glpat-", 20)),
    ("hugging face", _tok("hf_", 34)),
    ("aws access key id", "AKIA" + "IOSFODNN7EXAMPL3"),
    ("aws temporary key id", "ASIA" + "IOSFODNN7EXAMPL3"),
    ("stripe live", _tok("sk_live_", 24)),
    ("stripe restricted", _tok("rk_live_", 24)),
    ("stripe test", _tok("sk_test_", 24)),
    ("slack bot", _tok("xoxb-", 40, "12345-abc")),
    ("slack user", _tok("xoxp-", 40, "12345-abc")),
    ("slack app", _tok("xapp-", 30, "1-A2b3")),
    ("google api key", _tok("AIza", 35)),
    ("openai", _tok("sk-", 48)),
    ("openai project", _tok("sk-proj-", 60, "a1B2_c3-D4")),
    ("anthropic", _tok("sk-ant-api03-", 90, "a1B2_c3-D4")),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + _tok("", 43)),
    ("npm", _tok("npm_", 36)),
    ("pypi", _tok("pypi-AgEIcHlwaS5vcmc", 60)),
]


@pytest.mark.parametrize(("kind", "token"), FORMATS, ids=[k for k, _ in FORMATS])
def test_known_token_formats(kind, token):
    for text in (token, f"key: {token}.", f"export X={token}\n", f"['{token}']"):
        out = R.redact_text(text)
        assert token not in out and REDACTED in out, (kind, out)


AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEK3Y"


@pytest.mark.parametrize(
    "text",
    [
        f"AKIAIOSFODNN7EXAMPL3 {AWS_SECRET}",
        f"aws credentials: {AWS_SECRET}",
        f"[default]\naws_secret_access_key = {AWS_SECRET}",
        f'{{"SecretAccessKey": "{AWS_SECRET}"}}',
    ],
)
def test_aws_secret_key_near_aws_context(text):
    assert AWS_SECRET not in R.redact_text(text)


def test_pem_private_key_block():
    key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjE=\n-----END OPENSSH PRIVATE KEY-----"
    assert R.redact_text(f"a\n{key}\nb") == f"a\n{REDACTED}\nb"
    cut = "stderr: -----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA"  # a truncated tail
    assert "MIIEpAIB" not in R.redact_text(cut)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: Bearer abcdefghij.klm", f"Authorization: Bearer {REDACTED}"),
        (
            "curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA=='",
            f"curl -H 'Authorization: Basic {REDACTED}'",
        ),
        ("bearer abcdefghijkl", f"bearer {REDACTED}"),
        ("https://alice:hunter22@example.com/x", f"https://alice:{REDACTED}@example.com/x"),
        ("postgres://u:p%40ss@db:5432/app", f"postgres://u:{REDACTED}@db:5432/app"),
        ("OPENAI_API_KEY=abc123def", f"OPENAI_API_KEY={REDACTED}"),
        ("db_password = 'hunter two'", f"db_password = '{REDACTED}'"),
        ('{"apiKey": "zz-top"}', f'{{"apiKey": "{REDACTED}"}}'),
        ("https://h/cb?access_token=abcd&x=1", f"https://h/cb?access_token={REDACTED}&x=1"),
        ("run --api-key abc123 now", f"run --api-key {REDACTED} now"),
        ("run --token=abc123 now", f"run --token={REDACTED} now"),
        ('--password "two words"', f'--password "{REDACTED}"'),
        ("aws_secret_access_key: AbC", f"aws_secret_access_key: {REDACTED}"),
    ],
)
def test_credentials_in_context_keep_their_label(text, expected):
    assert R.redact_text(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "max_tokens=4096",
        "inputTokens: 12",
        "token: 1.5e3",
        "password: null",
        "--token-file /run/secrets/t",
        "Basic Authentication is not used",
        "the tokenizer splits text into tokens",
        "see https://example.com/path?page=2",
        "sha: 3f786850e387550fdab836ed7e6dc881de23001b",  # a git SHA is not an AWS key
        "a task-abcdefghijklmnopqrstuvwxyz id",
    ],
)
def test_numbers_and_ordinary_text_stay(text):
    assert R.redact_text(text) == text


def test_configured_values_are_redacted_inside_other_strings():
    r = Redactor(secrets=["s3cr3t-Value", "ab"])  # "ab" is too short to match
    assert r.redact_text("xs3cr3t-Valuey ab") == f"x{REDACTED}y ab"
    frame = {"a": ["pre-s3cr3t-Value-post"], "s3cr3t-Value": 1, "n": 12345}
    assert r.redact_frame(frame) == {"a": [f"pre-{REDACTED}-post"], REDACTED: 1, "n": 12345}


def test_a_configured_value_overlapping_another_trigger_is_found():
    r = Redactor(secrets=["cret-val99", "ghp_short1"])
    assert r.redact_text("my secret-val99 here") == f"my se{REDACTED} here"
    assert r.redact_text("x=ghp_short1") == f"x={REDACTED}"


def test_configured_values_in_their_escaped_spellings():
    secret = 'p"a\\ss/wörd'
    r = Redactor(secrets=[secret])
    raw = json.dumps({"text": f"leak {secret}"})  # \" \\ and \u00f6 in the raw line
    assert "wörd" not in r.redact_text(raw) and "w\\u00f6rd" not in r.redact_text(raw)
    assert r.redact_text("q=p%22a%5Css%2Fw%C3%B6rd") == f"q={REDACTED}"
    # An agent spelling a configured value with \u escapes does not get it through.
    escaped = '{"t":"' + "".join(f"\\u{ord(c):04x}" for c in "s3cr3t-Value") + '"}'
    out = Redactor(secrets=["s3cr3t-Value"]).redact_line(escaped.encode())
    assert orjson.loads(out) == {"t": REDACTED}


def test_frame_keys_maps_and_numbers():
    frame = {
        "params": {
            "mcpServers": [
                {
                    "name": "x",
                    "command": "c",
                    "args": ["--port", "8080", "--api-key", "k1"],
                    "env": [{"name": "LOG", "value": "v1"}],
                },
                {
                    "type": "http",
                    "name": "h",
                    "url": "https://h",
                    "headers": [{"name": "X-Trace", "value": "v2"}],
                },
            ],
            "env": {"ANY": "v3"},
            "privateKey": "k",
            "x-api-key": "k",
            "githubPat": "k",
            "OAuth": "k",
            "cookie": "k",
            "usage": {"inputTokens": 5, "total_tokens": 9, "cost": {"amount": 0.5}},
            "tokenizer": "cl100k",
            "keyboard": "us",
            "author": "me",
            "path": "/w/a",
        }
    }
    out = R.redact_frame(frame)["params"]
    assert out["mcpServers"][0]["args"] == ["--port", "8080", "--api-key", REDACTED]
    assert out["mcpServers"][0]["env"] == [{"name": "LOG", "value": REDACTED}]
    assert out["mcpServers"][1]["headers"] == [{"name": "X-Trace", "value": REDACTED}]
    assert out["env"] == {"ANY": REDACTED}
    for key in ("privateKey", "x-api-key", "githubPat", "OAuth", "cookie"):
        assert out[key] == REDACTED, key
    assert out["usage"] == frame["params"]["usage"]
    for key in ("tokenizer", "keyboard", "author", "path"):
        assert out[key] == frame["params"][key], key


def test_deep_nesting_is_walked_without_recursion():
    deep: object = "sk-" + "a" * 20
    for _ in range(50_000):
        deep = [deep]
    out = R.redact_frame({"x": deep})
    for _ in range(50_000 + 1):
        out = out[0] if isinstance(out, list) else out["x"]
    assert out == REDACTED


def test_redact_argv():
    argv = [
        "agent",
        "--api-key",
        "abc",
        "--token=xyz",
        "GITHUB_TOKEN=ghx",
        "--model",
        "m",
        "-H",
        "Authorization: Bearer abcdefghijk",
        "--password",
        "--verbose",
        "plain",
    ]
    assert R.redact_argv(argv) == [
        "agent",
        "--api-key",
        REDACTED,
        f"--token={REDACTED}",
        f"GITHUB_TOKEN={REDACTED}",
        "--model",
        "m",
        "-H",
        f"Authorization: Bearer {REDACTED}",
        "--password",
        "--verbose",
        "plain",
    ]


def test_redact_line_keeps_clean_lines_byte_for_byte():
    line = b'{"jsonrpc":"2.0", "id":1,"result":{"n":1.0,"big":123456789012345678901234567890}}\n'
    assert R.redact_line(line) is line
    dirty = b'{"jsonrpc":"2.0","id":1,"result":{"apiKey":"k","n":1}}\n'
    out = R.redact_line(dirty)
    assert out.endswith(b"\n") and orjson.loads(out) == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"apiKey": REDACTED, "n": 1},
    }


@pytest.mark.parametrize(
    "key",
    [
        "apiKey",
        "X-Api-Key",
        "auth",
        "OAuth",
        "githubPat",
        "accessToken",
        "SESSION_KEY",
        "dbPassword",
        "passwd",
        "client_secret",
        "Cookie",
        "Authorization",
        "credentials",
    ],
)
def test_redact_line_finds_every_credential_key(key):
    line = json.dumps({"jsonrpc": "2.0", "method": "m", "params": {key: "v4lue"}}).encode()
    assert orjson.loads(R.redact_line(line))["params"] == {key: REDACTED}


@pytest.mark.parametrize(
    "line",
    [
        b"[" * 5000 + b"]" * 5000,
        b'{"t":"\\ud800 apiKey=abc"}',
        b'{"t":"\xff\xfe apiKey=abc"}',
        b'{"n":1e999,"t":"apiKey=abc"}',
        b"not json apiKey=abc",
        b"x" * 2_000_000 + b" apiKey=abc",
    ],
    ids=["deep", "lone-surrogate", "invalid-utf8", "1e999", "text", "huge"],
)
def test_redact_line_never_raises(line):
    out = R.redact_line(line)
    assert b"apiKey=abc" not in out
    out.decode("utf-8")  # always valid UTF-8


def test_from_config_takes_the_exact_configured_values():
    agent = AgentSpec(
        "a",
        "agent",
        ("--api-key", "argv-secret-1", "--model", "big-model-name"),
        env={
            "MY_VALUE": "canary-value-xyz",
            "LOG_LEVEL": "debug",
            "TOOLS": "/opt/tools:/usr/bin",
            "ANTHROPIC_API_KEY": "short",
            "N": "123456",
        },
    )
    settings = Settings(
        None,
        {},
        [
            {
                "name": "m",
                "command": "c",
                "args": [],
                "env": [{"name": "DB", "value": "mcp-env-value"}],
            },
            {
                "type": "http",
                "name": "h",
                "url": "https://u:url-pass-1@h/x",
                "headers": [{"name": "X-Key", "value": "hdr-value-1"}],
            },
        ],
    )
    r = Redactor.from_config(
        agent=agent,
        settings=settings,
        extra=["auth-input-1"],
        host_env={
            "GITHUB_TOKEN": "host-token-1",
            "EDITOR": "vim-editor-x",
            "PASSWORD_STORE_DIR": "/home/me/.password-store",
        },
    )
    assert set(r.secrets) >= {
        "canary-value-xyz",
        "short",
        "argv-secret-1",
        "mcp-env-value",
        "hdr-value-1",
        "url-pass-1",
        "auth-input-1",
        "host-token-1",
    }
    for public in (
        "debug",
        "/opt/tools:/usr/bin",
        "123456",
        "big-model-name",
        "vim-editor-x",
        "/home/me/.password-store",
    ):
        assert public not in r.secrets
    text = "echo canary-value-xyz short mcp-env-value hdr-value-1 host-token-1 auth-input-1"
    assert r.redact_text(text) == "echo " + " ".join([REDACTED] * 6)
