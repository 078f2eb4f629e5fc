"""Credential names the redactor recognises, and the spellings of configured values it finds.

A host run with ``PGPASSWORD`` or ``AZURE_OPENAI_KEY`` in its environment
stored their values in clear: the name check split names into words and
knew neither ``pgpassword`` nor ``key`` after a provider's name. A
multi-line value printed with CRLF line endings, one line of it quoted in an
error, and values percent-encoded with lower-case hexadecimal digits or
form-encoded were not found either. The runs below are real ``acphost``
processes with a real agent subprocess.
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from acphost.redact import REDACTED, Redactor
from acphost.redact._configured import configured_secrets
from acphost.redact._patterns import is_secret_name
from tests.cli.runner import run

AGENT = Path(__file__).parent / "echo_env_agent.py"


@pytest.mark.parametrize(
    "name",
    [
        *("PGPASSWORD", "DBPASSWORD", "MYSQL_ROOT_PASSWD", "dbPassword", "SMTP_PASS", "DB_PW"),
        *("OPENAI_KEY", "ANTHROPIC_KEY", "MISTRAL_KEY", "AZURE_OPENAI_KEY", "SERVICE_KEY"),
        *("OPENAI_API_KEY", "OPENAI_API_KEY_2", "apiKey", "x-api-key", "GITHUB_APIKEY"),
        *("STRIPE_SK", "SENTRY_DSN", "GITLAB_PAT", "githubPat", "PIN", "OAuth", "auth"),
        *("GITHUB_TOKEN", "GHTOKEN", "accessToken", "HF_TOKEN", "TOKEN_SECRET", "--token"),
        *("AWS_SECRET_ACCESS_KEY", "client_secret", "Cookie", "Authorization"),
        *("credentials", "VAULT_PASSPHRASE", "SSH_PRIVATE_KEY", "--api-key", "SESSION_KEY"),
    ],
)
def test_credential_names(name):
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        # Counts and settings that mention tokens.
        *("inputTokens", "total_tokens", "maxTokens", "tokenCount", "token_type"),
        *("TOKENIZERS_PARALLELISM", "tokenizer", "TOKEN_URL", "refresh_token_expires_in"),
        # Words that hold "key" by chance, and keys that are indexes or public.
        *("KEYBOARD", "MONKEY", "hotkey", "key", "cacheKey", "sortKey", "PUBLIC_KEY"),
        *("SSH_PUBLIC_KEY", "primaryKey", "idempotencyKey", "objectKey", "configKey"),
        # Programs that ask for a password, not passwords.
        *("SUDO_ASKPASS", "GIT_ASKPASS"),
        # An identifier (AWS key ids are found by their format, AKIA...).
        "AWS_ACCESS_KEY_ID",
        # Where a credential is, not what it is.
        *("PASSWORD_STORE_DIR", "PASSWORD_FILE", "OPENAI_KEY_FILE", "SECRET_NAME"),
        *("GOOGLE_APPLICATION_CREDENTIALS", "SSH_AUTH_SOCK", "credential.helper"),
        # The working directory, and ordinary names.
        *("PWD", "OLDPWD", "EDITOR", "author", "path", "--port", "PASSWORDLESS"),
    ],
)
def test_names_that_are_not_credentials(name):
    assert not is_secret_name(name)


def lower_hex(encoded: str) -> str:
    """Percent-encoding with lower-case hexadecimal digits (``%2f``), as some encoders write."""
    return re.sub(r"%[0-9A-F]{2}", lambda m: m[0].lower(), encoded)


class Agent:
    """What configured_secrets reads of an agent."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.args: tuple[str, ...] = ()


def test_values_under_credential_names_count_whatever_they_look_like():
    host = {"PGPASSWORD": "/srv/pg-pass", "BANK_PIN": "4821", "HOME": "/home/me", "PWD": "/w"}
    agent = Agent(
        {
            "SERVICE_KEY": "/q8Zx3+Lm/9Pw==",  # a base64 key starting with "/"
            "PIN": "48213",
            "BLOB": "/q8Zx3+Lm/9Pw==",  # a neutral name: not a path all the same
            "TOOLS": "/opt/tools:/usr/bin",
            "PORT": "8080",
        }
    )
    found = configured_secrets(agent=agent, host_env=host)
    assert set(found) == {"/srv/pg-pass", "4821", "/q8Zx3+Lm/9Pw==", "48213"}


def test_spellings_lower_case_percent_and_form_encoding():
    secret = "Zq9/xK+w p=Lm7%T&R2vv"
    r = Redactor([secret])
    for spelt in (quote(secret, safe=""), quote_plus(secret, safe="")):
        assert r.redact_text(f"u={spelt}&x=1") == f"u={REDACTED}&x=1"
        assert lower_hex(spelt) != spelt
        assert r.redact_text(f"u={lower_hex(spelt)}&x=1") == f"u={REDACTED}&x=1"
    # Letters in another case are the value still (an agent lower-casing a URL).
    assert r.redact_text(quote(secret, safe="").lower()) == REDACTED
    assert r.redact_text(f"<{secret.upper()}>") == f"<{REDACTED}>"


