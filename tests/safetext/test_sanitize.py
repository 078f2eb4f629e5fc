"""The terminal sanitiser: every control made visible, nothing dropped."""

from __future__ import annotations

import json

import pytest

from acphost.safetext import escape_json_for_terminal, sanitize, sanitize_line

ATTACKS = [
    # (input, expected)
    ("\x1b]52;c;ZXZpbA==\x07", "\\x1b]52;c;ZXZpbA==\\x07"),  # clipboard write (OSC 52)
    ("\x1b]0;pwned\x1b\\", "\\x1b]0;pwned\\x1b\\"),  # window title (OSC 0, ST)
    ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),  # clear screen, cursor home
    ("\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "\\x1b]8;;http://evil\\x1b\\click\\x1b]8;;\\x1b\\"),
    ("\x9b31m", "\\x9b31m"),  # C1 CSI
    ("\x85\x90\x9d", "\\x85\\x90\\x9d"),  # C1 NEL, DCS, OSC
    ("safe\rEVIL", "safe\\rEVIL"),  # carriage return overwrites the line
    ("a\x00b\x07c\x08d\x7f", "a\\x00b\\x07c\\x08d\\x7f"),
    ("rm -rf \u202e/ emoh\u202c", "rm -rf <U+202E>/ emoh<U+202C>"),
    ("\u2066x\u2067y\u2068z\u2069", "<U+2066>x<U+2067>y<U+2068>z<U+2069>"),
    ("\u202a\u202b\u202d", "<U+202A><U+202B><U+202D>"),
    ("lone \ud800 surrogate \udfff", "lone <U+D800> surrogate <U+DFFF>"),
    ("\x0b\x0c\x1c", "\\x0b\\x0c\\x1c"),
]


@pytest.mark.parametrize(("raw", "shown"), ATTACKS)
def test_controls_become_visible_escapes(raw, shown):
    assert sanitize(raw) == shown
    assert sanitize_line(raw) == shown


@pytest.mark.parametrize("text", ["", "plain text", "héllo wörld ✓ 日本語 🎉", "a\n\tb", "x\r\ny\n"])
def test_result_contains_no_control_characters(text):
    out = sanitize(text)
    assert all(c in "\n\t" or (c.isprintable() and not 0x80 <= ord(c) <= 0x9F) for c in out)
    out.encode("utf-8")  # never a lone surrogate left


def test_newline_and_tab_kept_and_crlf_is_a_line_end():
    assert sanitize("one\ntwo\tthree\r\nfour") == "one\ntwo\tthree\nfour"


def test_one_line_shows_newlines_and_tabs():
    assert sanitize_line("title\n[fake row]\tcol\r\n") == "title\\n[fake row]\\tcol\\r\\n"


def test_clean_text_is_returned_unchanged():
    text = "nothing to escape here, not even ünïcödé"
    assert sanitize(text) is text
    assert sanitize_line(text) is text


def test_every_codepoint_that_can_act_on_a_terminal_is_escaped():
    dangerous = [*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
    for code in dangerous:
        out = sanitize(f"a{chr(code)}b")
        assert chr(code) not in out, hex(code)
        assert out.startswith("a") and out.endswith("b") and len(out) > 3, hex(code)


def test_invisible_and_bidi_marks_are_visible():
    assert sanitize("a\u200bb\u200ec\ufeffd\u2060e\u061cf") == (
        "a<U+200B>b<U+200E>c<U+FEFF>d<U+2060>e<U+061C>f"
    )
    assert sanitize("family \U0001f468\u200d\U0001f469") == "family \U0001f468\u200d\U0001f469"


def test_a_json_frame_for_a_terminal_keeps_its_value_and_loses_its_controls():
    import json

    from acphost.safetext import escape_json_for_terminal

    value = {"t": "\x9b2J\x9d0;title\x9c \u202eevil\u2028next \\\u202e \x7f ok é 😀"}
    raw = json.dumps(value, ensure_ascii=False).encode()
    safe = escape_json_for_terminal(raw)
    assert json.loads(safe) == value
    text = safe.decode()
    assert not any(ch in text for ch in "\x7f\x9b\x9c\x9d\u202e\u2028")
    assert "é 😀" in text  # ordinary characters stay as they are
    plain = b'{"a":"b"}'
    assert escape_json_for_terminal(plain) is plain


@pytest.mark.parametrize(
    "char",
    ["\xad", "\u034f", "\u115f", "\u17b4", "\u180e", "\u2065", "\u3164", "\uffa0", "\ufff9",
     "\U000e0001", "\U000e0041", "\U000e007f"],
)
def test_invisible_characters_that_hide_text_are_visible(char):
    """Soft hyphens, fillers, annotation marks and tag characters (which can spell a
    whole hidden text) are shown, on stdout, one-line fields and the jsonl mirror."""
    shown = f"<U+{ord(char):04X}>"
    assert sanitize(f"a{char}b") == f"a{shown}b"
    assert sanitize_line(f"a{char}b") == f"a{shown}b"
    frame = json.dumps({"text": f"a{char}b"}, ensure_ascii=False).encode()
    escaped = escape_json_for_terminal(frame)
    assert escaped.isascii() and json.loads(escaped) == {"text": f"a{char}b"}


def test_joiners_and_variation_selectors_stay():
    for text in ("👩\u200d💻", "क्\u200dष", "❤\ufe0f"):
        assert sanitize(text) == text
