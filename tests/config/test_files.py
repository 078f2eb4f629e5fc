"""The one reader of user-named files and the one strict JSON decoder (acphost.config._files)."""

from __future__ import annotations

import errno
import json
import os

import pytest

from acphost.config import InputFileError, loads_strict, open_input, read_input


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        ('{"a": 1, "a": 2}', ['duplicate key "a"', "line 1 column 1"]),
        ('{"x": {"c": 1,\n "d": {"k": 1, "k": 2}}}', ['duplicate key "k"', "line 2 column 7"]),
        ('{"x": [1, NaN]}', ["NaN is not JSON", "line 1 column 7"]),
        ("[Infinity]", ["Infinity is not JSON"]),
        ('{"a": -Infinity}', ["-Infinity is not JSON"]),
        ("[1e999]", ["1e999 is too large"]),
        ("1" * 5000, ["thousands of digits"]),
        ("[" * 300 + "]" * 300, ["nested deeper than 256 levels"]),
        ("[" * 100_000 + "]" * 100_000, ["nested deeper than 256 levels"]),
        ('{"a":\n  }', ["invalid JSON at line 2 column 3"]),
        ('["\\ud800"]', ["half of a surrogate pair"]),
        (b'{"a": "\xff"}', ["not UTF-8 (byte 7 is invalid)"]),
    ],
)
def test_strict_json_refusals_name_the_file_the_place_and_the_fix(text, needles):
    with pytest.raises(InputFileError) as info:
        loads_strict(text, where="f.json", fix="fix it like so")
    message = str(info.value)
    assert message.startswith("f.json: ") and message.endswith("; fix it like so")
    assert "\n" not in message
    for needle in needles:
        assert needle in message


def test_strict_json_accepts_what_rfc_8259_allows():
    text = '{"a": [1, 2.5, -0, true, null, "\\ud83d\\ude00"], "b": {"a": 1}}'
    assert loads_strict(text, where="f") == json.loads(text)
    deep = "[" * 256 + "]" * 256
    assert loads_strict(deep, where="f") == json.loads(deep)


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_devices_are_refused_without_reading(path):
    with pytest.raises(InputFileError, match="is a character device, not a regular file"):
        read_input(path, what="the --x file")


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(InputFileError, match=r"the --x file .*pipe is a FIFO \(named pipe\)"):
        read_input(fifo, what="the --x file")
    with pytest.raises(InputFileError, match="FIFO"):
        open_input(fifo, what="trace file")
    # No reader is left open behind the refusal: a writer finds none (ENXIO).
    with pytest.raises(OSError) as info:
        os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    assert info.value.errno == errno.ENXIO


def test_directories_missing_files_and_size_cap(tmp_path):
    with pytest.raises(InputFileError, match="is a directory, not a regular file"):
        read_input(tmp_path, what="the --x file")
    with pytest.raises(InputFileError, match="does not exist") as info:
        read_input(tmp_path / "nope", what="the --x file")
    assert info.value.missing
    big = tmp_path / "big"
    big.write_bytes(b"x" * 1025)
    with pytest.raises(InputFileError, match="larger than the 1024 bytes limit"):
        read_input(big, what="the --x file", limit=1024)
    assert read_input(big, what="the --x file", limit=1025) == b"x" * 1025


def test_a_symlink_to_a_device_is_refused(tmp_path):
    link = tmp_path / "settings.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(InputFileError, match="character device"):
        read_input(link, what="the --x file")
