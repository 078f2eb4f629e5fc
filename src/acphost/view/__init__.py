"""The view model: what a session's content looks like, decided once for every face.

Faces (the CLI's renderers, the TUI's widgets, history exports, batch reports)
style these pieces; they do not decide what a kind of content shows. A piece
carries the agent's strings as sent: each face makes them safe at its own edge
(the terminal sanitiser, HTML or Markdown escaping), so piped output stays exact.

- :func:`media_of`: a content block that is not text (image, audio, embedded
  resource, resource link, an unknown type) as a :class:`Media` placeholder:
  its kind, name, MIME type, size and annotations; :func:`media_line` is its
  one-line form (``[image] shot.png · image/png · 1.2 KB``).
"""

from __future__ import annotations

from ._media import Media, annotations_text, human_size, media_line, media_of

__all__ = ["Media", "annotations_text", "human_size", "media_line", "media_of"]
