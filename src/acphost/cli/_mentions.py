"""``@`` mentions in a prompt become ``resource_link`` blocks.

``@path``, ``@"path with spaces"``, ``@~/notes.md`` and ``@https://…`` are
recognised at the start of the prompt or after whitespace (so
``me@example.com`` is not a mention). The prompt text is kept intact; one
link block per distinct mention follows it. Relative paths resolve against
the session cwd into absolute ``file://`` URIs. A bare ``@word`` that names
no existing file is left as text (``@everyone``); a quoted one always links.
"""

from __future__ import annotations

import os
import re

__all__ = ["Mention", "find_mentions"]

_MENTION = re.compile(r'(?:(?<=\s)|^)@(?:"(?P<quoted>[^"\n]+)"|(?P<bare>[^\s"]+))')
_TRAILING = ".,;:!?)]}'"


class Mention:
    """One mention: the target as written and what it resolves to.

    Attributes:
        text: the mention as written, without ``@``.
        target: an absolute path or a URL.
        is_url: whether ``target`` is a URL.

    """

    __slots__ = ("is_url", "target", "text")

    def __init__(self, text: str, target: str, is_url: bool) -> None:
        self.text = text
        self.target = target
        self.is_url = is_url

    def __repr__(self) -> str:
        return f"Mention({self.text!r} -> {self.target!r})"


def find_mentions(prompt: str, cwd: str) -> list[Mention]:
    """Return the distinct mentions of ``prompt``, in order of appearance.

    Args:
        prompt: the prompt text.
        cwd: the directory relative paths are resolved against.

    """
    found: list[Mention] = []
    seen: set[str] = set()
    for match in _MENTION.finditer(prompt):
        quoted = match.group("quoted")
        text = quoted if quoted is not None else match.group("bare").rstrip(_TRAILING)
        if not text:
            continue
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", text):
            target, is_url = text, True
        else:
            path = os.path.expanduser(text)
            if not os.path.isabs(path):
                path = os.path.join(cwd, path)
            path = os.path.normpath(path)
            if quoted is None and not os.path.exists(path):
                continue
            target, is_url = path, False
        if target not in seen:
            seen.add(target)
            found.append(Mention(text, target, is_url))
    return found
