"""Configured values of any length and number: never a crash, never a walk per character.

A service-account JSON, a long JWT or a certificate in an agent's ``env``
used to make every run die with a ``RecursionError`` while the redactor
built its trie (one recursion per character of the value). Short values
now go in a trie of bounded depth and long ones are looked for with
``str.find``; these tests hold values up to a megabyte, thousands of them,
and text built to keep almost matching one.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import orjson

from acphost.redact import REDACTED, Redactor
from acphost.redact._configured import configured_secrets, url_passwords
from acphost.redact._literals import SHORT, Literals
from acphost.redact._patterns import trie_pattern
from acphost.trace import TraceWriter
from tests.cli.runner import run

HERE = Path(__file__).parent
LEAKY = HERE.parent / "cli" / "leaky_agent.py"
MEGABYTE = 1_000_000


def service_account(size: int) -> str:
    """A JSON document of about ``size`` characters, as a credential file is."""
    key = "".join(
        random.Random(size).choices("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123456789+/", k=size)
    )
    return json.dumps({"type": "service_account", "private_key": f"-----BEGIN KEY-----\n{key}\n"})


def test_trie_of_a_megabyte_word_is_built_without_recursion():
    words = ["a" * MEGABYTE, "a" * (MEGABYTE - 1) + "b", "ab", "b" * 10]
    pattern = trie_pattern(words)
    assert pattern.startswith("(?:a")  # shared prefixes, one group per branching point
    assert (
        trie_pattern(["ghp_", "gho_", "glpat-", "g", "gh"]) == r"g(?:(?:h(?:(?:o_|p_))?|lpat\-))?"
    )


def test_a_megabyte_value_is_redacted_in_text_and_frames():
    secret = service_account(MEGABYTE)
    redactor = Redactor([secret])
    text = f"before {secret} after"
    assert redactor.redact_text(text) == f"before {REDACTED} after"
    line = orjson.dumps({"jsonrpc": "2.0", "method": "x", "params": {"note": f"is {secret}!"}})
    out = redactor.redact_line(line)
    assert json.loads(out)["params"]["note"] == f"is {REDACTED}!"
    assert redactor.redact_text("nothing here") == "nothing here"


def test_a_value_that_from_config_reads_in_an_agents_env():
    class Agent:
        env = {"GOOGLE_CREDENTIALS": service_account(1_000), "OTHER": service_account(MEGABYTE)}
        args: list[str] = []

    redactor = Redactor.from_config(agent=Agent(), host_env=None)
    both = f"{Agent.env['GOOGLE_CREDENTIALS']} and {Agent.env['OTHER']}"
    assert redactor.redact_text(both) == f"{REDACTED} and {REDACTED}"


def test_text_that_keeps_almost_matching_a_long_value_is_scanned_once():
    """A value of a megabyte of one letter, and text of two megabytes of that letter
    broken just before the value's length: each place the head matches is not a new
    search of the text (that was a megabyte of work at every character)."""
    secret = "a" * MEGABYTE
    redactor = Redactor([secret, "b" * 100])
    near = ("a" * (MEGABYTE - 1) + "x") * 2
    assert redactor.redact_text(near) is near
    assert redactor.redact_text("a" * (2 * MEGABYTE)) == REDACTED * 2
    periodic = "ab" * (MEGABYTE // 2)
    redactor = Redactor([periodic + "c"])
    text = periodic * 2
    assert redactor.redact_text(text) is text


def test_thousands_of_values_short_and_long():
    rng = random.Random(7)
    alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-_"
    values = ["".join(rng.choices(alphabet, k=rng.choice((8, 40, 200, 3000)))) for _ in range(3000)]
    redactor = Redactor(values)
    picked = rng.sample(values, 50)
    text = " | ".join(f"x{v}y" for v in picked)
    out = redactor.redact_text(text)
    assert out == " | ".join(f"x{REDACTED}y" for _ in picked)


def _reference(words, text):
    """Leftmost, then longest, non-overlapping: what a regex alternation would find."""
    spans, pos = [], 0
    ordered = sorted(set(words), key=len, reverse=True)
    while pos < len(text):
        hit = next((w for w in ordered if text.startswith(w, pos)), None)
        if hit is None:
            pos += 1
            continue
        spans.append((pos, pos + len(hit)))
        pos += len(hit)
    return spans


def test_literals_find_what_an_alternation_finds():
    rng = random.Random(3)
    for _ in range(300):
        base = "".join(rng.choices("ab", k=SHORT + 10))
        words = [base[: rng.randint(1, len(base))] + "".join(rng.choices("ab", k=rng.randint(0, 3)))
                 for _ in range(rng.randint(1, 6))]  # fmt: skip
        text = "".join(rng.choice([base, "ab", "b", *words]) for _ in range(8))
        assert list(Literals(words).spans(text)) == _reference(words, text), (words, text)


def test_the_trace_of_a_long_value_split_across_chunks(tmp_path):
    secret = service_account(200_000)
    pieces = [secret[i : i + 7_000] for i in range(0, len(secret), 7_000)]
    trace = tmp_path / "trace.jsonl"
    recorder = TraceWriter(str(trace), redactor=Redactor([secret]))
    for piece in ["said: ", *pieces, " done"]:
        update = {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": piece},
        }
        frame = {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s", "update": update},
        }
        recorder("receive", orjson.dumps(frame))
    recorder(
        "receive", orjson.dumps({"jsonrpc": "2.0", "id": 1, "result": {"stopReason": "end_turn"}})
    )
    recorder.close()
    written = trace.read_text()
    assert REDACTED in written
    assert all(piece[:40] not in written for piece in pieces[1:-1])


def test_a_run_whose_agent_env_holds_a_long_document(tmp_path):
    """A real run, its agent configured with a 100 kB credential file (the kernel caps
    one environment string at 128 KiB): it runs, and the value is kept out of the trace."""
    secret = service_account(100_000)
    settings = tmp_path / "settings.json"
    leaky = {"command": sys.executable, "args": [str(LEAKY)], "env": {"LEAKY_VALUE": secret}}
    settings.write_text(json.dumps({"agent_servers": {"leaky": leaky}}))
    trace = tmp_path / "trace.jsonl"
    r = run(
        ["--settings", str(settings), "--approve-all", "--trace", str(trace), "-o", "simple", "go"],
        cwd=tmp_path,
    )
    assert "Traceback" not in r.stderr and "RecursionError" not in r.stderr, r.stderr[-2000:]
    assert r.returncode == 1 and "exited with code 3" in r.stderr, r.stderr[-2000:]
    assert secret not in r.stderr
    assert REDACTED in trace.read_text() and secret[:200] not in trace.read_text()


def test_url_passwords_of_any_value_in_linear_time():
    """The URL-password scan started at every word boundary of a run of scheme
    characters and read the rest of the run from each: a 1 MB value such as
    ``a-a-a-...`` took hours before the run started."""

    class Agent:
        env = {
            "RUN": "a-" * (MEGABYTE // 2),
            "COLONS": "a://" * (MEGABYTE // 4),
            "DB": "postgres://app:pg-pass-123@db/x https://u:" + "p" * MEGABYTE + "@h",
        }
        args: list[str] = []

    found = configured_secrets(agent=Agent())
    assert "pg-pass-123" in found and "p" * MEGABYTE in found
    assert url_passwords("git+ssh://me:pw:more@host 1a://u:p@h é-x://u:q@h") == ["pw:more", "q"]
