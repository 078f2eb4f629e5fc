"""Overlaps of text with configured values, in linear time, as the quadratic check found them.

The trace holds a chunk back while its text ends with the beginning of a
configured value. That was checked at each place a value's first
character occurs in the text's tail, each check reading the rest of the
tail: a megabyte of ``abab…`` configured and a chunk of ``abab…`` cost
seconds per chunk. The prefix-function automaton of :mod:`._overlap`
answers the same question in one pass; these tests compare it, and the
carry built on it, with the old check on random inputs, and run the input
that was quadratic (no clock: it must finish, with the same answer).
"""

from __future__ import annotations

import random

import orjson
import pytest

from acphost.redact import REDACTED, Redactor
from acphost.redact._overlap import Overlaps
from acphost.safetext import CUT
from acphost.trace._carry import ChunkCarry, Entry


def begins_reference(text, words, *, proper):
    best = 0
    for w in words:
        for k in range(1, min(len(w), len(text)) + 1):
            if (len(w) > k or not proper) and text.endswith(w[:k]):
                best = max(best, k)
    return best


def ends_reference(text, words):
    best = 0
    for w in words:
        for k in range(1, min(len(w), len(text)) + 1):
            if text.startswith(w[-k:]):
                best = max(best, k)
    return best


def random_text(rng, alphabet, most):
    return "".join(rng.choices(alphabet, k=rng.randint(0, most)))


@pytest.mark.parametrize("seed", range(40))
def test_overlaps_agree_with_the_direct_check(seed):
    rng = random.Random(seed)
    alphabet = "ab" if seed % 2 else "abc"
    words = [random_text(rng, alphabet, 12) or "a" for _ in range(rng.randint(1, 4))]
    if seed % 3 == 0:
        words.append("ab" * rng.randint(3, 10))  # periodic
    overlaps = Overlaps(words)
    for _ in range(60):
        text = random_text(rng, alphabet, 30)
        for proper in (False, True):
            assert overlaps.begins(text, proper=proper) == begins_reference(
                text, words, proper=proper
            ), (words, text, proper)
        assert overlaps.ends(text) == ends_reference(text, words), (words, text)


def chunk(text, sid="s1"):
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    return {"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": sid, "update": update}}  # fmt: skip


class QuadraticCarry(ChunkCarry):
    """The carry as it was: every suffix that starts like a value, checked in turn."""

    def __init__(self, secrets, replacement):
        super().__init__(secrets, replacement)
        self._words = sorted(set(secrets))

    def _scan(self, run):
        combined = "".join(e.text for e in run)
        matches = list(self._literals.spans(combined))
        if matches:
            self._cut(run, matches)
            combined = "".join(e.text for e in run)
        hold_from = len(combined)
        for i in range(max(0, len(combined) - max(map(len, self._words)) + 1), len(combined)):
            suffix = combined[i:]
            if any(len(w) > len(suffix) and w.startswith(suffix) for w in self._words):
                hold_from = i
                break
        end = keep = 0
        for index, e in enumerate(run):
            end += len(e.text)
            e.held = end > hold_from
            if not e.held:
                keep = index + 1
        del run[:keep]


def replay(carry, frames):
    out = []
    for n, frame in enumerate(frames):
        pushed = carry.push(Entry("incoming", str(n), orjson.dumps(frame), frame, parsed=True))
        out.append([(e.stamp, e.text, e.changed) for e in pushed])
    out.append([(e.stamp, e.text, e.changed) for e in carry.drain()])
    return out


@pytest.mark.parametrize("seed", range(30))
def test_the_carry_holds_and_releases_as_before(seed):
    rng = random.Random(seed)
    words = ["ab" * rng.randint(2, 8) + "c", random_text(rng, "abc", 10) + "d"]
    words = [w for w in words if len(w) >= 4]
    frames = []
    for _ in range(rng.randint(1, 25)):
        if rng.random() < 0.1:
            frames.append({"jsonrpc": "2.0", "id": 1, "result": {}})  # a turn's end
        else:
            frames.append(chunk(random_text(rng, "abcd", 9), sid=rng.choice(["s1", "s2"])))
    spellings = Redactor(words).secrets
    assert replay(ChunkCarry(spellings, REDACTED), frames) == replay(
        QuadraticCarry(spellings, REDACTED), frames
    )


def test_a_periodic_megabyte_value_and_text_that_keeps_repeating_it():
    """The input that took seconds per chunk: it finishes, with the old answer's result."""
    value = "ab" * 500_000 + "c"
    carry = ChunkCarry([value], REDACTED)
    frames = [chunk("ab" * 100_000 + "x" + "ab" * 100_000) for _ in range(3)]
    out = replay(carry, frames)
    # Each chunk ends with the beginning of the value (its part after "x"):
    # it waits for the next one, which shows that the value does not go on.
    text = frames[0]["params"]["update"]["content"]["text"]
    assert [[(stamp, t == text) for stamp, t, _ in pushed] for pushed in out] == [
        [],
        [("0", True)],
        [("1", True)],
        [("2", True)],
    ]
    overlaps = Overlaps([value])
    assert overlaps.begins("ab" * 400_000 + "a") == 800_001
    assert overlaps.ends("b" + "ab" * 400_000 + "c!") == 800_002


# -- text cut before it was redacted ------------------------------------------------------

VALUE = "Kq7-" + "".join(random.Random(3).choices("abcdefXYZ0123456789", k=5000)) + "-end"


@pytest.mark.parametrize("keep", [4, 9, 100, 4095])
def test_the_beginning_of_a_value_before_a_cut_is_masked(keep):
    redactor = Redactor([VALUE])
    assert redactor.redact_text(f"key: {VALUE[:keep]}{CUT}") == f"key: {REDACTED}{CUT}"


@pytest.mark.parametrize("keep", [4, 9, 4095])
def test_the_end_of_a_value_after_a_cut_is_masked(keep):
    redactor = Redactor([VALUE])
    text = f"{CUT}{VALUE[-keep:]} was refused"
    assert redactor.redact_text(text) == f"{CUT}{REDACTED} was refused"


def test_short_pieces_and_pieces_away_from_a_cut_are_kept():
    redactor = Redactor([VALUE])
    assert redactor.redact_text(f"key: {VALUE[:3]}{CUT}") == f"key: {VALUE[:3]}{CUT}"
    assert redactor.redact_text(f"key: {VALUE[1:40]}{CUT}") == f"key: {VALUE[1:40]}{CUT}"
    assert redactor.redact_text(f"{VALUE[:40]} no cut here") == f"{VALUE[:40]} no cut here"


def test_a_piece_between_two_cuts_and_a_value_escaped_in_json():
    value = 'pw"with\\quotes-' + "x" * 200
    redactor = Redactor([value])
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    text = f"a {escaped[:60]}{CUT}{value[-50:]}{CUT}{value[-20:]} z"
    assert redactor.redact_text(text) == f"a {REDACTED}{CUT}{REDACTED}{CUT}{REDACTED} z"


def test_a_cut_value_in_a_frame_and_in_a_stored_turn():
    redactor = Redactor([VALUE])
    frame = {"error": {"message": "boom", "data": [f"tail {VALUE[:200]}{CUT}"]}}
    assert redactor.redact_frame(frame) == {
        "error": {"message": "boom", "data": [f"tail {REDACTED}{CUT}"]}
    }
