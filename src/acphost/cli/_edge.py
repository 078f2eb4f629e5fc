"""The command line's output edge: what the agent sent, made safe where it is shown.

Agent text is untrusted. Where output is a terminal it goes through
:func:`acphost.safetext.sanitize` (or :func:`~acphost.safetext.sanitize_line`
for one-line fields) exactly once, here; stderr is treated as a terminal
always. Where stdout is a pipe or a file the text is data and stays exact.

A terminal is styled (rich: Markdown, colours, a live display that is
redrawn as text streams) only when it can move its cursor; one whose
``TERM`` is unset, empty, ``dumb`` or ``unknown`` (an Emacs shell, many CI
runners) cannot, so it gets the plain output a pipe gets, still sanitised:
:func:`is_styled_terminal` is that one decision.

A live display on stdout (the streaming Markdown tail) owns the last lines
of the terminal; anything written to stderr while it is shown must erase it
first, or the two overwrite each other. :func:`before_stderr` is that hook:
the live display registers itself, every stderr writer calls it.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TextIO

from ..safetext import sanitize, sanitize_line

if TYPE_CHECKING:
    import logging

    from rich.markdown import Markdown

__all__ = [
    "ChunkCleaner",
    "Edge",
    "agent_markdown",
    "before_stderr",
    "is_held",
    "is_styled_terminal",
    "is_terminal",
    "markdown_class",
    "set_log_redactor",
    "set_stderr_hook",
    "stderr_log_handler",
    "stderr_redacted",
    "stderr_text",
    "terminal_held",
    "warn",
]


def agent_markdown(text: str) -> Markdown:
    """The agent's Markdown, ready for a terminal: sanitised, hyperlinks off.

    A link shows its target as text: the agent chooses both the words and
    the target, so a terminal hyperlink (OSC 8) could make one read as the
    other. Every terminal rendering of agent Markdown goes through here.

    Args:
        text: the agent's Markdown, raw.

    Returns:
        A rich renderable.

    """
    return markdown_class()(sanitize(text), hyperlinks=False)


_MARKDOWN: type[Markdown] | None = None


def markdown_class() -> type[Markdown]:
    """Rich's ``Markdown``, parsing without HTML: every terminal rendering of agent text uses it.

    Markdown allows inline and block HTML, which rich does not draw: ``List<String>``
    would show as ``List`` and a ``<div>`` line not at all. Message text is never
    HTML to us, so with ``html`` off the parser keeps those characters as text.
    Line breaks inside a paragraph are kept (hard breaks), as the agent sent them.
    rich builds its parser inside ``Markdown.__init__``, so the subclass parses the
    source itself (the base is given an empty one, which costs nothing).
    """
    global _MARKDOWN  # noqa: PLW0603 - built once, on a terminal's first Markdown
    if _MARKDOWN is None:
        from markdown_it import MarkdownIt  # noqa: PLC0415 - rich loads only for a terminal
        from rich.markdown import Markdown  # noqa: PLC0415

        parser = MarkdownIt("commonmark", {"html": False}).enable(["strikethrough", "table"])

        class TextMarkdown(Markdown):
            def __init__(self, markup: str, **kwargs: Any) -> None:
                super().__init__("", **kwargs)
                self.markup = markup
                self.parsed = tokens = parser.parse(markup)
                # A newline the agent sent is a newline on the terminal: a
                # stream of one line per chunk, a poem, a log stay lines
                # (CommonMark joins a paragraph's lines with a space).
                for token in tokens:
                    for child in token.children or ():
                        if child.type == "softbreak":
                            child.type = "hardbreak"

        _MARKDOWN = TextMarkdown
    return _MARKDOWN


def is_terminal(stream: TextIO | None) -> bool:
    """Whether ``stream`` is a terminal (a closed or missing stream is not)."""
    if stream is None:
        return False
    try:
        return stream.isatty()
    except (ValueError, OSError):
        return False


#: ``TERM`` values of a terminal that cannot move its cursor or show styles
#: (none at all, or one that says so; rich takes "dumb" and "unknown" alike).
_DUMB_TERMS = frozenset({"", "dumb", "unknown"})


def is_styled_terminal(stream: TextIO | None, environ: Mapping[str, str] | None = None) -> bool:
    """Whether ``stream`` is a terminal that acphost styles and redraws (with rich).

    A live display redraws its lines by moving the cursor up; on a terminal
    that cannot (``TERM`` unset, empty, ``dumb`` or ``unknown``) each redraw
    would be appended again. Such a terminal gets plain output, as a pipe
    does, but still sanitised: :func:`is_terminal` decides the cleaning.

    Args:
        stream: the output (stdout, stderr).
        environ: the variables of the process whose terminal it is (default ours).

    Returns:
        True for a terminal whose ``TERM`` names a capable type.

    """
    term = (os.environ if environ is None else environ).get("TERM", "").strip().lower()
    return term not in _DUMB_TERMS and is_terminal(stream)


def _same(text: str) -> str:
    return text


class Edge:
    """How agent text is cleaned for one output.

    Args:
        terminal: the output is a terminal: escape controls; else keep text exact.
        redact: masks the configured secrets first (reports about the agent:
            ``doctor``, ``sessions``; not the answer a prompt run prints).

    Attributes:
        text: cleans multi-line text (messages, diff lines, stderr tails).
        field: cleans a one-line field (a title, a path, a table cell).

    """

    __slots__ = ("field", "terminal", "text")

    def __init__(self, terminal: bool, redact: Callable[[str], str] | None = None) -> None:
        self.terminal = terminal
        text: Callable[[str], str] = sanitize if terminal else _same
        field: Callable[[str], str] = sanitize_line if terminal else _same
        self.text: Callable[[str], str] = text
        self.field: Callable[[str], str] = field
        if redact is not None:

            def redacted_text(value: str) -> str:
                return text(redact(value))

            def redacted_field(value: str) -> str:
                return field(redact(value))

            self.text, self.field = redacted_text, redacted_field


class ChunkCleaner:
    r"""Cleans streamed text chunk by chunk, as if it came in one piece.

    A ``\r\n`` line end split across two chunks must stay a line end, so a
    trailing ``\r`` is held back until the next chunk (or :meth:`flush`).

    Args:
        edge: the output's edge.

    """

    __slots__ = ("_clean", "_held")

    def __init__(self, edge: Edge) -> None:
        self._clean = edge.text if edge.terminal else None
        self._held = ""

    def feed(self, text: str) -> str:
        """Return the cleaned text that can be written now."""
        if self._clean is None:
            return text
        if self._held:
            text = self._held + text
            self._held = ""
        if text.endswith("\r"):
            self._held = "\r"
            text = text[:-1]
        return self._clean(text)

    def flush(self) -> str:
        """Return what was held back (at the end of a message)."""
        held, self._held = self._held, ""
        return self._clean(held) if self._clean is not None and held else held


_stderr_hook: Callable[[], None] | None = None


def set_stderr_hook(hook: Callable[[], None] | None) -> None:
    """Register (or remove, with None) what must run before anything is written to stderr."""
    global _stderr_hook  # noqa: PLW0603 - one live display per process
    _stderr_hook = hook


def before_stderr() -> None:
    """Let a live display on the terminal step aside before stderr is written."""
    if _stderr_hook is not None:
        _stderr_hook()


_held = 0


@contextlib.contextmanager
def terminal_held() -> Iterator[None]:
    """Keep live displays off the terminal while a question is on it."""
    global _held  # noqa: PLW0603 - one terminal per process
    before_stderr()
    _held += 1
    try:
        yield
    finally:
        _held -= 1


def is_held() -> bool:
    """Whether a question holds the terminal (live displays wait)."""
    return _held > 0


_log_redactor: Callable[[str], str] | None = None


def stderr_redacted(text: str) -> str:
    """``text`` with the configured secrets masked (every stderr line passes here).

    Masking starts once the run named its redactor (:func:`set_log_redactor`).
    """
    return _log_redactor(text) if _log_redactor is not None else text


def stderr_text(text: str) -> str:
    """Text for stderr: the configured secrets masked, terminal controls made visible."""
    return sanitize(stderr_redacted(text))


def warn(message: str, *, stream: TextIO | None = None) -> None:
    """Print ``acphost: message`` on stderr, redacted and sanitised (it may quote the agent)."""
    before_stderr()
    out = stream if stream is not None else sys.stderr
    try:
        out.write(f"acphost: {stderr_text(message)}\n")
        out.flush()
    except (OSError, ValueError):
        pass  # stderr is gone: nothing more can be said


def set_log_redactor(redactor: Callable[[str], str]) -> None:
    """Redact the log lines on stderr with the run's redactor (it knows the configured secrets)."""
    global _log_redactor  # noqa: PLW0603 - one run per process
    _log_redactor = redactor


def stderr_log_handler() -> logging.Handler:
    """A logging handler for stderr, the edge of every warning and debug line.

    Lines quote the agent (its frames, its stderr): secrets are redacted (by
    the run's redactor once :func:`set_log_redactor` named it, else by the
    known formats), then terminal controls made visible; a live display
    steps aside first.
    """
    import logging  # noqa: PLC0415 - only when logging is set up

    class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
        def format(self, record: logging.LogRecord) -> str:
            global _log_redactor  # noqa: PLW0603 - one run per process
            if _log_redactor is None:
                from ..redact import Redactor  # noqa: PLC0415 - at the first line logged

                _log_redactor = Redactor()
            return sanitize(_log_redactor(super().format(record)))

        def emit(self, record: logging.LogRecord) -> None:
            before_stderr()
            super().emit(record)

    return StderrHandler(sys.stderr)