PEM = (
    "-----BEGIN KEY-----\n"
    "AAAABBBBCCCC1111xyzQ9Pw+Lm\n"
    "DDDDEEEEFFFF2222xyzR8Ov/Kn\n"
    "short\n"
    "-----END KEY-----"
)


def test_multi_line_values_with_any_line_ending_and_line_by_line():
    r = Redactor([PEM])
    for sep in ("\r\n", "\r", "\n"):
        assert r.redact_text("key:\n" + PEM.replace("\n", sep) + "\n") == f"key:\n{REDACTED}\n"
    lines = PEM.splitlines()
    assert r.redact_text(f"boom: key {lines[2]} rejected") == f"boom: key {REDACTED} rejected"
    # Short lines and armour lines are ordinary text.
    assert r.redact_text("short -----END KEY-----") == "short -----END KEY-----"


def test_thousands_of_multi_line_values_stay_linear():
    rng = random.Random(5)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/ "
    values = [
        "\n".join("".join(rng.choices(alphabet, k=64)) for _ in range(rng.choice((1, 4))))
        for _ in range(3000)
    ]
    r = Redactor(values)
    assert len(r.secrets) < 3000 * 40
    picked = rng.sample(values, 20)
    text = " | ".join(v.replace("\n", "\r\n") for v in picked)
    assert r.redact_text(text) == " | ".join([REDACTED] * 20)


def stored(tmp_path: Path) -> bytes:
    """Every byte the history store wrote (the database and its journal)."""
    store = Path(os.environ["XDG_DATA_HOME"]) / "acphost"
    return b"".join(p.read_bytes() for p in store.iterdir() if p.is_file())


HOST_SECRETS = {
    "PGPASSWORD": "pgS3cretValue99",
    "AZURE_OPENAI_KEY": "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "SENTRY_DSN": "https://a1b2c3d4e5@o1.ingest.example/42",
    "STRIPE_SK": "rk9ZpQ2mX7vB4nL8",
    "DB_PASS": "Zq9/xK+w p=Lm7%T&R2vv",
}


def test_host_credentials_an_agent_echoes_are_not_stored(tmp_path):
    trace = tmp_path / "t.jsonl"
    command = f"{sys.executable} {AGENT}"
    env = {**HOST_SECRETS, "ECHO_NAMES": ",".join(HOST_SECRETS)}
    r = run(
        ["--agent-command", command, "--trace", str(trace), "-o", "simple", "go"],
        cwd=tmp_path,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert "pgS3cretValue99" in r.stdout  # the answer itself is the agent's text
    written, history = trace.read_text(), stored(tmp_path)
    assert REDACTED in written and REDACTED.encode() in history
    for value in HOST_SECRETS.values():
        lowered = quote(value, safe="").lower()
        for spelt in (value, lower_hex(quote(value, safe="")), quote_plus(value), lowered):
            assert spelt not in written and json.dumps(spelt)[1:-1] not in written, spelt
            assert spelt.encode() not in history, spelt
        assert value.upper() not in written and value.upper().encode() not in history
        assert value not in r.stderr


def test_a_multi_line_agent_value_echoed_with_crlf_or_in_part(tmp_path):
    settings = tmp_path / "settings.json"
    agent = {
        "command": sys.executable,
        "args": [str(AGENT)],
        "env": {"SERVICE_ACCOUNT": PEM, "ECHO_NAMES": "SERVICE_ACCOUNT"},
    }
    settings.write_text(json.dumps({"agent_servers": {"echo": agent}}))
    trace = tmp_path / "t.jsonl"
    args = ["--settings", str(settings), "--trace", str(trace), "-o", "simple"]
    r = run([*args, "go"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    body = PEM.splitlines()[1:3]
    written, history = trace.read_text(), stored(tmp_path)
    assert REDACTED in written
    for line in body:
        assert line not in written and line.encode() not in history
        assert lower_hex(quote(line, safe="")) not in written
    # One line of it in an error message: the terminal and the trace.
    agent["env"]["ECHO_FAIL"] = "SERVICE_ACCOUNT"
    settings.write_text(json.dumps({"agent_servers": {"echo": agent}}))
    failed = tmp_path / "failed.jsonl"
    args = ["--settings", str(settings), "--trace", str(failed), "-o", "simple"]
    r = run([*args, "go"], cwd=tmp_path)
    assert r.returncode != 0 and "boom: key [REDACTED] rejected" in r.stderr, r.stderr
    assert body[0] not in failed.read_text() and body[0] not in r.stderr + r.stdout
