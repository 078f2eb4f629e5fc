"""Non-text content as one placeholder, the same in every face (view model)."""

from __future__ import annotations

import subprocess
import sys

from acphost import schema as s
from acphost.view import Media, media_line, media_of

PNG = "iVBORw0KGgo" * 50


def test_text_is_not_media():
    assert media_of(s.TextContentBlock(text="hi")) is None


def test_each_kind_says_what_it_is():
    image = s.ImageContentBlock(
        data=PNG,
        mime_type="image/png",
        uri="file:///ws/shot.png",
        annotations=s.Annotations(audience=["user"], priority=0.5),
    )
    assert media_line(media_of(image)) == (
        "[image] file:///ws/shot.png · image/png · 412 B (for user · priority 0.5)"
    )
    audio = s.AudioContentBlock(data=PNG[:400], mime_type="audio/wav")
    assert media_line(media_of(audio)) == "[audio] audio/wav · 300 B"
    link = s.ResourceLinkContentBlock(
        name="notes.md", uri="file:///ws/notes.md", mime_type="text/markdown", size=2048
    )
    assert media_line(media_of(link)) == (
        "[resource_link] notes.md · text/markdown · 2.0 KB · file:///ws/notes.md"
    )
    embedded = s.EmbeddedResourceContentBlock(
        resource=s.TextResourceContents(uri="file:///ws/a.py", text="x = 1\n")
    )
    assert media_line(media_of(embedded)) == "[resource] file:///ws/a.py · 6 characters"


def test_an_unknown_block_is_a_placeholder_and_long_names_are_cut():
    unknown = s.UnknownContentBlock.from_wire({"type": "hologram", "data": "x"})
    media = media_of(unknown)
    assert media is not None and media.kind == "hologram"
    assert "unknown content type" in media_line(media)
    long = s.ResourceLinkContentBlock(name="n" * 10_000, uri="u" * 10_000)
    shown = media_of(long)
    assert isinstance(shown, Media)
    assert len(shown.name) <= 80 and all(len(d) <= 80 for d in shown.details)


def test_piped_text_output_shows_every_media_block(tmp_path):
    """They used to print as blank lines in ``-o text``; ``-o simple`` stays text only."""
    run = [sys.executable, "-m", "acphost", "-a", "demo", "--cwd", str(tmp_path)]
    text = subprocess.run(
        [*run, "media"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    for kind in ("[image] ", "[audio] ", "[resource] ", "[resource_link] "):
        assert any(line.startswith(kind) for line in text.splitlines()), (kind, text)
    simple = subprocess.run(
        [*run, "-o", "simple", "media"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    assert "[image]" not in simple and "Here is an image" in simple


def test_history_show_and_exports_keep_the_media_lines(tmp_path):
    """A recorded turn's images and resources printed as blank lines in ``history show``."""
    import json

    run = [sys.executable, "-m", "acphost"]
    subprocess.run(
        [*run, "-a", "demo", "--cwd", str(tmp_path), "media"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    listed = subprocess.run(
        [*run, "history", "-o", "json"], capture_output=True, text=True, timeout=60, check=True
    ).stdout
    session_id = json.loads(listed)[0]["id"]
    shown = subprocess.run(
        [*run, "history", "show", session_id],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    for kind in ("[image] ", "[audio] ", "[resource] ", "[resource_link] "):
        assert any(line.startswith(kind) for line in shown.splitlines()), (kind, shown)
    for fmt in ("md", "html"):
        out = tmp_path / f"export.{fmt}"
        subprocess.run(
            [*run, "history", "export", session_id, "--format", fmt, "--out", str(out)],
            capture_output=True, text=True, timeout=60, check=True,
        )  # fmt: skip
        assert "image/png · 137 B" in out.read_text(), fmt
