"""Scripts that send every non-text content kind, with annotations.

``image``, ``audio``, ``resource`` (embedded, text and blob) and ``link``
(``resource_link``) each send the block in an agent message and again as a
tool call's content, so a host can show how it renders (or stands in for)
content a terminal cannot display. ``media`` sends all four. Every block
carries ``annotations`` (schema, ``Annotations``: audience, priority,
lastModified). The bytes are small, fixed and made here: no file is read.
"""

from __future__ import annotations

import binascii

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ._turn import Turn

    Json = dict[str, Any]

# A 16x16 RGB PNG: an orange triangle over blue (137 bytes).
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAAUElEQVR42pXLSQ0AIAwF0cqpJjQhDDlIgATC2uU3"
    "meMbqplDUUhzKhTSgWFodFgaGk7tD492hl9bg6jVQdPyYGhhsPU7uPoaEL0HUM8B170GE8V54NmClSsAAAAASUVORK5CYII="
)
PNG_SIZE = 137
LAST_MODIFIED = "2026-01-01T12:00:00Z"


def _b64(data: bytes) -> str:
    return binascii.b2a_base64(data, newline=False).decode("ascii")


def _wav() -> bytes:
    """Return 50 ms of a 440 Hz square wave: 8 kHz, 8-bit mono PCM in a WAV file."""
    rate, count = 8000, 400
    samples = bytes(200 if (i * 440 * 2 // rate) % 2 == 0 else 56 for i in range(count))

    def u32(n: int) -> bytes:
        return n.to_bytes(4, "little")

    def u16(n: int) -> bytes:
        return n.to_bytes(2, "little")

    fmt = u32(16) + u16(1) + u16(1) + u32(rate) + u32(rate) + u16(1) + u16(8)
    return b"RIFF" + u32(36 + count) + b"WAVE" + b"fmt " + fmt + b"data" + u32(count) + samples


def _annotations(priority: float, audience: list[str]) -> Json:
    return {"audience": audience, "priority": priority, "lastModified": LAST_MODIFIED}


def image_block(cwd: str) -> Json:
    """Return an ``image`` block (PNG, with the ``uri`` it pretends to come from)."""
    return {
        "type": "image",
        "mimeType": "image/png",
        "data": PNG,
        "uri": f"file://{cwd}/docs/logo.png",
        "annotations": _annotations(0.9, ["user"]),
    }


def audio_block(cwd: str) -> Json:
    """Return an ``audio`` block (a short WAV beep)."""
    return {
        "type": "audio",
        "mimeType": "audio/wav",
        "data": _b64(_wav()),
        "annotations": _annotations(0.4, ["user"]),
    }


def resource_blocks(cwd: str) -> list[Json]:
    """Return two embedded ``resource`` blocks: a text one and a blob one."""
    text = "# Notes\n\n- The demo agent embeds this file's text.\n- Nothing was read from disk.\n"
    return [
        {
            "type": "resource",
            "resource": {
                "uri": f"file://{cwd}/NOTES.md",
                "mimeType": "text/markdown",
                "text": text,
            },
            "annotations": _annotations(0.7, ["user", "assistant"]),
        },
        {
            "type": "resource",
            "resource": {
                "uri": f"file://{cwd}/build/demo.bin",
                "mimeType": "application/octet-stream",
                "blob": _b64(bytes(range(64))),
            },
            "annotations": _annotations(0.2, ["assistant"]),
        },
    ]


def link_block(cwd: str) -> Json:
    """Return a ``resource_link`` block with every optional field."""
    return {
        "type": "resource_link",
        "uri": f"file://{cwd}/docs/guide.pdf",
        "name": "guide.pdf",
        "title": "The demo user guide",
        "description": "A file the agent points to without embedding it.",
        "mimeType": "application/pdf",
        "size": 48213,
        "annotations": _annotations(0.5, ["user"]),
    }


def _blocks(kind: str, cwd: str) -> list[Json]:
    if kind == "image":
        return [image_block(cwd)]
    if kind == "audio":
        return [audio_block(cwd)]
    if kind == "resource":
        return resource_blocks(cwd)
    return [link_block(cwd)]


_INTROS = {
    "image": ("Here is an image", "the image"),
    "audio": ("Here is an audio clip", "the audio clip"),
    "resource": ("Here are two embedded resources", "the resources"),
    "link": ("Here is a link to a file", "the link"),
}


def _send(turn: Turn, kind: str) -> None:
    blocks = _blocks(kind, turn.session.cwd)
    intro, noun = _INTROS[kind]
    turn.say(f"{intro}:\n\n")
    for block in blocks:
        turn.show(block)
    call = turn.tool_call(f"Reading {noun}", "read", "Read")
    turn.pause()
    turn.tool_update(
        call,
        status="completed",
        content=[{"type": "content", "content": block} for block in blocks],
    )
    turn.say(f"\n\nThe tool call above carries the same {kind} content.\n")


def image(turn: Turn, arg: str) -> str:
    """Send an image block (16x16 PNG) in a message and in a tool call."""
    _send(turn, "image")
    return "end_turn"


def audio(turn: Turn, arg: str) -> str:
    """Send an audio block (a WAV beep) in a message and in a tool call."""
    _send(turn, "audio")
    return "end_turn"


def resource(turn: Turn, arg: str) -> str:
    """Send embedded resources (text and blob) in a message and in a tool call."""
    _send(turn, "resource")
    return "end_turn"


def link(turn: Turn, arg: str) -> str:
    """Send a resource_link block in a message and in a tool call."""
    _send(turn, "link")
    return "end_turn"


def media(turn: Turn, arg: str) -> str:
    """Send image, audio, resource and link blocks, one after another."""
    for kind in ("image", "audio", "resource", "link"):
        _send(turn, kind)
    return "end_turn"
