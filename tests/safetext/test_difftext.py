"""Bounded unified diffs (acphost._difftext): right, and bounded in time whatever the texts."""

from __future__ import annotations

import difflib
import random
import re

import pytest

from acphost._difftext import MAX_COMPARE_LINES, hunk_lines, split_lines

_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def apply(old: list[str], hunks: list[str]) -> list[str]:
    """Apply unified-diff hunks to ``old``, checking every context and removed line."""
    out: list[str] = []
    at = 0
    for line in hunks:
        match = _HEADER.match(line)
        if match:
            start = int(match.group(1))
            length = int(match.group(2)) if match.group(2) is not None else 1
            begin = start - 1 if length else start
            out += old[at:begin]
            at = begin
            continue
        tag, body = line[0], line[1:]
        if tag in " -":
            assert old[at] == body, (at, old[at], body)
            at += 1
        if tag in " +":
            out.append(body)
    return out + old[at:]


def texts(rng: random.Random, n: int, distinct: int) -> str:
    return "".join(f"v{rng.randrange(distinct)}\n" for _ in range(n))


@pytest.mark.parametrize("seed", range(40))
def test_the_hunks_turn_the_old_text_into_the_new(seed):
    rng = random.Random(seed)
    old = texts(rng, rng.randrange(0, 3000), rng.choice([3, 50, 1000]))
    lines = split_lines(old)
    new_lines = list(lines)
    for _ in range(rng.randrange(1, 6)):  # a few local edits, sometimes large ones
        at = rng.randrange(0, len(new_lines) + 1)
        cut = rng.randrange(0, 40 if rng.random() < 0.8 else 2500)
        new_lines[at : at + cut] = [f"w{rng.randrange(100)}" for _ in range(rng.randrange(0, 50))]
    new = "".join(line + "\n" for line in new_lines)
    assert apply(lines, hunk_lines(old, new)) == new_lines


def test_a_small_change_is_what_difflib_gives():
    old = "".join(f"line {i}\n" for i in range(5000))
    new = old.replace("line 2500\n", "changed\n")
    expected = list(
        difflib.unified_diff(split_lines(old), split_lines(new), lineterm="", n=3)
    )[2:]
    assert hunk_lines(old, new) == expected


def test_a_changed_region_too_large_to_compare_is_replaced_whole():
    """difflib's slow case (10,000 lines of 100 values against a shuffle) is not
    compared: it took 17 s on the thread that also answers Ctrl-C."""
    old = "".join(f"v{i % 100}\n" for i in range(10_000))
    new = "".join(f"v{(i * 7) % 100}\n" for i in range(10_000))
    lines = hunk_lines(old, new)
    assert len(split_lines(old)) * 2 > MAX_COMPARE_LINES
    assert lines[0].startswith("@@ -1,10000 +1,10000 @@")
    assert apply(split_lines(old), lines) == split_lines(new)
